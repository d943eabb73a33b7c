import GlanceCore

/// Decodes X window dumps (`.xwd`, what `xwd` and ImageMagick write of a window or a screen) for
/// the ``RasterPipeline``: a header of 25 big-endian numbers and the window's name, the colour
/// map (a pixel value and 16-bit red, green and blue each), then the rows as the X server held
/// them (Z pixmap). True and direct colour of 8 to 32 bits a pixel through the header's masks,
/// in the byte order it names; pseudo, static and gray colour through the colour map; and
/// 1-bit pictures (set bits black unless the map says otherwise). The rows are decoded a batch
/// at a time.
///
/// Glance's own reader (gdk-pixbuf has no XWD loader; ImageMagick's is the reference its tests
/// compare with): the header is held to the pixel limit before a row is decoded, every row is
/// bounds-checked, and it has a fuzz target (`fuzz-bitmap`).
final class XWindowDumpDecoder: RasterDecoder {
    let header: RasterHeader
    let warnings: [String] = []

    private let data: [UInt8]
    private let format: String
    private let bitsPerPixel: Int
    private let bytesPerLine: Int
    private let mostSignificantFirst: Bool
    private let bitsMostSignificantFirst: Bool
    private let masks: [ChannelMask]?
    private let colours: [Int: (UInt8, UInt8, UInt8)]
    private let pixelsStart: Int

    /// The fixed part of the header: 25 numbers of 4 bytes.
    static let fixedHeaderLength = 100

    /// Whether `prefix` starts with an X window dump's header: a header length past its 100
    /// fixed bytes, version 7, a Z pixmap or a bitmap, a depth and bits a pixel that agree, a
    /// size, and a visual class X has.
    static func matches(_ prefix: [UInt8]) -> Bool {
        guard prefix.count >= fixedHeaderLength else { return false }
        let field = { (index: Int) in prefix.bigEndian(at: 4 * index, count: 4) }
        return (fixedHeaderLength...(fixedHeaderLength + 4096)).contains(field(0)) && field(1) == 7
            && [0, 2].contains(field(2)) && (1...32).contains(field(3)) && field(4) > 0 && field(5) > 0
            && field(7) <= 1 && [1, 8, 16, 24, 32].contains(field(11)) && field(11) >= field(3) && field(13) <= 5
    }

    init(_ request: RenderRequest, type: ContentType, colourTransforms: ColourTransformCache) throws(ThumbnailError) {
        format = type.displayName
        let data = try FileReader.readWhole(of: request.file)
        self.data = data
        guard Self.matches(data) else {
            throw data.count < Self.fixedHeaderLength
                ? .truncated(format: format)
                : .unsupportedEncoding(format: format, detail: "an XY pixmap or an odd depth")
        }
        let field = { (index: Int) in data.bigEndian(at: 4 * index, count: 4) }
        let (width, height) = (field(4), field(5))
        bitsPerPixel = field(11)
        bytesPerLine = field(12)
        mostSignificantFirst = field(7) == 1
        bitsMostSignificantFirst = field(9) == 1
        guard bytesPerLine >= (width * bitsPerPixel + 7) / 8 else {
            throw .corrupt(format: format, detail: "rows of \(bytesPerLine) bytes for \(width) pixels")
        }
        // True and direct colour through the masks; the other classes through the map.
        let visualClass = field(13)
        let trueColour = visualClass >= 4 && bitsPerPixel > 8
        masks = trueColour ? [field(14), field(15), field(16)].map(ChannelMask.init) : nil
        let count = field(19)
        let mapStart = field(0)
        guard count <= 65536, data.count >= mapStart + 12 * count else { throw .truncated(format: format) }
        var colours: [Int: (UInt8, UInt8, UInt8)] = [:]
        for entry in 0..<count {
            let at = mapStart + 12 * entry
            // 16-bit components rounded to 8 (65535 is 255), as ImageMagick reads them.
            let component = { (offset: Int) in UInt8((data.bigEndian(at: at + offset, count: 2) + 128) / 257) }
            colours[data.bigEndian(at: at, count: 4)] = (component(4), component(6), component(8))
        }
        self.colours = colours
        pixelsStart = mapStart + 12 * count
        header = RasterHeader(size: PixelSize(width: width, height: height), isGray: visualClass <= 1)
    }

    func plan(for target: PixelSize) -> RasterPlan { RasterPlan(size: header.size) }

    func start(_ plan: RasterPlan) throws(ThumbnailError) -> RasterRows {
        RasterRows(size: header.size, channels: 3, streamed: true)
    }

    func read(into rows: Downscaler) throws(ThumbnailError) {
        let width = header.size.width
        try rows.pushRows(width: width, height: header.size.height, channels: 3) { (y, row) throws(ThumbnailError) in
            let start = pixelsStart + y * bytesPerLine
            guard start + bytesPerLine <= data.count else { throw .truncated(format: format) }
            for x in 0..<width {
                let pixel = value(at: start, x: x)
                let target = x * 3
                if let masks {
                    for channel in 0..<3 { row[target + channel] = masks[channel].value(in: pixel, absent: 0) }
                } else if let colour = colours[pixel] {
                    (row[target], row[target + 1], row[target + 2]) = colour
                } else {
                    // No map entry: a bitmap's set bits are black; any other pixel is its gray.
                    let gray: UInt8 = bitsPerPixel == 1 ? (pixel == 1 ? 0 : 255) : UInt8(truncatingIfNeeded: pixel)
                    (row[target], row[target + 1], row[target + 2]) = (gray, gray, gray)
                }
            }
        }
    }

    /// Pixel `x` of the row at `start`, in the dump's byte and bit order.
    private func value(at start: Int, x: Int) -> Int {
        if bitsPerPixel == 1 {
            let byte = data[start + x / 8]
            return Int(bitsMostSignificantFirst ? byte >> (7 - x % 8) & 1 : byte >> (x % 8) & 1)
        }
        let bytes = bitsPerPixel / 8
        let at = start + x * bytes
        return mostSignificantFirst ? data.bigEndian(at: at, count: bytes) : data.littleEndian(at: at, count: bytes)
    }
}
