internal import CGraphics
internal import CPNG
internal import CScaler
import GlanceCore

/// An opaque 24-bit cairo image surface that frees itself, white when made; PDF pages and text
/// pages are drawn into one and read back as RGB, or encoded as PNG from it.
final class CairoImageSurface {
    private let surface: OpaquePointer
    let width: Int
    let height: Int

    init(width: Int, height: Int) {
        self.width = width
        self.height = height
        // Out of memory or an impossible size: cairo makes a surface in an error state, and
        // `context` says so.
        surface =
            glance_white_rgb24_surface(Int32(clamping: width), Int32(clamping: height))
            ?? cairo_image_surface_create(CAIRO_FORMAT_RGB24, Int32(clamping: width), Int32(clamping: height))
    }

    deinit { cairo_surface_destroy(surface) }

    /// A new drawing context, or nil if the surface could not be made (out of memory); the
    /// caller destroys it.
    var context: OpaquePointer? {
        guard cairo_surface_status(surface) == CAIRO_STATUS_SUCCESS else { return nil }
        let context = cairo_create(surface)
        guard let context, cairo_status(context) == CAIRO_STATUS_SUCCESS else {
            if let context { cairo_destroy(context) }
            return nil
        }
        return context
    }

    /// Lets `paint` write the surface's pixels itself (one 32-bit word a pixel, B, G, R and a
    /// fourth byte in memory, rows `width` words apart), then lays what it left transparent (a
    /// premultiplied alpha below 255, as LibreOffice paints) over white. False when the surface
    /// could not be made or its rows are not packed.
    func paintPixels(_ paint: (UnsafeMutablePointer<UInt8>) -> Void) -> Bool {
        guard cairo_surface_status(surface) == CAIRO_STATUS_SUCCESS,
            Int(cairo_image_surface_get_stride(surface)) == width * 4, let data = cairo_image_surface_get_data(surface)
        else { return false }
        cairo_surface_flush(surface)
        paint(data)
        let words = UnsafeMutableRawPointer(data).assumingMemoryBound(to: UInt32.self)
        for index in 0..<(width * height) {
            let word = words[index]
            let alpha = word >> 24
            guard alpha != 255 else { continue }
            // Premultiplied over white: each colour gains what the alpha leaves uncovered.
            let uncovered = 255 - alpha
            let red = min(255, (word >> 16 & 0xFF) + uncovered)
            let green = min(255, (word >> 8 & 0xFF) + uncovered)
            let blue = min(255, (word & 0xFF) + uncovered)
            words[index] = 0xFF00_0000 | red << 16 | green << 8 | blue
        }
        cairo_surface_mark_dirty(surface)
        return true
    }

    /// The pixels as RGB. Cairo's RGB24 is one native-endian 32-bit word a pixel, 0x00RRGGBB.
    func rgbPixels() -> PixelBuffer {
        cairo_surface_flush(surface)
        let stride = Int(cairo_image_surface_get_stride(surface))
        guard let data = cairo_image_surface_get_data(surface) else {
            return PixelBuffer(
                width: width, height: height, channels: 3, bytes: [UInt8](repeating: 255, count: width * height * 3))
        }
        var bytes = [UInt8](repeating: 0, count: width * height * 3)
        bytes.withUnsafeMutableBufferPointer { target in
            for y in 0..<height {
                let row = UnsafeRawPointer(data + y * stride).assumingMemoryBound(to: UInt32.self)
                for x in 0..<width {
                    let word = row[x]
                    let index = (y * width + x) * 3
                    target[index] = UInt8(truncatingIfNeeded: word >> 16)
                    target[index + 1] = UInt8(truncatingIfNeeded: word >> 8)
                    target[index + 2] = UInt8(truncatingIfNeeded: word)
                }
            }
        }
        return PixelBuffer(width: width, height: height, channels: 3, bytes: bytes)
    }

    /// The pixels at half their size as RGB: ``rgbPixels()`` ``PixelBuffer/halved()``, from the
    /// surface's words without the full-size copy (measured on the bench's PDFs: that copy was 2%
    /// of a batch with the smaller sizes).
    func halvedPixels() -> PixelBuffer {
        cairo_surface_flush(surface)
        guard let data = cairo_image_surface_get_data(surface) else { return rgbPixels().halved() }
        let stride = Int(cairo_image_surface_get_stride(surface))
        let (halfWidth, halfHeight) = ((width + 1) / 2, (height + 1) / 2)
        let bytes = [UInt8](unsafeUninitializedCapacity: halfWidth * halfHeight * 3) { buffer, count in
            glance_halve_words(data, Int32(width), Int32(height), stride, buffer.baseAddress!)
            count = halfWidth * halfHeight * 3
        }
        return PixelBuffer(width: halfWidth, height: halfHeight, channels: 3, bytes: bytes)
    }

    /// The pixels as a PNG (gray when every pixel is gray), encoded straight from the surface's
    /// words, and their average colour, taken in the same pass: the same bytes and colour as
    /// ``rgbPixels()`` encoded by ``ImageEncoder`` and averaged by ``PixelBuffer/averageColour``.
    func encodedPNG(content: PNGContent) throws(ThumbnailError) -> (png: [UInt8], averageColour: String) {
        cairo_surface_flush(surface)
        guard let data = cairo_image_surface_get_data(surface) else {
            let pixels = rgbPixels()
            return (try ImageEncoder.encode(pixels, as: .png, content: content), pixels.averageColour)
        }
        let stride = Int(cairo_image_surface_get_stride(surface))
        return try PagePNGEncoding.encode(capacity: glance_png_encoded_bound(Int32(width), Int32(height), 3)) {
            out, capacity, length, sums, error in
            glance_png_encode_words(
                data, Int32(width), Int32(height), stride, content.filters, out, capacity, &length, &sums, &error)
        }
    }
}
