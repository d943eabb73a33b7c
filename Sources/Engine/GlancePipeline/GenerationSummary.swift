import GlanceContainer

/// What a batch did: the `--json` output of `glance generate`, and its closing summary.
public struct GenerationSummary: Codable, Sendable, Equatable {
    /// A document without a thumbnail, and why.
    public struct Failure: Codable, Sendable, Equatable {
        public var path: String
        public var error: String
    }

    /// Documents rendered in this run.
    public var rendered = 0
    /// Documents whose thumbnails were already fresh.
    public var fresh = 0
    /// Documents of no supported type.
    public var unsupported = 0
    /// Documents without a thumbnail because rendering failed (in this run or remembered).
    public var failed = 0
    /// Each failed document with its reason, sorted by path.
    public var failures: [Failure] = []
    /// Renamed or moved documents whose thumbnails followed them.
    public var moved = 0
    /// Documents that another batch on the same store rendered while this one waited for them.
    public var renderedElsewhere = 0
    /// Entries of the container passed over on purpose (hidden, not regular files, links that
    /// lead out, paths too long), by reason.
    public var skipped = ContainerScan.Skipped()
    /// Folders that could not be read, with the reason: their documents were not seen.
    public var unreadableFolders: [Failure] = []
    /// Wall-clock time of the run.
    public var seconds = 0.0
    /// Documents rendered per second.
    public var documentsPerSecond = 0.0
    /// The bytes of the thumbnails this run made, by size key (`1024x1024`, `256x256`, …).
    public var thumbnailBytesBySize: [String: Int64] = [:]
    /// The store's size on disk at the end (filled in by the front end that knows the store).
    public var sidecarBytes: Int64 = 0

    public init() {}
}

/// What a batch says while it works (for progress bars).
public enum GenerationEvent: Sendable {
    /// The plan is made: `total` documents will be rendered.
    case planned(total: Int)
    /// A document has been handed to a worker.
    case started(path: String)
    /// A document is done: `done` of `total`.
    case finished(path: String, done: Int, total: Int)
}
