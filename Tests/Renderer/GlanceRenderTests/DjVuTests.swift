import GlanceCore
import Testing

@testable import GlanceRender

/// DjVu through DjVuLibre: pages decoded at the thumbnail's size, turned by their flags, every
/// page reachable, and nothing outside the document read.
@Suite("DjVu", .timeLimit(.minutes(10)))
struct DjVuTests {
    @Test("a photo page (IW44) looks like the picture it was made from; a bitonal page (JB2) is black and white")
    func pages() throws {
        let (type, photo) = try renderDocument(path: TestAssets.path("djvu/photo.djvu"))
        #expect(type == .djvu)
        let reference = try decodeFullSize(TestAssets.path("png/rgb8.png"))
        try #require(photo.image.width == reference.width && photo.image.height == reference.height)
        let psnr = PixelStatistics.psnr(photo.image, reference)
        #expect(psnr > 30, "\(psnr) dB")
        let bitonal = try renderDocument(path: TestAssets.path("djvu/bitonal.djvu")).thumbnail.image
        #expect(Set(bitonal.bytes).count <= 2 && Set(bitonal.bytes).isSubset(of: [0, 255]))
    }

    @Test("a bundled document gives its page count and each page's size in points, and draws the page asked for")
    func bundled() throws {
        let first = try renderDocument(path: TestAssets.path("djvu/book.djvu")).thumbnail
        #expect(first.details?.pageCount == 2)
        // 200x150 pixels at 100 dpi, then at 300 dpi.
        #expect(
            first.details?.pageSizes == [
                DocumentDetails.PageRun(width: 144, height: 108, count: 1),
                DocumentDetails.PageRun(width: 48, height: 36, count: 1),
            ], "\(String(describing: first.details?.pageSizes))")
        let second = try renderDocument(path: TestAssets.path("djvu/book.djvu"), page: 2).thumbnail.image
        let bitonal = try renderDocument(path: TestAssets.path("djvu/bitonal.djvu")).thumbnail.image
        #expect(second == bitonal)
        #expect(throws: ThumbnailError.pageOutOfRange(page: 3, pageCount: 2)) {
            try renderDocument(path: TestAssets.path("djvu/book.djvu"), page: 3)
        }
    }

    @Test("a page's orientation flag turns it")
    func turned() throws {
        let turned = try renderDocument(path: TestAssets.path("djvu/turned.djvu")).thumbnail.image
        let upright = try renderDocument(path: TestAssets.path("djvu/photo.djvu")).thumbnail.image
        try #require(turned.width == upright.height && turned.height == upright.width)
        // A quarter turn left: the upright page's top right corner is the turned one's top left.
        for (x, y) in [(0, 0), (10, 40), (140, 190)] {
            let moved = turned.pixel(x: x, y: y)
            let original = upright.pixel(x: upright.width - 1 - y, y: x)
            #expect(moved == original, "(\(x), \(y)): \(moved) against \(original)")
        }
    }

    @Test("an indirect document is refused without reading its pages' files, and a cut one says so")
    func refused() {
        #expect {
            try renderDocument(path: TestAssets.path("djvu/indirect.djvu"))
        } throws: { error in
            (error as? ThumbnailError)?.description.contains("indirect DjVu document") == true
        }
        #expect(throws: ThumbnailError.truncated(format: "DjVu")) {
            try renderDocument(path: TestAssets.path("djvu/cut.djvu"))
        }
    }
}
