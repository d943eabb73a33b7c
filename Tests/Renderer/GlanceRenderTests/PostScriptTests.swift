import GlanceCore
import Testing

@testable import GlanceRender

/// PostScript and EPS through Ghostscript: drawn at the thumbnail's size, the way up they were
/// drawn, and nothing outside the document read.
@Suite("PostScript", .timeLimit(.minutes(10)))
struct PostScriptTests {
    @Test(
        "a page and every kind of EPS (its box away from the origin, Ghostscript's own, DOS binary), gzip-compressed too, fill the box, red above blue",
        arguments: [
            ("postscript/halves.ps", ContentType.postScript), ("postscript/offset.eps", .encapsulatedPostScript),
            ("postscript/eps2write.eps", .encapsulatedPostScript),
            ("postscript/dos-binary.eps", .encapsulatedPostScript), ("postscript/halves.ps.gz", .postScript),
            ("postscript/offset.eps.gz", .encapsulatedPostScript),
        ])
    func drawn(_ path: String, type: ContentType) throws {
        let (sniffed, rendered) = try renderDocument(path: TestAssets.path(path))
        #expect(sniffed == type)
        let image = rendered.image
        #expect(image.width == 1024 && image.height == 683, "\(path): \(image.width)x\(image.height)")
        // Inside each half, away from the edge between them (anti-aliased).
        let (top, bottom) = (image.pixel(x: 512, y: 100), image.pixel(x: 512, y: 580))
        #expect(top.r > 240 && top.b < 20, "\(path): the top is \(top)")
        #expect(bottom.b > 240 && bottom.r < 20, "\(path): the bottom is \(bottom)")
        // The box's corners are drawn: nothing of the page outside the box shows.
        let corner = image.pixel(x: 2, y: 680)
        #expect(corner.b > 200 && corner.r < 40, "\(path): the lower left corner is \(corner)")
    }

