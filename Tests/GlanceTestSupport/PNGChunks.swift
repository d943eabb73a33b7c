/// A PNG's chunks, read without a decoder, for tests that look at how a PNG was framed (for
/// example into several IDAT chunks) rather than at its pixels.
public struct PNGChunks: Equatable {
    /// Each chunk's type and data, in order (CRCs are not checked here: the decoders check them).
    public var chunks: [(type: String, data: [UInt8])]

    /// The chunks of a whole PNG, or nil unless `bytes` are the PNG signature and then whole
    /// chunks to the last byte.
    public init?(png bytes: [UInt8]) {
        let signature: [UInt8] = [137, 80, 78, 71, 13, 10, 26, 10]
        guard bytes.starts(with: signature), let chunks = Self.read(bytes[8...]) else { return nil }
        self.chunks = chunks
    }

    /// Whole chunks and nothing else from `bytes`, or nil.
    public static func read(_ bytes: ArraySlice<UInt8>) -> [(type: String, data: [UInt8])]? {
        var chunks: [(type: String, data: [UInt8])] = []
        var at = bytes.startIndex
        while at < bytes.endIndex {
            guard bytes.endIndex - at >= 12 else { return nil }
            let length = bytes[at..<(at + 4)].reduce(0) { $0 << 8 | Int($1) }
            guard bytes.endIndex - at >= 12 + length else { return nil }
            let type = String(decoding: bytes[(at + 4)..<(at + 8)], as: UTF8.self)
            chunks.append((type, Array(bytes[(at + 8)..<(at + 8 + length)])))
            at += 12 + length
        }
        return chunks
    }

    /// The chunk types in order.
    public var types: [String] { chunks.map(\.type) }

    /// The zlib stream: every IDAT chunk's data, joined.
    public var imageData: [UInt8] { chunks.filter { $0.type == "IDAT" }.flatMap(\.data) }

    public static func == (a: PNGChunks, b: PNGChunks) -> Bool {
        a.types == b.types && zip(a.chunks, b.chunks).allSatisfy { $0.data == $1.data }
    }
}
