import GlanceCore

/// Where a binary Netpbm picture's samples lie and what they are, from either kind of header
/// (P4 to P6's numbers, PAM's named fields), so that one reader (``BinaryNetpbmDecoder``) serves
/// both.
struct NetpbmLayout: Equatable {
    /// The picture's size.
    var size: PixelSize
    /// Samples a pixel: 1 gray, 2 gray and alpha, 3 RGB, 4 RGB and alpha.
    var depth: Int
    /// The largest sample (1 for a bitmap).
    var maxValue: Int
    /// A bitmap (P4): a bit a pixel, each row padded to a whole byte, 1 for black.
    var isBitmap = false
    /// Where the samples start in the file.
    var dataStart: Int

    /// Whether its last sample is alpha.
    var hasAlpha: Bool { depth == 2 || depth == 4 }
    /// Bytes a sample: two, big-endian, when the largest is over 255.
    var bytesPerSample: Int { maxValue > 255 ? 2 : 1 }
    /// Bytes a stored row.
    var rowBytes: Int { isBitmap ? (size.width + 7) / 8 : size.width * depth * bytesPerSample }

    /// The layout of a P4, P5 or P6 header as ``BitmapHeaders/netpbmHeader(_:)`` reads it; nil for
    /// the plain kinds, a largest sample out of Netpbm's range (1 to 65535) or an empty picture.
    init?(kind: Int, numbers: [Int], dataStart: Int) {
        guard (4...6).contains(kind), numbers.count >= 2, numbers[0] > 0, numbers[1] > 0 else { return nil }
        size = PixelSize(width: numbers[0], height: numbers[1])
        isBitmap = kind == 4
        depth = kind == 6 ? 3 : 1
        maxValue = isBitmap ? 1 : numbers.count > 2 ? numbers[2] : 0
        self.dataStart = dataStart
        guard (1...65535).contains(maxValue) else { return nil }
    }

    /// A PAM's layout, from its header's fields.
    init(size: PixelSize, depth: Int, maxValue: Int, dataStart: Int) {
        self.size = size
        self.depth = depth
        self.maxValue = maxValue
        self.dataStart = dataStart
    }
}

/// Decodes a binary Netpbm picture (PBM `P4`, PGM `P5`, PPM `P6`, and PAM's samples for
/// ``PAMDecoder``) for the ``RasterPipeline``: its rows read a batch at a time as the pipeline
/// takes them, so a large picture never exists whole in memory, each sample brought to 8 bits
/// through a table made once for its largest value.
///
/// Glance's own reader, kept over gdk-pixbuf's Netpbm loader (which still reads the plain kinds,
/// ``NetpbmDecoder``) for speed: that loader decodes the whole picture before a row can be
/// scaled. Measured on a 4000x3000 binary PPM (36 MB), `glance thumbnail` of one file, best of
/// three: 0.13 s through gdk-pixbuf, 0.08 s here; vipsthumbnail's own PPM reader 0.12 s,
/// 0.10 s of it its start (on a 10x10 file). The header is bounds-checked and held to the
/// pixel limit before a sample is read, and it has a fuzz target (`fuzz-bitmap`).
final class BinaryNetpbmDecoder: RasterDecoder {
    let header: RasterHeader
    let warnings: [String] = []

    private let file: OpenFile
    private let format: String
    private let layout: NetpbmLayout

    /// How many header bytes are read, at most: a header with more comments is refused.
    static let headerLimit = 4096

    /// Opens a P4, P5 or P6 file.
    convenience init(_ request: RenderRequest, type: ContentType, colourTransforms: ColourTransformCache)
        throws(ThumbnailError)
    {
        let format = type.displayName
        let prefix = try FileReader.readPrefix(of: request.file, maxBytes: Self.headerLimit)
        guard let header = BitmapHeaders.netpbmHeader(prefix.bytes) else {
            throw prefix.isWholeFile || prefix.bytes.count < Self.headerLimit
                ? .truncated(format: format)
                : .corrupt(format: format, detail: "its header does not end in its first 4 KB")
        }
        guard let layout = NetpbmLayout(kind: header.kind, numbers: header.numbers, dataStart: header.end) else {
            throw .corrupt(
                format: format, detail: "its header gives no picture, or a largest sample outside 1 to 65535")
        }
        self.init(file: request.file, layout: layout, format: format)
    }

