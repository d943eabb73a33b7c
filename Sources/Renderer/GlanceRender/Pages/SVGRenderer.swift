internal import CGraphics
import CSVG
import GlanceCore

/// Renders SVG documents (a compressed one from its decompressed copy, ``DecompressedFile``) through librsvg (loaded on the first SVG),
/// drawn straight at the thumbnail's size on a transparent canvas: a vector drawing, like a PDF
/// page, fills the box whatever its intrinsic size (from its width and height, else its viewBox;
/// a square when it has neither).
///
/// Nothing outside the document is drawn: it is parsed from memory with no base file, so librsvg
/// loads no referenced file or URL, and the renderer's sandbox could reach none anyway. Limits:
/// librsvg's own on the XML's size and its element count; the worker's CPU time and memory for
/// the rest (deep nesting, `<use>` fan-out, huge filters).
public struct SVGRenderer: DocumentRenderer {
    public var contentType: ContentType { .svg }

    public init() {}

    public func render(_ request: RenderRequest) throws(ThumbnailError) -> RenderedThumbnail {
        let data = try FileReader.readWhole(of: request.file)
        let document = try SVGDocument(data: data)
        var warnings: [String] = []
        var (width, height) = document.intrinsicSize ?? (0, 0)
        if !(width > 0 && height > 0 && width.isFinite && height.isFinite) {
            (width, height) = (Double(request.maxSide), Double(request.maxSide))
            warnings.append("no width, height or viewBox: drawn in a square")
        }
        let target = ThumbnailGeometry.fit(width: width, height: height, maxSide: request.maxSide)
        var image = try document.draw(width: target.width, height: target.height)
        if image.isOpaque { image = image.droppingAlpha() }
        return RenderedThumbnail(
            image: image, sourceWidth: Int(width.rounded()), sourceHeight: Int(height.rounded()), warnings: warnings)
    }
}

/// A parsed SVG: owns librsvg's handle and frees it.
final class SVGDocument {
    private let handle: UnsafeMutableRawPointer

    init(data: [UInt8]) throws(ThumbnailError) {
        var reason = [CChar](repeating: 0, count: 512)
        guard glance_svg_load(&reason, reason.count) == 1 else {
            throw .libraryUnavailable(
                library: "librsvg", detail: String(nulTerminated: reason))
        }
        let opened = data.withUnsafeBufferPointer { bytes in
            glance_svg_open(bytes.baseAddress, bytes.count, &reason, reason.count)
        }
        guard let opened else { throw .corrupt(format: "SVG", detail: Self.oneLine(String(nulTerminated: reason))) }
        handle = opened
    }

    deinit { glance_svg_free(handle) }

    /// The size it says it is, in pixels at 96 dpi, or nil.
    var intrinsicSize: (Double, Double)? {
        var width = 0.0
        var height = 0.0
        return glance_svg_intrinsic_size(handle, &width, &height) == 1 ? (width, height) : nil
    }

    /// The whole document drawn into `width` x `height` pixels, as straight RGBA.
    func draw(width: Int, height: Int) throws(ThumbnailError) -> PixelBuffer {
        guard let surface = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, Int32(width), Int32(height)) else {
            throw .outOfMemory(detail: "no \(width)x\(height) canvas")
        }
        defer { cairo_surface_destroy(surface) }
        guard cairo_surface_status(surface) == CAIRO_STATUS_SUCCESS, let cairo = cairo_create(surface) else {
            throw .outOfMemory(detail: "no \(width)x\(height) canvas")
        }
        var reason = [CChar](repeating: 0, count: 512)
        let drawn = glance_svg_render(
            handle, UnsafeMutableRawPointer(cairo), Double(width), Double(height), &reason, reason.count)
        cairo_destroy(cairo)
        guard drawn == 1 else { throw .corrupt(format: "SVG", detail: Self.oneLine(String(nulTerminated: reason))) }
        cairo_surface_flush(surface)
        guard let data = cairo_image_surface_get_data(surface) else {
            throw .outOfMemory(detail: "no \(width)x\(height) canvas")
        }
        let stride = Int(cairo_image_surface_get_stride(surface))
        // Cairo's ARGB32: one native-endian word a pixel, premultiplied. Straight RGBA out.
        var bytes = [UInt8](repeating: 0, count: width * height * 4)
        bytes.withUnsafeMutableBufferPointer { out in
            for y in 0..<height {
                let row = UnsafeRawPointer(data + y * stride).assumingMemoryBound(to: UInt32.self)
                for x in 0..<width {
                    let word = row[x]
                    let alpha = Int(word >> 24)
                    let index = (y * width + x) * 4
                    out[index + 3] = UInt8(alpha)
                    guard alpha > 0 else { continue }
                    func straight(_ shift: UInt32) -> UInt8 {
                        UInt8(min(255, (Int((word >> shift) & 0xFF) * 255 + alpha / 2) / alpha))
                    }
                    out[index] = straight(16)
                    out[index + 1] = straight(8)
                    out[index + 2] = straight(0)
                }
            }
        }
        return PixelBuffer(width: width, height: height, channels: 4, bytes: bytes)
    }

    private static func oneLine(_ text: String) -> String {
        String((text.split(whereSeparator: \.isNewline).first ?? "").prefix(200))
    }
}
