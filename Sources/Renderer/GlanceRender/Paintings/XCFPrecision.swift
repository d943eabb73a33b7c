internal import CColour

/// How an XCF image stores a channel's value, GIMP's "precision": 8, 16 or 32-bit integers, or
/// 16, 32 or 64-bit floating point, each linear light or sRGB-encoded ("non-linear", and
/// GIMP 2.10's "perceptual", which is the same curve). The values are big-endian in the tiles.
///
/// ``XCFDecoder`` composes 8-bit sRGB: ``eightBit(_:components:hasAlpha:)`` takes a tile there,
/// colour through the sRGB curve when it is linear, alpha and masks scaled (they are coverage,
/// never encoded). Floating-point values are clipped to 0 to 1, not-a-number drawn as 0.
struct XCFPrecision: Equatable, CustomStringConvertible {
    /// The kind of number a channel holds.
    enum Number: Equatable {
        case integer, half, float, double
    }

    /// A channel's width in bytes.
    let bytes: Int
    let number: Number
    /// Whether the values are linear light (else on the sRGB curve).
    let isLinear: Bool

    /// The precision of every file before version 4 and of indexed images.
    static let eightBitGamma = XCFPrecision(bytes: 1, number: .integer, isLinear: false)

    private init(bytes: Int, number: Number, isLinear: Bool) {
        (self.bytes, self.number, self.isLinear) = (bytes, number, isLinear)
    }

    /// The precision the header's value names in a file of `version` (4 and later; GIMP counted
    /// them three ways), or nil for a value GIMP never wrote.
    init?(code: Int, version: Int) {
        let kinds: [Int: (Int, Number)]
        let isLinear: Bool
        switch version {
        case ..<4:
            self = .eightBitGamma
            return
        case 4:
            // GIMP 2.9.2's: 8 and 16-bit gamma, the rest linear.
            let codes: [Int: (Int, Number, Bool)] = [
                0: (1, .integer, false), 1: (2, .integer, false), 2: (4, .integer, true),
                3: (2, .half, true), 4: (4, .float, true),
            ]
            guard let (bytes, number, linear) = codes[code] else { return nil }
            self.init(bytes: bytes, number: number, isLinear: linear)
            return
        case 5, 6:
            kinds = [1: (1, .integer), 2: (2, .integer), 3: (4, .integer), 4: (2, .half), 5: (4, .float)]
            guard [0, 50].contains(code % 100) else { return nil }
            isLinear = code % 100 == 0
        default:
            kinds = [
                1: (1, .integer), 2: (2, .integer), 3: (4, .integer), 5: (2, .half), 6: (4, .float), 7: (8, .double),
            ]
            guard [0, 50, 75].contains(code % 100) else { return nil }
            isLinear = code % 100 == 0
        }
        guard let (bytes, number) = kinds[code / 100] else { return nil }
        self.init(bytes: bytes, number: number, isLinear: isLinear)
    }

    var description: String {
        let kind =
            switch number {
            case .integer: "\(bytes * 8)-bit integers"
            case .half: "16-bit floating point"
            case .float: "32-bit floating point"
            case .double: "64-bit floating point"
            }
        return "\(kind), \(isLinear ? "linear" : "sRGB-encoded")"
    }

    /// Whether tiles are already what ``XCFDecoder`` composes.
    var isEightBitGamma: Bool { self == .eightBitGamma }

    /// A tile of `components` channels a pixel in this precision as one byte a channel: colour
    /// on the sRGB curve, the last channel scaled as it is when `hasAlpha` (or the only one of a
    /// mask: pass `components` 1 and `hasAlpha` true). `table` is
    /// `glance_colour_linear_to_srgb_table`'s.
    func eightBit(_ tile: [UInt8], components: Int, hasAlpha: Bool, table: [UInt8]) -> [UInt8] {
        let count = tile.count / bytes
        var out = [UInt8](repeating: 0, count: count)
        for index in 0..<count {
            let value = self.value(tile, at: index * bytes)
            let isCoverage = hasAlpha && index % components == components - 1
            if isLinear && !isCoverage {
                out[index] = table[Int(glance_colour_linear_index(value))]
            } else {
                out[index] = UInt8((min(1, max(0, value.isNaN ? 0 : value)) * 255).rounded())
            }
        }
        return out
    }

    /// The big-endian value at `at`, 0 to 1 for integers.
    private func value(_ tile: [UInt8], at: Int) -> Float {
        var bits: UInt64 = 0
        for byte in 0..<bytes { bits = bits << 8 | UInt64(tile[at + byte]) }
        switch number {
        case .integer:
            return Float(Double(bits) / Double(UInt64.max >> (64 - 8 * bytes)))
        case .half:
            return Float(Float16(bitPattern: UInt16(truncatingIfNeeded: bits)))
        case .float:
            return Float(bitPattern: UInt32(truncatingIfNeeded: bits))
        case .double:
            return Float(Double(bitPattern: bits))
        }
    }
}
