import GlanceCore
import GlancePipeline

/// What one document may be before it is refused without being decoded: its decoded pixels and
/// its size on disk. The defaults are the command line's (``ThumbnailLimits``).
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

    /// An indexer's options for this Glance version under these limits.
    public func indexerOptions() -> Indexer.Options {
        var options = Indexer.Options(generatorVersion: GlanceVersion.current)
        options.maxPixels = maxPixels
        options.maxFileBytes = maxFileBytes
        return options
    }
}
