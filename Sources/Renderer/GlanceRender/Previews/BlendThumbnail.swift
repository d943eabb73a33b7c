import GlanceCore

/// The thumbnail a Blender file carries: its `TEST` block, which Blender writes near the start of
/// the file (after the render settings), RGBA rows bottom first. Read from the file's head only,
/// inflated first when the file is compressed (gzip before Blender 3.0, Zstandard since): the
/// scene itself is never read. Both file headers are read: `BLENDER-v300` (pointer size, byte
/// order, version; blocks with 32-bit lengths) and Blender 5's `BLENDER17-01v0500` (blocks with
/// 64-bit lengths and pointers).
///
/// Glance's own parser, as no library reads these: it walks block headers, each bounds-checked,
/// and has a fuzz target (`make fuzz`, `fuzz-blend`).
struct BlendThumbnail {
    let width: Int
    let height: Int
    /// RGBA, rows top first.
    let pixels: [UInt8]

    /// How much of a compressed file's start is inflated to find the thumbnail.
    static let headLimit = 8 << 20
    /// The largest thumbnail taken, on either side (Blender writes 128 or 256).
    static let largestSide = 2048
    /// How many blocks are walked before the thumbnail is given up for.
    static let blocksWalked = 100_000

    /// Whether `prefix`, a file's first bytes, is a Blender file's start, as stored or compressed.
    static func isBlend(_ prefix: [UInt8]) -> Bool {
        let magic = Array("BLENDER".utf8)
        if prefix.starts(with: magic) { return true }
        guard prefix.starts(with: [0x1F, 0x8B]) || prefix.starts(with: [0x28, 0xB5, 0x2F, 0xFD]) else { return false }
        return InflatedStart.of(prefix[...], limit: magic.count).starts(with: magic)
    }

    /// The first `limit` bytes of `data` inflated, or `data` itself when it is not compressed.
    static func head(of data: [UInt8], limit: Int = headLimit) -> [UInt8] {
        data.starts(with: Array("BLENDER".utf8)) ? data : InflatedStart.of(data[...], limit: limit)
    }

    /// The thumbnail in `head`, a Blender file's start (inflated); `format` names it in errors.
    init(head: [UInt8], format: String) throws(ThumbnailError) {
        let layout = try BlockLayout(head, format: format)
        var offset = layout.headerLength
        for _ in 0..<Self.blocksWalked {
            guard offset + layout.blockHeaderLength <= head.count else { break }
            let block = layout.block(head, at: offset)
            if block.code == "ENDB" { break }
            let start = offset + layout.blockHeaderLength
            guard block.length >= 0, block.length <= head.count - start || block.code == "TEST" else { break }
            if block.code == "TEST" {
                (width, height, pixels) = try Self.picture(head, from: start, length: block.length, layout, format)
                return
            }
            offset = start + block.length
        }
        throw .unsupported(
            detail: "\(format) saved without a thumbnail; Blender saves one unless its preferences say not to")
    }

    /// The `TEST` block's picture: its width and height, then RGBA rows bottom first.
    private static func picture(
        _ head: [UInt8], from start: Int, length: Int, _ layout: BlockLayout, _ format: String
    ) throws(ThumbnailError) -> (Int, Int, [UInt8]) {
        guard start + 8 <= head.count else { throw .truncated(format: format) }
        let (width, height) = (layout.integer(head, at: start, size: 4), layout.integer(head, at: start + 4, size: 4))
        guard (1...largestSide).contains(width), (1...largestSide).contains(height) else {
            throw .corrupt(format: format, detail: "its thumbnail says it is \(width)x\(height)")
        }
        let rowLength = width * 4
        guard length >= 8 + rowLength * height else {
            throw .corrupt(format: format, detail: "its thumbnail block is shorter than its picture")
        }
        guard start + 8 + rowLength * height <= head.count else { throw .truncated(format: format) }
        var pixels = [UInt8]()
        pixels.reserveCapacity(rowLength * height)
        for row in (0..<height).reversed() {
            let from = start + 8 + row * rowLength
            pixels += head[from..<(from + rowLength)]
        }
        return (width, height, pixels)
    }
}

/// How a Blender file lays out its blocks: its header's length, and each block header's.
private struct BlockLayout {
    let headerLength: Int
    let blockHeaderLength: Int
    let pointerSize: Int
    let bigEndian: Bool
    /// Blender 5's layout: lengths and counts of 64 bits, the SDNA index before the pointer.
    let large: Bool

    init(_ head: [UInt8], format: String) throws(ThumbnailError) {
        guard head.count >= 12, head.starts(with: Array("BLENDER".utf8)) else {
            throw .corrupt(format: format, detail: "it does not start as a Blender file")
        }
        let digit = { (byte: UInt8) in (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) }
        if head[7] == UInt8(ascii: "_") || head[7] == UInt8(ascii: "-") {
            (headerLength, pointerSize, large) = (12, head[7] == UInt8(ascii: "_") ? 4 : 8, false)
            bigEndian = head[8] == UInt8(ascii: "V")
            blockHeaderLength = 16 + pointerSize
        } else if head.count >= 17, digit(head[7]), digit(head[8]), head[9] == UInt8(ascii: "-") {
            headerLength = Int(head[7] - UInt8(ascii: "0")) * 10 + Int(head[8] - UInt8(ascii: "0"))
            guard headerLength >= 17, head.count >= headerLength else { throw .truncated(format: format) }
            (pointerSize, large, bigEndian) = (8, true, head[12] == UInt8(ascii: "V"))
            blockHeaderLength = 32
        } else {
            throw .unsupportedEncoding(format: format, detail: "a file header of a kind Glance does not know")
        }
    }

    /// The block header at `offset`: its four-letter code and the length of its data.
    func block(_ head: [UInt8], at offset: Int) -> (code: String, length: Int) {
        let code = String(decoding: head[offset..<(offset + 4)], as: UTF8.self)
        let length = large ? integer(head, at: offset + 16, size: 8) : integer(head, at: offset + 4, size: 4)
        return (code, length)
    }

    /// The signed integer of `size` bytes at `offset`, in the file's byte order.
    func integer(_ bytes: [UInt8], at offset: Int, size: Int) -> Int {
        let ordered = bigEndian ? Array(bytes[offset..<(offset + size)]) : bytes[offset..<(offset + size)].reversed()
        let value = ordered.reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
        return size == 4 ? Int(Int32(truncatingIfNeeded: value)) : Int(truncatingIfNeeded: value)
    }
}
