import GlanceCore
import GlanceStore

/// Decides, from a record and a `stat`, whether a document must be rendered again.
///
/// The rule: a record is current when the file's size, modification time (ns), device and inode
/// all match it; nothing else is looked at, so an unchanged container costs one `stat` per
/// document. A current record is then kept as it is, unless:
/// - `force` is set (re-render everything);
/// - it is `failed` and either `retryFailed` is set or a different Glance version made it (a
///   newer renderer may succeed where an older one failed);
/// - it is `fresh` but its thumbnail dictionary lacks the standard size.
public struct FreshnessPolicy: Sendable {
    public var generatorVersion: String
    public var force: Bool
    public var retryFailed: Bool

    public init(generatorVersion: String, force: Bool = false, retryFailed: Bool = false) {
        self.generatorVersion = generatorVersion
        self.force = force
        self.retryFailed = retryFailed
    }

    /// What to do with a document.
    public enum Decision: Sendable, Equatable {
        /// Keep the record: the thumbnail (or the remembered failure) is current.
        case keep(DocumentState)
        /// Render it.
        case render
    }

    /// The decision for a document whose record is `stored` (nil: none) and whose file is `identity`.
    public func decide(_ stored: StoredDocument?, identity: FileIdentity) -> Decision {
        guard let stored, !force else { return .render }
        let record = stored.record
        guard record.identity == identity else { return .render }
        switch record.state {
        case .fresh:
            let hasStandard = stored.thumbnails.contains { $0.sizeKey == ThumbnailImage.standardSizeKey }
            return hasStandard ? .keep(.fresh) : .render
        case .unsupported:
            return record.generatorVersion == generatorVersion ? .keep(.unsupported) : .render
        case .failed:
            return retryFailed || record.generatorVersion != generatorVersion ? .render : .keep(.failed)
        }
    }
}
