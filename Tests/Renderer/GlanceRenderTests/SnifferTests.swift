import Testing

@testable import GlanceRender

@Suite("Sniffing", .timeLimit(.minutes(10)))
struct SnifferTests {
    @Test("bytes decide before the name")
    func bytesFirst() {
        let png: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0, 0, 0, 13]
        #expect(ContentSniffer.sniff(prefix: png, isWholeFile: true, fileName: "photo.jpg") == .supported(.png))
        #expect(
            ContentSniffer.sniff(prefix: [0xFF, 0xD8, 0xFF, 0xE0], isWholeFile: true, fileName: "x.png")
                == .supported(.jpeg))
        let pdf = Array(("junk before the header\n%PDF-1.7\n").utf8)
        #expect(ContentSniffer.sniff(prefix: pdf, isWholeFile: true, fileName: "x") == .supported(.pdf))
        let late = [UInt8](repeating: 0x20, count: 1100) + Array("%PDF-1.4".utf8)
        #expect(ContentSniffer.sniff(prefix: late, isWholeFile: true, fileName: "x.pdf") != .supported(.pdf))
        #expect(
            ContentSniffer.sniff(prefix: Array("hello\n".utf8), isWholeFile: true, fileName: "notes")
                == .supported(.text))
    }

    @Test("the name decides for empty files and undecidable legacy text")
    func nameSecond() {
        #expect(ContentSniffer.sniff(prefix: [], isWholeFile: true, fileName: "a.txt") == .supported(.text))
        #expect(ContentSniffer.sniff(prefix: [], isWholeFile: true, fileName: "a.jpg") == .empty)
        if case .unsupported(let detail) = ContentSniffer.sniff(
            prefix: [0, 1, 2, 3], isWholeFile: true, fileName: "a.png")
        {
            #expect(detail?.contains("not PNG") == true)
        } else {
            Issue.record("random bytes named .png must be unsupported")
        }
    }
}
