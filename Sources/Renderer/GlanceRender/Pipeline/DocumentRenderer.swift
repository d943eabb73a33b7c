import GlanceCore

/// What a renderer is asked for.
public struct RenderRequest: Sendable {
    /// The document, open for reading. Renderers read it through this descriptor only, never by
    /// name, so the file cannot be swapped while it is rendered.
    public var file: OpenFile
    /// The document's name (or path), for what a name can tell: an empty `notes.txt` is text.
    public var name: String
    /// The box the thumbnail must fit (1024 for the `1024x1024` size key).
    public var maxSide: Int
    /// Refuse images whose decoded pixel count would exceed this.
    public var maxPixels: Int
    /// Working-memory cap for libjpeg (progressive JPEGs keep every coefficient in memory).
    public var maxDecoderMemoryBytes: Int
    /// For text, the start of the document as sniffing decoded it (nil: the renderer reads it).
    public var text: DecodedText?
    /// For an archive, its listing as sniffing made it (nil: the renderer lists it).
    public var listing: ArchiveListing?
    /// The page to draw, from 1: a PDF's page; every other document has page 1 only.
    public var page = 1
    /// Whether to read every page's size (see `RenderJob.readsPageSizes`); the count is always given.
    public var readsPageSizes = true

    /// The default pixel limit: 100 megapixels.
    public static let defaultMaxPixels = ThumbnailLimits.defaultMaxPixels
    /// The default libjpeg working-memory cap: 512 MiB.
    public static let defaultMaxDecoderMemoryBytes = 512 << 20

    public init(
        file: OpenFile, name: String, maxSide: Int = ThumbnailGeometry.defaultMaxSide,
        maxPixels: Int = defaultMaxPixels,
        maxDecoderMemoryBytes: Int = defaultMaxDecoderMemoryBytes
    ) {
        self.file = file
        self.name = name
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
    /// The conversion to sRGB from the source's colour profile, when there was one to make.
    public var colour: ColourConversion?
    /// What the renderer learned besides the pixels (a PDF's pages and their sizes).
    public var details: DocumentDetails?
    /// Whether the source was compressed lossily (a lossy WebP): its thumbnail is a photo's, a
    /// JPEG when opaque, as a JPEG source's is.
    public var lossySource = false

    public init(
        image: PixelBuffer, sourceWidth: Int, sourceHeight: Int, warnings: [String] = [],
        colour: ColourConversion? = nil
    ) {
        self.image = image
        self.sourceWidth = sourceWidth
        self.sourceHeight = sourceHeight
        self.warnings = warnings
        self.colour = colour
    }
}

/// Where an encoded thumbnail's leading bytes go while it is still being made (see
/// ``Thumbnailer/render(_:as:encodingAs:sendingLeadingBytesTo:)``): whole PNG chunks, in order.
/// Returns false to stop the render (it then fails).
public typealias EncodedBytesSink = (UnsafeRawBufferPointer) -> Bool

/// A thumbnail encoded while it was made, row by row: its pixels never existed whole, so a
/// worker's memory does not grow with the thumbnail's height. Says what ``RenderedThumbnail`` says.
public struct EncodedThumbnail: Sendable {
    /// The encoded image: all of it, or with a sink, the bytes after the ``leadingByteCount``
    /// already given to the sink.
    public var format: ImageFormat
    public var data: [UInt8]
    /// How many of the image's first bytes went to a sink before `data`: 0 without one.
    public var leadingByteCount = 0
    /// The thumbnail's size in pixels.
    public var width: Int
    public var height: Int
    /// The placeholder colour, `#rrggbb`.
    public var averageColour: String
    /// The source's displayed size.
    public var sourceWidth: Int
    public var sourceHeight: Int
    /// Things worth telling in `--verbose` output or JSON.
    public var warnings: [String]
    /// The conversion to sRGB from the source's colour profile, when there was one to make.
    public var colour: ColourConversion?
    /// What the renderer learned besides the pixels (a PDF's pages and their sizes).
    public var details: DocumentDetails?

    public init(
        format: ImageFormat, data: [UInt8], width: Int, height: Int, averageColour: String, sourceWidth: Int,
        sourceHeight: Int, warnings: [String], colour: ColourConversion?
    ) {
        self.format = format
        self.data = data
        self.width = width
        self.height = height
        self.averageColour = averageColour
        self.sourceWidth = sourceWidth
        self.sourceHeight = sourceHeight
        self.warnings = warnings
        self.colour = colour
    }
}

/// What rendering gave: pixels to encode, or a thumbnail encoded already.
public enum RenderResult: Sendable {
    case pixels(RenderedThumbnail)
    case encoded(EncodedThumbnail)
    /// A page encoded straight from what it was drawn on (8-bit gray when it is all gray), and
    /// its pixels (gray for a text page, RGB otherwise), for the smaller sizes and renditions
    /// made from it.
    case encodedWithPixels(EncodedThumbnail, PixelBuffer)
    /// A thumbnail encoded while it was made, never whole in memory, and the images of a half, a
    /// quarter, ... of its size made from its rows on the way (``HalvingChain``), or from what a
    /// page was drawn on: the smaller sizes of a PNG.
    case encodedWithHalves(EncodedThumbnail, [PixelBuffer])
}

/// One renderer per content type, in the manner of a Quick Look generator: a new format is one
/// new type conforming to this protocol, registered in ``Thumbnailer``.
public protocol DocumentRenderer: Sendable {
    /// The content type this renderer draws.
    var contentType: ContentType { get }
    /// Renders the thumbnail of the document open at `request.file`.
    func render(_ request: RenderRequest) throws(ThumbnailError) -> RenderedThumbnail
}