    @Test(
        "a page without a paper size or BoundingBox is drawn on US Letter, and says so; the pages %%Pages counts are pages"
    )
    func warnings() throws {
        let letter = try renderDocument(path: TestAssets.path("postscript/no-box.ps")).thumbnail
        #expect(letter.image.width == 791 && letter.image.height == 1024)
        #expect(letter.warnings.contains { $0.contains("US Letter") })
        let lowerHalf = letter.image.pixel(x: 400, y: 900)
        #expect(lowerHalf.b > 240 && lowerHalf.r < 20)
        let first = try renderDocument(path: TestAssets.path("postscript/halves.ps")).thumbnail
        #expect(first.details?.pageCount == 2)
        #expect(first.details?.pageSizes == [DocumentDetails.PageRun(width: 300, height: 200, count: 2)])
        let second = try renderDocument(path: TestAssets.path("postscript/halves.ps"), page: 2).thumbnail.image
        let green = second.pixel(x: 512, y: 340)
        #expect(green.g > 240 && green.r < 20 && green.b < 20, "page 2 is \(green)")
        #expect(throws: ThumbnailError.pageOutOfRange(page: 3, pageCount: 2)) {
            try renderDocument(path: TestAssets.path("postscript/halves.ps"), page: 3)
        }
    }

    @Test(
        "a page is drawn on its paper as its comments give it: cairo's medium, dvips' paper size, ps2write's page boxes, each page its own"
    )
    func paper() throws {
        let cairo = try renderDocument(path: TestAssets.path("postscript/cairo.ps")).thumbnail
        #expect(cairo.image.width == 724 && cairo.image.height == 1024, "\(cairo.image.width)x\(cairo.image.height)")
        // Its second page is landscape, drawn turned on the A4 paper (%%PageOrientation): turned
        // back, its line of text reads across the top.
        #expect(
            cairo.details?.pageSizes == [
                DocumentDetails.PageRun(width: 595, height: 842, count: 1),
                DocumentDetails.PageRun(width: 842, height: 595, count: 1),
            ])
        let turned = try renderDocument(path: TestAssets.path("postscript/cairo.ps"), page: 2).thumbnail
        #expect(
            turned.image.width == 1024 && turned.image.height == 724, "\(turned.image.width)x\(turned.image.height)")
        #expect(turned.warnings.contains { $0.contains("landscape") })
        func inkRows(_ rows: Range<Int>) -> Int {
            rows.filter { y in (0..<turned.image.width).contains { turned.image.pixel(x: $0, y: y).r < 128 } }.count
        }
        #expect(inkRows(0..<160) > 10, "no text across the top")
        #expect(inkRows(300..<724) == 0, "marks below the top")
        let paper = try renderDocument(path: TestAssets.path("postscript/paper-sizes.ps")).thumbnail.image
        #expect(paper.width == 724 && paper.height == 1024, "\(paper.width)x\(paper.height)")
        let (upper, lower) = (paper.pixel(x: 362, y: 200), paper.pixel(x: 362, y: 900))
        #expect(upper.r > 240 && upper.g > 240 && upper.b > 240, "the upper half is \(upper)")
        #expect(lower.b > 240 && lower.r < 20, "the lower half is \(lower)")
        let first = try renderDocument(path: TestAssets.path("postscript/ps2write.ps")).thumbnail
        #expect(first.image.width == 1024 && first.image.height == 683)
        #expect(
            first.details?.pageSizes == [
                DocumentDetails.PageRun(width: 300, height: 200, count: 1),
                DocumentDetails.PageRun(width: 200, height: 300, count: 1),
            ])
        let top = first.image.pixel(x: 512, y: 100)
        #expect(top.r > 240 && top.b < 20, "page 1's top is \(top)")
        let second = try renderDocument(path: TestAssets.path("postscript/ps2write.ps"), page: 2).thumbnail.image
        #expect(second.width == 683 && second.height == 1024, "page 2 is \(second.width)x\(second.height)")
        let corner = second.pixel(x: 670, y: 10)
        #expect(corner.g > 240 && corner.r < 20 && corner.b < 20, "page 2's upper right corner is \(corner)")
    }

    @Test(
        "absurd header comments are no comments: an infinitely wide box, a box of 1e-300 points, %%Pages of 10^20 (two trapped the renderer)",
        arguments: ["postscript/infinite-box.eps", "postscript/absurd-header.ps"])
    func absurdHeader(_ path: String) throws {
        let rendered = try renderDocument(path: TestAssets.path(path)).thumbnail
        #expect(rendered.image.width == 791 && rendered.image.height == 1024, "\(path)")
        #expect(rendered.warnings.contains { $0.contains("US Letter") }, "\(path)")
        #expect(rendered.details?.pageCount == 1)
        let lowerHalf = rendered.image.pixel(x: 400, y: 900)
        #expect(lowerHalf.b > 240 && lowerHalf.r < 20, "\(path): the lower half is \(lowerHalf)")
    }

    @Test("the pages are those its %%Page comments mark, not a figure's it includes, nor a %%Pages of billions")
    func pageCount() throws {
        let rendered = try renderDocument(path: TestAssets.path("postscript/included.ps")).thumbnail
        #expect(rendered.details?.pageCount == 2)
        #expect(rendered.details?.pageSizes == [DocumentDetails.PageRun(width: 300, height: 200, count: 2)])
        let top = rendered.image.pixel(x: 512, y: 100)
        #expect(top.r > 240 && top.b < 20, "page 1's top is \(top)")
    }

    @Test(
        "a program that reads or runs another file is refused in one line",
        arguments: ["postscript/reads-file.ps", "postscript/runs-file.ps"])
    func refused(_ path: String) {
        #expect {
            try renderDocument(path: TestAssets.path(path))
        } throws: { error in
            guard let error = error as? ThumbnailError else { return false }
            return error.description.contains("asks for a file outside itself") && !error.description.contains("\n")
        }
    }

    @Test(
        "a gzip-compressed program counts its pages as the program does; one that inflates past the limit is refused in one line"
    )
    func compressed() throws {
        let first = try renderDocument(path: TestAssets.path("postscript/halves.ps.gz")).thumbnail
        #expect(first.details?.pageCount == 2)
        let second = try renderDocument(path: TestAssets.path("postscript/halves.ps.gz"), page: 2).thumbnail.image
        let green = second.pixel(x: 512, y: 340)
        #expect(green.g > 240 && green.r < 20 && green.b < 20, "page 2 is \(green)")
        #expect(throws: ThumbnailError.needsTooMuchMemory(format: "gzip-compressed PostScript", limitMegabytes: 256)) {
            try renderDocument(path: TestAssets.path("postscript/bomb.ps.gz"))
        }
    }

    @Test("EPS, PostScript and text are told apart by their first line, not their names")
    func sniffing() {
        func sniffed(_ text: String, _ name: String) -> SniffResult {
            ContentSniffer.sniff(prefix: Array(text.utf8), isWholeFile: true, fileName: name)
        }
        #expect(
            sniffed("%!PS-Adobe-3.0 EPSF-3.0\n%%BoundingBox: 0 0 1 1\n", "figure.ps")
                == .supported(.encapsulatedPostScript))
        #expect(sniffed("%!PS-Adobe-3.0\n%%Pages: 1\n", "figure.eps") == .supported(.postScript))
        #expect(sniffed("\u{04}%!PS\n", "print.prn") == .supported(.postScript))
        #expect(sniffed("% a note about %!PS\n", "note.ps") != .supported(.postScript))
    }
}
