import GlanceCore
import Testing

@testable import GlanceRender

/// Raw photos are told apart by their bytes: their own magic numbers, or a TIFF's first
/// directory (a DNG version, or a camera maker's name with raw traits); a camera maker's plain
/// TIFF stays a TIFF.
@Suite("Camera raw sniffing", .timeLimit(.minutes(10)))
struct RawSnifferTests {
    /// A little-endian TIFF whose first directory holds `entries` (tag, type, count, value),
    /// followed by `extra` bytes (where a long Make string goes, at offset `8 + 2 + 12n + 4`).
    static func tiff(_ entries: [(tag: UInt16, type: UInt16, count: UInt32, value: UInt32)], extra: [UInt8] = [])
        -> [UInt8]
    {
        var bytes: [UInt8] = [0x49, 0x49, 0x2A, 0x00, 8, 0, 0, 0]
        func u16(_ value: UInt16) { bytes += [UInt8(value & 0xFF), UInt8(value >> 8)] }
        func u32(_ value: UInt32) {
            for shift in stride(from: 0, to: 32, by: 8) { bytes.append(UInt8(value >> UInt32(shift) & 0xFF)) }
        }
        u16(UInt16(entries.count))
        for entry in entries {
            u16(entry.tag)
            u16(entry.type)
            u32(entry.count)
            u32(entry.value)
        }
        u32(0)
        return bytes + extra
    }

    /// Where `extra` starts in a TIFF of `count` entries.
    static func extraOffset(entries count: Int) -> UInt32 { UInt32(8 + 2 + 12 * count + 4) }

    static func make(_ name: String, entries: [(tag: UInt16, type: UInt16, count: UInt32, value: UInt32)]) -> [UInt8] {
        let text = Array(name.utf8) + [0]
        let all = entries + [(0x010F, 2, UInt32(text.count), extraOffset(entries: entries.count + 1))]
        return tiff(all.sorted { $0.tag < $1.tag }, extra: text)
    }

    @Test("each raw kind by its own signature")
    func signatures() {
        #expect(RawSniffer.type(of: Array("FUJIFILMCCD-RAW 0201FF383501".utf8)) == .fujifilmRaw)
        #expect(RawSniffer.type(of: [0, 0, 0, 0x18] + Array("ftypcrx ".utf8) + [0, 0, 0, 1]) == .canonRaw3)
        #expect(RawSniffer.type(of: [0x49, 0x49, 0x52, 0x4F, 8, 0, 0, 0]) == .olympusRaw)
        #expect(RawSniffer.type(of: [0x4D, 0x4D, 0x4F, 0x52, 0, 0, 0, 8]) == .olympusRaw)
        #expect(RawSniffer.type(of: [0x49, 0x49, 0x55, 0x00, 0x18, 0, 0, 0]) == .panasonicRaw)
        #expect(RawSniffer.type(of: [0x49, 0x49, 0x2A, 0x00, 0x10, 0, 0, 0, 0x43, 0x52, 2, 0]) == .canonRaw2)
        // A HEIC's ftyp box is not a CR3.
        #expect(RawSniffer.type(of: [0, 0, 0, 0x18] + Array("ftypheic".utf8) + [0, 0, 0, 0]) == nil)
    }

    @Test("a DNG by its DNGVersion tag, whatever the maker")
    func dng() {
        #expect(RawSniffer.type(of: Self.tiff([(0xC612, 1, 4, 0x0000_0401)])) == .dng)
        #expect(RawSniffer.type(of: Self.tiff([(0x0100, 3, 1, 640)])) == nil)
    }

    @Test("Nikon and Sony TIFFs with raw traits are raw photos; the same maker's plain TIFF is a TIFF")
    func makersWithTraits() {
        let subDirectories: (tag: UInt16, type: UInt16, count: UInt32, value: UInt32) = (0x014A, 4, 1, 4096)
        let reduced: (tag: UInt16, type: UInt16, count: UInt32, value: UInt32) = (0x00FE, 4, 1, 1)
        let colourFilter: (tag: UInt16, type: UInt16, count: UInt32, value: UInt32) = (0x0106, 3, 1, 32803)
        let rgb: (tag: UInt16, type: UInt16, count: UInt32, value: UInt32) = (0x0106, 3, 1, 2)
        #expect(RawSniffer.type(of: Self.make("NIKON CORPORATION", entries: [reduced, subDirectories])) == .nikonRaw)
        #expect(RawSniffer.type(of: Self.make("SONY", entries: [colourFilter])) == .sonyRaw)
        #expect(RawSniffer.type(of: Self.make("NIKON CORPORATION", entries: [rgb])) == nil)
        #expect(RawSniffer.type(of: Self.make("Canon", entries: [reduced, subDirectories])) == nil)
    }

    @Test("the scanner TIFF among the assets (Make: NIKON, no raw traits) sniffs as a TIFF")
    func scannerTIFF() throws {
        #expect(try sniffDocument(path: TestAssets.path("raw/scanner.tif")) == .supported(.tiff))
    }

    @Test("a directory that runs past the prefix, or claims absurd counts, is read only as far as it goes")
    func truncatedDirectory() {
        let whole = Self.make("NIKON", entries: [(0x014A, 4, 1, 4096)])
        for cut in stride(from: 8, to: whole.count, by: 3) {
            _ = RawSniffer.type(of: Array(whole.prefix(cut)))
        }
        #expect(RawSniffer.type(of: [0x49, 0x49, 0x2A, 0x00, 0xFF, 0xFF, 0xFF, 0x7F]) == nil)
    }
}
