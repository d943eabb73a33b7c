import GlanceRender

/// A render job sent to a worker process: one line of JSON on its standard input (a Unix
/// socket), sent together with the document's open descriptor (`SCM_RIGHTS`). The worker reads
/// that descriptor and never opens a document by name.
public struct RenderJob: Codable, Sendable, Equatable {
    /// Identifies the job's reply.
    public var id: Int
    /// The document's name (for what a name tells, such as `.txt`, and for the debug triggers).
    public var name: String
    public var maxSide: Int
    public var maxPixels: Int
    /// Whether the worker should also compute the content digest.
    public var computeDigest: Bool
    /// The encoding to produce; nil picks it from the content (``ImageFormat/automatic(for:image:)``).
    public var format: ImageFormat?

    public init(
        id: Int, name: String, maxSide: Int = ThumbnailGeometry.defaultMaxSide,
        maxPixels: Int = RenderRequest.defaultMaxPixels, computeDigest: Bool = true, format: ImageFormat? = nil
    ) {
        self.id = id
        self.name = name
        self.maxSide = maxSide
        self.maxPixels = maxPixels
        self.computeDigest = computeDigest
        self.format = format
    }
}

/// A worker's reply: one line of JSON, followed by `byteCount` bytes of encoded image.
///
/// The coordinator does not trust it: a reply whose id is not the job's, whose byte count is
/// negative or beyond ``maximumByteCount``, or whose image size does not fit the job's box
/// fails the job and costs the worker (see `WorkerProcess`).
public struct RenderOutcome: Codable, Sendable, Equatable {
    /// How the job ended.
    public enum Status: String, Codable, Sendable {
        case rendered
        case unsupported
        case failed
    }

    /// The largest encoded thumbnail a reply may carry: a 4096x4096 RGBA PNG that did not
    /// compress at all is 64 MiB; the rest is headroom.
    public static let maximumByteCount = 96 << 20

    public var id: Int
    public var status: Status
    public var contentType: ContentType?
    /// The reason, for `failed` and `unsupported`.
    public var error: String?
    public var warnings: [String]
    public var format: ImageFormat?
    public var width: Int
    public var height: Int
    public var byteCount: Int
    public var digest: String?
    public var milliseconds: Int
    /// The source's displayed size (pixels, or points for PDF), when rendered.
    public var sourceWidth = 0
    public var sourceHeight = 0
    /// The encoded thumbnail (not part of the JSON line: it follows it on the pipe).
    public var data: [UInt8] = []

    enum CodingKeys: String, CodingKey {
        case id, status, contentType, error, warnings, format, width, height, byteCount, digest, milliseconds
        case sourceWidth, sourceHeight
    }

    public init(
        id: Int, status: Status, contentType: ContentType? = nil, error: String? = nil, warnings: [String] = [],
        format: ImageFormat? = nil, width: Int = 0, height: Int = 0, data: [UInt8] = [], digest: String? = nil,
        milliseconds: Int = 0
    ) {
        self.id = id
        self.status = status
        self.contentType = contentType
        self.error = error
        self.warnings = warnings
        self.format = format
        self.width = width
        self.height = height
        self.byteCount = data.count
        self.data = data
        self.digest = digest
        self.milliseconds = milliseconds
    }
}
