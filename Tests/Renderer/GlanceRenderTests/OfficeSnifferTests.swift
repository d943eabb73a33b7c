import GlanceCore
import Testing

@testable import GlanceRender

/// Office documents told apart by content, and checked before LibreOffice would see them.
@Suite("Office documents: sniffing and package checks", .timeLimit(.minutes(10)))
struct OfficeSnifferTests {
    func open(_ relative: String) throws -> OpenFile {
        try OpenFile.regularFile(atPath: TestAssets.path(relative))
    }

    @Test("each office kind is sniffed from its bytes, whatever its name")
    func byContent() throws {
        let expected: [(String, ContentType)] = [
            ("office/letter.docx", .wordDocument), ("office/letter.odt", .openDocumentText),
            ("office/letter.doc", .legacyWordDocument), ("office/letter.rtf", .richText),
            ("office/budget.xlsx", .spreadsheet), ("office/budget.ods", .openDocumentSpreadsheet),
            ("office/budget.xls", .legacySpreadsheet), ("office/deck.pptx", .presentation),
            ("office/deck.odp", .openDocumentPresentation), ("office/deck.ppt", .legacyPresentation),
            ("office/sun.odg", .openDocumentDrawing), ("visio/flow.vsdx", .visioDrawing),
            ("visio/empty-drawing.vsd", .legacyVisioDrawing), ("visio/no-pages.pub", .publisherDocument),
        ]
        for (path, type) in expected {
            // Named as something else entirely: the bytes decide.
            let sniffed = try ContentSniffer.sniff(file: try open(path), named: "renamed.txt")
            #expect(sniffed.result == .supported(type), "\(path): \(sniffed.result)")
        }
    }

    @Test("a ZIP or a compound file that is no office document is not one, even named .docx")
    func notOffice() throws {
        let sniffed = try ContentSniffer.sniff(file: try open("office/not-office.docx"), named: "report.docx")
        guard case .unsupported(let detail) = sniffed.result else {
            Issue.record("sniffed as \(sniffed.result)")
            return
        }
        #expect(detail?.contains("a ZIP archive, not a Word") == true)
    }

    @Test("the main part of [Content_Types].xml names the kind, macro-enabled and template kinds included")
    func contentTypes() {
        func types(_ main: String) -> [UInt8] {
            Array(
                """
                <Types><Override PartName="/docProps/app.xml" ContentType="application/vnd.openxmlformats-officedocument.extended-properties+xml"/>\
                <Override PartName="/x/main.xml" ContentType="\(main)"/></Types>
                """.utf8)
        }
        #expect(
            OfficeSniffer.officeOpenXMLType(
                contentTypes: types("application/vnd.ms-word.document.macroEnabled.main+xml")) == .wordDocument)
        #expect(
            OfficeSniffer.officeOpenXMLType(contentTypes: types("application/vnd.ms-excel.sheet.macroEnabled.main+xml"))
                == .spreadsheet)
        #expect(
            OfficeSniffer.officeOpenXMLType(
                contentTypes: types("application/vnd.openxmlformats-officedocument.presentationml.template.main+xml"))
                == .presentation)
        #expect(OfficeSniffer.officeOpenXMLType(contentTypes: types("application/xml")) == nil)
    }

    @Test("an OpenDocument package's kind comes from its stored mimetype entry in the first bytes")
    func openDocumentPrefix() throws {
        let prefix = try open("office/deck.odp").read(count: 200, at: 0)
        #expect(OfficeSniffer.openDocumentType(prefix: prefix) == .openDocumentPresentation)
        #expect(OfficeSniffer.openDocumentType(prefix: try open("office/letter.docx").read(count: 200, at: 0)) == nil)
    }

    @Test("password protection is found from the container, in one line")
    func passwords() throws {
        #expect(throws: ThumbnailError.passwordProtected(format: "Word document")) {
            _ = try ContentSniffer.sniff(file: try open("office/encrypted.docx"), named: "letter.docx")
        }
        #expect(throws: ThumbnailError.passwordProtected(format: "OpenDocument text")) {
            _ = try OfficePackage(file: try open("office/encrypted.odt"), type: .openDocumentText)
        }
    }

    @Test("bombs end in one line: a ratio, an entry too large, and one nested in an embedded archive")
    func bombs() throws {
        for (path, fragment) in [
            ("office/bomb.docx", "times its own size (a bomb)"), ("office/huge-entry.docx", "past the limit"),
        ] {
            let error = #expect(throws: ThumbnailError.self) {
                _ = try ContentSniffer.sniff(file: try open(path), named: path)
            }
            #expect(error?.description.contains(fragment) == true, "\(path): \(String(describing: error))")
        }
        // The listing of nested-bomb.docx passes; inflating it finds the workbook inside, whose
        // own entry is past the limit.
        let nested = try open("office/nested-bomb.docx")
        #expect(try ContentSniffer.sniff(file: nested, named: "x").result == .supported(.wordDocument))
        let error = #expect(throws: ThumbnailError.self) { _ = try OfficePackage(file: nested, type: .wordDocument) }
        #expect(error?.description.contains("an embedded archive") == true, "\(String(describing: error))")
    }

    @Test("the thumbnail a document carries is found: ODF's Thumbnails/thumbnail.png")
    func embeddedThumbnail() throws {
        let package = try OfficePackage(file: try open("office/letter.odt"), type: .openDocumentText)
        let png = try #require(package.embeddedThumbnail)
        #expect(png.starts(with: [0x89, 0x50, 0x4E, 0x47]))
        // LibreOffice writes none into an Office Open XML file.
        #expect(try OfficePackage(file: try open("office/letter.docx"), type: .wordDocument).embeddedThumbnail == nil)
    }
}
