import GlanceCore
import Testing

@testable import GlanceRender

/// EPUB covers (found in the order the renderer documents) and comic books (pages in natural
/// order), from the books and archives `generate.py` zips, and writes by hand for RAR.
@Suite("E-books and comic books", .timeLimit(.minutes(10)))
struct BookAndComicTests {
    /// The mean colour of a page (a flat colour, its number drawn small in the middle).
    static func centre(_ image: PixelBuffer) -> (r: Double, g: Double, b: Double) {
        PixelStatistics.meanColour(image)
    }

    @Test("the cover the package's meta names wins over the cover-image item (a red cover, not the blue one)")
    func coverMetaFirst() throws {
        let rendered = try renderDocument(path: TestAssets.path("ebook/cover-meta.epub"))
        let book = try #require(rendered.thumbnail.details?.book)
        #expect(book.cover == .coverMeta)
        #expect(book.title == "The Meta Cover")
        #expect(book.author == "Ann Author")
        let colour = PixelStatistics.meanColour(rendered.thumbnail.image)
        #expect(colour.r > colour.b + 60, "the meta's cover is red: \(colour)")
    }

    @Test(
        "then the cover-image item, then the first chapter's first picture (a relative href resolved)",
        arguments: [
            ("ebook/cover-property.epub", BookDetails.CoverSource.coverImage, 683, 1024),
            ("ebook/first-image.epub", .firstImage, 400, 300),
        ])
    func coverOrder(_ path: String, _ source: BookDetails.CoverSource, _ width: Int, _ height: Int) throws {
        let rendered = try renderDocument(path: TestAssets.path(path))
        #expect(rendered.thumbnail.details?.book?.cover == source)
        #expect(rendered.thumbnail.image.width == width && rendered.thumbnail.image.height == height)
    }

    @Test("a declared cover missing from the book is passed over, with a warning")
    func missingCoverPassedOver() throws {
        let rendered = try renderDocument(path: TestAssets.path("ebook/missing-cover.epub"))
        #expect(rendered.thumbnail.details?.book?.cover == .coverImage)
        #expect(rendered.thumbnail.warnings.contains { $0.contains("is not in the book") })
    }

    @Test("a book without pictures shows its first chapter's text, entities decoded, on a text page")
    func textOnlyBook() throws {
        let rendered = try renderDocument(path: TestAssets.path("ebook/text-only.epub"))
        #expect(rendered.thumbnail.details?.book?.cover == .text)
        #expect(rendered.thumbnail.image.width == 724 && rendered.thumbnail.image.height == 1024)
        // Some ink on the page, the rest paper.
        let colour = PixelStatistics.meanColour(rendered.thumbnail.image)
        #expect(colour.r > 200 && colour.r < 255)
    }

    @Test("the listing sniffing made is handed on: taken when it fits the renderer's limits, else listed again")
    func listingHandedOn() throws {
        let file = try OpenFile.regularFile(atPath: TestAssets.path("comics/natural.cbz"))
        let sniffed = try ContentSniffer.sniff(file: file, named: "natural.cbz")
        #expect(sniffed.result == .supported(.comicZip))
        let listing = try #require(sniffed.listing)
        // Listed under the loosest limits: the comic book's own take it as it is, an e-book's too
        // (what it declares holds to them), another reading of the formats does not.
        #expect(try listing.listing(heldTo: .comics, as: .zip, format: "CBZ comic") === listing)
        #expect(try listing.listing(heldTo: .package, as: .zip, format: "EPUB book") === listing)
        #expect(try listing.listing(heldTo: .comics, as: .comics, format: "CBZ comic") == nil)
        var tight = ArchiveReader.Limits.package
        tight.entries = 2
        #expect(throws: ThumbnailError.self) { try listing.listing(heldTo: tight, as: .zip, format: "CBZ comic") }
        // Drawn from the listing handed on: the same page as when the renderer lists it itself.
        var request = RenderRequest(file: file, name: "natural.cbz")
        let listedAgain = try Thumbnailer().render(request, as: .comicZip)
        request.listing = ArchiveListing(reader: listing)
        let handedOn = try Thumbnailer().render(request, as: .comicZip)
        #expect(handedOn.image == listedAgain.image)
    }

