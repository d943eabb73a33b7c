import GlanceCore

#if canImport(Glibc)
    import Glibc
#endif

/// Draws a page of an office document with LibreOffice (``LibreOffice``, started once in an
/// office renderer): a text document's page, a spreadsheet's sheet, a presentation's slide, a
/// drawing's page, straight into the thumbnail's pixels at its size (LibreOfficeKit's
/// `paintTile`; no PDF in between).
///
/// LibreOffice opens documents by name, for writing, and writes beside them: it is given a
/// private copy in the renderer's workspace, made from the descriptor (so the document itself
/// is never named, never written, and cannot be swapped), checked again there (``OfficePackage``:
/// the same limits, on the bytes LibreOffice will read), and removed after the page is drawn.
///
/// A spreadsheet's page is its sheet's top-left area, as a screen shows it at 100%: 10.7 by 7.5
/// inches, about 12 columns and 42 rows of the default size (LibreOfficeKit tells a sheet's size
/// as at least its window's, not the cells in use). A sheet of a million rows makes a thumbnail of
/// its first screenful, never a million-row page.
public struct OfficeRenderer: PageRenderer {
    public let contentType: ContentType
    private let office: LibreOffice

    public init(_ type: ContentType, office: LibreOffice) {
        contentType = type
        self.office = office
    }

    /// The area of a sheet drawn as its page, in twips: 1024 by 724 pixels at 96 pixels an inch.
    static let sheetArea = (width: 15360, height: 10860)

    func drawPage(_ request: RenderRequest) throws(ThumbnailError) -> DrawnPage {
        let format = contentType.displayName
        let copy = try PrivateCopy(of: request.file, in: office.workspace, type: contentType)
        defer { copy.remove() }
        _ = try OfficePackage(file: copy.file, type: contentType)
        let maxSide = request.maxSide
        let number = request.page
        let readsPageSizes = request.readsPageSizes
        let fallbackFamily = OfficePageKind(contentType) ?? .text
        let page = try office.withDocument(at: copy.path, format: format) { document throws(ThumbnailError) in
            let family = document.family ?? fallbackFamily
            if family == .text { document.showAsPrinted() }
            let pages = Self.pages(of: document, family: family)
            guard !pages.isEmpty else { throw .corrupt(format: format, detail: "LibreOffice found no pages in it") }
            guard (1...pages.count).contains(number) else {
                throw .pageOutOfRange(page: number, pageCount: pages.count)
            }
            var (part, area) = pages[number - 1]
            if family != .text { document.select(part: part) }
            if Self.isPicture(contentType) {
                guard let drawn = Self.drawnArea(of: document, in: area) else {
                    throw .corrupt(format: format, detail: "LibreOffice drew nothing of it")
                }
                area = drawn
            }
            // Points are twips / 20.
            let size = ThumbnailGeometry.fit(
                width: Double(area.width) / 20, height: Double(area.height) / 20, maxSide: maxSide)
            var pixels = [UInt8](repeating: 0, count: size.width * size.height * 4)
            pixels.withUnsafeMutableBufferPointer { buffer in
                guard let base = buffer.baseAddress else { return }
                document.paint(into: base, width: size.width, height: size.height, area: area)
            }
            var details = DocumentDetails(pageCount: pages.count)
            if family == .spreadsheet {
                details.pageNames = pages.prefix(DocumentDetails.maximumPageNames).map {
                    document.name(ofPart: $0.part) ?? "Sheet \($0.part + 1)"
                }
            }
            if readsPageSizes {
                for (_, page) in pages {
                    details.appendPage(width: Double(page.width) / 20, height: Double(page.height) / 20)
                    if (details.pageSizes?.count ?? 0) > DocumentDetails.maximumPageRuns {
                        details.pageSizes = nil
                        break
                    }
                }
            }
            return PaintedPage(
                pixels: pixels, width: size.width, height: size.height, twipsWide: area.width,
                twipsHigh: area.height, details: details)
        }
        let surface = CairoImageSurface(width: page.width, height: page.height)
        let painted = surface.paintPixels { target in
            page.pixels.withUnsafeBytes { source in
                target.update(from: source.baseAddress!.assumingMemoryBound(to: UInt8.self), count: source.count)
            }
        }
        guard painted else {
            throw .outOfMemory(detail: "cannot make a \(page.width)x\(page.height) page to draw on")
        }
        var drawn = DrawnPage(
            surface: surface, sourceWidth: (page.twipsWide + 10) / 20, sourceHeight: (page.twipsHigh + 10) / 20,
            warnings: [])
        drawn.details = page.details
        return drawn
    }

