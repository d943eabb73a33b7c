import GlanceCore

extension FormatFamily {
    /// Mobipocket and Kindle books (MOBI, PRC, AZW, AZW3): a Palm database whose type and
    /// creator say `BOOKMOBI`, drawn from the cover its EXTH header names (``MobiBook``).
    public static let mobi = FormatFamily(
        name: "Mobipocket", contentTypes: [.mobiBook],
        sniffRules: [SniffRule(priority: 540) { MobiBook.isMobi($0.prefix) ? .mobiBook : nil }],
        capabilities: [.readsOnlyWhatItNeeds]
    ) { _, tools in MobiRenderer(pictures: tools.pictures) }
}

/// Draws a Mobipocket or Kindle book's cover: the image record its EXTH header names as the cover
/// (type 201), else the one it names as its thumbnail (202), else its first image record; each
/// through the image renderers (``EmbeddedPicture``). The title and author go into the details.
struct MobiRenderer: DocumentRenderer {
    var contentType: ContentType { .mobiBook }
    let pictures: EmbeddedPicture

    func render(_ request: RenderRequest) throws(ThumbnailError) -> RenderedThumbnail {
        let format = contentType.displayName
        let book = try MobiBook(file: request.file, format: format)
        var details = BookDetails(title: book.title, author: book.author)
        var lastError: ThumbnailError?
        for (record, source) in book.coverCandidates {
            do throws(ThumbnailError) {
                var rendered = try pictures.render(
                    try book.record(record), as: "its cover (record \(record))", request: request)
                details.cover = source
                rendered.details = DocumentDetails(book: details)
                return rendered
            } catch {
                lastError = error
            }
        }
        throw lastError ?? .noPicture(format: format, details: DocumentDetails(book: details))
    }
}