    @Test("a book whose cover and chapters are encrypted (DRM) fails in one line; an obfuscated font does not count")
    func drmBook() throws {
        let file = try OpenFile.regularFile(atPath: TestAssets.path("ebook/drm.epub"))
        let archive = try ArchiveReader(file: file, format: "EPUB book", limits: .package)
        let package = try EPUBPackage(archive, format: "EPUB book")
        #expect(
            package.encryptedEntries == ["OEBPS/images/cover.jpg", "OEBPS/images/blue.png", "OEBPS/text/ch1.xhtml"])
        #expect {
            try renderDocument(path: TestAssets.path("ebook/drm.epub"))
        } throws: { error in
            "\(error)".contains("encrypted (DRM)") && !"\(error)".contains("\n")
        }
    }

    @Test("a chapter's readable text: the head and scripts left out, blocks as paragraphs, entities decoded")
    func readableText() {
        let chapter = Array(
            """
            <?xml version="1.0"?><html xmlns="http://www.w3.org/1999/xhtml"><head><title>Skip me</title>
            <style>p { color: red }</style></head><body><h1>Caf&#233; &amp; Bar</h1><p>First
            line,   wrapped.</p><script>var x = 1;</script><p>Second&nbsp;one<br/>after a break</p></body></html>
            """.utf8)
        #expect(
            EPUBRenderer.readableText(chapter)
                == "Café & Bar\n\nFirst line, wrapped.\n\nSecond\u{A0}one\n\nafter a break")
    }

    @Test("hrefs resolve against the file that holds them, percent-decoded, never above the top")
    func hrefResolution() {
        #expect(EPUBPackage.resolve("../images/a%20b.png#x", from: "OEBPS/text/ch1.xhtml") == "OEBPS/images/a b.png")
        #expect(EPUBPackage.resolve("content.opf", from: "") == "content.opf")
        #expect(EPUBPackage.resolve("../../../etc/passwd", from: "OEBPS/a.xhtml") == "etc/passwd")
        #expect(EPUBPackage.resolve("./img/c.jpg", from: "OPS/package.opf") == "OPS/img/c.jpg")
    }

    @Test(
        "a comic book's first page is the first picture in natural order (page2, not page10), in every archive",
        arguments: ["comics/natural.cbz", "comics/natural.cbr", "comics/natural-rar5.cbr", "comics/natural.cb7"])
    func firstPageNaturalOrder(_ path: String) throws {
        let rendered = try renderDocument(path: TestAssets.path(path))
        #expect(rendered.thumbnail.details?.pageCount == 3, "ComicInfo.xml, the hidden page and __MACOSX are no pages")
        let colour = Self.centre(rendered.thumbnail.image)
        #expect(colour.r > 180 && colour.g < 90 && colour.b < 90, "\(path): page2 is red, got \(colour)")
    }

    @Test("a comic book's later pages are its pages in order, and one past the last is refused with the count")
    func laterPages() throws {
        let third = try renderDocument(path: TestAssets.path("comics/natural.cbr"), page: 3)
        #expect(Self.centre(third.thumbnail.image).b > 180, "page10 is blue")
        let second = try renderDocument(path: TestAssets.path("comics/natural.cbz"), page: 2)
        #expect(Self.centre(second.thumbnail.image).g > 150, "page3 is green")
        #expect(throws: ThumbnailError.pageOutOfRange(page: 4, pageCount: 3)) {
            try renderDocument(path: TestAssets.path("comics/natural.cbz"), page: 4)
        }
    }

    @Test("natural order: numbers compare as numbers, case is ignored, leading zeros do not reorder")
    func naturalOrder() {
        let names = ["page10.jpg", "Page2.jpg", "page1.jpg", "page02b.jpg", "cover.jpg", "page001.jpg"]
        #expect(
            names.sorted(by: ComicPages.naturallyBefore)
                == ["cover.jpg", "page001.jpg", "page1.jpg", "Page2.jpg", "page02b.jpg", "page10.jpg"])
        #expect(ComicPages.isHidden(".cover.jpg"))
        #expect(ComicPages.isHidden("__MACOSX/._p1.jpg"))
        #expect(ComicPages.isHidden("Issue/.thumbs/p1.jpg"))
        #expect(!ComicPages.isHidden("Issue 1/001.png"))
    }

    @Test("an archive holding pictures is a comic book whatever its name; one without is one only when named so")
    func comicByContent() throws {
        let folder = ScratchFolder()
        let rar = try TestAssets.readBytes(TestAssets.path("comics/natural.cbr"))
        #expect(try sniffDocument(path: folder.write(rar, to: "backup.rar")) == .supported(.comicRar))
        let empty = try TestAssets.readBytes(TestAssets.path("comics/no-images.cbz"))
        #expect(try sniffDocument(path: folder.write(empty, to: "empty.cbz")) == .supported(.comicZip))
        guard case .unsupported(let detail) = try sniffDocument(path: folder.write(empty, to: "notes.zip")) else {
            Issue.record("a ZIP of text files named .zip sniffed as a document")
            return
        }
        #expect(detail?.contains("a ZIP archive") == true)
    }
}
