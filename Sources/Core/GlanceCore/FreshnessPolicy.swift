/// The state of a document's thumbnail, as every command sees it: the listing shows it, and a
/// batch renders what is not `fresh`, `failed` or `unsupported` (see ``FreshnessPolicy``).
public enum ThumbnailState: String, Sendable, Codable, CaseIterable {
    /// A thumbnail made from the file as it is now.
    case fresh
    /// The record no longer describes the file (its size or modification time changed), or it
    /// is one that a newer Glance would redo: `generate` renders it.
    case stale
    /// No record: never rendered.
    case missing
    /// Rendering failed (the reason is in the record's `error`); not retried until the file
    /// changes, Glance's version changes, or `--retry-failed`.
    case failed
    /// Not a supported document type.
    case unsupported
}

/// The one freshness rule: decides, from a record and a `stat`, a document's ``ThumbnailState``
/// and whether a batch must render it. `generate`, `list`, `show`, `export`, the indexer and
/// the server all ask this type, so they never disagree.
///
/// The rule: a record describes the file when the file's size and modification time (ns) match
/// it. Device and inode are not compared: they differ between two NFS clients of one file and
/// change when a file is restored from a backup; they serve to recognise renames instead (see
/// `GenerationPlan`). An unchanged container so costs one `stat` per document. A record that
/// describes its file is then:
/// - `fresh` when it holds the standard thumbnail and every one of the store's smaller sizes
///   (``ThumbnailSizes``; a size the standard thumbnail fits as it is counts as held:
///   ``StoredDocument/thumbnail(sizeKey:)``), and for a PDF its page count, for a text its encoding
///   (``DocumentDetails``);
/// - `stale` when it is `fresh` without one of them (a record made before Glance kept them), or
///   `failed` / `unsupported` as
///   recorded by another Glance version (a newer renderer may succeed where an older one failed);
/// - otherwise `failed` or `unsupported` as recorded.
public struct FreshnessPolicy: Sendable {
    /// The version of Glance that applies the rule (records by other versions may be redone).
    public var generatorVersion: String
    /// Render every document, whatever its state.
    public var force: Bool
    /// Render documents whose failure is remembered.
    public var retryFailed: Bool
    /// The smaller sizes a fresh record holds besides the standard one (the store's setting).
    public var sizes: ThumbnailSizes

    public init(
        generatorVersion: String, force: Bool = false, retryFailed: Bool = false,
        sizes: ThumbnailSizes = .standard
    ) {
        self.generatorVersion = generatorVersion
        self.force = force
        self.retryFailed = retryFailed
        self.sizes = sizes
    }

    /// Whether `record` still describes the file whose `stat` is `identity`.
    public static func describes(_ record: DocumentRecord, _ identity: FileIdentity) -> Bool {
        record.identity.size == identity.size && record.identity.modifiedNanoseconds == identity.modifiedNanoseconds
    }

    /// The state of a document whose record is `stored` (nil: none) and whose file is `identity`.
    public func state(of stored: StoredDocument?, identity: FileIdentity) -> ThumbnailState {
        guard let stored else { return .missing }
        let record = stored.record
        guard Self.describes(record, identity) else { return .stale }
        switch record.state {
        case .fresh:
            let complete =
                stored.thumbnail(sizeKey: ThumbnailImage.standardSizeKey) != nil
                && sizes.sizeKeys.allSatisfy { stored.thumbnail(sizeKey: $0) != nil }
            return complete && Self.hasDetails(record) ? .fresh : .stale
        case .unsupported:
            return record.generatorVersion == generatorVersion ? .unsupported : .stale
        case .failed:
            return record.generatorVersion == generatorVersion ? .failed : .stale
        }
    }

    /// Whether a fresh record holds the details its kind has: a PDF's page count, a text's
    /// encoding.
    static func hasDetails(_ record: DocumentRecord) -> Bool {
        switch record.contentType {
        case .pdf: record.details?.pageCount != nil
        case .text: record.details?.textEncoding != nil
        default: true
        }
    }

    /// What a batch does with a document.
    public enum Decision: Sendable, Equatable {
        /// Keep the record: the thumbnail (or the remembered failure) is current.
        case keep(DocumentState)
        /// Render it.
        case render
    }

    /// The decision for a document whose record is `stored` (nil: none) and whose file is `identity`.
    public func decide(_ stored: StoredDocument?, identity: FileIdentity) -> Decision {
        if force { return .render }
        switch state(of: stored, identity: identity) {
        case .fresh: return .keep(.fresh)
        case .unsupported: return .keep(.unsupported)
        case .failed: return retryFailed ? .render : .keep(.failed)
        case .stale, .missing: return .render
        }
    }
}
