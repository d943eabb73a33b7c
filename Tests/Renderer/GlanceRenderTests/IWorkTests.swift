import GlanceCore
import Testing

@testable import GlanceRender

/// Pages, Keynote and Numbers files, told apart by their listings and drawn from the preview they
/// carry.
@Suite("iWork", .timeLimit(.minutes(10)))
struct IWorkTests {
    @Test("each kind is told by its listing, the name only where it says so; its preview is drawn")
    func kinds() throws {
        let photo = try renderDocument(path: TestAssets.path("jpeg/photo-baseline.jpg")).thumbnail.image
        for (path, type) in [
            ("iwork/letter.pages", ContentType.pagesDocument), ("iwork/deck.zip", .keynotePresentation),
            ("iwork/budget.numbers", .numbersSpreadsheet),
        ] {
            let (sniffed, rendered) = try renderDocument(path: TestAssets.path(path))
            #expect(sniffed == type, "\(path)")
            #expect(PixelStatistics.psnr(rendered.image, photo) > 35, "\(path): not the preview it carries")
        }
    }

    @Test("an iWork '09 file is drawn from its QuickLook thumbnail")
    func quickLookThumbnail() throws {
        let (type, rendered) = try renderDocument(path: TestAssets.path("iwork/old.pages"))
        #expect(type == .pagesDocument && rendered.image.width == 400 && rendered.image.height == 300)
    }

    @Test("a file saved with a password fails in one line")
    func password() {
        #expect {
            try renderDocument(path: TestAssets.path("iwork/locked.numbers"))
        } throws: { error in
            "\(error)" == "encrypted Numbers spreadsheet, needs a password"
        }
    }

    @Test("an index without a preview or a password is not taken for iWork; pictures alone are a comic book")
    func notIWork() {
        func entry(_ name: String) -> ArchiveReader.Entry {
            ArchiveReader.Entry(name: name, size: 10, isFile: true, isEncrypted: false)
        }
        #expect(IWorkRenderer.type(of: [entry("Index/Document.iwa")], named: nil) == nil)
        #expect(IWorkRenderer.type(of: [entry("preview.jpg")], named: nil) == nil)
        #expect(
            IWorkRenderer.type(of: [entry("Index/Document.iwa"), entry("preview.jpg")], named: .keynotePresentation)
                == .keynotePresentation)
    }
}
