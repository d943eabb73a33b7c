import CPageImages
import GlanceCore
import GlanceTestSupport
import Testing

@testable import GlanceRender

/// Images on PDF pages, averaged onto the page's pixels before cairo paints them (see
/// `CPageImages`): the picture cairo's own filter makes, within rounding, and only where it
/// applies.
@Suite("Images on PDF pages", .timeLimit(.minutes(10)))
struct PageImageReductionTests {
    /// Page 1 of `asset` rendered on this thread with images reduced or not, and how many were.
    func render(_ asset: String, reducing: Bool) throws -> (image: PixelBuffer, reduced: UInt32) {
        glance_page_images_set_reducing(reducing)
        defer { glance_page_images_set_reducing(true) }
        _ = glance_page_images_take_reduced_count()
        let path = TestAssets.path(asset)
        let request = RenderRequest(file: try OpenFile.regularFile(atPath: path), name: path)
        let result = try Thumbnailer().render(request, as: .pdf)
        return (result.image, glance_page_images_take_reduced_count())
    }

    /// The mean and the largest difference of two images' bytes.
    func difference(_ first: PixelBuffer, _ second: PixelBuffer) -> (mean: Double, largest: Int) {
        var total = 0
        var largest = 0
        for (a, b) in zip(first.bytes, second.bytes) {
            let difference = abs(Int(a) - Int(b))
            total += difference
            largest = max(largest, difference)
        }
        return (Double(total) / Double(max(1, first.bytes.count)), largest)
    }

    @Test(
        "a photo drawn at under half its size, upright or mirrored, is averaged onto the page's pixels: cairo's picture within rounding",
        arguments: ["pdf/with-photo.pdf", "pdf/photo-mirrored-and-turned.pdf"])
    func reducedAsCairoWould(asset: String) throws {
        let reduced = try render(asset, reducing: true)
        let original = try render(asset, reducing: false)
        // One image each: with-photo's at 0.49x, the mirrored one at 0.24x; the turned one is
        // left to cairo.
        #expect(reduced.reduced == 1)
        #expect(original.reduced == 0)
        #expect(reduced.image.width == original.image.width && reduced.image.height == original.image.height)
        let (mean, largest) = difference(reduced.image, original.image)
        #expect(mean < 0.05, "mean difference \(mean)")
        #expect(largest <= 2, "largest difference \(largest)")
    }

    @Test("a page of text and vector drawing only is drawn exactly as before")
    func pagesWithoutImages() throws {
        let reduced = try render("pdf/letter.pdf", reducing: true)
        let original = try render("pdf/letter.pdf", reducing: false)
        #expect(reduced.reduced == 0)
        #expect(reduced.image.bytes == original.image.bytes)
    }
}
