import GlanceCore

/// Decodes ZSoft's PCX (Paintbrush, and the scanners and DOS programs that wrote it) for the
/// ``RasterPipeline``: a 128-byte header, then each row's colour planes one after another, run-
/// length encoded (a byte of `11` and a count, then the value) or stored. 24-bit and 32-bit
/// (three or four planes of 8 bits), 8-bit with the 256-colour map at the end of the file (gray
/// without one), 16 colours of the header's map as one plane of 4 bits or four planes of 1 bit
/// (EGA), 4 colours of 2 bits, and black and white. The rows are decoded a batch at a time.
///
/// Glance's own reader (gdk-pixbuf has no PCX loader; ImageMagick's is the reference its tests
/// compare with): the header is held to the pixel limit before a row is decoded, a row's runs
/// stop at the row's end, and it has a fuzz target (`fuzz-bitmap`).
final class PCXDecoder: RasterDecoder {
    let header: RasterHeader
    let warnings: [String] = []

    private let data: [UInt8]
    private let format: String
    private let bitsPerPixel: Int
    private let planes: Int
    private let bytesPerLine: Int
    private let compressed: Bool
    private let colours: ColourMap

    /// The header's length: the pixels start after it.
    static let headerLength = 128

    /// Whether `prefix` starts with a PCX header: `0A`, a version ZSoft wrote (0, 2 to 5), run-length
    /// or no encoding, a layout of bits and planes this reader draws, a window whose corners are in
    /// order and rows long enough for its width.
    static func matches(_ prefix: [UInt8]) -> Bool { layout(prefix) != nil }

    /// The header's width, height, bits a pixel, planes and bytes a plane's row, when it is one.
    private static func layout(_ bytes: [UInt8]) -> (width: Int, height: Int, bits: Int, planes: Int, line: Int)? {
        guard bytes.count >= headerLength, bytes[0] == 0x0A, [0, 2, 3, 4, 5].contains(bytes[1]), bytes[2] <= 1
        else { return nil }
        let (bits, planes) = (Int(bytes[3]), Int(bytes[65]))
        let (left, top) = (bytes.littleEndian(at: 4, count: 2), bytes.littleEndian(at: 6, count: 2))
        let (right, bottom) = (bytes.littleEndian(at: 8, count: 2), bytes.littleEndian(at: 10, count: 2))
        let line = bytes.littleEndian(at: 66, count: 2)
        guard right >= left, bottom >= top else { return nil }
        let (width, height) = (right - left + 1, bottom - top + 1)
        let drawn = [(8, 1), (8, 3), (8, 4), (1, 1), (1, 2), (1, 3), (1, 4), (2, 1), (4, 1)]
        guard drawn.contains(where: { $0 == (bits, planes) }), line >= (width * bits + 7) / 8,
            line <= (width * bits + 7) / 8 + 64
        else { return nil }
        return (width, height, bits, planes, line)
    }

    convenience init(_ request: RenderRequest, type: ContentType, colourTransforms: ColourTransformCache)
        throws(ThumbnailError)
    {
        try self.init(data: try FileReader.readWhole(of: request.file), format: type.displayName)
    }

    /// The PCX picture that is the whole of `data` (a file, or a page of a DCX file); `format`
    /// names it in errors.
    init(data: [UInt8], format: String) throws(ThumbnailError) {
        self.format = format
        self.data = data
        guard data.count >= Self.headerLength else { throw .truncated(format: format) }
        guard let layout = Self.layout(data) else {
            throw .unsupportedEncoding(
                format: format, detail: "\(data[3]) bits a pixel in \(data[65]) planes, or a window out of order")
        }
        (bitsPerPixel, planes, bytesPerLine) = (layout.bits, layout.planes, layout.line)
        compressed = data[2] == 1
        let mapStart = data.count - 769
        if bitsPerPixel == 8, planes == 1 {
            // The 256-colour map follows the pixels, after a byte of 12; a file without it is gray.
            colours =
                mapStart >= Self.headerLength && data[mapStart] == 0x0C
                ? ColourMap(interleaved: data[(mapStart + 1)...], count: 256) : ColourMap(grays: 256)
        } else if bitsPerPixel == 1, planes == 1, data[16..<19] == data[19..<22] {
            // Black and white, with no distinct colours in the header's map (most files).
            colours = ColourMap(grays: 2)
        } else {
            colours = ColourMap(interleaved: data[16..<64], count: 16)
        }
        header = RasterHeader(
            size: PixelSize(width: layout.width, height: layout.height),
            isGray: bitsPerPixel == 1 && planes == 1)
    }

    func plan(for target: PixelSize) -> RasterPlan { RasterPlan(size: header.size) }

    func start(_ plan: RasterPlan) throws(ThumbnailError) -> RasterRows {
        RasterRows(size: header.size, channels: planes == 4 && bitsPerPixel == 8 ? 4 : 3, streamed: true)
    }

    func read(into rows: Downscaler) throws(ThumbnailError) {
        let (width, channels) = (header.size.width, rows.channels)
        let lineLength = planes * bytesPerLine
        var line = [UInt8](repeating: 0, count: lineLength)
        let runs: RunLengthBytes.RunReader? = compressed ? { Self.run($0, at: $1) } : nil
        var bytes = RunLengthBytes(data, from: Self.headerLength, format: format, runs: runs)
        try rows.pushRows(width: width, height: header.size.height, channels: channels) {
            (_, row) throws(ThumbnailError) in
            try bytes.fill(&line)
            convert(line, into: row, width: width, channels: channels)
        }
    }

    /// PCX's runs: a byte of `11` and a count (of 0 to 63), then the value; any other byte itself.
    private static func run(_ data: [UInt8], at: Int) -> (count: Int, value: UInt8, next: Int)? {
        let byte = data[at]
        guard byte & 0xC0 == 0xC0 else { return (1, byte, at + 1) }
        return at + 1 < data.count ? (Int(byte & 0x3F), data[at + 1], at + 2) : nil
    }

    /// One row's planes as 8-bit RGB or RGBA.
    private func convert(_ line: [UInt8], into row: UnsafeMutableBufferPointer<UInt8>, width: Int, channels: Int) {
        for x in 0..<width {
            let target = x * channels
            switch (bitsPerPixel, planes) {
            case (8, 1):
                colours.write(Int(line[x]), to: row, at: target)
            case (8, _):
                row[target] = line[x]
                row[target + 1] = line[bytesPerLine + x]
                row[target + 2] = line[2 * bytesPerLine + x]
                if channels == 4 { row[target + 3] = line[3 * bytesPerLine + x] }
            case (1, _):
                // Plane p gives bit p of the colour's index.
                var index = 0
                for plane in 0..<planes {
                    index |= Int(line[plane * bytesPerLine + x / 8] >> (7 - x % 8) & 1) << plane
                }
                colours.write(index, to: row, at: target)
            default:
                let perByte = 8 / bitsPerPixel
                let shift = (perByte - 1 - x % perByte) * bitsPerPixel
                colours.write(Int(line[x / perByte] >> shift) & (1 << bitsPerPixel - 1), to: row, at: target)
            }
        }
    }
}
