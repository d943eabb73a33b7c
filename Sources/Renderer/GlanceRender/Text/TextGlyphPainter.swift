internal import CGraphics
internal import CTextPaint
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// Draws a pango layout's glyphs onto a ``GrayPage`` itself, with the same pixels cairo's image
/// backend gives for unhinted, gray-antialiased text in one colour on white: each glyph rendered
/// once by FreeType (from a face of Glance's own, sized as cairo sizes its face) and kept in a
/// ``TextGlyphCache``, placed at its rounded position, composited with pixman's rounding.
///
/// Why not cairo: for every glyph it draws the first time, cairo loads the glyph from the font
/// twice (once for its extents, once for its image) and wraps the coverage in an image surface;
/// for a page of CJK text, where most glyphs are new, that was a third of the page's time. Pages
/// this painter cannot draw exactly (a colour or bitmap glyph, a missing glyph's box) are left
/// to cairo: ``paint(_:on:origin:clip:ink:)`` says so, and nothing it drew is kept.
struct TextGlyphPainter {
    let cache: TextGlyphCache

    /// Draws `layout` (laid out in pango units, its top left at `origin` in page pixels) within
    /// `clip` in gray `ink`. Returns false, with the page partly drawn, when a glyph needs cairo.
    func paint(
        _ layout: OpaquePointer, on page: GrayPage, origin: (x: Double, y: Double),
        clip: (left: Int, top: Int, right: Int, bottom: Int), ink: UInt8
    ) -> Bool {
        guard let iterator = pango_layout_get_iter(layout) else { return false }
        defer { pango_layout_iter_free(iterator) }
        let scale = Double(PANGO_SCALE)
        repeat {
            guard let run = pango_layout_iter_get_run_readonly(iterator) else { continue }  // a line's end
            guard let font = glance_run_scaled_font(run), let glyphs = run.pointee.glyphs else { return false }
            var extents = PangoRectangle()
            pango_layout_iter_get_run_extents(iterator, nil, &extents)
            let baseline = Double(pango_layout_iter_get_baseline(iterator)) / scale
            let runX = Double(extents.x) / scale
            // Positions as pango hands them to cairo and cairo moves them to the page: the same
            // sums in the same order, so that they round alike.
            var position: Int32 = 0
            let drawn = cache.withGlyphs(of: font, run: run) { lookUp -> Bool in
                for index in 0..<Int(glyphs.pointee.num_glyphs) {
                    let info = glyphs.pointee.glyphs[index]
                    defer { position &+= info.geometry.width }
                    if info.glyph == PANGO_GLYPH_EMPTY { continue }
                    if info.glyph & PANGO_GLYPH_UNKNOWN_FLAG != 0 { return false }
                    guard let glyph = lookUp(info.glyph) else { return false }
                    let x = (runX + Double(position &+ info.geometry.x_offset) / scale) + origin.x
                    let y = (baseline + Double(info.geometry.y_offset) / scale) + origin.y
                    composite(
                        glyph, on: page, left: Int(x.rounded(.toNearestOrAwayFromZero)) + glyph.left,
                        top: Int(y.rounded(.toNearestOrAwayFromZero)) - glyph.top, clip: clip, ink: ink)
                }
                return true
            }
            guard drawn else { return false }
        } while pango_layout_iter_next_run(iterator) != 0
        return true
    }

    /// Composites one glyph's coverage in `ink` over the page, within `clip`.
    private func composite(
        _ glyph: TextGlyphCache.Glyph, on page: GrayPage, left: Int, top: Int,
        clip: (left: Int, top: Int, right: Int, bottom: Int), ink: UInt8
    ) {
        let firstRow = max(0, clip.top - top)
        let lastRow = min(glyph.height, clip.bottom - top)
        let firstColumn = max(0, clip.left - left)
        let lastColumn = min(glyph.width, clip.right - left)
        guard firstRow < lastRow, firstColumn < lastColumn, let coverage = glyph.coverage else { return }
        glance_composite_coverage(
            page.pixels + (top + firstRow) * page.width + left + firstColumn, page.width,
            coverage + firstRow * glyph.width + firstColumn, glyph.width, Int32(lastColumn - firstColumn),
            Int32(lastRow - firstRow), ink)
    }
}

/// The glyphs a worker has rendered, kept for the next page: a CJK page has hundreds of glyphs,
/// and the next page shares most of its common ones. Keyed by cairo font (a font at one size);
/// the fonts are referenced while their glyphs are kept, so that a font's address is never
/// another font's. Bounded: past `budget` bytes of coverage it starts again.
final class TextGlyphCache: Sendable {
    /// A rendered glyph: `height` rows of `width` coverage bytes, placed `left` pixels right of
    /// and `top` pixels above its origin. The coverage is the cache's, valid while its lock is
    /// held (nil for an empty glyph, a space).
    struct Glyph {
        let width: Int
        let height: Int
        let left: Int
        let top: Int
        let coverage: UnsafePointer<UInt8>?
    }

