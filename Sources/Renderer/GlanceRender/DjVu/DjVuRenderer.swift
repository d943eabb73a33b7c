import CDjVu
internal import CLibraryLoader
import GlanceCore

/// Draws a page of a DjVu document (the first, or the one asked for) through DjVuLibre (loaded on
/// the first such file), decoded straight at the thumbnail's size: DjVuLibre decodes its
/// wavelet and bitonal layers at the reduced resolution asked, so a 300 dpi scan is never whole
/// in memory. The page's orientation flags turn it; every page's size (from its header, in
/// points by its resolution) goes into the details for the preview of every page.
///
/// An indirect document, whose pages are files beside it, is refused in one line: DjVuLibre is
/// given the document's own bytes and nothing else, and a request for another file is closed
/// unanswered.
public struct DjVuRenderer: DocumentRenderer {
    public var contentType: ContentType { .djvu }

    public init() {}

    public func render(_ request: RenderRequest) throws(ThumbnailError) -> RenderedThumbnail {
        let data = try FileReader.readWhole(of: request.file)
        let document = try DjVuDocument(data: data)
        let number = request.page
        guard (1...document.pageCount).contains(number) else {
            throw .pageOutOfRange(page: number, pageCount: document.pageCount)
        }
        let page = try document.pageInfo(number - 1)
        let size = ThumbnailGeometry.fit(width: page.width, height: page.height, maxSide: request.maxSide)
        guard size.width * size.height <= request.maxPixels else {
            throw .tooLarge(width: size.width, height: size.height, limitPixels: request.maxPixels)
        }
        let bytes = try document.render(page: number - 1, width: size.width, height: size.height)
        var rendered = RenderedThumbnail(
            image: PixelBuffer(width: size.width, height: size.height, channels: 3, bytes: bytes),
            sourceWidth: page.width, sourceHeight: page.height)
        rendered.details = DocumentDetails(pageCount: document.pageCount, readsSizes: request.readsPageSizes) {
            index -> (width: Double, height: Double)? in
            guard let info = try? document.pageInfo(index) else { return nil }
            let pointsPerPixel = 72 / Double(info.dpi)
            return (Double(info.width) * pointsPerPixel, Double(info.height) * pointsPerPixel)
        }
        return rendered
    }
}

/// An open DjVu document: owns DjVuLibre's context and document, and frees them.
final class DjVuDocument {
    private let handle: OpaquePointer
    /// How many pages it has.
    let pageCount: Int

    init(data: [UInt8]) throws(ThumbnailError) {
        var reason = [CChar](repeating: 0, count: 512)
        guard glance_djvu_load(&reason, reason.count) == 1 else {
            throw .libraryUnavailable(library: "DjVuLibre", detail: String(nulTerminated: reason))
        }
        var failure = GLANCE_FAILURE_CORRUPT
        var pages: Int32 = 0
        let opened = data.withUnsafeBufferPointer { bytes in
            glance_djvu_open(bytes.baseAddress, bytes.count, &pages, &reason, reason.count, &failure)
        }
        guard let opened else {
            let text = String(nulTerminated: reason)
            if failure == GLANCE_FAILURE_REFUSED { throw .unsupportedEncoding(format: "DjVu", detail: text) }
            throw ThumbnailError(failure, reason: text, format: "DjVu")
        }
        handle = opened
        pageCount = Int(pages)
    }

    deinit { glance_djvu_close(handle) }

    /// A page's size as shown, in pixels, and its resolution, from its header.
    func pageInfo(_ index: Int) throws(ThumbnailError) -> (width: Int, height: Int, dpi: Int) {
        var (width, height, dpi): (Int32, Int32, Int32) = (0, 0, 0)
        var reason = [CChar](repeating: 0, count: 512)
        var failure = GLANCE_FAILURE_CORRUPT
        guard glance_djvu_page_info(handle, Int32(index), &width, &height, &dpi, &reason, reason.count, &failure) == 1
        else { throw ThumbnailError(failure, reason: String(nulTerminated: reason), format: "DjVu") }
        return (Int(width), Int(height), Int(dpi))
    }

    /// Page `index` drawn into `width` x `height` RGB pixels.
    func render(page index: Int, width: Int, height: Int) throws(ThumbnailError) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: width * height * 3)
        var reason = [CChar](repeating: 0, count: 512)
        var failure = GLANCE_FAILURE_CORRUPT
        let drawn = bytes.withUnsafeMutableBufferPointer { out in
            glance_djvu_render(
                handle, Int32(index), Int32(width), Int32(height), out.baseAddress, &reason, reason.count, &failure)
        }
        guard drawn == 1 else {
            let text = String(nulTerminated: reason)
            if failure == GLANCE_FAILURE_REFUSED { throw .unsupportedEncoding(format: "DjVu", detail: text) }
            throw ThumbnailError(failure, reason: text, format: "DjVu")
        }
        return bytes
    }
}
