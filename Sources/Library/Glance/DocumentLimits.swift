import GlanceCore
import GlancePipeline

/// What one document may be before it is refused without being decoded: its decoded pixels and
/// its size on disk. The defaults are the command line's (`ThumbnailLimits`).
public struct DocumentLimits: Sendable, Equatable {
    /// Images that would need more decoded pixels are refused.
    public var maxPixels: Int
    /// Images and PDFs larger than this are refused (a text: only its start is read).
    public var maxFileBytes: Int

    public init(
        maxPixels: Int = ThumbnailLimits.defaultMaxPixels, maxFileBytes: Int = ThumbnailLimits.defaultMaxFileBytes
    ) {
        self.maxPixels = maxPixels
        self.maxFileBytes = maxFileBytes
    }

    /// An indexer's options for this Glance version under these limits, a refusal naming the
    /// setting as `names` do (by default, as this library's types name them).
    public func indexerOptions(naming names: LimitNames = DocumentLimits.limitNames) -> Indexer.Options {
        var options = Indexer.Options(generatorVersion: GlanceVersion.current)
        options.maxPixels = maxPixels
        options.maxFileBytes = maxFileBytes
        options.limitNames = names
        return options
    }

    /// How this library names the setting of each limit in a refusal's reason.
    public static let limitNames = LimitNames([
        .maxPixels: "DocumentLimits.maxPixels", .maxFileSize: "DocumentLimits.maxFileBytes",
        .memory: "RendererSettings.limits.memoryMiB", .time: "RendererSettings.limits.timeoutSeconds",
        .cpuTime: "RendererSettings.limits.cpuSeconds", .sandbox: "RendererSettings.sandbox",
        .officeTime: "RendererSettings.office.limits.timeoutSeconds",
        .officeMemory: "RendererSettings.office.limits.memoryMiB",
    ])
}
