internal import CFileAccess
import GlanceCore

/// The JPEG previews a raw photo carries, found without LibRaw: what a photo manager reads for a
/// camera newer than its LibRaw (0.20 here knows nothing since 2020: a Canon R6's CR3, a Sony
/// ZV-E10's ARW), so that such a photo is shown from its camera's own picture.
///
/// - **TIFF-based raws** (NEF, ARW, CR2, DNG, ORF, RW2's TIFF layout): the directories from the
///   first on and their sub-directories (two levels), each a candidate when it points to a JPEG
///   (`JPEGInterchangeFormat` and its length) or holds one as its only strip (compression 6 or 7,
///   starting with a JPEG's marker).
/// - **CR3**: the `PRVW` box of Canon's preview `uuid` box at the top level, and the `THMB` box
///   of the `moov` one.
///
/// Every offset and length is checked against the file's size; at most 64 directories are read.
/// The largest candidate that ends with a JPEG's end marker is the preview.
enum RawPreviews {
    /// The bytes of the largest JPEG preview in `file` (of `type`), nil when it carries none.
    static func largest(in file: OpenFile, type: ContentType) -> [UInt8]? {
        guard let size = file.status().map({ Int64($0.st_size) }), size > 16 else { return nil }
        let candidates = type == .canonRaw3 ? isoCandidates(file, size: size) : tiffCandidates(file, size: size)
        for (offset, length) in candidates.sorted(by: { $0.length > $1.length }) {
            guard length >= 4, length <= 64 << 20, offset >= 0, offset + Int64(length) <= size,
                let bytes = try? file.read(count: length, at: offset), bytes.count == length,
                bytes.starts(with: [0xFF, 0xD8]), bytes.suffix(2).elementsEqual([0xFF, 0xD9])
            else { continue }
            return bytes
        }
        return nil
    }

    /// Offsets and lengths of the JPEGs a classic TIFF's directories point to.
    static func tiffCandidates(_ file: OpenFile, size: Int64) -> [(offset: Int64, length: Int)] {
        guard let head = try? file.read(count: 8, at: 0), head.count == 8 else { return [] }
        let little: Bool
        if head.starts(with: [0x49, 0x49, 0x2A, 0x00]) {
            little = true
        } else if head.starts(with: [0x4D, 0x4D, 0x00, 0x2A]) {
            little = false
        } else {
            return []
        }
        func number(_ bytes: ArraySlice<UInt8>) -> Int64 {
            let ordered = little ? Array(bytes.reversed()) : Array(bytes)
            return ordered.reduce(Int64(0)) { $0 << 8 | Int64($1) }
        }
        var found: [(Int64, Int)] = []
        var queue: [(offset: Int64, depth: Int)] = [(number(head[4..<8]), 0)]
        var visited: Set<Int64> = []
        while let (start, depth) = queue.popLast(), visited.count < 64 {
            guard start > 0, start + 2 <= size, visited.insert(start).inserted,
                let countBytes = try? file.read(count: 2, at: start), countBytes.count == 2
            else { continue }
            let count = Int(number(countBytes[0..<2]))
            guard count > 0, count <= 512, let entries = try? file.read(count: count * 12 + 4, at: start + 2),
                entries.count == count * 12 + 4
            else { continue }
            var tags: [Int: (kind: Int, count: Int64, value: Int64)] = [:]
            for index in 0..<count {
                let entry = entries[(index * 12)..<(index * 12 + 12)]
                let base = entry.startIndex
                let tag = Int(number(entry[base..<(base + 2)]))
                let kind = Int(number(entry[(base + 2)..<(base + 4)]))
                let values = number(entry[(base + 4)..<(base + 8)])
                // A SHORT value sits in the first two bytes of the field.
                let value =
                    kind == 3 ? number(entry[(base + 8)..<(base + 10)]) : number(entry[(base + 8)..<(base + 12)])
                tags[tag] = (kind, values, value)
            }
            if let offset = tags[0x201]?.value, let length = tags[0x202]?.value, length > 0, length < Int64(Int32.max) {
                found.append((offset, Int(length)))
            }
            if let compression = tags[0x103]?.value, compression == 6 || compression == 7,
                let strip = tags[0x111], strip.count == 1, let length = tags[0x117], length.count == 1,
                length.value > 0, length.value < Int64(Int32.max)
            {
                found.append((strip.value, Int(length.value)))
            }
            // The next directory, and the sub-directories (one offset in the field, or a list).
            let next = number(entries[(count * 12)..<(count * 12 + 4)])
            if next > 0 { queue.append((next, depth)) }
            if depth < 2, let sub = tags[0x14A], sub.count >= 1, sub.count <= 16 {
                if sub.count == 1 {
                    queue.append((sub.value, depth + 1))
                } else if let list = try? file.read(count: Int(sub.count) * 4, at: sub.value),
                    list.count == Int(sub.count) * 4
                {
                    for index in 0..<Int(sub.count) {
                        queue.append((number(list[(index * 4)..<(index * 4 + 4)]), depth + 1))
                    }
                }
            }
        }
        return found
    }

