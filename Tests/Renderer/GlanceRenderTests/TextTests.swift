import Testing

@testable import GlanceRender

@Suite("Text", .timeLimit(.minutes(10)))
struct TextTests {
    static let encodedFiles = [
        "shift_jis", "euc-jp", "gb18030", "big5", "koi8-r", "windows-1252", "utf16le-bom", "utf16be-bom", "utf32le-bom",
        "utf8-bom",
    ]

    @Test("encodings are detected and decoded correctly", arguments: encodedFiles)
    func decoding(_ name: String) throws {
        let bytes = try TestAssets.readBytes(TestAssets.path("text/\(name).txt"))
        let expected = try TestAssets.readText(TestAssets.path("text/expected-decoding/\(name).utf8"))
        let decoded = try #require(TextEncodingDetector.detect(bytes, isWholeFile: true))
        #expect(decoded.text == expected, "\(name) decoded as \(decoded.encoding)")
    }

    @Test("legacy CJK encodings set the language for glyph shapes")
    func languages() throws {
        for (name, language) in [
            ("shift_jis", "ja"), ("euc-jp", "ja"), ("gb18030", "zh-cn"), ("big5", "zh-tw"), ("koi8-r", "ru"),
        ] {
            let bytes = try TestAssets.readBytes(TestAssets.path("text/\(name).txt"))
            #expect(TextEncodingDetector.detect(bytes, isWholeFile: true)?.language == language, "\(name)")
        }
    }

    @Test(
        "every script gets real glyphs (no boxes) on a 724x1024 page",
        arguments: [
            "latin-utf8", "cyrillic-utf8", "hebrew-utf8", "japanese-utf8", "chinese-utf8", "korean-utf8", "shift_jis",
            "big5",
        ])
    func glyphs(_ name: String) throws {
        let rendered = try renderDocument(path: TestAssets.path("text/\(name).txt")).thumbnail
        #expect(rendered.image.width == 724 && rendered.image.height == 1024)
        #expect(rendered.warnings.isEmpty, "\(name): \(rendered.warnings)")
        // Something was drawn: the page is not blank.
        let inked = stride(from: 0, to: rendered.image.bytes.count, by: 3).filter { rendered.image.bytes[$0] < 128 }
            .count
        #expect(inked > 1000, "\(name) looks blank")
    }

    @Test("an empty text file is a blank page")
    func emptyPage() throws {
        let image = try renderDocument(path: TestAssets.path("text/empty.txt")).thumbnail.image
        #expect(image.width == 724 && image.height == 1024)
        #expect(image.bytes.allSatisfy { $0 == 255 })
    }

    @Test("CRLF, CR and LF line ends lay out alike")
    func lineEnds() {
        #expect(TextRenderer.pageText("a\r\nb\rc\nd") == "a\nb\nc\nd")
        #expect(TextRenderer.pageText("tab\there\u{1}") == "tab\there")
    }

    @Test("binary bytes are not text")
    func binary() throws {
        let bytes = try TestAssets.readBytes(TestAssets.path("text/binary-with-nul.txt"))
        #expect(TextEncodingDetector.detect(bytes, isWholeFile: true) == nil)
        let controls: [UInt8] = (0..<400).map { UInt8($0 % 32) }
        #expect(TextEncodingDetector.detect(controls, isWholeFile: true) == nil)
    }

    @Test("a UTF-8 prefix cut inside a character is still UTF-8")
    func cutPrefix() {
        let bytes = Array("日本語のテキスト".utf8)
        let cut = Array(bytes.dropLast(1))
        #expect(TextEncodingDetector.detect(cut, isWholeFile: false)?.encoding == "UTF-8")
    }

    @Test("long files are cut to a page quickly")
    func longFiles() throws {
        for name in ["long-line", "big"] {
            let image = try renderDocument(path: TestAssets.path("text/\(name).txt")).thumbnail
                .image
            #expect(image.width == 724 && image.height == 1024)
        }
    }

    @Test("UTF-16 without a byte-order mark is recognised when mostly ASCII, either byte order")
    func utf16WithoutMark() throws {
        let text = "Meeting notes, 23 November\nAgenda: budget, café, naïve résumé — done.\n"
        let little = Array(text.utf16).flatMap { [UInt8($0 & 0xFF), UInt8($0 >> 8)] }
        let big = Array(text.utf16).flatMap { [UInt8($0 >> 8), UInt8($0 & 0xFF)] }
        let decodedLittle = try #require(TextEncodingDetector.detect(little, isWholeFile: true))
        #expect(decodedLittle.encoding == "UTF-16LE" && decodedLittle.text == text)
        let decodedBig = try #require(TextEncodingDetector.detect(big, isWholeFile: true))
        #expect(decodedBig.encoding == "UTF-16BE" && decodedBig.text == text)
        // A prefix cut in the middle of a code unit is still UTF-16.
        #expect(TextEncodingDetector.detect(Array(little.dropLast(1)), isWholeFile: false)?.encoding == "UTF-16LE")
        // NULs in no such pattern stay binary; so do UTF-16 control characters.
        let binary: [UInt8] = (0..<512).map { $0 % 3 == 0 ? 0 : UInt8(truncatingIfNeeded: $0 &* 7) }
        #expect(TextEncodingDetector.detect(binary, isWholeFile: true) == nil)
        let controls: [UInt8] = (0..<400).flatMap { [UInt8($0 % 32), 0] }
        #expect(TextEncodingDetector.detect(controls, isWholeFile: true) == nil)
    }
}
