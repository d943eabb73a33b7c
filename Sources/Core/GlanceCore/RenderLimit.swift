/// The limits a render can run into, each set by the front door that started it: a command-line
/// option, a library setting. Errors say which limit (``ThumbnailError/limit``) without naming how
/// it is set; the front door adds its own name for it (``LimitNames``), so a message from a
/// server or the library never tells its reader to pass an option they cannot pass.
public enum RenderLimit: String, Sendable, Codable, CaseIterable {
    /// The decoded pixels an image may need.
    case maxPixels
    /// The size of an image or PDF file.
    case maxFileSize
    /// The renderer's address space.
    case memory
    /// The wall-clock time one document may take.
    case time
    /// The CPU time one document may use.
    case cpuTime
    /// The wall-clock time one office document may take in an office renderer.
    case officeTime
    /// An office renderer's address space.
    case officeMemory
    /// Running renderers without a sandbox.
    case sandbox
}

/// How a front door names the settings of each ``RenderLimit``, for the hint after a refusal:
/// `image of 20000x20000 exceeds the 100-megapixel limit (--max-pixels)` on the command line.
public struct LimitNames: Sendable, Equatable {
    /// The names, by limit; a limit without one gets no hint.
    public var names: [RenderLimit: String]

    public init(_ names: [RenderLimit: String]) {
        self.names = names
    }

    /// No hints: the message alone.
    public static let none = LimitNames([:])

    /// `reason`, followed by the name of the setting of `limit` when there is one: `reason (NAME)`.
    public func hinted(_ reason: String, _ limit: RenderLimit?) -> String {
        guard let limit, let name = names[limit] else { return reason }
        return "\(reason) (\(name))"
    }
}
