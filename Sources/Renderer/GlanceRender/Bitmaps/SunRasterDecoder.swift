import GlanceCore

/// Decodes Sun raster files (`.ras`, `.sun`) for the ``RasterPipeline``: a header of eight
/// big-endian numbers, a colour map of three planes, then rows padded to 16 bits, stored or
/// run-length encoded (`80`, a count and a value). 1-bit (set bits black, or the map's colours),
/// 8-bit (the map's colours, else gray), 24-bit and 32-bit (blue first, or red first in the RGB
/// type); a stored 32-bit file's first byte of each pixel is its alpha as ImageMagick writes it,
/// unless every one of them is 0 (a file of Sun's own, where that byte is padding; a run-length
/// encoded one is taken as Sun's). The rows are decoded
/// a batch at a time.
///
/// Glance's own reader (gdk-pixbuf has no Sun raster loader; ImageMagick's is the reference its
/// tests compare with): the header is held to the pixel limit before a row is decoded, runs stop
/// at the end of the pixels, and it has a fuzz target (`fuzz-bitmap`).
final class SunRasterDecoder: RasterDecoder {
    let header: RasterHeader
    let warnings: [String] = []

    private let data: [UInt8]
    private let format: String
    private let depth: Int
    private let encoded: Bool
    private let redFirst: Bool
    private let colours: ColourMap?
    private let pixelsStart: Int
    private let alphaKept: Bool

    /// The header's length: the colour map follows it.
    static let headerLength = 32
    /// Sun's magic number.
    static let signature: [UInt8] = [0x59, 0xA6, 0x6A, 0x95]

    init(_ request: RenderRequest, type: ContentType, colourTransforms: ColourTransformCache) throws(ThumbnailError) {
        format = type.displayName
        let data = try FileReader.readWhole(of: request.file)
        self.data = data
        guard data.count >= Self.headerLength, data.starts(with: Self.signature) else {
            throw .truncated(format: format)
        }
        let (width, height) = (data.bigEndian(at: 4, count: 4), data.bigEndian(at: 8, count: 4))
        depth = data.bigEndian(at: 12, count: 4)
        let (kind, mapKind, mapLength) = (
            data.bigEndian(at: 20, count: 4), data.bigEndian(at: 24, count: 4), data.bigEndian(at: 28, count: 4)
        )
        guard width > 0, height > 0, [1, 8, 24, 32].contains(depth) else {
            throw .corrupt(format: format, detail: "its header says \(width)x\(height) at \(depth) bits a pixel")
        }
        guard kind <= 3 else {
            throw .unsupportedEncoding(format: format, detail: "type \(kind) (TIFF, IFF or experimental)")
        }
        guard mapKind <= 1, mapLength <= 3 * 256, mapKind == 1 || mapLength == 0 else {
            throw .unsupportedEncoding(format: format, detail: "a colour map of type \(mapKind), \(mapLength) bytes")
        }
        pixelsStart = Self.headerLength + mapLength
        guard data.count >= pixelsStart else { throw .truncated(format: format) }
        encoded = kind == 2
        redFirst = kind == 3
        colours =
            mapLength >= 6 && depth <= 8
            ? ColourMap(planar: data[Self.headerLength..<pixelsStart], count: mapLength / 3) : nil
        // Sun's own 32-bit files pad each pixel with a 0 byte; ImageMagick's keep alpha there.
        alphaKept =
            depth == 32 && !encoded && stride(from: pixelsStart, to: data.count, by: 4).contains { data[$0] != 0 }
        header = RasterHeader(
            size: PixelSize(width: width, height: height), isGray: depth <= 8 && colours == nil)
    }

    func plan(for target: PixelSize) -> RasterPlan { RasterPlan(size: header.size) }

    func start(_ plan: RasterPlan) throws(ThumbnailError) -> RasterRows {
        RasterRows(size: header.size, channels: alphaKept ? 4 : 3, streamed: true)
    }

    func read(into rows: Downscaler) throws(ThumbnailError) {
        let (width, channels) = (header.size.width, rows.channels)
        let lineLength = (width * depth + 15) / 16 * 2
        var line = [UInt8](repeating: 0, count: lineLength)
        let runs: RunLengthBytes.RunReader? = encoded ? { Self.run($0, at: $1) } : nil
        var bytes = RunLengthBytes(data, from: pixelsStart, format: format, runs: runs)
        try rows.pushRows(width: width, height: header.size.height, channels: channels) {
            (_, row) throws(ThumbnailError) in
            try bytes.fill(&line)
            convert(line, into: row, width: width, channels: channels)
        }
    }

    /// Sun's runs: `80 00` one byte of 80; `80 n v` v n + 1 times; any other byte itself.
    private static func run(_ data: [UInt8], at: Int) -> (count: Int, value: UInt8, next: Int)? {
        let byte = data[at]
        guard byte == 0x80 else { return (1, byte, at + 1) }
        guard at + 1 < data.count else { return nil }
        if data[at + 1] == 0 { return (1, 0x80, at + 2) }
        return at + 2 < data.count ? (Int(data[at + 1]) + 1, data[at + 2], at + 3) : nil
    }

    /// One stored row as 8-bit RGB or RGBA.
    private func convert(_ line: [UInt8], into row: UnsafeMutableBufferPointer<UInt8>, width: Int, channels: Int) {
        for x in 0..<width {
            let target = x * channels
            switch depth {
            case 1:
                let bit = Int(line[x / 8] >> (7 - x % 8) & 1)
                if let colours {
                    colours.write(bit, to: row, at: target)
                } else {
                    let value: UInt8 = bit == 1 ? 0 : 255
                    (row[target], row[target + 1], row[target + 2]) = (value, value, value)
                }
            case 8:
                if let colours {
                    colours.write(Int(line[x]), to: row, at: target)
                } else {
                    (row[target], row[target + 1], row[target + 2]) = (line[x], line[x], line[x])
                }
            default:
                let bytes = depth / 8
                let first = x * bytes + (bytes == 4 ? 1 : 0)
                let (a, b, c) = (line[first], line[first + 1], line[first + 2])
                (row[target], row[target + 1], row[target + 2]) = redFirst ? (a, b, c) : (c, b, a)
                if channels == 4 { row[target + 3] = line[x * bytes] }
            }
        }
    }
}
