internal import CPNG
internal import CScaler
import GlanceCore

#if canImport(Glibc)
    import Glibc
#endif

/// A page of 8-bit gray pixels that frees itself, white when made: a text page whose glyphs
/// ``TextGlyphPainter`` composites itself. A third of the bytes of cairo's RGB24 paper, and it
/// goes to PNG without a pass to find out that it is gray.
final class GrayPage {
    let width: Int
    let height: Int
    /// Rows of `width` bytes, top to bottom.
    let pixels: UnsafeMutablePointer<UInt8>

    /// A white page, or nil if its pixels cannot be allocated.
    init?(width: Int, height: Int) {
        guard width > 0, height > 0, width <= Int(Int32.max) / max(1, height),
            let memory = malloc(width * height)
        else { return nil }
        self.width = width
        self.height = height
        pixels = memory.bindMemory(to: UInt8.self, capacity: width * height)
        pixels.initialize(repeating: 255, count: width * height)
    }

    deinit { free(pixels) }

    /// The pixels as a gray image.
    func grayPixels() -> PixelBuffer {
        PixelBuffer(
            width: width, height: height, channels: 1,
            bytes: Array(UnsafeBufferPointer(start: pixels, count: width * height)))
    }

    /// The pixels at half their size: ``grayPixels()`` ``PixelBuffer/halved()``, without the
    /// full-size copy.
    func halvedPixels() -> PixelBuffer {
        let (halfWidth, halfHeight) = ((width + 1) / 2, (height + 1) / 2)
        let bytes = [UInt8](unsafeUninitializedCapacity: halfWidth * halfHeight) { buffer, count in
            glance_halve(pixels, Int32(width), Int32(height), width, 1, buffer.baseAddress!)
            count = halfWidth * halfHeight
        }
        return PixelBuffer(width: halfWidth, height: halfHeight, channels: 1, bytes: bytes)
    }

    /// The pixels as RGB, each gray repeated in the three channels.
    func rgbPixels() -> PixelBuffer {
        var bytes = [UInt8](repeating: 0, count: width * height * 3)
        bytes.withUnsafeMutableBufferPointer { target in
            for index in 0..<(width * height) {
                let gray = pixels[index]
                target[3 * index] = gray
                target[3 * index + 1] = gray
                target[3 * index + 2] = gray
            }
        }
        return PixelBuffer(width: width, height: height, channels: 3, bytes: bytes)
    }

    /// The page as a gray PNG and its average colour: the same bytes and colour as a cairo page
    /// with these pixels gives from ``CairoImageSurface/encodedPNG(content:)``.
    func encodedPNG(content: PNGContent) throws(ThumbnailError) -> (png: [UInt8], averageColour: String) {
        try PagePNGEncoding.encode(capacity: glance_png_encoded_bound(Int32(width), Int32(height), 1)) {
            out, capacity, length, sums, error in
            glance_png_encode_gray(
                pixels, Int32(width), Int32(height), width, content.filters, out, capacity, &length, &sums, &error)
        }
    }
}
