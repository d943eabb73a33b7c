import GlanceCore
import Testing

@testable import GlanceRender

/// Mobipocket and Kindle books: the cover their EXTH header names, their title and author.
@Suite("Mobipocket books", .timeLimit(.minutes(10)))
struct MobiTests {
    @Test("the cover the EXTH header names is drawn, not the thumbnail; the title and author are in the details")
    func namedCover() throws {
        let (type, rendered) = try renderDocument(path: TestAssets.path("mobi/cover.mobi"))
        #expect(type == .mobiBook)
        #expect(rendered.sourceWidth == 1600 && rendered.sourceHeight == 1200)
        let photo = try renderDocument(path: TestAssets.path("jpeg/photo-baseline.jpg")).thumbnail.image
        #expect(PixelStatistics.psnr(rendered.image, photo) > 35)
        #expect(
            rendered.details?.book == BookDetails(title: "A Book of Tests", author: "Ada Example", cover: .coverMeta))
    }

    @Test("without an EXTH header, the first image record is the cover")
    func firstImage() throws {
        let rendered = try renderDocument(path: TestAssets.path("mobi/no-exth.azw3")).thumbnail
        #expect(rendered.image.width == 160 && rendered.image.height == 120)
        #expect(rendered.details?.book?.cover == .firstImage)
        #expect(rendered.details?.book?.title == "Plain")
    }

    @Test("damaged books end in one line each")
    func damaged() {
        for (path, words) in [
            ("mobi/cut.mobi", "truncated Mobipocket book data"),
            ("mobi/lying-offsets.mobi", "not in order inside the file"),
            ("mobi/no-images.mobi", "no cover picture"),
        ] {
            #expect(throws: ThumbnailError.self, "\(path)") { try renderDocument(path: TestAssets.path(path)) }
            do {
                _ = try renderDocument(path: TestAssets.path(path))
            } catch {
                #expect(error.description.contains(words) && !error.description.contains("\n"), "\(path): \(error)")
            }
        }
    }
}
