import GlanceCore

/// Tells camera raw photos apart by their content, never by their names:
///
/// - **Fujifilm RAF**: `FUJIFILMCCD-RAW`;
/// - **Canon CR3**: an ISO base media file whose major brand is `crx `;
/// - **Olympus ORF** and **Panasonic RW2**: TIFF variants with their own magic numbers (`IIRO`,
///   `IIRS`, `MMOR`; `IIU`);
/// - **Canon CR2**: a TIFF marked `CR` and version 2 at byte 8;
/// - **DNG**: a TIFF whose first directory has a `DNGVersion` tag;
/// - **Nikon NEF** and **Sony ARW**: a TIFF whose `Make` names Nikon or Sony *and* whose first
///   directory shows raw traits: it is a reduced-resolution image (`NewSubFileType` 1), it points
///   to sub-directories (where the sensor data is), or it holds colour-filter-array data itself.
///   A scanner's or a camera's plain TIFF (full resolution, no sub-directories, RGB) stays a TIFF.
///
/// Only the first directory is read, from the sniffed prefix: nothing else is read from the file.
enum RawSniffer {
    /// The raw kind of the file that starts with `prefix`, nil when it is not one.
    static func type(of prefix: [UInt8]) -> ContentType? {
        if prefix.starts(with: Array("FUJIFILMCCD-RAW".utf8)) { return .fujifilmRaw }
        if prefix.count >= 12, prefix[4..<8].elementsEqual("ftyp".utf8), prefix[8..<12].elementsEqual("crx ".utf8) {
            return .canonRaw3
        }
        if prefix.starts(with: [0x49, 0x49, 0x52, 0x4F]) || prefix.starts(with: [0x49, 0x49, 0x53, 0x52])
            || prefix.starts(with: [0x4D, 0x4D, 0x4F, 0x52])
        {
            return .olympusRaw
        }
        if prefix.starts(with: [0x49, 0x49, 0x55, 0x00]) { return .panasonicRaw }
        guard let tiff = TIFFHeader(prefix) else { return nil }
        if prefix.count >= 11, prefix[8] == 0x43, prefix[9] == 0x52, prefix[10] == 2 { return .canonRaw2 }
        let directory = tiff.firstDirectory()
        if directory.hasDNGVersion { return .dng }
        let showsRaw = directory.isReducedResolution || directory.hasSubDirectories || directory.holdsColourFilterData
        guard showsRaw, let make = directory.make?.uppercased() else { return nil }
        if make.hasPrefix("NIKON") { return .nikonRaw }
        if make.hasPrefix("SONY") { return .sonyRaw }
        return nil
    }

    /// A classic TIFF's byte order and first directory, read from a prefix.
    struct TIFFHeader {
        let bytes: [UInt8]
        let littleEndian: Bool

        init?(_ bytes: [UInt8]) {
            guard bytes.count >= 8 else { return nil }
            if bytes.starts(with: [0x49, 0x49, 0x2A, 0x00]) {
                littleEndian = true
            } else if bytes.starts(with: [0x4D, 0x4D, 0x00, 0x2A]) {
                littleEndian = false
            } else {
                return nil
            }
            self.bytes = bytes
        }

        func u16(_ offset: Int) -> Int? {
            guard offset >= 0, offset + 2 <= bytes.count else { return nil }
            let (a, b) = (Int(bytes[offset]), Int(bytes[offset + 1]))
            return littleEndian ? a | b << 8 : a << 8 | b
        }

        func u32(_ offset: Int) -> Int? {
            guard let low = u16(littleEndian ? offset : offset + 2), let high = u16(littleEndian ? offset + 2 : offset)
            else { return nil }
            return low | high << 16
        }

        /// What the first directory's entries say (as far as the prefix holds them).
        func firstDirectory() -> Directory {
            var directory = Directory()
            guard let start = u32(4), let count = u16(start), count <= 1000 else { return directory }
            for index in 0..<count {
                let entry = start + 2 + index * 12
                guard let tag = u16(entry), let kind = u16(entry + 2), let values = u32(entry + 4) else { break }
                switch tag {
                case 0x00FE: directory.isReducedResolution = (u32(entry + 8) ?? 0) & 1 == 1 && kind == 4
                case 0x0106:
                    let photometric = kind == 3 ? u16(entry + 8) : nil
                    directory.holdsColourFilterData = photometric == 32803 || photometric == 34892
                case 0x010F where kind == 2 && values > 0 && values <= 64:
                    let at = values <= 4 ? entry + 8 : (u32(entry + 8) ?? -1)
                    if at >= 0, at + values <= bytes.count {
                        directory.make = String(decoding: bytes[at..<(at + values)].prefix { $0 != 0 }, as: UTF8.self)
                    }
                case 0x014A: directory.hasSubDirectories = true
                case 0xC612: directory.hasDNGVersion = true
                default: break
                }
            }
            return directory
        }
    }

    /// The raw traits of a TIFF directory.
    struct Directory {
        var make: String?
        var isReducedResolution = false
        var hasSubDirectories = false
        var holdsColourFilterData = false
        var hasDNGVersion = false
    }
}
