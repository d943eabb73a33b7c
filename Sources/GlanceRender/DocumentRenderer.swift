/// What a renderer is asked for.
public struct RenderRequest: Sendable {
    /// The document's path in the file system.
    public var path: String
    /// The box the thumbnail must fit (1024 for the `1024x1024` size key).
    public var maxSide: Int
    /// Refuse images whose decoded pixel count would exceed this.
    public var maxPixels: Int
    /// Working-memory cap for libjpeg (progressive JPEGs keep every coefficient in memory).
    public var maxDecoderMemoryBytes: Int

    /// The default pixel limit: 100 megapixels.
    public static let defaultMaxPixels = 100_000_000
    /// The default libjpeg working-memory cap: 512 MiB.
    public static let defaultMaxDecoderMemoryBytes = 512 << 20

    public init(
        path: String, maxSide: Int = ThumbnailGeometry.defaultMaxSide, maxPixels: Int = defaultMaxPixels,
        maxDecoderMemoryBytes: Int = defaultMaxDecoderMemoryBytes
    ) {
        self.path = path
        self.maxSide = maxSide
        self.maxPixels = maxPixels
        self.maxDecoderMemoryBytes = maxDecoderMemoryBytes
    }
}

/// A rendered thumbnail and what the renderer noticed on the way.
public struct RenderedThumbnail: Sendable {
    /// The thumbnail pixels, upright and fitting the requested box.
    public var image: PixelBuffer
    /// The source's displayed size (after EXIF orientation or PDF /Rotate), in pixels or points.
    public var sourceWidth: Int
    public var sourceHeight: Int
    /// Things worth telling in `--verbose` output or JSON (recovered corruption and the like).
    public var warnings: [String]

    public init(image: PixelBuffer, sourceWidth: Int, sourceHeight: Int, warnings: [String] = []) {
        self.image = image
        self.sourceWidth = sourceWidth
        self.sourceHeight = sourceHeight
        self.warnings = warnings
    }
}

/// One renderer per content type, in the manner of a Quick Look generator: a new format is one
/// new type conforming to this protocol, registered in ``Thumbnailer``.
public protocol DocumentRenderer: Sendable {
    /// The content type this renderer draws.
    var contentType: ContentType { get }
    /// Renders the thumbnail of the document at `request.path`.
    func render(_ request: RenderRequest) throws(ThumbnailError) -> RenderedThumbnail
}
