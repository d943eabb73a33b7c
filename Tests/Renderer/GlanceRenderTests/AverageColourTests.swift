import GlanceCore
import GlanceRender
import Testing

/// The placeholder colour a page shows until a thumbnail arrives.
@Suite("Average colour", .timeLimit(.minutes(10)))
struct AverageColourTests {
    @Test("a solid image is its own colour; transparency counts as the white page beneath")
    func averages() {
        let red = PixelBuffer(
            width: 8, height: 8, channels: 3, bytes: Array(repeating: [255, 0, 0], count: 64).flatMap { $0 })
        #expect(red.averageColour == "#ff0000")
        let clear = PixelBuffer(
            width: 8, height: 8, channels: 4, bytes: Array(repeating: [0, 0, 0, 0], count: 64).flatMap { $0 })
        #expect(clear.averageColour == "#ffffff")
        let halfBlack = PixelBuffer(
            width: 8, height: 8, channels: 4, bytes: Array(repeating: [0, 0, 0, 128], count: 64).flatMap { $0 })
        #expect(halfBlack.averageColour == "#7f7f7f")
        // Left half blue, right half yellow: the mean of the sampled columns.
        var bytes: [UInt8] = []
        for _ in 0..<8 { for x in 0..<8 { bytes += x < 4 ? [0, 0, 255] : [255, 255, 0] } }
        let halves = PixelBuffer(width: 8, height: 8, channels: 3, bytes: bytes)
        #expect(halves.averageColour == "#7f7f7f")
    }

    @Test("only #rrggbb in lower case passes as a colour for a page")
    func validation() {
        #expect(HexColour.text(red: 1, green: 171, blue: 300) == "#01abff")
        #expect(HexColour.isValid("#01abff"))
        for bad in ["#01ABFF", "01abff", "#01abf", "#01abffa", "red;x", "#01abfg"] { #expect(!HexColour.isValid(bad)) }
    }
}