    /// Reads the samples `layout` describes from `file` (`format` names it in messages).
    init(file: OpenFile, layout: NetpbmLayout, format: String) {
        self.file = file
        self.layout = layout
        self.format = format
        header = RasterHeader(size: layout.size, isGray: layout.depth <= 2)
    }

    func plan(for target: PixelSize) -> RasterPlan { RasterPlan(size: header.size) }

    func start(_ plan: RasterPlan) throws(ThumbnailError) -> RasterRows {
        RasterRows(size: header.size, channels: layout.hasAlpha ? 4 : 3, streamed: true)
    }

    func read(into rows: Downscaler) throws(ThumbnailError) {
        let (width, height) = (layout.size.width, layout.size.height)
        let rowBytes = layout.rowBytes
        let channels = rows.channels
        let samples = NetpbmSamples(layout)
        let batch = max(1, min(height, (1 << 20) / max(1, rowBytes)))
        var stored = [UInt8](repeating: 0, count: rowBytes * batch)
        // A PPM of 8-bit samples is already the pipeline's rows: they are given as read.
        let asStored = layout.depth == 3 && layout.maxValue == 255
        var out = [UInt8](repeating: 0, count: asStored ? 0 : width * channels * batch)
        var row = 0
        while row < height {
            let count = min(batch, height - row)
            let wanted = rowBytes * count
            let read = stored.withUnsafeMutableBytes { raw in
                Result { () throws(FileAccessError) in
                    try file.read(
                        into: UnsafeMutableRawBufferPointer(rebasing: raw[0..<wanted]),
                        at: Int64(layout.dataStart) + Int64(row) * Int64(rowBytes))
                }
            }
            let got: Int
            switch read {
            case .success(let count): got = count
            case .failure(let error): throw .unreadable(reason: error.description)
            }
            guard got == wanted else { throw .truncated(format: format) }
            if asStored {
                stored.withUnsafeBufferPointer { rows.push(rows: $0.baseAddress!, stride: rowBytes, count: count) }
            } else {
                stored.withUnsafeBufferPointer { source in
                    out.withUnsafeMutableBufferPointer { target in
                        for index in 0..<count {
                            samples.convert(
                                row: source.baseAddress! + index * rowBytes, width: width,
                                into: target.baseAddress! + index * width * channels, channels: channels)
                        }
                    }
                }
                out.withUnsafeBufferPointer { rows.push(rows: $0.baseAddress!, stride: width * channels, count: count) }
            }
            row += count
        }
    }
}

/// Netpbm's stored samples brought to the pipeline's 8-bit RGB or RGBA: each value through a
/// table of every value's 8-bit level (`value × 255 / largest`, rounded; a value past the largest
/// counts as the largest), made once a picture.
struct NetpbmSamples {
    private let layout: NetpbmLayout
    private let levels: [UInt8]

    init(_ layout: NetpbmLayout) {
        self.layout = layout
        let maxValue = layout.maxValue
        let scale = 255.0 / Double(maxValue)
        levels = (0..<(layout.bytesPerSample == 2 ? 65536 : 256)).map { value in
            UInt8((Double(min(value, maxValue)) * scale).rounded())
        }
    }

    /// Converts one stored row of `width` pixels at `row` into `channels` (3 or 4) bytes a pixel.
    func convert(row: UnsafePointer<UInt8>, width: Int, into out: UnsafeMutablePointer<UInt8>, channels: Int) {
        if layout.isBitmap {
            for x in 0..<width {
                let level: UInt8 = row[x >> 3] & (0x80 >> UInt8(x & 7)) != 0 ? 0 : 255
                (out + x * 3).update(repeating: level, count: 3)
            }
            return
        }
        let depth = layout.depth
        levels.withUnsafeBufferPointer { levels in
            let wide = layout.bytesPerSample == 2
            for x in 0..<width {
                let source = x * depth
                func level(_ sample: Int) -> UInt8 {
                    let index = source + sample
                    return levels[wide ? Int(row[2 * index]) << 8 | Int(row[2 * index + 1]) : Int(row[index])]
                }
                let target = out + x * channels
                if depth <= 2 {
                    target.update(repeating: level(0), count: 3)
                } else {
                    target[0] = level(0)
                    target[1] = level(1)
                    target[2] = level(2)
                }
                if channels == 4 { target[3] = level(depth - 1) }
            }
        }
    }
}
