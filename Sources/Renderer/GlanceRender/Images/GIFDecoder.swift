import CGIF
internal import CLibraryLoader
import GlanceCore

/// Decodes GIF images through giflib for the ``RasterPipeline``: the first frame composed on its
/// logical screen (a frame smaller than the screen leaves the rest transparent, as browsers show
/// it), its transparent colour kept as alpha, interlaced or not. The canvas is held to the pixel
/// limit from the headers before it is allocated (by the shim: giflib gives the screen's size only
/// as it decodes). A GIF has no colour profile: its colours are taken as sRGB.
final class GIFDecoder: RasterDecoder {
    let header: RasterHeader
    let warnings: [String]

    /// The composed frame, owned: freed with the decoder.
    private var frame = glance_gif_frame()

    init(_ request: RenderRequest, type: ContentType, colourTransforms: ColourTransformCache) throws(ThumbnailError) {
        let data = try FileReader.readWhole(of: request.file)
        var frame = glance_gif_frame()
        var failure = GLANCE_FAILURE_CORRUPT
        var reason = [CChar](repeating: 0, count: 256)
        let decoded = data.withUnsafeBufferPointer { bytes in
            glance_gif_decode_first_frame(
                bytes.baseAddress, bytes.count, request.maxPixels, &frame, &failure, &reason, reason.count)
        }
        let (width, height) = (Int(frame.width), Int(frame.height))
        guard decoded == 1 else {
            glance_gif_frame_free(&frame)
            throw ThumbnailError(
                failure, reason: String(nulTerminated: reason), format: "GIF", limitPixels: request.maxPixels)
        }
        self.frame = frame
        warnings = frame.is_animation != 0 ? ["an animation: its first frame is the thumbnail"] : []
        header = RasterHeader(size: PixelSize(width: width, height: height))
    }

    deinit { glance_gif_frame_free(&frame) }

    func plan(for target: PixelSize) -> RasterPlan { RasterPlan(size: header.size) }

    func start(_ plan: RasterPlan) throws(ThumbnailError) -> RasterRows {
        RasterRows(size: plan.size, channels: 4, streamed: false)
    }

    func read(into rows: Downscaler) throws(ThumbnailError) {
        guard let pixels = frame.pixels else { throw .corrupt(format: "GIF", detail: "no pixels") }
        rows.push(rows: pixels, stride: header.size.width * 4, count: header.size.height)
    }
}
