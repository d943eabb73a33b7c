import GlanceCore
import Testing

@testable import GlanceRender

/// Fonts drawn as sheets, from fonts made by TestAssets/generate.py (a box-shaped glyph per
/// character): the sample chosen from what the font covers, in the font itself, whatever its
/// container.
@Suite("Fonts", .timeLimit(.minutes(10)))
struct FontTests {
    /// How many of `rows` of `image` have a dark pixel.
    private func inkedRows(_ image: PixelBuffer, _ rows: Range<Int>) -> Int {
        rows.filter { y in (0..<image.width).contains { x in image.pixel(x: x, y: y).r < 100 } }.count
    }

    @Test("a Latin font: two letters large, its name, a waterfall of the sample, all in the font")
    func latin() throws {
        let (type, sheet) = try renderDocument(path: TestAssets.path("fonts/latin.ttf"))
        #expect(type == .trueTypeFont)
        #expect(sheet.image.width == 1024 && sheet.image.height == 1024)
        // 46 distinct characters of its sample and name (generate.py's FONT_LATIN), .notdef and space.
        #expect(
            sheet.warnings.first == "Glance Test Sans: 48 glyphs, 46 characters mapped, a latin sample",
            "\(sheet.warnings)")
        #expect(inkedRows(sheet.image, 0..<450) > 200, "the large pair")
        #expect(inkedRows(sheet.image, 540..<600) > 20, "the name")
        #expect(inkedRows(sheet.image, 700..<1024) > 50, "the waterfall")
    }

    @Test(
        "X11's bitmap fonts: a BDF and the same font as PCF (and that gzip-compressed, as X ships it) draw the sheet from their strikes, alike"
    )
    func bitmapFonts() throws {
        let (bdfType, bdf) = try renderDocument(path: TestAssets.path("fonts/bitmap.bdf"))
        let (pcfType, pcf) = try renderDocument(path: TestAssets.path("fonts/bitmap.pcf"))
        let (gzType, gzipped) = try renderDocument(path: TestAssets.path("fonts/bitmap.pcf.gz"))
        #expect(bdfType == .bdfFont && pcfType == .pcfFont && gzType == .pcfFont)
        // The 95 printable ASCII characters and the default glyph; a space is not counted mapped.
        #expect(
            bdf.warnings.first == "Glance Test Bitmap: 96 glyphs, 94 characters mapped, a latin sample",
            "\(bdf.warnings)")
        #expect(inkedRows(bdf.image, 0..<450) > 200, "the large pair")
        #expect(inkedRows(bdf.image, 700..<1024) > 50, "the waterfall")
        #expect(gzipped.image == pcf.image)
        // FreeType's BDF and PCF drivers space the glyphs by a pixel apart here and there.
        #expect(PixelStatistics.psnr(bdf.image, pcf.image) > 22)
    }

    @Test("the preview's pages: the waterfall larger, and the glyph coverage, a cell for every character mapped")
    func pages() throws {
        let sheet = try renderDocument(path: TestAssets.path("fonts/latin.ttf")).thumbnail
        #expect(sheet.details?.pageCount == 3)
        let waterfall = try renderDocument(path: TestAssets.path("fonts/latin.ttf"), page: 2).thumbnail.image
        #expect(waterfall.width == 768 && waterfall.height == 1024)
        // The name, then ten lines of the sample, each taller than the one before.
        var lines: [Int] = []
        var height = 0
        for y in 0..<waterfall.height {
            if inkedRows(waterfall, y..<(y + 1)) > 0 {
                height += 1
            } else if height > 0 {
                lines.append(height)
                height = 0
            }
        }
        #expect(lines.count >= 8, "\(lines)")
        #expect(lines.suffix(4) == lines.suffix(4).sorted() && lines.last! > 4 * lines[1], "\(lines)")
        let coverage = try renderDocument(path: TestAssets.path("fonts/latin.ttf"), page: 3).thumbnail.image
        #expect(coverage.width == 768 && coverage.height == 1024)
        // Cells of 48 pixels, sixteen a row: those with ink are the 46 characters mapped, in order.
        var inked: [Int] = []
        for cell in 0..<(16 * 21) {
            let (x0, y0) = (cell % 16 * 48, cell / 16 * 48)
            let dark = (y0 + 3..<y0 + 45).contains { y in
                (x0 + 3..<x0 + 45).contains { x in coverage.pixel(x: x, y: y).r < 100 }
            }
            if dark { inked.append(cell) }
        }
        #expect(inked == Array(0..<46), "\(inked)")
        #expect(throws: ThumbnailError.self) {
            try renderDocument(path: TestAssets.path("fonts/latin.ttf"), page: 4)
        }
    }

    @Test(
        "WOFF and WOFF2 draw exactly what their TrueType font draws; a collection draws its first face",
        arguments: ["fonts/latin.woff", "fonts/latin.woff2", "fonts/pair.ttc"])
    func containers(_ path: String) throws {
        let sheet = try renderDocument(path: TestAssets.path(path)).thumbnail
        let plain = try renderDocument(path: TestAssets.path("fonts/latin.ttf")).thumbnail.image
        #expect(sheet.image == plain, "\(path)")
        if path.hasSuffix(".ttc") { #expect(sheet.warnings.contains("a collection of 2 faces: the first is drawn")) }
    }

    @Test("a Type 1 font, binary or ASCII, is told by its bytes and draws the Latin sample and its name in itself")
    func type1() throws {
        let (type, binary) = try renderDocument(path: TestAssets.path("fonts/latin.pfb"))
        #expect(type == .type1Font)
        #expect(binary.warnings.first?.hasSuffix("a latin sample") == true, "\(binary.warnings)")
        #expect(!binary.warnings.contains("the font cannot write its own name: the name is left out"))
        #expect(inkedRows(binary.image, 0..<450) > 200)
        #expect(inkedRows(binary.image, 540..<600) > 0, "the name line")
        let (asciiType, ascii) = try renderDocument(path: TestAssets.path("fonts/latin.pfa"))
        #expect(asciiType == .type1Font)
        #expect(ascii.image == binary.image, "the PFA draws other than the PFB")
        // PostScript's first line, `%!PS`, is a Type 1 font's too: a program is not a font.
        #expect(
            ContentSniffer.sniff(prefix: Array("%!PS-Adobe-3.0\n".utf8), isWholeFile: false, fileName: "x.pfa")
                == .supported(.postScript))
    }

    @Test("CFF outlines draw the same sample")
    func cff() throws {
        let (type, sheet) = try renderDocument(path: TestAssets.path("fonts/latin-cff.otf"))
        #expect(type == .openTypeFont)
        #expect(sheet.warnings.first?.hasSuffix("a latin sample") == true)
        #expect(inkedRows(sheet.image, 0..<450) > 200)
    }

    @Test(
        "a CJK font's sample is kanji though it covers Latin; a symbol font's is its own symbols; neither writes a name it cannot",
        arguments: [("fonts/cjk.ttf", "cjk"), ("fonts/symbols.ttf", "symbols")])
    func samples(_ path: String, sample: String) throws {
        let sheet = try renderDocument(path: TestAssets.path(path)).thumbnail
        #expect(sheet.warnings.first?.hasSuffix("a \(sample) sample") == true, "\(sheet.warnings)")
        #expect(sheet.warnings.contains("the font cannot write its own name: the name is left out"))
        #expect(inkedRows(sheet.image, 0..<450) > 200)
        #expect(inkedRows(sheet.image, 540..<600) == 0, "no name line")
    }

    @Test("a family name too long for the sheet is drawn smaller, whole: no ink in the right margin of its line")
    func longName() throws {
        let image = try renderDocument(path: TestAssets.path("fonts/long-name.ttf")).thumbnail.image
        let nameRows = 500..<620
        #expect(inkedRows(image, nameRows) > 5, "the name is drawn")
        // The sheet's margin is 6% of its side on each side.
        let margin = (image.width - 50)..<image.width
        let inkInMargin = nameRows.contains { y in margin.contains { x in image.pixel(x: x, y: y).r < 100 } }
        #expect(!inkInMargin)
    }

    @Test(
        "a symbol font draws its first characters past ASCII, each its own glyph (the same one was drawn 24 times), and not its punctuation when it has 24 symbols: U+2601's glyph, taller than U+2600's, comes second",
        arguments: ["fonts/symbols.ttf", "fonts/symbols-ascii.ttf"])
    func symbolsDiffer(_ path: String) throws {
        let image = try renderDocument(path: TestAssets.path(path)).thumbnail.image
        let rows = 0..<450
        // The large glyphs: runs of columns with ink in those rows, and each run's highest ink.
        let inked = (0..<image.width).map { x in rows.contains { y in image.pixel(x: x, y: y).r < 100 } }
        var runs: [Range<Int>] = []
        var x = 0
        while x < inked.count {
            guard inked[x] else {
                x += 1
                continue
            }
            let start = x
            while x < inked.count && inked[x] { x += 1 }
            runs.append(start..<x)
        }
        // Each test glyph is a box of posts, so a glyph is one run or (its posts apart) more: the
        // first and the last run are the two glyphs' outer posts.
        let tops = [runs.first, runs.last].compactMap { run in
            run.flatMap { run in rows.first { y in run.contains { image.pixel(x: $0, y: y).r < 100 } } }
        }
        // generate.py's glyphs: U+2600 680 units high, U+2601 740 ('!' 680, '#' 500).
        #expect(runs.count >= 2 && tops.count == 2 && tops[1] < tops[0], "\(path): runs \(runs), tops \(tops)")
    }

    @Test("a font cut short fails in one line; fonts are told by their bytes, not their names")
    func hostileAndSniffing() {
        #expect {
            try renderDocument(path: TestAssets.path("fonts/cut.ttf"))
        } throws: { error in
            (error as? ThumbnailError)?.description.hasPrefix("corrupt font data") == true
        }
        func sniffed(_ bytes: [UInt8], _ name: String) -> SniffResult {
            ContentSniffer.sniff(prefix: bytes, isWholeFile: false, fileName: name)
        }
        // A TrueType table directory of 12 tables: 8 is the largest power of two below, 128 its search range.
        let trueType: [UInt8] = [0, 1, 0, 0, 0, 12, 0, 128, 0, 3, 0, 64] + [UInt8](repeating: 0, count: 20)
        #expect(sniffed(trueType, "glyphs.dat") == .supported(.trueTypeFont))
        #expect(sniffed(Array("wOF2".utf8) + [UInt8](repeating: 0, count: 40), "x.bin") == .supported(.woff2))
        #expect(sniffed(Array("a note, not a font\n".utf8), "note.ttf") != .supported(.trueTypeFont))
    }
}
