import GlanceCore

/// A Mobipocket or Kindle book's Palm database, read from its descriptor: the record list, the
/// MOBI header of record 0 (where the images start, the title) and its EXTH header (the cover,
/// the thumbnail, the author, the title). Only record 0 and the records drawn are read.
///
/// Glance's own reader, as no library in Debian reads these (Calibre's is Python): every offset
/// is bounds-checked against the file, and it has a fuzz target (`make fuzz`, `fuzz-mobi`).
struct MobiBook {
    let title: String?
    let author: String?
    /// The records that may be its cover, best first, and how each was found.
    let coverCandidates: [(record: Int, source: BookDetails.CoverSource)]

    private let file: OpenFile
    private let format: String
    /// Where each record starts, and the file's size (where the last one ends).
    private let offsets: [Int]
    private let size: Int

    /// The most records read from the list, and the largest record 0 read.
    static let maximumRecords = 65_535
    static let maximumHeaderBytes = 1 << 20
    /// The largest record drawn as a picture.
    static let maximumPictureBytes = 64 << 20

    /// Whether `prefix` starts a Palm database of type `BOOK` and creator `MOBI`.
    static func isMobi(_ prefix: [UInt8]) -> Bool {
        prefix.count >= 78 && prefix[60..<68].elementsEqual("BOOKMOBI".utf8)
    }

    init(file: OpenFile, format: String) throws(ThumbnailError) {
        self.file = file
        self.format = format
        size = file.status().map { Int($0.st_size) } ?? 0
        let head = try Self.read(file, at: 0, count: 78, format: format)
        let count = head.bigEndian(at: 76, count: 2)
        guard count > 0, count <= Self.maximumRecords else {
            throw .corrupt(format: format, detail: "its record list counts \(count) records")
        }
        let list = try Self.read(file, at: 78, count: 8 * count, format: format)
        offsets = (0..<count).map { list.bigEndian(at: 8 * $0, count: 4) }
        guard offsets[0] < size, zip(offsets, offsets.dropFirst()).allSatisfy({ $0 <= $1 }), offsets.last! <= size
        else {
            throw .corrupt(format: format, detail: "its records are not in order inside the file")
        }
        let end = offsets.count > 1 ? offsets[1] : size
        let zero = try Self.read(
            file, at: offsets[0], count: min(end - offsets[0], Self.maximumHeaderBytes), format: format)
        guard zero.count >= 132, zero[16..<20].elementsEqual("MOBI".utf8) else {
            throw .corrupt(format: format, detail: "its first record has no MOBI header")
        }
        let headerLength = zero.bigEndian(at: 20, count: 4)
        let firstImage = zero.bigEndian(at: 108, count: 4)
        var title = Self.text(zero, at: zero.bigEndian(at: 84, count: 4), length: zero.bigEndian(at: 88, count: 4))
        var author: String?
        var candidates: [(Int, BookDetails.CoverSource)] = []
        // The EXTH header follows the MOBI header when bit 6 of its flags says so.
        let exth = 16 + headerLength
        if zero.bigEndian(at: 128, count: 4) & 0x40 != 0, exth + 12 <= zero.count,
            zero[exth..<(exth + 4)].elementsEqual("EXTH".utf8)
        {
            var at = exth + 12
            for _ in 0..<zero.bigEndian(at: exth + 8, count: 4) {
                guard at + 8 <= zero.count else { break }
                let (type, length) = (zero.bigEndian(at: at, count: 4), zero.bigEndian(at: at + 4, count: 4))
                guard length >= 8, at + length <= zero.count else { break }
                let value = zero[(at + 8)..<(at + length)]
                switch type {
                case 100 where author == nil: author = String(decoding: value, as: UTF8.self)
                case 503: title = String(decoding: value, as: UTF8.self)
                case 201 where value.count == 4:
                    candidates.append((Array(value).bigEndian(at: 0, count: 4), .coverMeta))
                case 202 where value.count == 4:
                    candidates.append((Array(value).bigEndian(at: 0, count: 4), .firstImage))
                default: break
                }
                at += length
            }
        }
        let images = firstImage > 0 && firstImage < count ? firstImage : nil
        var covers = candidates.compactMap { candidate -> (Int, BookDetails.CoverSource)? in
            guard let images, candidate.0 < count - images else { return nil }
            return (images + candidate.0, candidate.1)
        }
        if covers.isEmpty, let images { covers = [(images, .firstImage)] }
        coverCandidates = covers
        self.title = title
        self.author = author
    }

    /// Record `index`'s bytes.
    func record(_ index: Int) throws(ThumbnailError) -> [UInt8] {
        guard index >= 0, index < offsets.count else { throw .corrupt(format: format, detail: "no record \(index)") }
        let end = index + 1 < offsets.count ? offsets[index + 1] : size
        guard end - offsets[index] <= Self.maximumPictureBytes else {
            throw .corrupt(format: format, detail: "record \(index) is larger than a cover can be")
        }
        return try Self.read(file, at: offsets[index], count: end - offsets[index], format: format)
    }

    private static func read(_ file: OpenFile, at offset: Int, count: Int, format: String) throws(ThumbnailError)
        -> [UInt8]
    {
        let bytes: [UInt8]
        do {
            bytes = try file.read(count: count, at: Int64(offset))
        } catch {
            throw .unreadable(reason: error.description)
        }
        guard bytes.count == count else { throw .truncated(format: format) }
        return bytes
    }

    /// The text of `length` bytes at `offset` of `bytes` (UTF-8, or Windows-1252 read as Latin-1), if it lies inside.
    private static func text(_ bytes: [UInt8], at offset: Int, length: Int) -> String? {
        guard length > 0, offset >= 0, length <= 4096, offset <= bytes.count - length else { return nil }
        let slice = bytes[offset..<(offset + length)]
        return String(validating: slice, as: UTF8.self)
            ?? String(String.UnicodeScalarView(slice.map { Unicode.Scalar($0) }))
    }
}
