import GlanceCore

/// Draws a comic book (CBZ, CBR, CB7): page N is the Nth picture of its archive in natural
/// order (``ComicPages``), read whole (held to the archive's limits) into memory and drawn by
/// the image renderers. Only the page asked for is read; the page count goes into the details,
/// and the preview page shows every page as a PDF's.
///
/// RAR archives are read by libarchive (3.6 in Debian 12): RAR 4 and RAR 5 alike, read through
/// from the start to the page asked for (a solid archive's pages can only be reached that way).
/// The tests use stored archives written by hand (no RAR writer is free to install here); an
/// archive split into volumes, or one whose headers are encrypted, fails in one line.
struct ComicRenderer: DocumentRenderer {
    let contentType: ContentType
    let pictures: EmbeddedPicture
    /// What the archive's listing may hold (its family's ``FormatLimits/archive``).
    let limits: ArchiveReader.Limits

    func render(_ request: RenderRequest) throws(ThumbnailError) -> RenderedThumbnail {
        let format = contentType.displayName
        let archive = try ArchiveReader.open(
            request, format: format, limits: limits, formats: contentType == .comicZip ? .zip : .comics)
        let pages = ComicPages.order(archive.entries)
        guard !pages.isEmpty else {
            throw .corrupt(
                format: format, detail: "no pages: the archive holds no JPEG, PNG, WebP, GIF, TIFF, HEIC or AVIF")
        }
        guard request.page <= pages.count else { throw .pageOutOfRange(page: request.page, pageCount: pages.count) }
        let index = pages[request.page - 1]
        if archive.entries[index].isEncrypted { throw .passwordProtected(format: format) }
        var result = try pictures.render(archive.read(index), as: "page \(request.page)", request: request)
        result.details = DocumentDetails(pageCount: pages.count)
        return result
    }
}
