/// Unsigned numbers read from a file's bytes, in either byte order: the one reader the parsers of
/// headers written here share (bitmaps, icons, macOS icons, Mobipocket books, QOI).
extension Array where Element == UInt8 {
    /// The unsigned little-endian number of `count` bytes (at most 8) at `offset`; 0 when they do
    /// not all lie inside.
    func littleEndian(at offset: Int, count: Int) -> Int {
        guard offset >= 0, count <= 8, offset <= self.count - count else { return 0 }
        return (0..<count).reduce(0) { $0 | Int(self[offset + $1]) << (8 * $1) }
    }

    /// The unsigned big-endian number of `count` bytes (at most 8) at `offset`; 0 when they do not
    /// all lie inside.
    func bigEndian(at offset: Int, count: Int) -> Int {
        guard offset >= 0, count <= 8, offset <= self.count - count else { return 0 }
        return (0..<count).reduce(0) { $0 << 8 | Int(self[offset + $1]) }
    }
}
