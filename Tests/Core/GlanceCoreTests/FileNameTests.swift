import GlanceCore
import Testing

@Suite("File names as bytes", .timeLimit(.minutes(10)))
struct FileNameTests {
    @Test(
        "every name round-trips exactly",
        arguments: [
            Array("plain.txt".utf8), Array("日本語.txt".utf8), [0x78, 0xFF, 0x2E, 0x74], [0x78, 0xEF, 0xBF, 0xBD],
            [0xC0, 0xAF], [0xED, 0xA0, 0x80], [0xF4, 0x8F, 0xBF, 0xBF], [0xF4, 0x90, 0x80, 0x80], [0x80],
            [0xE2, 0x82], Array(0x01...0xFF).map(UInt8.init),
        ] as [[UInt8]])
    func roundTrip(bytes: [UInt8]) {
        #expect(FileName.encode(FileName.decode(bytes)) == bytes)
    }

    @Test("a file's extension is what follows the last dot of its last component; a dot file has none; any length")
    func fileExtensions() {
        let cases = [
            "a/b.JPG": "JPG", "a.tar.gz": "gz", "dir/.profile": "", ".profile": "", "x.png/": "png", "noext": "",
            "a.b/c": "", "caf\u{E9}.png": "png", "": "", String(repeating: "x", count: 5000) + ".webp": "webp",
        ]
        for (path, expected) in cases {
            #expect(ContentType.fileExtension(of: path) == expected, "\(path.prefix(40))")
        }
        #expect(PathKey("caf\u{E9}") != PathKey("cafe\u{301}"))
        #expect(Set([PathKey("caf\u{E9}"), PathKey("cafe\u{301}"), PathKey("caf\u{E9}")]).count == 2)
    }

    @Test("names that differ in bytes stay different strings")
    func distinct() {
        let invalid = FileName.decode([0x78, 0xFF, 0x2E, 0x74, 0x78, 0x74])
        let replacement = FileName.decode(Array("x\u{FFFD}.txt".utf8))
        let privateUse = FileName.decode(Array("x\u{10FFFF}.txt".utf8))
        #expect(invalid != replacement)
        #expect(invalid != privateUse)
        #expect(privateUse != replacement)
        #expect(FileName.hasEscapedBytes(invalid))
        #expect(!FileName.hasEscapedBytes(replacement))
        #expect(FileName.decode(Array("plain.txt".utf8)) == "plain.txt")
    }

    @Test("display text escapes control characters, separators and raw bytes, one line always")
    func display() {
        #expect(DisplayText.escaped("plain name.pdf") == "plain name.pdf")
        #expect(DisplayText.escaped("evil\nglance: spoofed.pdf") == "evil\\nglance: spoofed.pdf")
        #expect(DisplayText.escaped("\u{1B}[31mred") == "\\x1B[31mred")
        #expect(DisplayText.escaped("a\\b") == "a\\\\b")
        #expect(DisplayText.escaped("right\u{202E}txt.exe") == "right\\u{202E}txt.exe")
        #expect(DisplayText.escaped(FileName.decode([0x78, 0xFF])) == "x\\xFF")
        #expect(DisplayText.escaped("日本語") == "日本語")
        let everything = String(String.UnicodeScalarView((0..<0xA0).compactMap(Unicode.Scalar.init)))
        #expect(!DisplayText.escaped(everything).contains { $0.isNewline || $0 == "\u{1B}" })
    }

    @Test("a temporary name's base is cut to fit NAME_MAX, at a byte, and a short name is kept")
    func prefixFitting() {
        #expect(FileName.prefix(of: "photo.png", leavingRoomFor: 22) == "photo.png")
        let long = String(repeating: "é", count: 120)  // 240 bytes
        let cut = FileName.prefix(of: long, leavingRoomFor: 22)
        #expect(FileName.encode(cut).count == 233)
        #expect(FileName.encode(long).starts(with: FileName.encode(cut)), "the same bytes, cut")
    }

    @Test("components and hidden names are found by the byte, as the kernel finds them")
    func componentsByByte() {
        #expect(FileName.components(of: "a/\u{301}b//c/") == ["a", "\u{301}b", "c"])
        #expect("a/\u{301}b".split(separator: "/").count == 1)  // why: Swift's split sees one character
        #expect(FileName.isHidden(component: ".\u{301}x"))
        #expect(!FileName.isHidden(component: "x."))
    }
}
