import CGhostscript
internal import CLibraryLoader
import GlanceCore

/// Draws a PostScript program's page (the first, or the one asked for, of the pages its `%%Page:`
/// comments mark, else its `%%Pages` comment counts), or an EPS cropped to its BoundingBox, through
/// Ghostscript's library (loaded on the first such file) straight at the thumbnail's size: the
/// resolution is chosen so that the box (the EPS's BoundingBox; a PostScript page's paper, from
/// its comments, ``PostScriptHeader/pageSize(_:)``, else US Letter) fits the thumbnail's.
///
/// The program cannot reach outside the document: it is fed to the interpreter as a string (no
/// file is named), under `-dSAFER` (a `run`, `file` or `%pipe%` of anything but Ghostscript's
/// own fonts and resources is refused, and the refusal is the reason given); the page's size is
/// fixed (`-dFIXEDMEDIA`), so a program cannot ask for a larger canvas, and the page is drawn by
/// Ghostscript's display device into memory, held to the pixel limit before it is had (no file
/// is written: Ghostscript's own EPS cropping spools a string-fed EPS to a temporary file, so an
/// EPS is moved to its box's corner here instead). A program that loops forever meets the renderer's CPU
/// limit. A DOS binary EPS is drawn from its PostScript section (its TIFF or WMF preview is not
/// used).
public struct PostScriptRenderer: DocumentRenderer {
    public var contentType: ContentType { .postScript }

    public init() {}

    /// A page without a size in its header: US Letter, in points.
    static let letter = (width: 612.0, height: 792.0)

    public func render(_ request: RenderRequest) throws(ThumbnailError) -> RenderedThumbnail {
        let data = try GzipPostScript.program(FileReader.readWhole(of: request.file), format: "PostScript")
        let isEPS = PostScriptHeader.type(of: Array(data.prefix(256))) == .encapsulatedPostScript
        let format = isEPS ? "EPS" : "PostScript"
        let header = try PostScriptHeader(data, format: format)
        var warnings: [String] = []
        let pages = isEPS ? [] : header.pageComments
        // The pages its `%%Page:` comments mark, else as many as `%%Pages` says, at most the pages
        // a record counts (a `%%Pages` of billions would have each page's size looked up in a
        // loop past the CPU limit).
        let pageCount =
            isEPS ? 1 : min(max(1, pages.isEmpty ? header.pages ?? 1 : pages.count), DocumentDetails.maximumPageCount)
        guard (1...pageCount).contains(request.page) else {
            throw .pageOutOfRange(page: request.page, pageCount: pageCount)
        }
        func comments(ofPage number: Int) -> PostScriptHeader.PageComments? {
            number <= pages.count ? pages[number - 1] : nil
        }
        func size(ofPage number: Int) -> (width: Double, height: Double)? {
            isEPS ? header.boxSize : header.pageSize(comments(ofPage: number))
        }
        /// Whether the page is a landscape page drawn turned on upright paper.
        func isTurned(ofPage number: Int) -> Bool {
            !isEPS && header.isTurned(comments(ofPage: number), size: size(ofPage: number) ?? Self.letter)
        }
        /// The page's size as it is read: a page drawn turned, turned back.
        func readSize(ofPage number: Int) -> (width: Double, height: Double) {
            let size = size(ofPage: number) ?? Self.letter
            return isTurned(ofPage: number) ? (size.height, size.width) : size
        }
        let box = size(ofPage: request.page)
        if box == nil {
            warnings.append("no paper size or BoundingBox: drawn on a US Letter page")
        }
        let (width, height) = box ?? Self.letter
        let target = ThumbnailGeometry.fit(width: width, height: height, maxSide: request.maxSide)
        var reason = [CChar](repeating: 0, count: 512)
        guard glance_gs_load(&reason, reason.count) == 1 else {
            throw .libraryUnavailable(library: "Ghostscript (libgs)", detail: String(nulTerminated: reason))
        }
        // An EPS is moved to its box's corner, when it has a box a page can have.
        let origin = isEPS && box != nil ? header.boundingBox.map { ($0.0, $0.1) } ?? (0, 0) : (0, 0)
        var gsRequest = glance_gs_request(
            resolution: 72 * Double(max(target.width, target.height)) / max(width, height), page: Int32(request.page),
            width: width, height: height, eps: isEPS ? 1 : 0, origin_x: origin.0, origin_y: origin.1,
            max_pixels: UInt64(min(request.maxPixels, 4 * target.width * target.height + 4096)))
        var page = glance_gs_page()
        var failure = GLANCE_FAILURE_CORRUPT
        let drawn = header.program.withUnsafeBufferPointer { program in
            glance_gs_render(program.baseAddress, program.count, &gsRequest, &page, &reason, reason.count, &failure)
        }
        guard drawn == 1, let pixels = page.pixels else {
            let text = String(nulTerminated: reason)
            if failure == GLANCE_FAILURE_REFUSED {
                throw .unsupportedEncoding(format: format, detail: "it asks for a file outside itself (\(text))")
            }
            throw ThumbnailError(failure, reason: text, format: format, limitPixels: request.maxPixels)
        }
        defer { glance_gs_page_free(&page) }
        let bytes = Array(UnsafeBufferPointer(start: pixels, count: Int(page.width) * Int(page.height) * 3))
        var image = PixelBuffer(width: Int(page.width), height: Int(page.height), channels: 3, bytes: bytes)
        let read = readSize(ofPage: request.page)
        if isTurned(ofPage: request.page) {
            image = ExifOrientation.right.apply(to: image)
            warnings.append("a landscape page, drawn turned on upright paper: turned back")
        }
        var rendered = RenderedThumbnail(
            image: image, sourceWidth: Int(read.width.rounded()), sourceHeight: Int(read.height.rounded()),
            warnings: warnings)
        // Each page has the size its comments give it (turned, for a landscape page on upright
        // paper): the page drawn is fixed to that size.
        rendered.details = DocumentDetails(pageCount: pageCount, readsSizes: request.readsPageSizes) { index in
            readSize(ofPage: index + 1)
        }
        return rendered
    }
}
