import Foundation
import GlanceCore
import Testing

@testable import GlanceRender

/// A text's line count goes on from the bytes the sniff read: the same count as over the file's
/// first MiB read at once, whether the text ends within the sniff's read, past it, or past a MiB.
@Suite("Text line counts", .timeLimit(.minutes(10)))
struct TextLineCountTests {
    /// Writes `bytes` to a scratch file, sniffs it as the renderer does, and counts its lines
    /// from what the sniff read.
    func counted(_ bytes: [UInt8], encoding: String) throws -> (lines: Int, isLonger: Bool, sniffRead: Int) {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("lines-\(UUID().uuidString).txt").path
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        defer { try? FileManager.default.removeItem(atPath: path) }
        let file = try OpenFile.regularFile(atPath: path)
        let sniffed = try ContentSniffer.sniff(file: file, named: "notes.txt")
        #expect(sniffed.result == .supported(.text))
        let (lines, isLonger) = try TextContent.lineCount(of: file, encoding: encoding, continuing: sniffed.read)
        return (lines, isLonger, sniffed.read.bytes.count)
    }

    /// The count the slow way: line feeds in the first MiB, and a last line without one.
    func expected(_ bytes: [UInt8]) -> (lines: Int, isLonger: Bool) {
        let first = bytes.prefix(TextContent.maximumBytes)
        let feeds = first.filter { $0 == 0x0A }.count
        return (feeds + (first.last.map { $0 != 0x0A } ?? false ? 1 : 0), bytes.count > TextContent.maximumBytes)
    }

    /// Lines of varying length, `count` of them, the last without a line feed when `open`.
    func lines(_ count: Int, open: Bool) -> [UInt8] {
        var text = (0..<count).map { "line \($0) " + String(repeating: "x", count: $0 % 90) }.joined(separator: "\n")
        if !open { text += "\n" }
        return Array(text.utf8)
    }

    @Test("within the sniff's read, across its end and past a MiB: the count of the whole first MiB")
    func acrossTheSniffsRead() throws {
        for (count, open) in [(5, false), (5, true), (600, true), (3_000, false), (40_000, true)] {
            let bytes = lines(count, open: open)
            let got = try counted(bytes, encoding: "UTF-8")
            let want = expected(bytes)
            #expect(got.lines == want.lines && got.isLonger == want.isLonger, "\(count) lines, \(bytes.count) bytes")
            // The short ones were read once, whole, by the sniff.
            if bytes.count <= TextRenderer.maxBytesRead { #expect(got.sniffRead == bytes.count) }
        }
        #expect(try counted(lines(40_000, open: true), encoding: "UTF-8").isLonger, "40,000 lines are over a MiB")
    }

    @Test("UTF-16 past the sniff's read: line feeds counted as whole code units")
    func utf16() throws {
        let text = (0..<5_000).map { "ligne \($0) é" }.joined(separator: "\n") + "\n"
        var bytes: [UInt8] = [0xFF, 0xFE]
        for unit in text.utf16 { bytes += [UInt8(unit & 0xFF), UInt8(unit >> 8)] }
        #expect(bytes.count > TextRenderer.maxBytesRead)
        let got = try counted(bytes, encoding: "UTF-16LE")
        #expect(got.lines == 5_000 && !got.isLonger)
    }
}
