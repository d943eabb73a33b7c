import GlanceCore

/// Decodes DCX, ZSoft's multi-page PCX (fax programs and document scanners wrote it), for the
/// ``RasterPipeline``: a magic number, a table of up to 1,023 offsets ended by 0, and at each a
/// whole PCX picture. Its first page is drawn by ``PCXDecoder`` from the bytes between its
/// offset and the next page's (or the file's end, where an 8-bit page keeps its colour map); a
/// warning says how many pages there are when there are more.
///
/// Glance's own reader (nothing here reads DCX but ImageMagick, which its tests' reference
/// reads too): an offset before the table's end or past the file's is refused in one line.
final class DCXDecoder: RasterDecoder {
    let header: RasterHeader
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
        guard let first = offsets.first else { throw .corrupt(format: format, detail: "it holds no page") }
        guard offsets.allSatisfy({ $0 >= tableEnd && $0 < data.count }) else {
            throw .corrupt(format: format, detail: "a page's offset lies outside the file's pages")
        }
        let end = offsets.filter { $0 > first }.min() ?? data.count
        page = try PCXDecoder(data: Array(data[first..<end]), format: format)
        header = page.header
        warnings = offsets.count > 1 ? ["page 1 of \(offsets.count) drawn"] : []
    }

    func plan(for target: PixelSize) -> RasterPlan { page.plan(for: target) }

    func start(_ plan: RasterPlan) throws(ThumbnailError) -> RasterRows { try page.start(plan) }

    func read(into rows: Downscaler) throws(ThumbnailError) { try page.read(into: rows) }
}