    /// Canon's preview `uuid` (`eaf42b5e-1c98-4b88-b9fb-b7dc406e4d16`) and the `moov` one
    /// (`85c0b687-820f-11e0-8111-f4ce462b6a48`), which hold `PRVW` and `THMB`.
    static let previewBox: [UInt8] = [
        0xEA, 0xF4, 0x2B, 0x5E, 0x1C, 0x98, 0x4B, 0x88, 0xB9, 0xFB, 0xB7, 0xDC, 0x40, 0x6E, 0x4D, 0x16,
    ]
    static let canonBox: [UInt8] = [
        0x85, 0xC0, 0xB6, 0x87, 0x82, 0x0F, 0x11, 0xE0, 0x81, 0x11, 0xF4, 0xCE, 0x46, 0x2B, 0x6A, 0x48,
    ]

    /// Offsets and lengths of a CR3's `PRVW` and `THMB` JPEGs: in each, the JPEG follows its
    /// 32-bit length, a few bytes after the box's type.
    static func isoCandidates(_ file: OpenFile, size: Int64) -> [(offset: Int64, length: Int)] {
        var found: [(Int64, Int)] = []
        /// The JPEG inside a PRVW or THMB box at `start`: its length is the four bytes before the
        /// JPEG's start marker, within the box's first 32 bytes.
        func jpeg(inBoxAt start: Int64, length: Int64) {
            guard let head = try? file.read(count: 40, at: start), head.count >= 12 else { return }
            for index in 12..<(head.count - 2) where head[index] == 0xFF && head[index + 1] == 0xD8 {
                let declared = head[(index - 4)..<index].reduce(Int64(0)) { $0 << 8 | Int64($1) }
                if declared > 0, start + Int64(index) + declared <= start + length {
                    found.append((start + Int64(index), Int(declared)))
                }
                return
            }
        }
        let uuid = Array("uuid".utf8)
        ISOBoxes.walk(file, from: 0, to: size, limit: 256) { box in
            if box.type.elementsEqual(uuid), box.afterType.count >= 16 {
                let id = Array(box.afterType.prefix(16))
                guard id == previewBox || id == canonBox else { return }
                // Canon's preview uuid box starts its inner boxes after 8 bytes of its own.
                let inner = box.contentStart + 16 + (id == previewBox ? 8 : 0)
                ISOBoxes.walk(file, from: inner, to: box.offset + box.size, limit: 256) { inside in
                    if inside.type.elementsEqual("PRVW".utf8) || inside.type.elementsEqual("THMB".utf8) {
                        jpeg(inBoxAt: inside.offset, length: inside.size)
                    }
                }
            } else if box.type.elementsEqual("moov".utf8) {
                ISOBoxes.walk(file, from: box.contentStart, to: box.offset + box.size, limit: 256) { inside in
                    guard inside.type.elementsEqual(uuid), inside.afterType.prefix(16).elementsEqual(canonBox) else {
                        return
                    }
                    ISOBoxes.walk(file, from: inside.contentStart + 16, to: inside.offset + inside.size, limit: 256) {
                        thumb in
                        if thumb.type.elementsEqual("THMB".utf8) { jpeg(inBoxAt: thumb.offset, length: thumb.size) }
                    }
                }
            }
        }
        return found
    }
}
