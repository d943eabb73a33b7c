import GlanceCore

/// A raster format's own code, in the manner of libvips' loaders: opened on a document, it says
/// what its header says, chooses how small it can decode for a thumbnail, and gives those pixels
/// row by row. Everything else — the fit, the pixel limit, the downscale, the colour, the alpha,
/// the orientation, encoding while scaling — is ``RasterPipeline``'s, written once for every
/// format.
///
/// A new raster format is one type conforming to this protocol (and its C shim), listed in
/// ``Thumbnailer/init(colourTransforms:)``. The steps come in order: ``header`` (read when the
/// decoder is made), ``plan(for:)``, ``start(_:)``, ``read(into:)``, then ``warnings``.
protocol RasterDecoder: AnyObject, SendableMetatype {
    /// Opens the document of `request` (of `type`, for the format's name in messages) and reads
    /// its header; `colourTransforms` is for a decoder that converts colour as it decodes.
    init(_ request: RenderRequest, type: ContentType, colourTransforms: ColourTransformCache) throws(ThumbnailError)

    /// What the header says, before any pixel is decoded (its ``RasterHeader/details`` are read
    /// again after ``read(into:)``, for what only decoding tells).
    var header: RasterHeader { get }

    /// What it will decode for a thumbnail of `target` pixels (in stored orientation): its own
    /// reduction (DCT scaling, a scaled decode, an embedded thumbnail) or the stored size.
    /// Decodes nothing: the pipeline checks the plan against the pixel limit first.
    func plan(for target: PixelSize) -> RasterPlan

    /// Starts decoding as planned: what the rows will be.
    func start(_ plan: RasterPlan) throws(ThumbnailError) -> RasterRows

    /// Gives the rows, top to bottom, to `rows`.
    func read(into rows: Downscaler) throws(ThumbnailError)

    /// Things worth telling (recovered damage, an animation's other frames, a profile that
    /// could not be read), read after ``read(into:)``.
    var warnings: [String] { get }

    /// The conversion to sRGB the decoder made itself while it decoded (a CMYK JPEG's, which
    /// cannot be made on RGB rows afterwards); nil: the pipeline converts from the header's profile.
    var conversionDone: ColourConversion? { get }
}

extension RasterDecoder {
    var conversionDone: ColourConversion? { nil }
}

extension PixelSize {
    /// The size of a `(width, height)` pair, as ``ThumbnailGeometry`` gives them.
    init(_ pair: (width: Int, height: Int)) {
        self.init(width: pair.width, height: pair.height)
    }

    /// Whether it is at least `other` on both sides.
    func covers(_ other: PixelSize) -> Bool { width >= other.width && height >= other.height }
}

/// What a raster decoder reads from a file's header before any pixel is decoded.
struct RasterHeader {
    /// The stored size, in pixels.
    var size: PixelSize
    /// The turn the pipeline applies to the thumbnail (`.up` where the library turns the pixels itself).
    var orientation: ExifOrientation = .up
    /// The colour the pixels are in; nil for sRGB (or for pixels the decoder converts itself).
    var profile: ColourProfile?
    /// Whether the samples are gray (expanded to RGB by the decoder): a gray profile fits them.
    var isGray = false
    /// Whether the source was compressed lossily: its thumbnail is a photo's (a JPEG when opaque).
    var isLossy = false
    /// What the document tells besides its pixels (a TIFF's pages).
    var details: DocumentDetails?
}

/// What a decoder will decode for a thumbnail: chosen by ``RasterDecoder/plan(for:)``.
struct RasterPlan {
    /// The size the rows will have (at least the target where the format can reduce to it).
    var size: PixelSize
    /// The reduction from the stored size (1 when none), for the pixel limit's message.
    var shrink = 1
    /// The pixels held to the pixel limit: those decoded, or more where the library works on the
    /// whole image whatever the output (a lossless WebP).
    var limitedPixels: Int

    init(size: PixelSize, shrink: Int = 1, limitedPixels: Int? = nil) {
        self.size = size
        self.shrink = shrink
        self.limitedPixels = limitedPixels ?? size.width * size.height
    }
}

/// The rows a started decoder will give.
struct RasterRows {
    /// Their size: the plan's, unless the data said otherwise once decoding began.
    var size: PixelSize
    /// 3 (RGB) or 4 (RGBA), 8 bits each.
    var channels: Int
    /// Whether they come as they are decoded, a few at a time, so that the image never exists
    /// whole: only then can the thumbnail be encoded while it is made.
    var streamed: Bool
}
