import Foundation
import GlanceCore

/// Decodes FITS images (`.fits`, `.fit`, `.fts`: astronomy's, as telescopes, observatories and
/// astrophotography cameras keep them) for the ``RasterPipeline``: header blocks of 80-character
/// cards to `END`, then the primary array, big-endian: 8, 16 or 32-bit integers or 32 or 64-bit
/// floats, scaled by `BZERO` and `BSCALE`. One plane is gray, three are red, green and blue; a
/// one-plane picture that names its colour filter mosaic (`BAYERPAT`: RGGB, BGGR, GRBG, GBRG) is
/// drawn in colour at half its size, each 2x2 cell a pixel. Rows go up from the bottom, as FITS
/// has it, unless `ROWORDER` says `TOP-DOWN`.
///
/// What the samples' values mean is the file's own: they are drawn from `DATAMIN` to `DATAMAX`
/// when the header gives them, else from the smallest to the largest value. A deep (16-bit and
/// more) picture whose background sits in the darkest quarter of that, as a telescope's light
/// does before it is processed, is stretched the way astronomers' viewers show it: the darkest
/// values below the background's noise clipped, and a midtones curve that puts the background at
/// a quarter (PixInsight's automatic screen stretch: the median, and 2.8 times the normalised
/// median absolute deviation below it). An 8-bit picture, or one already bright, is drawn as it
/// is.
///
/// Glance's own reader (no library in Debian's image stacks reads FITS but ImageMagick's, which
/// draws a linear picture dark): the header is held to the pixel limit before a sample is read,
/// the array's length is checked against the file, and it has a fuzz target (`fuzz-bitmap`).
final class FITSDecoder: RasterDecoder {
    let header: RasterHeader
    let warnings: [String] = []

    private let data: [UInt8]
    private let format: String
    private let bitsPerSample: Int
    private let storedSize: PixelSize
    private let planes: Int
    private let zero: Double
    private let scale: Double
    private let bottomUp: Bool
    /// The mosaic's colour at each of a 2x2 cell's places (0 red, 1 green, 2 blue), row by row.
    private let mosaic: [Int]?
    private let arrayStart: Int
    private let declaredRange: (Double, Double)?

    /// `SIMPLE  =` and `T` in its value's column: a FITS file's first card.
    static func matches(_ prefix: [UInt8]) -> Bool {
        guard prefix.count >= 80, prefix.starts(with: Array("SIMPLE  =".utf8)) else { return false }
        let value = String(decoding: prefix[10..<80], as: UTF8.self).split(separator: "/").first ?? ""
        return value.trimmingCharacters(in: .whitespaces) == "T"
    }

