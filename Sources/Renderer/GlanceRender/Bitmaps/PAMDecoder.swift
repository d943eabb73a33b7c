import GlanceCore

/// Decodes Netpbm's PAM (`P7`) for the ``RasterPipeline``, which gdk-pixbuf does not read: a
/// header of named fields (`WIDTH`, `HEIGHT`, `DEPTH`, `MAXVAL`, `TUPLTYPE`) to `ENDHDR`, then
/// samples of one or two bytes, big-endian. Gray, gray with alpha, RGB and RGB with alpha (by the
/// depth), any largest sample up to 65535, scaled to 8 bits. The rows are read a few at a time
/// as the pipeline takes them, so a large PAM never exists whole in memory.
///
/// Glance's own reader (no library in Debian reads PAM): the header is bounds-checked and held
/// to the pixel limit before a sample is read, and it has a fuzz target (`fuzz-bitmap`).
final class PAMDecoder: RasterDecoder {
    let header: RasterHeader
    let warnings: [String] = []

    private let file: OpenFile
    private let format: String
    private let depth: Int
    private let maxValue: Int
    private let dataStart: Int

    /// How many header bytes are read, at most.
    static let headerLimit = 4096

    init(_ request: RenderRequest, type: ContentType, colourTransforms: ColourTransformCache) throws(ThumbnailError) {
        file = request.file
        format = type.displayName
        let prefix = try FileReader.readPrefix(of: request.file, maxBytes: Self.headerLimit).bytes
        let fields = try Self.fields(prefix, format: format)
        guard let width = fields.values["WIDTH"], let height = fields.values["HEIGHT"],
            let depth = fields.values["DEPTH"], let maxValue = fields.values["MAXVAL"],
            width > 0, height > 0, (1...4).contains(depth), (1...65535).contains(maxValue)
        else { throw .corrupt(format: format, detail: "its header lacks a width, height, depth or largest sample") }
        self.depth = depth
        self.maxValue = maxValue
        dataStart = fields.end
        header = RasterHeader(size: PixelSize(width: width, height: height), isGray: depth <= 2)
    }

    /// The header's numeric fields and where the samples start; throws when it does not end.
    static func fields(_ bytes: [UInt8], format: String) throws(ThumbnailError) -> (values: [String: Int], end: Int) {
        guard bytes.starts(with: Array("P7\n".utf8)) else { throw .corrupt(format: format, detail: "not a PAM header") }
        var values: [String: Int] = [:]
        var lineStart = 3
        while let newline = bytes[lineStart...].firstIndex(of: 0x0A) {
            let line = String(decoding: bytes[lineStart..<newline], as: UTF8.self).trimmingCharacters(in: .whitespaces)
            lineStart = newline + 1
            if line == "ENDHDR" { return (values, lineStart) }
            if line.hasPrefix("#") || line.isEmpty { continue }
            let parts = line.split(separator: " ", maxSplits: 1)
            if parts.count == 2, let number = Int(parts[1].trimmingCharacters(in: .whitespaces)), number <= 1 << 30 {
                values[String(parts[0])] = number
            }
        }
        throw bytes.count < headerLimit
            ? .truncated(format: format) : .corrupt(format: format, detail: "its header does not end")
    }

    func plan(for target: PixelSize) -> RasterPlan { RasterPlan(size: header.size) }

    func start(_ plan: RasterPlan) throws(ThumbnailError) -> RasterRows {
        RasterRows(size: header.size, channels: depth == 2 || depth == 4 ? 4 : 3, streamed: true)
    }

    func read(into rows: Downscaler) throws(ThumbnailError) {
        let (width, height) = (header.size.width, header.size.height)
        let sampleBytes = maxValue > 255 ? 2 : 1
        let rowBytes = width * depth * sampleBytes
        let channels = rows.channels
        let batch = max(1, min(height, (1 << 20) / max(1, rowBytes)))
        var out = [UInt8](repeating: 0, count: width * channels * batch)
        var row = 0
        while row < height {
            let count = min(batch, height - row)
            let stored: [UInt8]
            do {
                stored = try file.read(count: rowBytes * count, at: Int64(dataStart + row * rowBytes))
            } catch {
                throw .unreadable(reason: error.description)
            }
            guard stored.count == rowBytes * count else { throw .truncated(format: format) }
            convert(stored, rows: count, into: &out, width: width, channels: channels, sampleBytes: sampleBytes)
            out.withUnsafeBufferPointer { rows.push(rows: $0.baseAddress!, stride: width * channels, count: count) }
            row += count
        }
    }

    /// `count` stored rows as 8-bit RGB or RGBA.
    private func convert(
        _ stored: [UInt8], rows count: Int, into out: inout [UInt8], width: Int, channels: Int, sampleBytes: Int
    ) {
        let scale = 255.0 / Double(maxValue)
        func sample(_ index: Int) -> UInt8 {
            let value = sampleBytes == 2 ? Int(stored[2 * index]) << 8 | Int(stored[2 * index + 1]) : Int(stored[index])
            return UInt8(min(255, (Double(min(value, maxValue)) * scale).rounded()))
        }
        for pixel in 0..<(width * count) {
            let source = pixel * depth
            let gray = depth <= 2
            let (red, green, blue) =
                gray
                ? (sample(source), sample(source), sample(source))
                : (sample(source), sample(source + 1), sample(source + 2))
            let target = pixel * channels
            out[target] = red
            out[target + 1] = green
            out[target + 2] = blue
            if channels == 4 { out[target + 3] = sample(source + depth - 1) }
        }
    }
}
