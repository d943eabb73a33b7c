import GlanceCore

/// The directory of an OLE2 compound file (the container of Word, Excel and PowerPoint 97-2003
/// files, and of password-protected Office Open XML files): which streams it holds, and the first
/// bytes of a stream. Read through the descriptor with bounded reads: at most
/// ``maximumDirectorySectors`` sectors of directory and the file-allocation sectors they need.
///
/// Written here rather than taken from a library: Debian has no small reader of the format
/// (libgsf pulls in GLib's object system, and LibreOffice is what this check protects); the
/// directory is four fields of a header and a chain of 128-byte entries.
struct CompoundFile {
    /// The signature of the format's header.
    static let signature: [UInt8] = [0xD0, 0xCF, 0x11, 0xE0, 0xA1, 0xB1, 0x1A, 0xE1]
    /// Enough for any document's directory (32 entries a 4 KiB sector, 4 a 512-byte one).
    static let maximumDirectorySectors = 4096

    /// A stream named in the directory.
    struct Stream {
        var name: String
        var startSector: UInt32
        var size: UInt64
    }

    private let file: OpenFile
    private let sectorSize: Int
    private let allocationSectors: [UInt32]
    /// Every stream the directory names.
    private(set) var streams: [Stream] = []

    /// Reads the header and the directory of the compound file open at `file`; nil when it is
    /// not one, or its directory cannot be followed.
    init?(file: OpenFile) {
        self.file = file
        guard let header = try? file.read(count: 512, at: 0), header.count == 512,
            header.starts(with: Self.signature)
        else { return nil }
        let shift = Int(Self.u16(header, 0x1E))
        guard shift == 9 || shift == 12 else { return nil }
        sectorSize = 1 << shift
        // The first 109 allocation sectors are listed in the header; a file with more (over
        // 6.8 MB of 512-byte sectors) has the rest in a chain this reader does not follow: its
        // directory, written first, is in the first ones.
        allocationSectors = (0..<109).map { Self.u32(header, 0x4C + 4 * $0) }.filter { $0 < 0xFFFF_FFFA }
        var sector = Self.u32(header, 0x30)
        var seen = 0
        while sector < 0xFFFF_FFFA && seen < Self.maximumDirectorySectors {
            guard let bytes = readSector(sector) else { break }
            for offset in stride(from: 0, to: sectorSize, by: 128) {
                let entry = bytes[offset..<(offset + 128)]
                let type = entry[entry.startIndex + 0x42]
                guard type == 2 else { continue }
                let length = min(64, Int(Self.u16(bytes, offset + 0x40)))
                let units = stride(from: 0, to: max(0, length - 2), by: 2).map {
                    UInt16(bytes[offset + $0]) | UInt16(bytes[offset + $0 + 1]) << 8
                }
                streams.append(
                    Stream(
                        name: String(decoding: units, as: UTF16.self), startSector: Self.u32(bytes, offset + 0x74),
                        size: UInt64(Self.u32(bytes, offset + 0x78))))
            }
            guard let next = nextSector(after: sector) else { break }
            sector = next
            seen += 1
        }
    }

    /// The stream named `name` (the format compares names without case).
    func stream(named name: String) -> Stream? {
        streams.first { $0.name.lowercased() == name.lowercased() }
    }

    /// The first sector of a stream of at least 4096 bytes (smaller ones live in the mini stream,
    /// which this reader does not follow): nil for those, or when it cannot be read.
    func firstSector(of stream: Stream) -> [UInt8]? {
        guard stream.size >= 4096 else { return nil }
        return readSector(stream.startSector)
    }

    private func readSector(_ sector: UInt32) -> [UInt8]? {
        let offset = (Int64(sector) + 1) * Int64(sectorSize)
        guard let bytes = try? file.read(count: sectorSize, at: offset), bytes.count == sectorSize else { return nil }
        return bytes
    }

    /// The sector after `sector` in its chain, from the file-allocation table.
    private func nextSector(after sector: UInt32) -> UInt32? {
        let perSector = sectorSize / 4
        let table = Int(sector) / perSector
        guard table < allocationSectors.count, let bytes = readSector(allocationSectors[table]) else { return nil }
        return Self.u32(bytes, (Int(sector) % perSector) * 4)
    }

    static func u16(_ bytes: [UInt8], _ offset: Int) -> UInt16 {
        UInt16(bytes[offset]) | UInt16(bytes[offset + 1]) << 8
    }

    static func u32(_ bytes: [UInt8], _ offset: Int) -> UInt32 {
        UInt32(u16(bytes, offset)) | UInt32(u16(bytes, offset + 2)) << 16
    }
}
