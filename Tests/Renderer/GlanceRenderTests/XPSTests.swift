import GlanceCore
import Testing

@testable import GlanceRender

/// XPS and OpenXPS through libgxps: pages fitted to the box, every page reachable, nothing
/// outside the package read.
@Suite("XPS", .timeLimit(.minutes(10)))
struct XPSTests {
    @Test("an XPS and an OpenXPS print: the first page red above blue, the second green, every page's size given")
    func pages() throws {
        for (path, type) in [("xps/halves.xps", ContentType.xps), ("xps/halves.oxps", .openXPS)] {
            let (sniffed, first) = try renderDocument(path: TestAssets.path(path))
            #expect(sniffed == type)
            #expect(first.image.width == 1024 && first.image.height == 681)
            let (top, bottom) = (first.image.pixel(x: 512, y: 100), first.image.pixel(x: 512, y: 580))
            #expect(top.r > 240 && top.b < 20 && bottom.b > 240 && bottom.r < 20, "\(path): \(top), \(bottom)")
            #expect(first.details?.pageCount == 2)
            #expect(first.details?.pageSizes?.first?.count == 2)
            let second = try renderDocument(path: TestAssets.path(path), page: 2).thumbnail.image
            let green = second.pixel(x: 512, y: 340)
            #expect(green.g > 240 && green.r < 20, "\(path): page 2 is \(green)")
        }
        #expect(throws: ThumbnailError.pageOutOfRange(page: 3, pageCount: 2)) {
            try renderDocument(path: TestAssets.path("xps/halves.xps"), page: 3)
        }
    }

    @Test("an XPS package is not a comic book, though it is a ZIP; a cut one fails in one line")
    func sniffing() throws {
        #expect(try sniffDocument(path: TestAssets.path("xps/halves.xps")) == .supported(.xps))
        #expect {
            try renderDocument(path: TestAssets.path("xps/cut.xps"))
        } throws: { error in
            (error as? ThumbnailError)?.description.hasPrefix("corrupt XPS data") == true
        }
    }

    @Test("a page that asks for an image outside the package is drawn without it")
    func outsideImage() throws {
        let image = try renderDocument(path: TestAssets.path("xps/outside-image.xps")).thumbnail.image
        let bottom = image.pixel(x: 512, y: 580)
        #expect(bottom.b > 240 && bottom.r < 20)
    }
}
