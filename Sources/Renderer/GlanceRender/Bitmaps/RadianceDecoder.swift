internal import CColour
import GlanceCore

/// Decodes Radiance HDR pictures (`.hdr`: `#?RADIANCE`, RGBE samples) for the ``RasterPipeline``:
/// the header's lines (`FORMAT=32-bit_rle_rgbe`, XYZE refused; `PRIMARIES=`; the `GAMMA=` that
/// ImageMagick writes with samples it did not linearise), the resolution line in its four
/// row-major orders (turned by the pipeline as an orientation), and scanlines flat, run-length
/// encoded per component (the usual form), or in the old repeat form. The samples are linear
/// light, brought to sRGB's primaries, clipped at 1 and encoded by the sRGB curve, as libvips
/// draws them (which reads neither `PRIMARIES=` nor `GAMMA=`).
///
/// Glance's own decoder (the format is a page of the Radiance reference, and no library in Debian
/// reads it but ImageMagick's): the header is held to the pixel limit before a row is decoded,
/// every run is bounds-checked, and it has a fuzz target (`fuzz-bitmap`).
final class RadianceDecoder: RasterDecoder {
    let header: RasterHeader
    let warnings: [String] = []

    private let data: [UInt8]
    private let format: String
    /// Where the scanlines start.
    private let start: Int
    /// `GAMMA=`: the samples are linear light to this power (none: linear).
    private let gamma: Double?
    /// `PRIMARIES=` other than sRGB's: the matrix from them to sRGB's, as its three columns
    /// (what red, green and blue each add to sRGB's), else nil.
    private let matrix: (SIMD3<Float>, SIMD3<Float>, SIMD3<Float>)?

    /// The first line: `#?RADIANCE` (or `#?RGBE`, which some writers use).
    static let signatures = [Array("#?RADIANCE\n".utf8), Array("#?RGBE\n".utf8)]

    /// The longest header read (its lines are short; the rest of a longer one is damage).
    static let headerLimit = 64 << 10

    init(_ request: RenderRequest, type: ContentType, colourTransforms: ColourTransformCache) throws(ThumbnailError) {
        format = type.displayName
        data = try FileReader.readWhole(of: request.file)
        let lines = Self.lines(data, limit: Self.headerLimit)
        guard let blank = lines.firstIndex(where: { $0.text.isEmpty }), blank + 1 < lines.count else {
            throw .truncated(format: format)
        }
        var gamma: Double?
        var matrix: (SIMD3<Float>, SIMD3<Float>, SIMD3<Float>)?
        for line in lines[..<blank] {
            if line.text.hasPrefix("FORMAT="), line.text != "FORMAT=32-bit_rle_rgbe" {
                throw .unsupportedEncoding(format: format, detail: String(line.text.prefix(60)))
            }
            if line.text.hasPrefix("GAMMA="), let value = Double(line.text.dropFirst(6)), value > 0.1, value < 10,
                abs(value - 1) > 0.001
            {
                gamma = value
            }
            if line.text.hasPrefix("PRIMARIES=") {
                matrix = Self.matrix(primaries: line.text.dropFirst(10).split(separator: " ").compactMap { Double($0) })
            }
        }
        self.gamma = gamma
        self.matrix = matrix
        let resolution = lines[blank + 1]
        let words = resolution.text.split(separator: " ")
        guard words.count == 4, let height = Int(words[1]), let width = Int(words[3]), width > 0, height > 0,
            ["-Y", "+Y"].contains(words[0]), ["+X", "-X"].contains(words[2])
        else {
            throw .corrupt(format: format, detail: "its resolution line is \"\(resolution.text.prefix(40))\"")
        }
        // Rows from the top (-Y) or the bottom (+Y), pixels from the left (+X) or the right (-X).
        let orientation: ExifOrientation =
            switch (words[0], words[2]) {
            case ("-Y", "+X"): .up
            case ("-Y", _): .upMirrored
            case ("+Y", "-X"): .down
            default: .downMirrored
            }
        start = resolution.end
        header = RasterHeader(size: PixelSize(width: width, height: height), orientation: orientation)
    }

    /// The matrix from linear light on `primaries` (`PRIMARIES=`'s eight numbers: red, green,
    /// blue, white x, y) to sRGB's, as its columns, or nil for sRGB's own or numbers that make no
    /// colour space (``glance_colour_primaries_matrix``).
    static func matrix(primaries: [Double]) -> (SIMD3<Float>, SIMD3<Float>, SIMD3<Float>)? {
        guard primaries.count == 8 else { return nil }
        var rows: [(Float, Float, Float)] = Array(repeating: (0, 0, 0), count: 3)
        guard glance_colour_primaries_matrix(Array(primaries[6...7] + primaries[0...5]), &rows) == 1 else {
            return nil
        }
        return (
            SIMD3(rows[0].0, rows[1].0, rows[2].0), SIMD3(rows[0].1, rows[1].1, rows[2].1),
            SIMD3(rows[0].2, rows[1].2, rows[2].2)
        )
    }