    private struct Key: Hashable {
        let font: UInt
        let glyph: UInt32
    }

    private struct State: ~Copyable {
        var glyphs: [Key: Glyph] = [:]
        var arena = GlyphCoverageArena()
        /// The fonts referenced, by address, each with Glance's face for it (nil: cairo draws it).
        var fonts: [UInt: (font: OpaquePointer, face: FT_Face?)] = [:]
        /// The FreeType library the faces are opened in, made on first use.
        var library: FT_Library?
        var bytes = 0
        var renders = 0

        mutating func removeAll() {
            for entry in fonts.values {
                if let face = entry.face { FT_Done_Face(face) }
                cairo_scaled_font_destroy(entry.font)
            }
            fonts = [:]
            glyphs = [:]
            arena.removeAll()
            bytes = 0
        }

        /// Glance's face for `font`, the font of `run`, opened the first time it is asked for.
        mutating func face(for font: OpaquePointer, at address: UInt, run: UnsafeMutablePointer<PangoLayoutRun>)
            -> FT_Face?
        {
            if let known = fonts[address] { return known.face }
            if library == nil {
                var made: FT_Library?
                if FT_Init_FreeType(&made) == 0 { library = made }
            }
            let face = glance_open_run_face(library, run, font)
            fonts[address] = (cairo_scaled_font_reference(font), face)
            return face
        }
    }

    private let state = Mutex(State())
    private let budget: Int

    /// A cache of at most about `budget` bytes of coverage.
    init(budget: Int = 8 << 20) {
        self.budget = budget
    }

    deinit {
        state.withLock { state in
            state.removeAll()
            if let library = state.library { FT_Done_FreeType(library) }
        }
    }

    /// How many glyphs FreeType has rendered for this cache.
    var renders: Int { state.withLock { $0.renders } }

    /// Runs `body` with a look-up of the glyphs of `font`, the font of `run` (nil: the glyph must
    /// be drawn by cairo), rendering a glyph the first time it is asked for.
    func withGlyphs(
        of font: OpaquePointer, run: UnsafeMutablePointer<PangoLayoutRun>, _ body: ((UInt32) -> Glyph?) -> Bool
    ) -> Bool {
        state.withLock { (state: inout State) -> Bool in
            let address = UInt(bitPattern: Int(bitPattern: UnsafeRawPointer(font)))
            if state.bytes > budget { state.removeAll() }
            guard let face = state.face(for: font, at: address, run: run) else { return false }
            return body { glyph in
                let key = Key(font: address, glyph: glyph)
                if let known = state.glyphs[key] { return known }
                var rendered = glance_glyph_coverage()
                guard glance_render_glyph(face, glyph, &rendered) == 0 else { return nil }
                let width = Int(rendered.width)
                let height = Int(rendered.height)
                var coverage: UnsafeMutablePointer<UInt8>?
                if width > 0, height > 0, let rows = rendered.rows {
                    guard let room = state.arena.allocate(width * height) else { return nil }
                    for row in 0..<height {
                        (room + row * width).update(from: rows + row * Int(rendered.pitch), count: width)
                    }
                    coverage = room
                }
                let made = Glyph(
                    width: width, height: height, left: Int(rendered.left), top: Int(rendered.top),
                    coverage: coverage.map { UnsafePointer($0) })
                state.glyphs[key] = made
                state.bytes += width * height + 64
                state.renders += 1
                return made
            }
        }
    }
}

/// Where a ``TextGlyphCache`` keeps coverage: blocks that never move, so that a glyph's bytes stay
/// where they are while more glyphs come (and a look-up copies no array).
struct GlyphCoverageArena: ~Copyable {
    static let blockSize = 256 * 1024
    /// Blocks of `blockSize` bytes; the last one is being filled.
    var blocks: [UnsafeMutablePointer<UInt8>] = []
    /// Blocks of one glyph each, for a glyph larger than a block.
    var large: [UnsafeMutablePointer<UInt8>] = []
    var used = blockSize

    /// Room for `count` bytes, or nil when out of memory.
    mutating func allocate(_ count: Int) -> UnsafeMutablePointer<UInt8>? {
        if count > Self.blockSize {
            guard let memory = malloc(count) else { return nil }
            let block = memory.bindMemory(to: UInt8.self, capacity: count)
            large.append(block)
            return block
        }
        if used + count > Self.blockSize {
            guard let memory = malloc(Self.blockSize) else { return nil }
            blocks.append(memory.bindMemory(to: UInt8.self, capacity: Self.blockSize))
            used = 0
        }
        defer { used += count }
        return blocks[blocks.count - 1] + used
    }

    mutating func removeAll() {
        for block in blocks + large { free(block) }
        blocks = []
        large = []
        used = Self.blockSize
    }

    deinit {
        for block in blocks + large { free(block) }
    }
}
