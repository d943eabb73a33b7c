import Foundation
import GlanceCore
import GlanceTestSupport
import Testing

@testable import GlanceRender

/// Pages other than the first: a PDF's page N, drawn as poppler's own tool draws it.
@Suite("Pages", .timeLimit(.minutes(10)))
struct PageTests {
    static let twoPages = TestAssets.path("pdf/a4-two-pages.pdf")

    @Test("page 2 of a PDF is not page 1, and matches pdftocairo's drawing of page 2 at that size")
    func secondPage() async throws {
        let first = try renderDocument(path: Self.twoPages, maxSide: 600).thumbnail
        let second = try renderDocument(path: Self.twoPages, maxSide: 600, page: 2).thumbnail
        #expect(first.details?.pageCount == 2 && second.details?.pageCount == 2)
        // Every page's size is known whichever page was drawn: A4 upright, then turned.
        let runs = try #require(second.details?.pageSizes)
        #expect(runs.map(\.count) == [1, 1] && runs.map(\.width) == [595, 842] && runs.map(\.height) == [842, 595])
        // The test file's first page is A4 upright, its second A4 turned: different shapes.
        #expect(first.image.width < first.image.height && second.image.width > second.image.height)

        let scratch = ScratchFolder()
        let tool = Process()
        tool.executableURL = URL(fileURLWithPath: "/usr/bin/pdftocairo")
        tool.arguments = [
            "-png", "-f", "2", "-l", "2", "-scale-to", "600", "-singlefile", Self.twoPages, scratch.file("reference"),
        ]
        try tool.run()
        #expect(await exited(tool, within: .seconds(60)), "tool ended")
        #expect(tool.terminationStatus == 0, "pdftocairo (Debian's poppler-utils) failed")
        let reference = try decodeFullSize(scratch.file("reference.png")).droppingAlpha()
        #expect(reference.width == second.image.width && reference.height == second.image.height)
        if reference.width == second.image.width && reference.height == second.image.height {
            let psnr = PixelStatistics.psnr(second.image, reference)
            #expect(psnr > 40, "page 2 against pdftocairo's: PSNR \(psnr) dB")
        }
    }

    @Test("a page beyond the last, or past the first of a one-page document, is refused by number")
    func outOfRange() {
        #expect(throws: ThumbnailError.pageOutOfRange(page: 3, pageCount: 2)) {
            try renderDocument(path: Self.twoPages, page: 3)
        }
        #expect(throws: ThumbnailError.pageOutOfRange(page: 2, pageCount: 1)) {
            try renderDocument(path: TestAssets.path("png/rgba8.png"), page: 2)
        }
        #expect(
            ThumbnailError.pageOutOfRange(page: 3, pageCount: 2).description == "no page 3: the document has 2 pages")
    }

    @Test("an encrypted PDF is refused for any page, as for the first")
    func encrypted() {
        #expect(throws: ThumbnailError.encrypted) {
            try renderDocument(path: TestAssets.path("pdf/encrypted-user.pdf"), page: 2)
        }
    }
}
