internal import CGraphics
import GlanceCore

/// Renders the start of a plain-text document as a printed first page: a portrait A4 sheet
/// (724x1024 for the 1024 box), margins, wrapped lines, in a real font found by fontconfig so that
/// Latin, Cyrillic, Hebrew, Chinese, Japanese and Korean all show glyphs.
public struct TextRenderer: PageRenderer {
    public var contentType: ContentType { .text }

    /// Who composites the glyphs: Glance's own painter (cairo's pixels, faster; cairo still
    /// draws a page the painter cannot), or cairo always (to compare the two).
    enum Painting {
        case glance
        case cairo
    }

    let painting: Painting
    /// The glyphs rendered so far, shared by every page this renderer (and its copies) draws.
    let glyphs: TextGlyphCache

    public init() {
        self.init(painting: .glance)
    }

    init(painting: Painting, glyphs: TextGlyphCache = TextGlyphCache()) {
        self.painting = painting
        self.glyphs = glyphs
    }

    /// At most this much of the file is read: far more than one page can show.
    public static let maxBytesRead = 64 * 1024
    /// Lines and characters laid out: a page shows 65 lines of 85 characters and the top of a
    /// 66th (fewer characters when they are wide CJK ones; a line that wraps shows as more), so
    /// this is a little more than a page; the rest is clipped. Shaping and rasterising only what
    /// can show keeps long files fast (80 lines cost 3% more time for the same pages).
    static let maxLines = 68
    static let maxCharacters = 6_000
    /// The page's proportions: A4, 210 x 297 mm.
    static let pageAspect = 210.0 / 297.0
    /// Margin as a fraction of the page width (about 16 mm on A4).
    static let marginFraction = 0.077
    /// The ink: a dark gray (cairo's 0.1 gray in 8 bits).
    static let ink: UInt8 = 25
    /// A monospaced face (plain text often relies on columns), with CJK faces behind it.
    static let fontFamilies =
        "DejaVu Sans Mono,WenQuanYi Micro Hei Mono,Noto Sans Mono CJK JP,Droid Sans Fallback,monospace"

    func drawPage(_ request: RenderRequest) throws(ThumbnailError) -> DrawnPage {
        if let text = request.text { return try drawPage(text, maxSide: request.maxSide) }
        let prefix = try FileReader.readPrefix(of: request.file, maxBytes: Self.maxBytesRead)
        guard
            let decoded = TextEncodingDetector.detect(
                prefix.bytes, isWholeFile: prefix.isWholeFile,
                namedAsText: ContentType(named: request.name) == .text)
        else {
            throw .unsupported(detail: "the bytes are not text in any known encoding")
        }
        return try drawPage(decoded, maxSide: request.maxSide)
    }

    /// Lays out `decoded` on a page fitting `maxSide`.
    public func render(_ decoded: DecodedText, maxSide: Int = ThumbnailGeometry.defaultMaxSide) throws(ThumbnailError)
        -> RenderedThumbnail
    {
        try drawPage(decoded, maxSide: maxSide).thumbnail
    }

    func drawPage(_ decoded: DecodedText, maxSide: Int) throws(ThumbnailError) -> DrawnPage {
        let page = PageLayout(maxSide: maxSide)
        let text = Self.pageText(decoded.text)
        let drawn: (paper: DrawnPage.Paper, unknownGlyphs: Int)
        if painting == .glance, let painted = drawOnGray(text, language: decoded.language, page: page) {
            drawn = painted
        } else {
            drawn = try drawWithCairo(text, language: decoded.language, page: page)
        }
        var warnings: [String] = []
        if drawn.unknownGlyphs > 0 {
            warnings.append("\(drawn.unknownGlyphs) character(s) have no glyph in the installed fonts")
        }
        return DrawnPage(paper: drawn.paper, sourceWidth: page.width, sourceHeight: page.height, warnings: warnings)
    }

    /// The page's size and where its text goes, for the `maxSide` box.
    struct PageLayout {
        let width: Int
        let height: Int
        /// The text's top left corner, in pixels: the margin, a fraction of a pixel included.
        let margin: Double
        /// The text area, whole pixels: nothing is drawn outside it (the last line is cut).
        let clip: (left: Int, top: Int, right: Int, bottom: Int)
        let fontPixels: Double

        init(maxSide: Int) {
            height = maxSide
            width = max(1, Int((Double(maxSide) * TextRenderer.pageAspect).rounded()))
            margin = Double(width) * TextRenderer.marginFraction
            let inset = Int(margin.rounded())
            clip = (inset, inset, max(inset, width - inset), max(inset, height - inset))
            fontPixels = 12.0 * Double(maxSide) / 1024.0
        }

        var textWidth: Double { Double(width) - 2 * margin }
    }

