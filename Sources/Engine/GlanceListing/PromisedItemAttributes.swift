import Foundation
import GlanceCore

/// A document's attributes as the store promises them: read from the sidecar and one `stat`,
/// never by opening the document, so they stay readable while the content is absent or being
/// written (after `getPromisedItemResourceValues`).
public struct PromisedItemAttributes: Sendable, Equatable {
    /// Path relative to the container.
    public var path: String
    /// The last path component.
    public var name: String
    /// Size in bytes, from `stat`.
    public var size: Int64
    /// Modification time, from `stat`.
    public var modified: Date
    /// The content type: recorded by the last render, or guessed from the name if never rendered.
    public var contentType: ContentType?
    public var state: ThumbnailState
    /// The recorded failure (or unsupported detail).
    public var error: String?
    /// The thumbnail dictionary as stored; images carry bytes only if they were asked for.
    public var thumbnails: [ThumbnailImage]
    /// The store's smaller sizes that the standard thumbnail answers for, smallest first: it fits
    /// their boxes as it is, so they are not stored again
    /// (``ThumbnailSizes/standardServes(side:width:height:)``).
    public var sizesServedByStandard: [String] = []
    /// When the thumbnails were made, and by which Glance version.
    public var generatedAt: Date?
    public var generatorVersion: String?
    /// The digest of the content the record was made from (`sha256:` and hex), if recorded.
    public var digest: String?
    /// What the last render learned besides the thumbnails (a PDF's pages and their sizes, a
    /// text's encoding), while the record still describes the document (fresh or stale).
    public var details: DocumentDetails?

    /// The MIME type (`application/octet-stream` when unknown).
    public var mimeType: String { contentType?.mimeType ?? "application/octet-stream" }

    /// A short kind for people (`JPEG`, `PDF`, `text`, `unknown`).
    public var kind: String { contentType?.rawValue ?? "unknown" }

    /// Attributes from a document's `stat` identity and its record (if any), its state as
    /// `policy` (the one freshness rule) sees it.
    public init(path: String, identity: FileIdentity, stored: StoredDocument?, policy: FreshnessPolicy) {
        self.path = path
        name = path.split(separator: "/").last.map(String.init) ?? path
        size = identity.size
        modified = Date(timeIntervalSince1970: Double(identity.modifiedNanoseconds) / 1e9)
        state = policy.state(of: stored, identity: identity)
        contentType = stored?.record.contentType ?? ContentType(named: name)
        error = state == .failed || state == .unsupported ? stored?.record.error : nil
        thumbnails = state == .fresh || state == .stale ? stored?.thumbnails ?? [] : []
        if let stored, !thumbnails.isEmpty {
            sizesServedByStandard = policy.sizes.sizeKeys.filter { key in
                !thumbnails.contains { $0.sizeKey == key }
                    && stored.thumbnail(sizeKey: key)?.sizeKey == ThumbnailImage.standardSizeKey
            }
        }
        generatedAt = stored?.record.generatedAt
        generatorVersion = stored?.record.generatorVersion
        digest = stored?.record.digest
        details = state == .fresh || state == .stale || state == .unsupported ? stored?.record.details : nil
    }

    /// The standard (`1024x1024`) thumbnail, if there is one.
    public var standardThumbnail: ThumbnailImage? {
        thumbnails.first { $0.sizeKey == ThumbnailImage.standardSizeKey }
    }
}
