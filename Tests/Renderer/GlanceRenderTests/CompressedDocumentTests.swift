import GlanceCore
import Testing

@testable import GlanceRender

/// Documents kept compressed whole: texts (rotated logs, packages' changelogs) drawn from their
/// decompressed start as the plain text is, in the file's place; PDFs from a decompressed copy;
/// other kinds refused with a reason.
@Suite("Compressed documents", .timeLimit(.minutes(10)))
struct CompressedDocumentTests {
    @Test(
        "gzip, xz and Zstandard by what they decompress to, bzip2 by its name: each drawn as the plain text is",
        arguments: [
            "compressed/changelog.gz", "compressed/notes.txt.xz", "compressed/notes.txt.zst",
            "compressed/notes.txt.bz2",
        ])
    func likeThePlainText(_ path: String) throws {
        let (type, rendered) = try renderDocument(path: TestAssets.path(path))
        let plain = try renderDocument(path: TestAssets.path("text/latin-utf8.txt")).thumbnail.image
        #expect(type == .text)
        #expect(rendered.image == plain, "\(path) is not drawn as text/latin-utf8.txt")
    }

    @Test(
        "a PDF or an SVG kept compressed is drawn from a decompressed copy, as the plain file is; by bzip2 when named so",
        arguments: [
            ("compressed/report.pdf.gz", "pdf/letter.pdf"), ("compressed/report.pdf.bz2", "pdf/letter.pdf"),
            ("compressed/drawing.svg.xz", "svg/shapes.svg"), ("svg/gzipped.svgz", "svg/shapes.svg"),
        ])
    func decompressedCopy(_ path: String, plainPath: String) throws {
        let (plainType, plain) = try renderDocument(path: TestAssets.path(plainPath))
        let (type, rendered) = try renderDocument(path: TestAssets.path(path))
        #expect(type == plainType && rendered.image == plain.image, "\(path)")
    }

    @Test("a bzip2 file not named text is not decompressed to sniff it; a compressed PNG says what it is")
    func notDrawn() throws {
        #expect(throws: ThumbnailError.unsupported(detail: nil)) {
            try renderDocument(path: TestAssets.path("compressed/notes.bz2"))
        }
        #expect(throws: ThumbnailError.unsupported(detail: "a compressed PNG: of its kind only a plain file is drawn"))
        {
            try renderDocument(path: TestAssets.path("compressed/picture.png.gz"))
        }
    }

    @Test(
        "a long log is decompressed only to its first megabyte and a byte, which its line count says goes on; a cut one draws what it holds"
    )
    func startOnly() throws {
        let file = try OpenFile.regularFile(atPath: TestAssets.path("compressed/long.log.zst"))
        let (type, text, read, _, document) = try Thumbnailer().sniff(file, named: "long.log.zst")
        #expect(type == .text && text != nil)
        #expect(document.status()?.st_size == Int(TextLimits.maximumBytes + 1))
        let (lines, longer) = try TextContent.lineCount(of: document, encoding: "UTF-8", continuing: read)
        // 67 bytes a line: 15,650 whole lines fit the first megabyte (of 40,000).
        #expect(longer && (15_650...15_651).contains(lines), "\(lines) lines, longer: \(longer)")
        let (cutType, cut) = try renderDocument(path: TestAssets.path("compressed/cut.log.gz"))
        #expect(cutType == .text && cut.image.width == 724)
    }
}