    /// Whether documents of `type` are a picture LibreOffice places on a page of its own (a
    /// metafile): their thumbnail is what is drawn on that page, not the page.
    static func isPicture(_ type: ContentType) -> Bool {
        [.enhancedMetafile, .windowsMetafile].contains(type)
    }

    /// The part of `area` (twips) where something is drawn, from a small painting of it: what is
    /// neither transparent nor white, a pixel of that painting's margin around it; nil when
    /// nothing is. The outermost pixel is not looked at (the page's own edge).
    static func drawnArea(
        of document: OfficeDocument, in area: (x: Int, y: Int, width: Int, height: Int)
    ) -> (x: Int, y: Int, width: Int, height: Int)? {
        let probe = ThumbnailGeometry.fit(width: Double(area.width), height: Double(area.height), maxSide: 256)
        var pixels = [UInt8](repeating: 0, count: probe.width * probe.height * 4)
        pixels.withUnsafeMutableBufferPointer { buffer in
            guard let base = buffer.baseAddress else { return }
            document.paint(into: base, width: probe.width, height: probe.height, area: area)
        }
        var (left, top, right, bottom) = (Int.max, Int.max, -1, -1)
        for y in 1..<max(1, probe.height - 1) {
            for x in 1..<max(1, probe.width - 1) {
                let at = (y * probe.width + x) * 4
                guard pixels[at + 3] > 0, min(pixels[at], pixels[at + 1], pixels[at + 2]) < 245 else { continue }
                (left, top, right, bottom) = (min(left, x), min(top, y), max(right, x), max(bottom, y))
            }
        }
        guard right >= left, bottom >= top else { return nil }
        let (scaleX, scaleY) = (Double(area.width) / Double(probe.width), Double(area.height) / Double(probe.height))
        let x0 = max(0, left - 1)
        let y0 = max(0, top - 1)
        let x1 = min(probe.width, right + 2)
        let y1 = min(probe.height, bottom + 2)
        return (
            area.x + Int(Double(x0) * scaleX), area.y + Int(Double(y0) * scaleY), Int(Double(x1 - x0) * scaleX),
            Int(Double(y1 - y0) * scaleY)
        )
    }

    /// A page LibreOffice painted: B, G, R, A words, and what the document said of its pages.
    struct PaintedPage: Sendable {
        var pixels: [UInt8]
        var width: Int
        var height: Int
        var twipsWide: Int
        var twipsHigh: Int
        var details: DocumentDetails
    }

    /// Each page's part and its area in twips there: a text document's pages (all in part 0), a
    /// shown sheet's top-left area (``sheetArea``; hidden sheets are no pages, as in a printout,
    /// and their names are not shown), a slide or a drawing page whole.
    static func pages(of document: OfficeDocument, family: OfficePageKind) -> [(
        part: Int, area: (x: Int, y: Int, width: Int, height: Int)
    )] {
        switch family {
        case .text:
            return document.pageRectangles.map { (0, $0) }
        case .spreadsheet:
            return (0..<document.partCount).filter { document.isVisible(part: $0) }.map {
                ($0, (0, 0, sheetArea.width, sheetArea.height))
            }
        case .presentation, .drawing:
            return (0..<document.partCount).compactMap { part in
                document.select(part: part)
                let size = document.size
                guard size.width > 0, size.height > 0 else { return nil }
                return (part, (0, 0, size.width, size.height))
            }
        }
    }
}

/// A document copied from its descriptor into a file of the renderer's workspace, named by its
/// type (`document.docx`: LibreOffice picks its filter by the name first), for LibreOffice to
/// open by name. Created exclusively, readable by this user only.
struct PrivateCopy {
    let path: String
    /// The copy, open for reading.
    let file: OpenFile

    init(of source: OpenFile, in workspace: String, type: ContentType) throws(ThumbnailError) {
        let name = "document-\(getpid()).\(type.conventionalExtensions.first ?? "bin")"
        path = workspace + "/" + name
        unlink(path)
        let descriptor = open(path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0o600)
        guard descriptor >= 0 else {
            throw .unreadable(reason: "cannot make a private copy: \(String(cString: strerror(errno)))")
        }
        file = OpenFile(adopting: descriptor)
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 1 << 20, alignment: 16)
        defer { buffer.deallocate() }
        var offset: Int64 = 0
        while true {
            let count: Int
            do {
                count = try source.read(into: buffer, at: offset)
            } catch {
                unlink(path)
                throw .unreadable(reason: error.description)
            }
            guard count > 0 else { break }
            guard DescriptorWriter.writeAll(UnsafeRawBufferPointer(rebasing: buffer[0..<count]), to: descriptor) else {
                unlink(path)
                throw .unreadable(reason: "cannot write the private copy: \(String(cString: strerror(errno)))")
            }
            offset += Int64(count)
        }
    }

    func remove() { unlink(path) }
}
