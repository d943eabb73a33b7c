internal import CFileAccess
internal import CGraphics
import CXPS
import Foundation
import GlanceCore

/// Draws a page of an XPS or OpenXPS print (the first, or the one asked for) through libgxps
/// (loaded on the first such file) onto cairo, fitted to the thumbnail's box as a PDF page is;
/// every page's size goes into the details for the preview of every page.
///
/// libgxps reads through GIO, which opens names: it is given the document's bytes copied into a
/// file in memory, by that file's /proc/self/fd name, so it reaches no other file. A resource
/// outside the package (an image or font by an absolute URI) is not a part libgxps can open:
/// it reads parts from the package's ZIP only.
public struct XPSRenderer: DocumentRenderer {
    public var contentType: ContentType { .xps }

    public init() {}

    /// Whether a ZIP's listing is an XPS package: a package relationship part and a fixed
    /// document sequence.
    static func isPackage(_ entries: [ArchiveReader.Entry]) -> Bool {
        let names = entries.filter(\.isFile).map { $0.name.lowercased() }
        return names.contains("_rels/.rels") && names.contains { $0.hasSuffix(".fdseq") }
    }

    public func render(_ request: RenderRequest) throws(ThumbnailError) -> RenderedThumbnail {
        let data = try FileReader.readWhole(of: request.file)
        let document = try XPSDocument(data: data)
        let number = request.page
        guard (1...document.pageCount).contains(number) else {
            throw .pageOutOfRange(page: number, pageCount: document.pageCount)
        }
        let (width, height) = try document.pageSize(number - 1)
        guard width.isFinite, height.isFinite, width > 0, height > 0,
            width <= Double(ThumbnailLimits.maxPDFPagePoints), height <= Double(ThumbnailLimits.maxPDFPagePoints)
        else { throw .corrupt(format: "XPS", detail: "page \(number) has no size a page can have") }
        let size = ThumbnailGeometry.fit(width: width, height: height, maxSide: request.maxSide)
        let surface = CairoImageSurface(width: size.width, height: size.height)
        guard let cairo = surface.context else {
            throw .outOfMemory(detail: "no \(size.width)x\(size.height) drawing surface")
        }
        // libgxps draws in its own units (1/96 inch): the page's size in points times 4/3.
        cairo_scale(cairo, Double(size.width) / (width * 96 / 72), Double(size.height) / (height * 96 / 72))
        let drawn = Result { () throws(ThumbnailError) in try document.render(number - 1, on: cairo) }
        cairo_destroy(cairo)
        try drawn.get()
        var rendered = RenderedThumbnail(
            image: surface.rgbPixels(), sourceWidth: Int(width.rounded()), sourceHeight: Int(height.rounded()))
        let details = DocumentDetails(pageCount: document.pageCount, readsSizes: request.readsPageSizes) { index in
            try? document.pageSize(index)
        }
        rendered.details = details
        return rendered
    }
}

/// An open XPS package's first document: owns libgxps's objects and the file in memory they read.
final class XPSDocument {
    private let handle: OpaquePointer
    private let memory: Int32
    /// How many pages its first document has.
    let pageCount: Int

    init(data: [UInt8]) throws(ThumbnailError) {
        var reason = [CChar](repeating: 0, count: 512)
        guard glance_xps_load(&reason, reason.count) == 1 else {
            throw .libraryUnavailable(library: "libgxps", detail: String(nulTerminated: reason))
        }
        let memory = data.withUnsafeBytes { glance_memory_file($0.baseAddress, $0.count) }
        guard memory >= 0 else { throw .outOfMemory(detail: "no file in memory for the package") }
        var pages: Int32 = 0
        guard let opened = glance_xps_open(memory, &pages, &reason, reason.count) else {
            close(memory)
            throw .corrupt(format: "XPS", detail: String(nulTerminated: reason))
        }
        self.memory = memory
        handle = opened
        pageCount = Int(pages)
    }

    deinit {
        glance_xps_close(handle)
        close(memory)
    }

    /// Page `index`'s size in points.
    func pageSize(_ index: Int) throws(ThumbnailError) -> (Double, Double) {
        var (width, height) = (0.0, 0.0)
        var reason = [CChar](repeating: 0, count: 512)
        guard glance_xps_page_size(handle, Int32(index), &width, &height, &reason, reason.count) == 1 else {
            throw .corrupt(format: "XPS", detail: String(nulTerminated: reason))
        }
        return (width, height)
    }

    /// Draws page `index` on `cairo`.
    func render(_ index: Int, on cairo: OpaquePointer) throws(ThumbnailError) {
        var reason = [CChar](repeating: 0, count: 512)
        guard glance_xps_render(handle, Int32(index), UnsafeMutableRawPointer(cairo), &reason, reason.count) == 1 else {
            throw .corrupt(format: "XPS", detail: String(nulTerminated: reason))
        }
    }
}