    /// The text lines at the start of `data` (up to `limit` bytes), each with where the next begins.
    private static func lines(_ data: [UInt8], limit: Int) -> [(text: String, end: Int)] {
        var found: [(String, Int)] = []
        var at = 0
        let end = min(data.count, limit)
        while at < end, let newline = data[at..<end].firstIndex(of: 0x0A) {
            found.append((String(decoding: data[at..<newline], as: UTF8.self), newline + 1))
            // The resolution line follows the blank one: nothing after it is text.
            if found.count >= 2 && found[found.count - 2].0.isEmpty { break }
            at = newline + 1
        }
        return found
    }

    func plan(for target: PixelSize) -> RasterPlan { RasterPlan(size: header.size) }

    func start(_ plan: RasterPlan) throws(ThumbnailError) -> RasterRows {
        RasterRows(size: header.size, channels: 3, streamed: true)
    }

    func read(into rows: Downscaler) throws(ThumbnailError) {
        var table = [UInt8](repeating: 0, count: 65536)
        glance_colour_linear_to_srgb_table(&table)
        // GAMMA=: samples to the power 1/gamma, clipped at 1 first (files that say it are SDR).
        let decode = gamma.map { gamma in (0...65535).map { Float(pow(Double($0) / 65535, 1 / gamma)) } }
        let width = header.size.width
        var rgbe = [UInt8](repeating: 0, count: width * 4)
        var out = [UInt8](repeating: 0, count: width * 3)
        var at = start
        for _ in 0..<header.size.height {
            at = try readScanline(from: at, into: &rgbe)
            for x in 0..<width {
                let e = Int(rgbe[x * 4 + 3])
                var linear = SIMD3<Float>(repeating: 0)
                if e != 0 {
                    // (mantissa + 0.5) x 2^(e - 136), as Radiance's own colr_color; 0 is black.
                    let mantissas = SIMD3<Float>(Float(rgbe[x * 4]), Float(rgbe[x * 4 + 1]), Float(rgbe[x * 4 + 2]))
                    linear = (mantissas + 0.5) * Self.scale(e)
                }
                if let decode {
                    for c in 0..<3 { linear[c] = decode[Int(glance_colour_linear_index(linear[c]))] }
                }
                if let matrix {
                    linear = matrix.0 * linear.x + matrix.1 * linear.y + matrix.2 * linear.z
                }
                for c in 0..<3 { out[x * 3 + c] = table[Int(glance_colour_linear_index(linear[c]))] }
            }
            out.withUnsafeBufferPointer { rows.push(rows: $0.baseAddress!, stride: width * 3, count: 1) }
        }
    }

    /// 2^(e - 136).
    private static func scale(_ e: Int) -> Float { Float(sign: .plus, exponent: e - 136, significand: 1) }

    /// Reads one scanline of RGBE pixels starting at `at` into `pixels`; returns where the next
    /// begins.
    private func readScanline(from at: Int, into pixels: inout [UInt8]) throws(ThumbnailError) -> Int {
        let width = header.size.width
        guard at + 4 <= data.count else { throw .truncated(format: format) }
        // The usual form: 2, 2, the width in 16 bits, then each component's runs in turn.
        if (8...0x7FFF).contains(width) && data[at] == 2 && data[at + 1] == 2 && data[at + 2] & 0x80 == 0 {
            guard Int(data[at + 2]) << 8 | Int(data[at + 3]) == width else {
                throw .corrupt(format: format, detail: "a scanline's length is not the picture's width")
            }
            var next = at + 4
            for component in 0..<4 {
                var x = 0
                while x < width {
                    guard next < data.count else { throw .truncated(format: format) }
                    let count = Int(data[next])
                    next += 1
                    if count > 128 {
                        let run = count - 128
                        guard x + run <= width else { throw .corrupt(format: format, detail: "a run overruns its row") }
                        guard next < data.count else { throw .truncated(format: format) }
                        for i in 0..<run { pixels[(x + i) * 4 + component] = data[next] }
                        next += 1
                        x += run
                    } else {
                        guard count > 0, x + count <= width else {
                            throw .corrupt(format: format, detail: "a run overruns its row")
                        }
                        guard next + count <= data.count else { throw .truncated(format: format) }
                        for i in 0..<count { pixels[(x + i) * 4 + component] = data[next + i] }
                        next += count
                        x += count
                    }
                }
            }
            return next
        }
        // Flat pixels, where 1, 1, 1, n repeats the previous pixel n times (shifted by 8 bits for
        // each repeat pixel in a row).
        var next = at
        var x = 0
        var shift = 0
        while x < width {
            guard next + 4 <= data.count else { throw .truncated(format: format) }
            if data[next] == 1 && data[next + 1] == 1 && data[next + 2] == 1 {
                guard x > 0, shift <= 16 else {
                    throw .corrupt(format: format, detail: "a repeat with nothing to repeat")
                }
                let count = Int(data[next + 3]) << shift
                guard x + count <= width else { throw .corrupt(format: format, detail: "a run overruns its row") }
                for i in 0..<count {
                    for c in 0..<4 { pixels[(x + i) * 4 + c] = pixels[(x - 1) * 4 + c] }
                }
                x += count
                shift += 8
            } else {
                for c in 0..<4 { pixels[x * 4 + c] = data[next + c] }
                x += 1
                shift = 0
            }
            next += 4
        }
        return next
    }
}
