import GlanceContainer
import GlanceCore
import GlancePipeline

/// What `glance hook` asks a running watcher: refresh these documents (paths relative to the
/// container). One JSON line on the hook socket.
public struct HookRequest: Codable, Sendable, Equatable {
    public var paths: [String]
    /// Instead of documents, how the watcher does (`glance status`): answered by one
    /// ``HookStatus`` line. Absent in a request for documents.
    public var status: Bool?

    public init(paths: [String], status: Bool? = nil) {
        self.paths = paths
        self.status = status
    }
}

/// How a watcher (of `glance watch` or `glance serve --watch`) does, as `glance status` shows
/// it: its process, whether it is ready (its store and a renderer answer, as `/readyz` asks),
/// whether every folder is watched, and its work.
public struct HookStatus: Codable, Sendable, Equatable {
    /// The command running the watcher (`glance watch`, `glance serve`), and its process.
    public var command: String
    public var pid: Int32
    /// Seconds since the watcher started.
    public var uptimeSeconds: Int
    /// Whether the store and a renderer answer, and what did not.
    public var ready: Bool
    public var problems: [String]
    /// Whether every folder is watched, and how many catch-up passes ran.
    public var watching: Bool
    public var catchUpPasses: Int
    /// Jobs waiting for a renderer, by lane.
    public var queuedInteractive: Int
    public var queuedPreviews: Int
    public var queuedBatch: Int
    /// Renderer processes started so far.
    public var renderersStarted: Int

    public init(
        command: String, pid: Int32, uptimeSeconds: Int, ready: Bool, problems: [String], watching: Bool,
        catchUpPasses: Int, queuedInteractive: Int, queuedPreviews: Int, queuedBatch: Int, renderersStarted: Int
    ) {
        self.command = command
        self.pid = pid
        self.uptimeSeconds = uptimeSeconds
        self.ready = ready
        self.problems = problems
        self.watching = watching
        self.catchUpPasses = catchUpPasses
        self.queuedInteractive = queuedInteractive
        self.queuedPreviews = queuedPreviews
        self.queuedBatch = queuedBatch
        self.renderersStarted = renderersStarted
    }
}

/// What became of one document of a hook request: one JSON line each on the hook socket, and what
/// `glance hook` prints (`PATH fresh 1024x683 jpeg`, `PATH failed: reason`, `PATH removed`).
public struct HookAnswer: Codable, Sendable, Equatable {
    /// What became of the document: a record's state, or one of two outcomes that leave none.
    public enum State: String, Codable, Sendable, Equatable {
        case fresh, failed, unsupported
        /// The file is gone; its record was dropped.
        case removed
        /// The request could not be served for this document (see `error`).
        case error

        /// The answer's state for a record's.
        public init(_ state: DocumentState) {
            switch state {
            case .fresh: self = .fresh
            case .failed: self = .failed
            case .unsupported: self = .unsupported
            }
        }
    }

    public var path: String
    public var state: State
    public var width: Int?
    public var height: Int?
    public var format: String?
    public var error: String?

    public init(path: String, state: State, error: String? = nil) {
        self.path = path
        self.state = state
        self.error = error
    }

    /// The answer for a saved record.
    public init(_ stored: StoredDocument) {
        path = stored.record.path
        state = State(stored.record.state)
        error = stored.record.error
        if let image = stored.thumbnails.first(where: { $0.sizeKey == ThumbnailImage.standardSizeKey }) {
            width = image.width
            height = image.height
            format = image.format.rawValue
        }
    }

    /// The answer for an indexer's outcome.
    public init(_ outcome: DocumentOutcome) {
        switch outcome {
        case .recorded(let stored): self.init(stored)
        case .removed(let path): self.init(path: path, state: .removed)
        case .cancelled(let path): self.init(path: path, state: .error, error: "cancelled: the watcher is stopping")
        case .storeFailed(let path, let error): self.init(path: path, state: .error, error: error.description)
        }
    }

    /// What follows the path on `glance hook`'s line: `fresh 1024x683 jpeg`, `failed: reason`.
    public var summary: String {
        switch state {
        case .fresh:
            if let width, let height, let format { return "fresh \(width)x\(height) \(format)" }
            return "fresh"
        case .failed, .error: return "\(state.rawValue): \(error ?? "unknown reason")"
        case .unsupported: return error.map { "unsupported (\($0))" } ?? "unsupported"
        case .removed: return state.rawValue
        }
    }

    /// Whether this document counts as failed for the exit status.
    public var isFailure: Bool { state == .failed || state == .error }
}

/// Where a running watcher listens for hooks: a Unix socket in the store's folder.
public enum HookSocket {
    /// The socket's file name in the store's folder.
    public static let fileName = "hook.sock"

    /// The socket's path for a store folder.
    public static func path(inStore directory: String) -> String { directory + "/" + fileName }

    /// `path` normalised as a document path of the container (``DocumentPath``), or nil if it
    /// is not one.
    public static func checkedPath(_ path: String) -> String? {
        (try? DocumentPath(path))?.relative
    }

    /// The most paths one request may name; a longer list is refused whole (`glance hook` sends
    /// a longer one as several requests).
    public static let maximumPathsPerRequest = 1000

    /// The longest request line, in bytes: 1,000 paths of up to 1 KiB each, quoted.
    public static let maximumRequestBytes = 1 << 20

    /// How many documents are answered together: their answers are sent before the next ones
    /// are looked at, so a request's answers are never all held at once.
    static let answerBatch = 64
}
