/// A colour map of 8-bit RGB entries, as the indexed formats keep them; an index past its end is
/// black (a damaged file's, drawn rather than refused).
struct ColourMap {
    private(set) var entries: [UInt8]

    /// `count` entries read from `bytes`, each `red, green, blue` side by side.
    init(interleaved bytes: ArraySlice<UInt8>, count: Int) {
        entries = Array(bytes.prefix(count * 3))
        entries += [UInt8](repeating: 0, count: count * 3 - entries.count)
    }

    /// The entries of a map kept as three planes: every red, then every green, then every blue.
    init(planar bytes: ArraySlice<UInt8>, count: Int) {
        let start = bytes.startIndex
        entries = (0..<(count * 3)).map { index in
            let at = start + (index % 3) * count + index / 3
            return at < bytes.endIndex ? bytes[at] : 0
        }
    }

    /// A ramp of `count` grays from black to white.
    init(grays count: Int) {
        entries = (0..<count).flatMap { index in
            [UInt8](repeating: UInt8(count > 1 ? index * 255 / (count - 1) : 0), count: 3)
        }
    }

    /// Writes entry `index` at `at` of `row`, as RGB.
    @inline(__always)
    func write(_ index: Int, to row: UnsafeMutableBufferPointer<UInt8>, at: Int) {
        let from = index * 3
        if from + 2 < entries.count {
            row[at] = entries[from]
            row[at + 1] = entries[from + 1]
            row[at + 2] = entries[from + 2]
        } else {
            row[at] = 0
            row[at + 1] = 0
            row[at + 2] = 0
        }
    }
}
