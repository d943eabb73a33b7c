/// The `tEXt` chunks of a PNG, read and written without decoding the image: the freedesktop.org
/// cache keeps what it knows of a thumbnail's document there (`Thumb::URI`, `Thumb::MTime`, ...),
/// and GIO decides whether a thumbnail is valid from those chunks alone.
public enum PNGTextChunks {
    /// The eight bytes every PNG starts with.
    static let signature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]

    /// The keyword → text pairs of the `tEXt` chunks before the image data, or nil when `bytes`
    /// do not start like a PNG (a chunk that runs past the end, a bad CRC in a text chunk). Texts
    /// are Latin-1, as the PNG specification has them.
    public static func read(_ bytes: [UInt8]) -> [String: String]? {
        guard bytes.count >= 8, Array(bytes[0..<8]) == signature else { return nil }
        var texts: [String: String] = [:]
        var offset = 8
        while offset + 12 <= bytes.count {
            let length = Int(bigEndian32(bytes, at: offset))
            let type = String(decoding: bytes[(offset + 4)..<(offset + 8)], as: UTF8.self)
            // The image data may run past the bytes read (Glance writes it as one chunk).
            if type == "IDAT" || type == "IEND" { return texts }
            guard length <= bytes.count - offset - 12 else { return nil }
            let data = bytes[(offset + 8)..<(offset + 8 + length)]
            if type == "tEXt" {
                guard
                    bigEndian32(bytes, at: offset + 8 + length) == CRC32.of(bytes[(offset + 4)..<(offset + 8 + length)])
                else { return nil }
                if let separator = data.firstIndex(of: 0) {
                    let keyword = latin1(data[data.startIndex..<separator])
                    texts[keyword] = latin1(data[(separator + 1)...])
                }
            }
            offset += 12 + length
        }
        return texts
    }

    /// `png` with a `tEXt` chunk for each pair inserted right after its header (`IHDR`), before
    /// the image data, where readers that stop early still see them. Keywords are 1 to 79
    /// Latin-1 characters; texts must be Latin-1 (URIs here are ASCII).
    public static func inserting(_ texts: [(keyword: String, text: String)], into png: [UInt8]) -> [UInt8]? {
        // Signature (8) + IHDR (4 length + 4 type + 13 data + 4 CRC).
        let headerEnd = 8 + 25
        guard png.count > headerEnd, Array(png[0..<8]) == signature,
            String(decoding: png[12..<16], as: UTF8.self) == "IHDR"
        else { return nil }
        var result = Array(png[0..<headerEnd])
        for (keyword, text) in texts {
            guard let key = latin1Bytes(keyword), (1...79).contains(key.count), let value = latin1Bytes(text)
            else { return nil }
            result += chunk("tEXt", key + [0] + value)
        }
        result += png[headerEnd...]
        return result
    }

    /// A 1x1 transparent RGBA PNG carrying `texts`: what the cache's failure entries hold.
    public static func emptyImage(with texts: [(keyword: String, text: String)]) -> [UInt8] {
        // IHDR: 1x1, 8 bits, colour type 6 (RGBA), deflate, adaptive filters, not interlaced.
        let header: [UInt8] = [0, 0, 0, 1, 0, 0, 0, 1, 8, 6, 0, 0, 0]
        // One row: filter byte 0, then one transparent pixel, in a zlib stream of one stored block.
        let row: [UInt8] = [0, 0, 0, 0, 0]
        let length = UInt16(row.count)
        var zlib: [UInt8] = [0x78, 0x01, 0x01, UInt8(length & 0xFF), UInt8(length >> 8)]
        zlib += [UInt8(~length & 0xFF), UInt8(~length >> 8)] + row
        zlib += bigEndianBytes(adler32(row))
        let png = signature + chunk("IHDR", header) + chunk("IDAT", zlib) + chunk("IEND", [])
        return inserting(texts, into: png) ?? png
    }

    // MARK: - Bytes

    static func chunk(_ type: String, _ data: [UInt8]) -> [UInt8] {
        let typeBytes = Array(type.utf8)
        return bigEndianBytes(UInt32(data.count)) + typeBytes + data + bigEndianBytes(CRC32.of(typeBytes + data))
    }

    static func bigEndian32(_ bytes: [UInt8], at offset: Int) -> UInt32 {
        bytes[offset..<(offset + 4)].reduce(0) { $0 << 8 | UInt32($1) }
    }

    static func bigEndianBytes(_ value: UInt32) -> [UInt8] {
        [UInt8(value >> 24), UInt8((value >> 16) & 0xFF), UInt8((value >> 8) & 0xFF), UInt8(value & 0xFF)]
    }

    static func latin1<Bytes: Collection<UInt8>>(_ bytes: Bytes) -> String {
        String(String.UnicodeScalarView(bytes.map { Unicode.Scalar($0) }))
    }

    static func latin1Bytes(_ text: String) -> [UInt8]? {
        var bytes: [UInt8] = []
        for scalar in text.unicodeScalars {
            guard scalar.value <= 0xFF, scalar.value != 0 else { return nil }
            bytes.append(UInt8(scalar.value))
        }
        return bytes
    }

    static func adler32(_ bytes: [UInt8]) -> UInt32 {
        var a: UInt32 = 1
        var b: UInt32 = 0
        for byte in bytes {
            a = (a + UInt32(byte)) % 65521
            b = (b + a) % 65521
        }
        return b << 16 | a
    }
}

/// The CRC-32 of PNG chunks (ISO 3309, polynomial 0xEDB88320, reflected).
enum CRC32 {
    static let table: [UInt32] = (0..<256).map { index in
        var value = UInt32(index)
        for _ in 0..<8 { value = value & 1 == 1 ? 0xEDB8_8320 ^ (value >> 1) : value >> 1 }
        return value
    }

    static func of<Bytes: Sequence<UInt8>>(_ bytes: Bytes) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in bytes { crc = table[Int((crc ^ UInt32(byte)) & 0xFF)] ^ (crc >> 8) }
        return crc ^ 0xFFFF_FFFF
    }
}
