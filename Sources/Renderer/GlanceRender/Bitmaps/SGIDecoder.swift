import GlanceCore

/// Decodes SGI images (`.sgi`, `.rgb`, `.rgba`, `.bw`: Silicon Graphics' and many 3D tools'
/// textures) for the ``RasterPipeline``: a 512-byte header, then each channel's rows from the
/// bottom up, stored or run-length encoded (a table of where each row of each channel starts,
/// then runs of a count byte: high bit set, that many values; clear, one value that many times).
/// Gray, gray with alpha, RGB and RGBA (a fifth channel and more are passed over), 8 or 16 bits a
/// sample (a 16-bit one rounded to 8). The rows are decoded a batch at a time, from the top.
///
/// Glance's own reader (gdk-pixbuf has no SGI loader; ImageMagick's is the reference its tests
/// compare with): the header is held to the pixel limit before a row is decoded, every row's
/// start is bounds-checked and its runs stop at its width, and it has a fuzz target
/// (`fuzz-bitmap`).
final class SGIDecoder: RasterDecoder {
    let header: RasterHeader
    let warnings: [String] = []

    private let data: [UInt8]
    private let format: String
    private let encoded: Bool
    private let sampleBytes: Int
    private let channels: Int

    /// The header's length: the pixels, or the run-length tables, follow it.
    static let headerLength = 512

    /// Whether `prefix` starts with an SGI header: the magic number 474, stored or run-length
    /// encoding, one or two bytes a sample, and one to three dimensions.
    static func matches(_ prefix: [UInt8]) -> Bool {
        prefix.count >= 12 && prefix.bigEndian(at: 0, count: 2) == 474 && prefix[2] <= 1 && (1...2).contains(prefix[3])
            && (1...3).contains(prefix.bigEndian(at: 4, count: 2))
    }

    init(_ request: RenderRequest, type: ContentType, colourTransforms: ColourTransformCache) throws(ThumbnailError) {
        format = type.displayName
        let data = try FileReader.readWhole(of: request.file)
        self.data = data
        guard data.count >= Self.headerLength, Self.matches(data) else { throw .truncated(format: format) }
        encoded = data[2] == 1
        sampleBytes = Int(data[3])
        let dimensions = data.bigEndian(at: 4, count: 2)
        let width = data.bigEndian(at: 6, count: 2)
        let height = dimensions == 1 ? 1 : data.bigEndian(at: 8, count: 2)
        channels = dimensions < 3 ? 1 : data.bigEndian(at: 10, count: 2)
        guard width > 0, height > 0, channels > 0 else {
            throw .corrupt(format: format, detail: "its header says \(width)x\(height), \(channels) channels")
        }
        let colourMap = data.bigEndian(at: 104, count: 4)
        guard colourMap == 0 else {
            throw .unsupportedEncoding(
                format: format, detail: "colour map kind \(colourMap) (dithered, screen or a map)")
        }
        header = RasterHeader(size: PixelSize(width: width, height: height), isGray: channels <= 2)
    }

    func plan(for target: PixelSize) -> RasterPlan { RasterPlan(size: header.size) }

    func start(_ plan: RasterPlan) throws(ThumbnailError) -> RasterRows {
        RasterRows(size: header.size, channels: channels == 2 || channels >= 4 ? 4 : 3, streamed: true)
    }

    func read(into rows: Downscaler) throws(ThumbnailError) {
        let (width, height, out) = (header.size.width, header.size.height, rows.channels)
        // Where each row of each channel starts, and its length: two tables of 4 bytes an entry.
        guard !encoded || data.count >= Self.headerLength + 8 * height * channels else {
            throw .truncated(format: format)
        }
        // Gray, gray and alpha, RGB, RGBA: where each stored channel goes.
        let used = min(channels, 4)
        var samples = [[UInt8]](repeating: [UInt8](repeating: 0, count: width), count: used)
        try rows.pushRows(width: width, height: height, channels: out) { (y, row) throws(ThumbnailError) in
            let stored = height - 1 - y
            for channel in 0..<used {
                try readRow(stored, channel: channel, into: &samples[channel])
            }
            for x in 0..<width {
                let target = x * out
                let gray = used <= 2
                row[target] = samples[0][x]
                row[target + 1] = gray ? samples[0][x] : samples[1][x]
                row[target + 2] = gray ? samples[0][x] : samples[2][x]
                if out == 4 { row[target + 3] = samples[used - 1][x] }
            }
        }
    }

    /// A sample as 8 bits: a 16-bit one rounded to the nearest (65535 is 255), as ImageMagick
    /// scales it.
    private func eightBits(_ value: Int) -> UInt8 {
        sampleBytes == 2 ? UInt8((value + 128) / 257) : UInt8(truncatingIfNeeded: value)
    }

    /// The stored row `stored` (0 at the bottom) of `channel`, 8 bits a sample.
    private func readRow(_ stored: Int, channel: Int, into samples: inout [UInt8]) throws(ThumbnailError) {
        let (width, height) = (header.size.width, header.size.height)
        let rowBytes = width * sampleBytes
        if !encoded {
            let start = Self.headerLength + (channel * height + stored) * rowBytes
            guard start + rowBytes <= data.count else { throw .truncated(format: format) }
            for x in 0..<width {
                samples[x] = eightBits(
                    sampleBytes == 2 ? data.bigEndian(at: start + 2 * x, count: 2) : Int(data[start + x]))
            }
            return
        }
        let entry = Self.headerLength + 4 * (channel * height + stored)
        var at = data.bigEndian(at: entry, count: 4)
        var x = 0
        func value() throws(ThumbnailError) -> Int {
            guard at + sampleBytes <= data.count else { throw .truncated(format: format) }
            defer { at += sampleBytes }
            return sampleBytes == 2 ? data.bigEndian(at: at, count: 2) : Int(data[at])
        }
        while x < width {
            let control = try value()
            let count = control & 0x7F
            if count == 0 { break }
            if control & 0x80 != 0 {
                for _ in 0..<count where x < width {
                    samples[x] = eightBits(try value())
                    x += 1
                }
            } else {
                let repeated = eightBits(try value())
                for _ in 0..<count where x < width {
                    samples[x] = repeated
                    x += 1
                }
            }
        }
        // A row whose runs end early is the rest black, as ImageMagick draws it.
        for rest in x..<width { samples[rest] = 0 }
    }
}
