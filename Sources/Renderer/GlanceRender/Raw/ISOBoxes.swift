import GlanceCore

/// The boxes of an ISO base media file (a CR3, an MP4), read one header at a time from an open
/// file: a 32-bit size (or 1 and a 64-bit size, or 0 for "to the end") and a type. The one walker
/// of such boxes: the CR3 check before LibRaw (``RawDecoder/checkBoxes(of:format:)``) and the
/// search for a CR3's previews (``RawPreviews``).
enum ISOBoxes {
    /// One box: where it starts, its whole size, and the first bytes after its size field (its
    /// type, then up to 20 bytes more: a `uuid` box's UUID).
    struct Box {
        let offset: Int64
        let size: Int64
        /// Where its contents start: after its size (4 or 12 bytes) and its type.
        let contentStart: Int64
        let head: ArraySlice<UInt8>

        /// The box's four-character type.
        var type: ArraySlice<UInt8> { head.prefix(4) }
        /// The bytes after the type (a `uuid` box's UUID comes first), as far as they were read.
        var afterType: ArraySlice<UInt8> { head.dropFirst(4) }
    }

    /// How a walk ended.
    enum End: Equatable {
        /// Every box fitted, or `limit` boxes were read.
        case complete
        /// A box's size is smaller than its own header.
        case tooSmall(Int64)
        /// A box (or its header) runs past the end of what was walked.
        case pastEnd
    }

    /// Visits the boxes between `start` and `end`, at most `limit` of them, in order; a box of
    /// size 0 runs to `end` and is the last.
    @discardableResult
    static func walk(
        _ file: OpenFile, from start: Int64, to end: Int64, limit: Int = 4096, _ visit: (Box) -> Void
    ) -> End {
        var offset = start
        for _ in 0..<limit {
            guard offset < end else { return .complete }
            guard offset + 8 <= end, let head = try? file.read(count: 24, at: offset), head.count >= 8 else {
                return .pastEnd
            }
            var size = head[0..<4].reduce(Int64(0)) { $0 << 8 | Int64($1) }
            var headerSize: Int64 = 8
            if size == 1 {
                guard head.count >= 16 else { return .pastEnd }
                size = head[8..<16].reduce(Int64(0)) { $0 << 8 | Int64($1) }
                headerSize = 16
            } else if size == 0 {
                size = end - offset
            }
            guard size >= headerSize else { return .tooSmall(size) }
            guard size <= end - offset else { return .pastEnd }
            visit(
                Box(
                    offset: offset, size: size, contentStart: offset + headerSize,
                    head: head[(headerSize == 16 ? 12 : 4)...]))
            offset += size
        }
        return .complete
    }
}
