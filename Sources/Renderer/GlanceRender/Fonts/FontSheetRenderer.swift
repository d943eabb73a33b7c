import CFontSheet
internal import CGraphics
import GlanceCore

/// Draws a font as a square sheet, as font managers show one: two characters large, the family's
/// name and a line in a waterfall of sizes, all in the font itself, loaded by FreeType from the
/// document's bytes (never installed, never found through fontconfig). The sample is the first
/// of Latin, Greek, Cyrillic, CJK, kana and Hangul the font covers whole, else the font's own
/// characters (a symbol font's symbols): never boxes, never another font. A collection draws its
/// first face; a variable font its default instance.
public struct FontSheetRenderer: DocumentRenderer {
    public var contentType: ContentType { .trueTypeFont }

    public init() {}

    public func render(_ request: RenderRequest) throws(ThumbnailError) -> RenderedThumbnail {
        let data = try FileReader.readWhole(of: request.file)
        let side = request.maxSide
        let surface = CairoImageSurface(width: side, height: side)
        guard let cairo = surface.context else { throw .outOfMemory(detail: "no \(side)x\(side) drawing surface") }
        var info = glance_font_info()
        var reason = [CChar](repeating: 0, count: 512)
        let drawn = data.withUnsafeBufferPointer { bytes in
            glance_font_sheet(
                bytes.baseAddress, bytes.count, UnsafeMutableRawPointer(cairo), Int32(side), Int32(side), &info,
                &reason,
                reason.count)
        }
        cairo_destroy(cairo)
        guard drawn == 1 else { throw .corrupt(format: "font", detail: String(nulTerminated: reason)) }
        let family = withUnsafeBytes(of: info.family) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
        let sample = withUnsafeBytes(of: info.sample) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
        var warnings = ["\(family): \(info.glyphs) glyphs, a \(sample) sample"]
        if info.faces > 1 { warnings.append("a collection of \(info.faces) faces: the first is drawn") }
        if info.name_in_font == 0 { warnings.append("the font cannot write its own name: the name is left out") }
        return RenderedThumbnail(image: surface.rgbPixels(), sourceWidth: side, sourceHeight: side, warnings: warnings)
    }
}
