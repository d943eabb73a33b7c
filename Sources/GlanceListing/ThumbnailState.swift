import GlanceCore
import GlanceStore

/// The state of a document's thumbnail, as a listing shows it.
public enum ThumbnailState: String, Sendable, Codable, CaseIterable {
    /// A thumbnail made from the file as it is now.
    case fresh
    /// A thumbnail made from an earlier version of the file (size, mtime or identity changed).
    case stale
    /// No thumbnail and no record: never rendered.
    case missing
    /// Rendering failed (the reason is in `error`); not retried until the file changes.
    case failed
    /// Not a supported document type.
    case unsupported

    /// The state of a document whose file is `identity` and whose record is `stored`.
    public init(stored: StoredDocument?, identity: FileIdentity) {
        guard let stored else {
            self = .missing
            return
        }
        if stored.record.identity != identity {
            self = .stale
            return
        }
        switch stored.record.state {
        case .fresh: self = .fresh
        case .failed: self = .failed
        case .unsupported: self = .unsupported
        }
    }
}
