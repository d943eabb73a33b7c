import CFontSheet
internal import CGraphics
import GlanceCore

/// Draws a font as a square sheet, as font managers show one: two characters large, the family's
/// name and a line in a waterfall of sizes, all in the font itself, loaded by FreeType from the
/// document's bytes (never installed, never found through fontconfig). The sample is the first
/// of Latin, Greek, Cyrillic, CJK, kana and Hangul the font covers whole, else the font's own
/// characters (a symbol font's symbols): never boxes, never another font. A collection draws its
/// first face; a variable font its default instance.
///
/// The sheet is page 1 of three, which the preview of every page shows: page 2 is the waterfall
/// larger (the sample from about 9 to 72 points), page 3 the glyph coverage (every character the
/// font maps, in code point order, sixteen a row, as many as the page holds), both on a page of
/// 3:4.
public struct FontSheetRenderer: DocumentRenderer {
    public var contentType: ContentType { .trueTypeFont }

    /// How many pages a font has.
    static let pageCount = 3

    public init() {}

    public func render(_ request: RenderRequest) throws(ThumbnailError) -> RenderedThumbnail {
        let number = request.page
        guard (1...Self.pageCount).contains(number) else {
            throw .pageOutOfRange(page: number, pageCount: Self.pageCount)
        }
        let data = try FileReader.readWhole(of: request.file)
        let size = Self.pageSize(number, maxSide: request.maxSide)
        let surface = CairoImageSurface(width: size.width, height: size.height)
        guard let cairo = surface.context else {
            throw .outOfMemory(detail: "no \(size.width)x\(size.height) drawing surface")
        }
        var info = glance_font_info()
        var reason = [CChar](repeating: 0, count: 512)
        let drawn = data.withUnsafeBufferPointer { bytes in
            glance_font_page(
                bytes.baseAddress, bytes.count, UnsafeMutableRawPointer(cairo), Int32(size.width),
                Int32(size.height), Int32(number), &info, &reason, reason.count)
        }
        cairo_destroy(cairo)
        guard drawn == 1 else { throw .corrupt(format: "font", detail: String(nulTerminated: reason)) }
        let family = withUnsafeBytes(of: info.family) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
        let sample = withUnsafeBytes(of: info.sample) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
        var warnings = ["\(family): \(info.glyphs) glyphs, \(info.mapped) characters mapped, a \(sample) sample"]
        if info.faces > 1 { warnings.append("a collection of \(info.faces) faces: the first is drawn") }
        if info.name_in_font == 0 { warnings.append("the font cannot write its own name: the name is left out") }
        var rendered = RenderedThumbnail(
            image: surface.rgbPixels(), sourceWidth: size.width, sourceHeight: size.height, warnings: warnings)
        rendered.details = DocumentDetails(pageCount: Self.pageCount, readsSizes: request.readsPageSizes) { index in
            let page = Self.pageSize(index + 1, maxSide: 720)
            return (Double(page.width), Double(page.height))
        }
        return rendered
    }

    /// Page `number`'s size within `maxSide`: the sheet square, the others 3:4.
    static func pageSize(_ number: Int, maxSide: Int) -> (width: Int, height: Int) {
        number == 1 ? (maxSide, maxSide) : (max(1, maxSide * 3 / 4), maxSide)
    }
}
