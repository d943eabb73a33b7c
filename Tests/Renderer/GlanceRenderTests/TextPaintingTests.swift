import GlanceCore
import Testing

@testable import GlanceRender

/// Glance's own glyph painter against cairo: the same page, pixel for pixel.
@Suite("Text painting", .timeLimit(.minutes(10)))
struct TextPaintingTests {
    static let documents = [
        "latin-utf8", "cyrillic-utf8", "hebrew-utf8", "japanese-utf8", "chinese-utf8", "korean-utf8", "shift_jis",
        "big5", "gb18030", "euc-jp", "koi8-r", "windows-1252", "tabs", "crlf", "long-line", "big",
    ]

    static func decoded(_ name: String) throws -> DecodedText {
        let bytes = try TestAssets.readBytes(TestAssets.path("text/\(name).txt"))
        return try #require(TextEncodingDetector.detect(bytes, isWholeFile: true), "\(name) is text")
    }

    static func isGray(_ page: DrawnPage) -> Bool {
        if case .gray = page.paper { return true }
        return false
    }

    /// How many samples of two same-sized images differ, and by how much at most.
    static func difference(_ a: PixelBuffer, _ b: PixelBuffer) -> (pixels: Int, largest: Int) {
        guard a.bytes.count == b.bytes.count else { return (max(a.bytes.count, b.bytes.count), 255) }
        var pixels = 0
        var largest = 0
        for index in a.bytes.indices where a.bytes[index] != b.bytes[index] {
            pixels += 1
            largest = max(largest, abs(Int(a.bytes[index]) - Int(b.bytes[index])))
        }
        return (pixels, largest)
    }

    @Test("the painter draws the page cairo draws, to the byte of the PNG", arguments: documents)
    func sameAsCairo(_ name: String) throws {
        let text = try Self.decoded(name)
        for maxSide in [1024, 256] {
            let painted = try TextRenderer(painting: .glance).drawPage(text, maxSide: maxSide)
            let drawn = try TextRenderer(painting: .cairo).drawPage(text, maxSide: maxSide)
            #expect(Self.isGray(painted), "\(name): the painter drew it")
            #expect(!Self.isGray(drawn))
            let paintedPNG = try painted.encoded(content: .document)
            let drawnPNG = try drawn.encoded(content: .document)
            let paintedPixels = painted.thumbnail.image
            let drawnPixels = drawn.thumbnail.image
            let difference = Self.difference(paintedPixels, drawnPixels)
            #expect(difference.pixels == 0, "\(name) at \(maxSide): \(difference)")
            #expect(paintedPNG.data.count == drawnPNG.data.count && paintedPNG.data == drawnPNG.data)
            #expect(paintedPNG.averageColour == drawnPNG.averageColour)
            // Not a blank page on both sides (glyphs 3 pixels tall in the small box are light).
            #expect(paintedPixels.bytes.contains { $0 < (maxSide == 1024 ? 128 : 255) }, "\(name) has ink")
        }
    }

    @Test("the last line is cut at the text area's edge, as cairo cuts it")
    func clippedAtTheBottom() throws {
        let line = String(repeating: "Wg|y ", count: 17) + "\n"
        let text = DecodedText(text: String(repeating: line, count: 80), encoding: "UTF-8", language: nil)
        let painted = try TextRenderer(painting: .glance).drawPage(text, maxSide: 1024)
        let drawn = try TextRenderer(painting: .cairo).drawPage(text, maxSide: 1024)
        let pixels = painted.thumbnail.image
        #expect(Self.difference(pixels, drawn.thumbnail.image).pixels == 0)
        // Ink reaches the last row of the text area and not one row further.
        let layout = TextRenderer.PageLayout(maxSide: 1024)
        func inked(row: Int) -> Bool {
            (0..<pixels.width).contains { pixels.bytes[(row * pixels.width + $0) * 3] < 255 }
        }
        #expect(inked(row: layout.clip.bottom - 1))
        #expect(!inked(row: layout.clip.bottom))
    }

    @Test("a glyph is rendered once: the next page reuses it")
    func glyphsAreKept() throws {
        let cache = TextGlyphCache()
        let renderer = TextRenderer(painting: .glance, glyphs: cache)
        let text = try Self.decoded("chinese-utf8")
        let first = try renderer.drawPage(text, maxSide: 1024).encoded(content: .document)
        let rendered = cache.renders
        #expect(rendered > 20)
        let second = try renderer.drawPage(text, maxSide: 1024).encoded(content: .document)
        #expect(cache.renders == rendered, "no glyph rendered twice")
        #expect(first.data.count == second.data.count && first.data == second.data)
        // A cache that starts again past its budget still draws the same page.
        let small = TextGlyphCache(budget: 1)
        let again = try TextRenderer(painting: .glance, glyphs: small).drawPage(text, maxSide: 1024)
        let againPNG = try again.encoded(content: .document).data
        #expect(againPNG.count == first.data.count && againPNG == first.data)
    }

    @Test("coverage larger than a block gets a block of its own; the block being filled goes on")
    func arenaBlocks() throws {
        var arena = GlyphCoverageArena()
        let size = GlyphCoverageArena.blockSize
        let firstRoom = arena.allocate(100)
        let first = try #require(firstRoom)
        let largeRoom = arena.allocate(size + 1)
        let large = try #require(largeRoom)
        let nextRoom = arena.allocate(100)
        let next = try #require(nextRoom)
        #expect(next == first + 100, "small glyphs share the block")
        #expect(!(large <= next && next < large + size + 1), "not inside the large glyph's block")
        // A block that is full starts another; what was handed out stays where it is.
        first.initialize(repeating: 7, count: 100)
        let restRoom = arena.allocate(size - 200)
        let rest = try #require(restRoom)
        #expect(rest == first + 200)
        let anotherRoom = arena.allocate(101)
        let another = try #require(anotherRoom)
        #expect(!(first <= another && another < first + size))
        #expect(first[99] == 7)
        arena.removeAll()
        let emptied = arena.blocks.isEmpty && arena.large.isEmpty
        #expect(emptied)
    }

    @Test("a character no font has is left to cairo, which draws its box and warns")
    func missingGlyph() throws {
        // U+16A40 (Mro): no font on a Debian machine with Glance's fonts has it.
        let text = DecodedText(text: "Mro \u{16A40} letter", encoding: "UTF-8", language: nil)
        let page = try TextRenderer(painting: .glance).drawPage(text, maxSide: 1024)
        #expect(!Self.isGray(page), "cairo drew the page")
        #expect(page.warnings == ["1 character(s) have no glyph in the installed fonts"])
    }

    @Test("an empty page is white gray paper")
    func emptyPage() throws {
        let page = try TextRenderer(painting: .glance).drawPage(
            DecodedText(text: "", encoding: "UTF-8", language: nil), maxSide: 1024)
        #expect(Self.isGray(page))
        #expect(page.thumbnail.image.bytes.allSatisfy { $0 == 255 })
    }
}