    /// The page drawn by ``TextGlyphPainter`` on gray paper; nil when cairo must draw it (a glyph
    /// the painter cannot draw, or no memory for the page).
    private func drawOnGray(_ text: String, language: String?, page: PageLayout) -> (
        paper: DrawnPage.Paper, unknownGlyphs: Int
    )? {
        guard let paper = GrayPage(width: page.width, height: page.height) else { return nil }
        if text.isEmpty { return (.gray(paper), 0) }
        // Pango lays out for a cairo context; a one-pixel surface serves (an image surface's font
        // options do not depend on its size).
        let scratch = CairoImageSurface(width: 1, height: 1)
        guard let cairo = scratch.context else { return nil }
        defer { cairo_destroy(cairo) }
        guard let layout = Self.makeLayout(text, language: language, on: cairo, page: page) else { return nil }
        defer { glance_object_unref(UnsafeMutableRawPointer(layout)) }
        let unknownGlyphs = Int(pango_layout_get_unknown_glyphs_count(layout))
        guard unknownGlyphs == 0 else { return nil }
        let painter = TextGlyphPainter(cache: glyphs)
        guard painter.paint(layout, on: paper, origin: (page.margin, page.margin), clip: page.clip, ink: Self.ink)
        else { return nil }
        return (.gray(paper), 0)
    }

    /// The page drawn by cairo on RGB paper, as pango draws a layout.
    private func drawWithCairo(_ text: String, language: String?, page: PageLayout) throws(ThumbnailError) -> (
        paper: DrawnPage.Paper, unknownGlyphs: Int
    ) {
        let surface = CairoImageSurface(width: page.width, height: page.height)
        guard let cairo = surface.context else {
            throw .corrupt(format: "text", detail: "cannot create a \(page.width)x\(page.height) page")
        }
        defer { cairo_destroy(cairo) }
        var unknownGlyphs = 0
        if !text.isEmpty {
            let clip = page.clip
            cairo_rectangle(
                cairo, Double(clip.left), Double(clip.top), Double(clip.right - clip.left),
                Double(clip.bottom - clip.top))
            cairo_clip(cairo)
            cairo_translate(cairo, page.margin, page.margin)
            let ink = Double(Self.ink) / 255
            cairo_set_source_rgb(cairo, ink, ink, ink)
            if let layout = Self.makeLayout(text, language: language, on: cairo, page: page) {
                pango_cairo_show_layout(cairo, layout)
                unknownGlyphs = Int(pango_layout_get_unknown_glyphs_count(layout))
                glance_object_unref(UnsafeMutableRawPointer(layout))
            }
        }
        return (.cairo(surface), unknownGlyphs)
    }

    /// Lays `text` out with pango for `cairo`, in the page's font and width; the caller unrefs it.
    private static func makeLayout(
        _ text: String, language: String?, on cairo: OpaquePointer, page: PageLayout
    ) -> OpaquePointer? {
        guard let layout = pango_cairo_create_layout(cairo) else { return nil }
        if let context = pango_layout_get_context(layout) {
            if let language { pango_context_set_language(context, pango_language_from_string(language)) }
            // Outlines unhinted, advances unrounded: FreeType's hinter ran for every new glyph
            // (a page of CJK has hundreds), and at 12 px on a page that is looked at small it buys
            // little. Measured on the bench's 200 text files: 15.5 -> 13.2 ms a page.
            let options = cairo_font_options_create()
            cairo_font_options_set_hint_style(options, CAIRO_HINT_STYLE_NONE)
            cairo_font_options_set_hint_metrics(options, CAIRO_HINT_METRICS_OFF)
            pango_cairo_context_set_font_options(context, options)
            cairo_font_options_destroy(options)
            pango_layout_context_changed(layout)
        }
        let font = pango_font_description_from_string(fontFamilies)
        pango_font_description_set_absolute_size(font, page.fontPixels * Double(PANGO_SCALE))
        pango_layout_set_font_description(layout, font)
        pango_font_description_free(font)
        pango_layout_set_width(layout, Int32(page.textWidth * Double(PANGO_SCALE)))
        pango_layout_set_wrap(layout, PANGO_WRAP_WORD_CHAR)
        pango_layout_set_text(layout, text, -1)
        return layout
    }

    /// The part of `text` that can show on one page, with line ends made uniform: CRLF and CR
    /// become LF, a form feed ends the page, other control characters are dropped.
    static func pageText(_ text: String) -> String {
        var scalars = String.UnicodeScalarView()
        // Counted here: `scalars.count` walks the whole view each time it is asked.
        var characters = 0
        var lines = 0
        var previousWasCR = false
        func append(_ scalar: Unicode.Scalar) {
            scalars.append(scalar)
            characters += 1
        }
        for scalar in text.unicodeScalars {
            if characters >= maxCharacters || lines >= maxLines { break }
            switch scalar.value {
            case 0x0D:
                append("\n")
                lines += 1
                previousWasCR = true
                continue
            case 0x0A:
                if !previousWasCR {
                    append("\n")
                    lines += 1
                }
            case 0x0C:
                lines = maxLines
            case 0x09:
                append(scalar)
            case 0x00..<0x20, 0x7F, 0xFEFF:
                break
            default:
                append(scalar)
            }
            previousWasCR = false
        }
        return String(scalars)
    }
}
