import CGIF
import GlanceCore

/// Renders GIF images through giflib: the first frame composed on its logical screen (a frame
/// smaller than the screen leaves the rest transparent, as browsers show it), its transparent
/// colour kept as alpha, interlaced or not. The canvas is held to the pixel limit from the
/// headers before it is allocated. A GIF has no colour profile: its colours are taken as sRGB.
public struct GIFRenderer: DocumentRenderer {
    public var contentType: ContentType { .gif }

    public init() {}

    public func render(_ request: RenderRequest) throws(ThumbnailError) -> RenderedThumbnail {
        let data = try FileReader.readWhole(of: request.file)
        var frame = glance_gif_frame()
        let status = data.withUnsafeBufferPointer { bytes in
            glance_gif_decode_first_frame(bytes.baseAddress, bytes.count, request.maxPixels, &frame)
        }
        defer { glance_gif_frame_free(&frame) }
        let (width, height) = (Int(frame.width), Int(frame.height))
        switch status {
        case GLANCE_GIF_OK: break
        case GLANCE_GIF_TOO_LARGE: throw .tooLarge(width: width, height: height, limitPixels: request.maxPixels)
        case GLANCE_GIF_TRUNCATED: throw .truncated(format: "GIF")
        case GLANCE_GIF_NO_IMAGE: throw .corrupt(format: "GIF", detail: "the file holds no image")
        case GLANCE_GIF_NO_MEMORY: throw .outOfMemory(detail: "no memory for a \(width)x\(height) GIF canvas")
        default:
            throw .corrupt(format: "GIF", detail: String(cString: glance_gif_error_text(frame.error)).lowercased())
        }
        guard let pixels = frame.pixels else { throw .corrupt(format: "GIF", detail: "no pixels") }
        let target = ThumbnailGeometry.fit(width: width, height: height, maxSide: request.maxSide)
        var image: PixelBuffer
        if target.width == width && target.height == height {
            // At its own size: the frame's exact colours.
            image = PixelBuffer(
                width: width, height: height, channels: 4,
                bytes: Array(UnsafeBufferPointer(start: pixels, count: width * height * 4)))
        } else {
            let scaler = try Downscaler(
                sourceWidth: width, sourceHeight: height, channels: 4, targetWidth: target.width,
                targetHeight: target.height)
            image = try scaler.scale { scaler throws(ThumbnailError) in
                scaler.push(rows: pixels, stride: width * 4, count: height)
            }
        }
        if frame.has_transparency == 0 || image.isOpaque { image = image.droppingAlpha() }
        var warnings: [String] = []
        if frame.is_animation != 0 { warnings.append("an animation: its first frame is the thumbnail") }
        return RenderedThumbnail(image: image, sourceWidth: width, sourceHeight: height, warnings: warnings)
    }
}
