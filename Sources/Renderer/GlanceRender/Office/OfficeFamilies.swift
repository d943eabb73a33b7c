import GlanceCore

extension FormatFamily {
    /// Office documents, drawn by LibreOffice in the office renderers: an ordinary renderer
    /// checks the package (bombs, passwords, the thumbnail it carries) and hands it on. RTF and
    /// OpenDocument packages by their first bytes; Office Open XML and 97-2003 files by their
    /// packages' listings (``ArchiveSniffer``). Their pages are pages, sheets, slides or drawing
    /// pages (OpenDocument drawings, Visio drawings through LibreOffice's libvisio import).
    public static let office: FormatFamily = {
        var family = FormatFamily(
            name: "office",
            contentTypes: [
                .wordDocument, .spreadsheet, .presentation, .openDocumentText, .openDocumentSpreadsheet,
                .openDocumentPresentation, .openDocumentDrawing, .visioDrawing, .richText, .legacyWordDocument,
                .legacySpreadsheet, .legacyPresentation, .legacyVisioDrawing, .publisherDocument,
            ],
            sniffRules: [
                SniffRule(priority: 510) { OfficeSniffer.startsAsRichText($0.prefix) ? .richText : nil },
                SniffRule(priority: 520) { OfficeSniffer.openDocumentType(prefix: $0.prefix) },
            ],
            capabilities: [.pages], pool: .office
        ) { type, tools in tools.office.map { OfficeRenderer(type, office: $0) } }
        family.limits.archive = .package
        family.containerRules = [
            ContainerRule(priority: 10, kinds: "Word, Excel, PowerPoint, Visio, OpenDocument") {
                (archive, container, _) throws(ThumbnailError) in
                guard container == .zip else { return nil }
                return try OfficeSniffer.packageType(archive)
            }
        ]
        return family
    }()
}
