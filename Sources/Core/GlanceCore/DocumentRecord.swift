#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The state of a document's thumbnail dictionary as recorded in the store.
public enum DocumentState: String, Sendable, Codable, CaseIterable, CodingKeyRepresentable {
    /// Thumbnails were made from the file as its identity describes.
    case fresh
    /// Rendering failed; the record's `error` says why. Not retried until the file changes, the
    /// generator version changes, or the user asks.
    case failed
    /// The file is not a supported document type.
    case unsupported
}

/// One document's record in the sidecar: its promised-item attributes as of the last render.
public struct DocumentRecord: Sendable, Equatable, Codable {
    /// Path relative to the container, `/`-separated, no leading `./`.
    public var path: String
    /// The file's identity when it was rendered.
    public var identity: FileIdentity
    /// Content digest (hex), if known: lets a thumbnail follow a document moved by copy + delete.
    public var digest: String?
    /// The sniffed content type (nil when unsupported).
    public var contentType: ContentType?
    /// Whether thumbnails were made, rendering failed, or the type is unsupported.
    public var state: DocumentState
    /// Why rendering failed, for `failed` (and the detail of `unsupported`).
    public var error: String?
    /// The Glance version that made this record.
    public var generatorVersion: String
    /// When the record was made (``SidecarStore`` keeps it to the millisecond).
    public var generatedAt: Date
    /// How long rendering took, in milliseconds (used to estimate future runs).
    public var renderMilliseconds: Int?
    /// What the render learned besides the thumbnails: pages, their sizes, a text's encoding.
    public var details: DocumentDetails?

    /// Creates a record; `generatedAt` defaults to now.
    public init(
        path: String, identity: FileIdentity, digest: String? = nil, contentType: ContentType?,
        state: DocumentState, error: String? = nil, generatorVersion: String, generatedAt: Date = Date(),
        renderMilliseconds: Int? = nil, details: DocumentDetails? = nil
    ) {
        self.path = path
        self.identity = identity
        self.digest = digest
        self.contentType = contentType
        self.state = state
        self.error = error
        self.generatorVersion = generatorVersion
        self.generatedAt = generatedAt
        self.renderMilliseconds = renderMilliseconds
        self.details = details
    }
}

/// One entry of a thumbnail dictionary: a size key (`1024x1024`) and the encoded image.
public struct ThumbnailImage: Sendable, Equatable, Codable {
    /// The size key, like `NSThumbnail1024x1024SizeKey`: the box the image fits.
    public var sizeKey: String
    /// How the image is encoded.
    public var format: ImageFormat
    /// The image's width in pixels.
    public var width: Int
    /// The image's height in pixels.
    public var height: Int
    /// Length of the encoded image in bytes.
    public var byteCount: Int
    /// The encoded bytes; nil when the caller asked for the dictionary without the images.
    public var data: [UInt8]?
    /// The image's average colour (`#rrggbb`, over white): a placeholder to show until the image
    /// arrives. Nil for thumbnails made before Glance recorded it.
    public var averageColour: String?
    /// The image's ThumbHash (base64, about 28 characters): a blurred picture of it for pages to
    /// draw until it arrives. The same for every size of a document; nil when not made.
    public var thumbHash: String?

    /// The size key of the standard thumbnail.
    public static let standardSizeKey = "1024x1024"

    /// An entry with its encoded bytes; `byteCount` is their length.
    public init(
        sizeKey: String = ThumbnailImage.standardSizeKey, format: ImageFormat, width: Int, height: Int, data: [UInt8],
        averageColour: String? = nil, thumbHash: String? = nil
    ) {
        self.sizeKey = sizeKey
        self.format = format
        self.width = width
        self.height = height
        self.byteCount = data.count
        self.data = data
        self.averageColour = averageColour
        self.thumbHash = thumbHash
    }

    /// An entry without its bytes, as listings return it.
    public init(
        sizeKey: String, format: ImageFormat, width: Int, height: Int, byteCount: Int, averageColour: String? = nil,
        thumbHash: String? = nil
    ) {
        self.sizeKey = sizeKey
        self.format = format
        self.width = width
        self.height = height
        self.byteCount = byteCount
        self.data = nil
        self.averageColour = averageColour
        self.thumbHash = thumbHash
    }
}

/// A record with its thumbnail dictionary.
public struct StoredDocument: Sendable, Equatable {
    /// The document's attributes.
    public var record: DocumentRecord
    /// The thumbnail dictionary, by size key order; images carry `data` only when asked for.
    public var thumbnails: [ThumbnailImage]

    /// Pairs a record with its thumbnail dictionary.
    public init(record: DocumentRecord, thumbnails: [ThumbnailImage]) {
        self.record = record
        self.thumbnails = thumbnails
    }
}
