internal import CGraphics
internal import CPoppler
internal import CRenderGuard
import GlanceCore

#if canImport(Glibc)
    import Glibc
#endif

/// Renders a page of a PDF (the first, or the one the request names) on white paper, drawn by cairo directly at the thumbnail's scale (no
/// full-size raster), with the page's /Rotate applied.
///
/// Documents are opened from a descriptor rather than from bytes: poppler then reads what it
/// needs on demand instead of holding a copy of the whole file. A document is used by one thread
/// only; different documents may render on different threads.
public struct PDFRenderer: PageRenderer {
    public var contentType: ContentType { .pdf }

    public init() {}

    /// poppler-glib, loaded by the first PDF (see CPoppler): nil when it is ready, else why not.
    /// Its log domain is silenced at the same time: poppler-glib reports broken files through
    /// g_log, and the errors reach the user as typed errors instead.
    private static let libraryFailure: String? = {
        var reason = [CChar](repeating: 0, count: 512)
        guard glance_poppler_load(&reason, reason.count) == 1 else {
            return String(nulTerminated: reason)
        }
        glance_silence_poppler_log()
        return nil
    }()

    func drawPage(_ request: RenderRequest) throws(ThumbnailError) -> DrawnPage {
        if let failure = Self.libraryFailure {
            throw .libraryUnavailable(library: "poppler-glib", detail: failure)
        }
        // poppler takes ownership of the descriptor it is given: give it a copy, read from the start.
        let copy = fcntl(request.file.descriptor, F_DUPFD_CLOEXEC, 0)
        guard copy >= 0, lseek(copy, 0, SEEK_SET) == 0 else {
            let reason = String(cString: strerror(errno))
            if copy >= 0 { close(copy) }
            throw .unreadable(reason: reason)
        }
        var error: UnsafeMutableRawPointer? = nil
        guard let document = glance_poppler_document_new_from_fd(copy, &error) else {
            guard let error else { throw .malformedPDF(detail: nil) }
            let popplerError = PopplerError(consuming: error.assumingMemoryBound(to: GError.self))
            if popplerError.isEncrypted { throw .encrypted }
            throw .malformedPDF(detail: popplerError.message)
        }
        defer { glance_object_unref(document) }

        let pageCount = Int(glance_poppler_document_get_n_pages(document))
        guard pageCount > 0 else { throw .malformedPDF(detail: "the document has no pages") }
        let number = request.page
        guard (1...pageCount).contains(number) else { throw .pageOutOfRange(page: number, pageCount: pageCount) }
        guard let page = glance_poppler_document_get_page(document, Int32(number - 1)) else {
            throw .malformedPDF(detail: "page \(number) cannot be read")
        }
        defer { glance_object_unref(page) }

        // The size with /Rotate applied: poppler_page_render draws the page turned the same way.
        var pageWidth = 0.0
        var pageHeight = 0.0
        glance_poppler_page_get_size(page, &pageWidth, &pageHeight)
        guard pageWidth.isFinite, pageHeight.isFinite, pageWidth > 0, pageHeight > 0 else {
            throw .malformedPDF(detail: "page \(number) has no size")
        }
        // Found by fuzzing: a MediaBox of 1e90 points overflowed the conversion to whole points.
        let largest = Double(ThumbnailLimits.maxPDFPagePoints)
        guard pageWidth <= largest, pageHeight <= largest else {
            throw .malformedPDF(
                detail: "page \(number) is larger than \(ThumbnailLimits.maxPDFPagePoints) points, beyond any real page"
            )
        }
        let size = ThumbnailGeometry.fit(width: pageWidth, height: pageHeight, maxSide: request.maxSide)
        let surface = try Self.draw(
            page: page, number: number, pageWidth: pageWidth, pageHeight: pageHeight, size: size)
        var drawn = DrawnPage(
            surface: surface, sourceWidth: Int(pageWidth.rounded()), sourceHeight: Int(pageHeight.rounded()),
            warnings: [])
        drawn.details =
            request.readsPageSizes
            ? Self.details(of: document, pageCount: pageCount) : DocumentDetails(pageCount: pageCount)
        return drawn
    }

    /// The document's page count and every page's size (with /Rotate), as runs; the sizes are
    /// left out when they change more often than ``DocumentDetails/maximumPageRuns`` times.
    /// Reading a page's size parses its dictionary, not its content: measured here with a
    /// generated PDF of 10,000 pages of one size, `glance thumbnail` took 75 ms against 10 ms for
    /// a two-page one, about 6.5 us a page.
    private static func details(of document: UnsafeMutableRawPointer, pageCount: Int) -> DocumentDetails {
        DocumentDetails(pageCount: pageCount, readsSizes: true) { index -> (width: Double, height: Double)? in
            guard let page = glance_poppler_document_get_page(document, Int32(index)) else { return nil }
            var width = 0.0
            var height = 0.0
            glance_poppler_page_get_size(page, &width, &height)
            glance_object_unref(page)
            return (width.isFinite ? width : 0, height.isFinite ? height : 0)
        }
    }

    private static func draw(
        page: UnsafeMutableRawPointer, number: Int, pageWidth: Double, pageHeight: Double,
        size: (width: Int, height: Int)
    ) throws(ThumbnailError) -> CairoImageSurface {
        let surface = CairoImageSurface(width: size.width, height: size.height)
        guard let cairo = surface.context else {
            throw .corrupt(format: "PDF", detail: "cannot create a \(size.width)x\(size.height) drawing surface")
        }
        defer { cairo_destroy(cairo) }
        cairo_scale(cairo, Double(size.width) / pageWidth, Double(size.height) / pageHeight)
        _ = glance_take_failed_surface_count()
        glance_poppler_page_render(page, UnsafeMutableRawPointer(cairo))
        // poppler skips, in silence, an image whose full-size surface it could not allocate:
        // such a page is not a good thumbnail (see CRenderGuard).
        if glance_take_failed_surface_count() > 0 || cairo_status(cairo) != CAIRO_STATUS_SUCCESS {
            throw .outOfMemory(
                detail: "page \(number) holds an image too large to draw within the renderer's memory limit")
        }
        return surface
    }
}
