import GlanceCore
import Testing

@testable import GlanceRender

/// OpenRaster and Krita paintings, drawn from the flattened picture they carry.
@Suite("Paintings", .timeLimit(.minutes(10)))
struct PaintingTests {
    @Test("the merged image is drawn, pixel for pixel, for OpenRaster and Krita alike")
    func mergedImage() throws {
        let reference = try decodeFullSize(TestAssets.path("png/rgba8.png"))
        for (path, type) in [
            ("paintings/merged.ora", ContentType.openRaster), ("paintings/painting.kra", .kritaPainting),
        ] {
            let (sniffed, rendered) = try renderDocument(path: TestAssets.path(path))
            #expect(sniffed == type, "\(path)")
            #expect(rendered.image == reference, "\(path): not the merged image")
            #expect(rendered.warnings.isEmpty, "\(path): \(rendered.warnings)")
        }
    }

    @Test("without a merged image, the thumbnail it carries is drawn, and a warning says so")
    func thumbnailOnly() throws {
        let rendered = try renderDocument(path: TestAssets.path("paintings/thumbnail-only.ora")).thumbnail
        #expect(rendered.image.width == 64 && rendered.image.height == 48)
        #expect(rendered.warnings.contains { $0.contains("no merged image") }, "\(rendered.warnings)")
    }

    @Test("a painting holds pictures, yet is no comic book: its stored mimetype says what it is")
    func notAComicBook() throws {
        for path in ["paintings/merged.ora", "paintings/painting.kra"] {
            #expect(try sniffDocument(path: TestAssets.path(path)) != .supported(.comicZip), "\(path)")
        }
    }
}
