import GlanceCore

/// Draws a Pages, Keynote or Numbers file from the preview it carries: `preview.jpg` (iWork
/// since 2013), else `QuickLook/Thumbnail.jpg` (iWork '09), else the smaller `preview-web.jpg`,
/// through the image renderers (``EmbeddedPicture``). A file saved with a password keeps its
/// content encrypted and says so by its password hint entry: it fails in one line.
struct IWorkRenderer: DocumentRenderer {
    let contentType: ContentType
    let pictures: EmbeddedPicture

    /// The previews, best first.
    static let previews = ["preview.jpg", "QuickLook/Thumbnail.jpg", "preview-web.jpg", "preview-micro.jpg"]
    /// The entries a password-protected file holds (its hint, the encrypted password's check).
    static let passwordEntries = [".iwph", ".iwpv2"]

    /// The iWork kind of an archive listing `entries`, or nil when it is not an iWork file.
    static func type(of entries: [ArchiveReader.Entry], named: ContentType?) -> ContentType? {
        let names = Set(entries.filter(\.isFile).map(\.name))
        let isIndexed =
            names.contains("Index/Document.iwa") || names.contains("index.xml") || names.contains("Index.zip")
        guard isIndexed, previews.contains(where: names.contains) || passwordEntries.contains(where: names.contains)
        else { return nil }
        if let named, [.pagesDocument, .keynotePresentation, .numbersSpreadsheet].contains(named) { return named }
        if names.contains(where: { $0.hasPrefix("Index/Slide") || $0.hasPrefix("Index/MasterSlide") }) {
            return .keynotePresentation
        }
        if names.contains(where: { $0.hasPrefix("Index/CalculationEngine") }) { return .numbersSpreadsheet }
        return .pagesDocument
    }

    func render(_ request: RenderRequest) throws(ThumbnailError) -> RenderedThumbnail {
        let format = contentType.displayName
        let archive = try ArchiveReader.open(request, format: format, limits: FormatFamily.iWork.limits.archive!)
        if Self.passwordEntries.contains(where: { archive.index(of: $0) != nil }) {
            throw .passwordProtected(format: format)
        }
        guard let preview = Self.previews.lazy.compactMap({ archive.index(of: $0) }).first else {
            throw .corrupt(format: format, detail: "it carries no preview picture")
        }
        return try pictures.render(try archive.read(preview), as: "its preview", request: request)
    }
}