    init(_ request: RenderRequest, type: ContentType, colourTransforms: ColourTransformCache) throws(ThumbnailError) {
        format = type.displayName
        let data = try FileReader.readWhole(of: request.file)
        self.data = data
        guard Self.matches(data) else { throw .truncated(format: format) }
        // The cards, block after block, to END.
        var cards: [String: String] = [:]
        var at = 0
        var ended = false
        while !ended {
            guard at + 2880 <= data.count, at < 2880 * 64 else {
                throw at + 2880 > data.count
                    ? .truncated(format: format) : .corrupt(format: format, detail: "its header does not end")
            }
            for card in stride(from: at, to: at + 2880, by: 80) {
                let text = String(decoding: data[card..<(card + 80)], as: UTF8.self)
                let keyword = text.prefix(8).trimmingCharacters(in: .whitespaces)
                if keyword == "END" {
                    ended = true
                    break
                }
                guard text.dropFirst(8).hasPrefix("= "), cards[keyword] == nil else { continue }
                cards[keyword] = Self.value(of: String(text.dropFirst(10)))
            }
            at += 2880
        }
        arrayStart = at
        // Numbers as FORTRAN writes them too (`1.5D+03`).
        let number = { (key: String) in cards[key].flatMap { Double($0.replacingOccurrences(of: "D", with: "E")) } }
        let integer = { (key: String) in cards[key].flatMap { Int($0) } }
        guard let bits = integer("BITPIX"), [8, 16, 32, -32, -64].contains(bits) else {
            throw .unsupportedEncoding(format: format, detail: "BITPIX \(cards["BITPIX"] ?? "missing")")
        }
        bitsPerSample = bits
        let axes = integer("NAXIS") ?? 0
        let (width, height) = (integer("NAXIS1") ?? 0, axes >= 2 ? integer("NAXIS2") ?? 0 : 1)
        let depth = axes >= 3 ? integer("NAXIS3") ?? 0 : 1
        guard axes > 0 else {
            throw .unsupportedEncoding(
                format: format, detail: "no image in its primary header (its extensions are not drawn)")
        }
        guard axes <= 3, width > 0, height > 0, width <= 1 << 20, height <= 1 << 20, depth == 1 || depth == 3 else {
            throw .unsupportedEncoding(
                format: format,
                detail: "an array of \(width)x\(height)x\(depth) (an image of one or three planes is drawn)")
        }
        planes = depth
        storedSize = PixelSize(width: width, height: height)
        zero = number("BZERO") ?? 0
        scale = number("BSCALE") ?? 1
        bottomUp = cards["ROWORDER"]?.uppercased() != "TOP-DOWN"
        if let low = number("DATAMIN"), let high = number("DATAMAX"), high > low {
            declaredRange = (low, high)
        } else {
            declaredRange = nil
        }
        let places = ["R": 0, "G": 1, "B": 2]
        let pattern = (cards["BAYERPAT"] ?? cards["COLORTYP"] ?? "").uppercased()
        if depth == 1, width >= 2, height >= 2, ["RGGB", "BGGR", "GRBG", "GBRG"].contains(pattern) {
            mosaic = pattern.map { places[String($0)]! }
        } else {
            mosaic = nil
        }
        let size = mosaic == nil ? storedSize : PixelSize(width: width / 2, height: height / 2)
        header = RasterHeader(size: size, isGray: depth == 1 && mosaic == nil)
    }

    /// A card's value: a quoted string's text (trimmed), else what comes before a comment.
    private static func value(of field: String) -> String {
        let trimmed = field.trimmingCharacters(in: .whitespaces)
        if trimmed.hasPrefix("'") {
            let inner = trimmed.dropFirst()
            return String(inner.prefix { $0 != "'" }).trimmingCharacters(in: .whitespaces)
        }
        return (trimmed.split(separator: "/", maxSplits: 1).first.map(String.init) ?? "")
            .trimmingCharacters(in: .whitespaces)
    }

    func plan(for target: PixelSize) -> RasterPlan { RasterPlan(size: header.size) }

    func start(_ plan: RasterPlan) throws(ThumbnailError) -> RasterRows {
        RasterRows(size: header.size, channels: 3, streamed: true)
    }

    /// Sample `index` of the array (plane after plane, row after row), as its physical value.
    @inline(__always)
    private func sample(_ index: Int) -> Double {
        let at = arrayStart + index * abs(bitsPerSample) / 8
        let raw: Double
        switch bitsPerSample {
        case 8: raw = Double(data[at])
        case 16: raw = Double(Int16(truncatingIfNeeded: data.bigEndian(at: at, count: 2)))
        case 32: raw = Double(Int32(truncatingIfNeeded: data.bigEndian(at: at, count: 4)))
        case -32: raw = Double(Float(bitPattern: UInt32(truncatingIfNeeded: data.bigEndian(at: at, count: 4))))
        default: raw = Double(bitPattern: UInt64(truncatingIfNeeded: data.bigEndian(at: at, count: 8)))
        }
        return zero + scale * raw
    }

