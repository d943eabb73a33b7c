internal import CLibraryLoader
internal import CPixbuf
import GlanceCore

/// Decodes the simple rasters through gdk-pixbuf's loaders for the ``RasterPipeline``: BMP
/// (every header version, RLE4 and RLE8, bit fields, top-down, alpha), plain Netpbm (P1 to P3,
/// for ``NetpbmDecoder``), and the bitmap pictures of icons and cursors (``IconDecoder`` chooses
/// which). Only the sniffed format's loader is asked, by name. (Targa and binary Netpbm have
/// readers of Glance's own, ``TargaDecoder`` and ``BinaryNetpbmDecoder``, which are faster.)
///
/// gdk-pixbuf's loaders decode as they are fed, into one image of the whole size, so the file is
/// decoded when the decoder opens; the size its header declares is held to the pixel limit when
/// the loader announces it, before it allocates a pixel (gdk-pixbuf scales only after a whole
/// decode, so there is no smaller decode to plan). Kept over a parser of Glance's own: these are
/// small formats with many variants, which gdk-pixbuf's loaders (GNOME's thumbnailers' own) have
/// read for two decades; they run, like every decoder, in the renderer's sandbox.
final class PixbufDecoder: RasterDecoder {
    let header: RasterHeader
    let warnings: [String] = []

    /// gdk-pixbuf's name of each type's loader.
    static let loaders: [ContentType: String] = [.bmp: "bmp", .portableAnymap: "pnm"]

    /// The loader an icon's or a cursor's bitmap picture is decoded with (see ``IconDecoder``).
    static let iconLoader = "ico"

    private let image: DecodedPixbuf
    /// The pixels with the alpha gdk-pixbuf left out (a 16-bit BMP's, ``SixteenBitBMPAlpha``),
    /// RGBA rows packed; nil when gdk-pixbuf's own are drawn.
    private var withAlpha: [UInt8]?

    convenience init(_ request: RenderRequest, type: ContentType, colourTransforms: ColourTransformCache)
        throws(ThumbnailError)
    {
        guard let loader = Self.loaders[type] else {
            throw .unsupported(detail: "no gdk-pixbuf loader for \(type.displayName)")
        }
        let data = try FileReader.readWhole(of: request.file)
        try self.init(data, loader: loader, format: type.displayName, request: request)
        if BitmapHeaders.isWhole(data, as: type) == false { throw .truncated(format: type.displayName) }
        if type == .bmp, let alpha = SixteenBitBMPAlpha(data), alpha.size == header.size {
            let layout = image.layout
            guard layout.channels >= 3 else { return }
            withAlpha = alpha.rgba(from: layout.pixels, channels: layout.channels, stride: layout.stride)
        }
    }

    /// Decodes `data` with gdk-pixbuf's loader named `loader` (`format` names it in messages),
    /// held to `request`'s pixel limit.
    init(_ data: [UInt8], loader: String, format: String, request: RenderRequest) throws(ThumbnailError) {
        var (width, height): (Int32, Int32) = (0, 0)
        var failure = GLANCE_FAILURE_CORRUPT
        var reason = [CChar](repeating: 0, count: 512)
        let decoded = data.withUnsafeBufferPointer { bytes in
            glance_pixbuf_decode(
                loader, bytes.baseAddress, bytes.count, UInt64(request.maxPixels), &width, &height, &failure, &reason,
                reason.count)
        }
        guard let decoded else {
            throw ThumbnailError(
                failure, reason: String(cString: reason), format: format, limitPixels: request.maxPixels)
        }
        image = DecodedPixbuf(decoded)
        header = RasterHeader(size: PixelSize(width: Int(width), height: Int(height)))
    }

    /// The stored size: gdk-pixbuf has decoded it already.
    func plan(for target: PixelSize) -> RasterPlan {
        RasterPlan(size: header.size)
    }

    func start(_ plan: RasterPlan) throws(ThumbnailError) -> RasterRows {
        RasterRows(size: header.size, channels: withAlpha == nil ? image.layout.channels : 4, streamed: false)
    }

    func read(into rows: Downscaler) throws(ThumbnailError) {
        if let withAlpha {
            withAlpha.withUnsafeBufferPointer {
                rows.push(rows: $0.baseAddress!, stride: header.size.width * 4, count: header.size.height)
            }
            return
        }
        let layout = image.layout
        rows.push(rows: layout.pixels, stride: layout.stride, count: header.size.height)
    }
}

/// A decoded gdk-pixbuf image, freed with its owner.
private final class DecodedPixbuf {
    let handle: OpaquePointer

    init(_ handle: OpaquePointer) { self.handle = handle }

    deinit { glance_pixbuf_free(handle) }

    /// Its rows: where they start, how far apart, and 3 (RGB) or 4 (RGBA) bytes a pixel.
    var layout: (pixels: UnsafePointer<UInt8>, stride: Int, channels: Int) {
        var channels: Int32 = 0
        var stride = 0
        let pixels = glance_pixbuf_pixels(handle, &channels, &stride)!
        return (pixels, stride, Int(channels))
    }
}
