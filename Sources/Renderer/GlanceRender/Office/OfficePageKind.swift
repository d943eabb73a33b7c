import GlanceCore

/// The kinds of office document, by what their pages are.
public enum OfficePageKind: String, Sendable, Codable {
    /// Pages of text (Word, Writer, RTF).
    case text
    /// Sheets (Excel, Calc): each sheet is a page.
    case spreadsheet
    /// Slides (PowerPoint, Impress): each slide is a page.
    case presentation
    /// Drawings (Draw): each drawing page is a page.
    case drawing

    /// What an office type's pages are; nil for any other type.
    init?(_ type: ContentType) {
        switch type {
        case .wordDocument, .openDocumentText, .richText, .legacyWordDocument: self = .text
        case .spreadsheet, .openDocumentSpreadsheet, .legacySpreadsheet: self = .spreadsheet
        case .presentation, .openDocumentPresentation, .legacyPresentation: self = .presentation
        case .openDocumentDrawing, .visioDrawing, .legacyVisioDrawing, .publisherDocument, .enhancedMetafile,
            .windowsMetafile:
            self = .drawing
        default: return nil
        }
    }
}
