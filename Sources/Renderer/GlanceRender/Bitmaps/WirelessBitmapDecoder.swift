import GlanceCore

/// Decodes wireless bitmaps (`.wbmp`, the black-and-white pictures of WAP phones) for the
/// ``RasterPipeline``: type 0, a header byte of 0, the width and the height as multi-byte numbers
/// (7 bits a byte, the high bit saying another follows), then rows of 1 bit a pixel, each padded
/// to a byte; set bits are white.
///
/// The format has no signature: a file is taken as one only when its name says `.wbmp` and it
/// starts with a type 0 header, and it must hold every row. Glance's own reader (a header and
/// bits): held to the pixel limit before a row is read, with a fuzz target (`fuzz-bitmap`).
final class WirelessBitmapDecoder: RasterDecoder {
    let header: RasterHeader
    let warnings: [String] = []

    private let data: [UInt8]
    private let format: String
    private let rowsStart: Int

    /// The width, the height and where the rows start, when `bytes` starts with a type 0 header.
    static func dimensions(_ bytes: [UInt8]) -> (width: Int, height: Int, start: Int)? {
        guard bytes.count >= 4, bytes[0] == 0, bytes[1] == 0 else { return nil }
        var at = 2
        func number() -> Int? {
            var value = 0
            for _ in 0..<4 {
                guard at < bytes.count else { return nil }
                let byte = bytes[at]
                at += 1
                value = value << 7 | Int(byte & 0x7F)
                if byte & 0x80 == 0 { return value }
            }
            return nil
        }
        guard let width = number(), let height = number(), width > 0, height > 0 else { return nil }
        return (width, height, at)
    }

    init(_ request: RenderRequest, type: ContentType, colourTransforms: ColourTransformCache) throws(ThumbnailError) {
        format = type.displayName
        let data = try FileReader.readWhole(of: request.file)
        self.data = data
        guard let (width, height, start) = Self.dimensions(data) else {
            throw .corrupt(format: format, detail: "not a type 0 header")
        }
        rowsStart = start
        header = RasterHeader(size: PixelSize(width: width, height: height), isGray: true)
    }

    func plan(for target: PixelSize) -> RasterPlan { RasterPlan(size: header.size) }

    func start(_ plan: RasterPlan) throws(ThumbnailError) -> RasterRows {
        RasterRows(size: header.size, channels: 3, streamed: true)
    }

    func read(into rows: Downscaler) throws(ThumbnailError) {
        let (width, height) = (header.size.width, header.size.height)
        let rowBytes = (width + 7) / 8
        guard data.count - rowsStart >= rowBytes * height else { throw .truncated(format: format) }
        try rows.pushRows(width: width, height: height, channels: 3) { (y, row) throws(ThumbnailError) in
            let start = rowsStart + y * rowBytes
            for x in 0..<width {
                let value: UInt8 = data[start + x / 8] >> (7 - x % 8) & 1 == 1 ? 255 : 0
                (row[3 * x], row[3 * x + 1], row[3 * x + 2]) = (value, value, value)
            }
        }
    }
}
