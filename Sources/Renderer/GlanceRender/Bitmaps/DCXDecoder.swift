import GlanceCore

/// Decodes DCX, ZSoft's multi-page PCX (fax programs and document scanners wrote it), for the
/// ``RasterPipeline``: a magic number, a table of up to 1,023 offsets ended by 0, and at each a
/// whole PCX picture. The page asked for (the first for the thumbnail, each in the preview) is
/// drawn by ``PCXDecoder`` from the bytes between its offset and the next page's (or the file's
/// end, where an 8-bit page keeps its colour map); the details count the pages and give their
/// sizes, from each page's header, and a warning says how many there are.
///
/// Glance's own reader (nothing here reads DCX but ImageMagick, which its tests' reference
/// reads too): an offset before the table's end or past the file's is refused in one line.
final class DCXDecoder: RasterDecoder {
    private(set) var header: RasterHeader
    let warnings: [String]

    private let page: PCXDecoder

    /// `B1 68 DE 3A`: 987654321, little-endian.
    static let signature: [UInt8] = [0xB1, 0x68, 0xDE, 0x3A]
    /// The most pages the table holds.
    static let pageLimit = 1023

    init(_ request: RenderRequest, type: ContentType, colourTransforms: ColourTransformCache) throws(ThumbnailError) {
        let format = type.displayName
        let data = try FileReader.readWhole(of: request.file)
        guard data.count >= 8, data.starts(with: Self.signature) else { throw .truncated(format: format) }
        var offsets: [Int] = []
        var at = 4
        while offsets.count < Self.pageLimit {
            guard at + 4 <= data.count else { throw .truncated(format: format) }
            let offset = data.littleEndian(at: at, count: 4)
            at += 4
            if offset == 0 { break }
            offsets.append(offset)
        }
        let tableEnd = at
        guard !offsets.isEmpty else { throw .corrupt(format: format, detail: "it holds no page") }
        guard offsets.allSatisfy({ $0 >= tableEnd && $0 < data.count }) else {
            throw .corrupt(format: format, detail: "a page's offset lies outside the file's pages")
        }
        guard (1...offsets.count).contains(request.page) else {
            throw .pageOutOfRange(page: request.page, pageCount: offsets.count)
        }
        func bytes(from start: Int) -> ArraySlice<UInt8> {
            data[start..<(offsets.filter { $0 > start }.min() ?? data.count)]
        }
        page = try PCXDecoder(data: Array(bytes(from: offsets[request.page - 1])), format: format)
        header = page.header
        if offsets.count > 1 {
            var details = DocumentDetails(pageCount: offsets.count)
            for offset in offsets {
                // A PCX header's window: x and y from and to, 16 bits each, from byte 4.
                let head = Array(bytes(from: offset).prefix(12))
                guard head.count == 12 else {
                    details.pageSizes = nil
                    break
                }
                let width = head.littleEndian(at: 8, count: 2) - head.littleEndian(at: 4, count: 2) + 1
                let height = head.littleEndian(at: 10, count: 2) - head.littleEndian(at: 6, count: 2) + 1
                details.appendPage(width: Double(max(1, width)), height: Double(max(1, height)))
            }
            if (details.pageSizes?.count ?? 0) > DocumentDetails.maximumPageRuns { details.pageSizes = nil }
            header.details = details
        }
        warnings = offsets.count > 1 ? ["page \(request.page) of \(offsets.count) drawn"] : []
    }

    func plan(for target: PixelSize) -> RasterPlan { page.plan(for: target) }

    func start(_ plan: RasterPlan) throws(ThumbnailError) -> RasterRows { try page.start(plan) }

    func read(into rows: Downscaler) throws(ThumbnailError) { try page.read(into: rows) }
}