    func read(into rows: Downscaler) throws(ThumbnailError) {
        let (width, height) = (storedSize.width, storedSize.height)
        let count = width * height * planes
        guard data.count - arrayStart >= count * abs(bitsPerSample) / 8 else { throw .truncated(format: format) }
        let curve = drawingCurve(count: count)
        let level = { (value: Double) in UInt8((curve(value) * 255).rounded()) }
        // 8 and 16-bit samples through a table of every stored value's level: one curve a value,
        // not one a sample (a 4000x3000 RGB picture has 36 million).
        let table: [UInt8]? =
            switch bitsPerSample {
            case 8: (0..<256).map { level(zero + scale * Double($0)) }
            case 16: (0..<65536).map { level(zero + scale * Double(Int16(truncatingIfNeeded: $0))) }
            default: nil
            }
        let (bytesPerSample, start, mosaic, planes, bottomUp) = (
            abs(bitsPerSample) / 8, arrayStart, mosaic, planes, bottomUp
        )
        let planeLength = width * height
        let out = header.size
        try data.withUnsafeBufferPointer { (bytes) throws(ThumbnailError) in
            try (table ?? []).withUnsafeBufferPointer { (levels) throws(ThumbnailError) in
                func value(_ index: Int) -> UInt8 {
                    if levels.isEmpty { return level(sample(index)) }
                    let at = start + index * bytesPerSample
                    return bytesPerSample == 1
                        ? levels[Int(bytes[at])] : levels[Int(bytes[at]) << 8 | Int(bytes[at + 1])]
                }
                try rows.pushRows(width: out.width, height: out.height, channels: 3) {
                    (y, row) throws(ThumbnailError) in
                    // The stored row (or, for a mosaic, the stored cell row) this output row is.
                    let flipped = bottomUp ? out.height - 1 - y : y
                    for x in 0..<out.width {
                        if let mosaic {
                            var sums = (0, 0, 0)
                            // The cell's two rows in stored order: the pattern names them as
                            // stored; its two greens are averaged.
                            let top = flipped * 2
                            for place in 0..<4 {
                                let sample = Int(value((top + place / 2) * width + 2 * x + place % 2))
                                switch mosaic[place] {
                                case 0: sums.0 += sample
                                case 1: sums.1 += sample
                                default: sums.2 += sample
                                }
                            }
                            row[3 * x] = UInt8(sums.0)
                            row[3 * x + 1] = UInt8((sums.1 + 1) / 2)
                            row[3 * x + 2] = UInt8(sums.2)
                        } else {
                            let index = flipped * width + x
                            let red = value(index)
                            row[3 * x] = red
                            row[3 * x + 1] = planes == 3 ? value(planeLength + index) : red
                            row[3 * x + 2] = planes == 3 ? value(2 * planeLength + index) : red
                        }
                    }
                }
            }
        }
    }

    /// The curve from a physical value to 0...1: linear over the declared or found range, then,
    /// for a deep picture whose background is dark, the automatic screen stretch.
    private func drawingCurve(count: Int) -> (Double) -> Double {
        // At most about a quarter of a million samples, spread over the array, for the range and
        // the statistics.
        let step = max(1, count / (1 << 18))
        var values: [Double] = []
        values.reserveCapacity(count / step + 1)
        for index in stride(from: 0, to: count, by: step) {
            let value = sample(index)
            if value.isFinite { values.append(value) }
        }
        let (low, high) = declaredRange ?? (values.min() ?? 0, values.max() ?? 1)
        let span = high > low ? high - low : 1
        let linear = { (value: Double) -> Double in
            value.isFinite ? min(1, max(0, (value - low) / span)) : 0
        }
        guard bitsPerSample != 8, !values.isEmpty else { return linear }
        var normalised = values.map(linear)
        normalised.sort()
        let median = normalised[normalised.count / 2]
        guard median < 0.25 else { return linear }
        var deviations = normalised.map { abs($0 - median) }
        deviations.sort()
        let spread = 1.4826 * deviations[deviations.count / 2]
        let shadows = max(0, median - 2.8 * spread)
        // The midtones balance that takes the clipped background to a quarter.
        let balance = Self.midtonesTransfer(0.25, median - shadows)
        return { value in
            Self.midtonesTransfer(balance, max(0, (linear(value) - shadows) / (1 - shadows)))
        }
    }

    /// The midtones transfer function MTF(m, x) = (m - 1) x / ((2m - 1) x - m): 0 stays 0, 1
    /// stays 1 and `m` goes to a half. MTF(MTF(t, x), x) is t, which finds the balance that takes
    /// a value to a target.
    private static func midtonesTransfer(_ m: Double, _ x: Double) -> Double {
        if x <= 0 { return 0 }
        if x >= 1 { return 1 }
        let denominator = (2 * m - 1) * x - m
        return denominator == 0 ? 0.5 : (m - 1) * x / denominator
    }
}
