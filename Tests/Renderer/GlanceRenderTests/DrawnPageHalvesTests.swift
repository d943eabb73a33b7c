import GlanceCore
import Testing

@testable import GlanceRender

/// A drawn page's halves, made straight from what it was drawn on (cairo's words, the gray
/// page's bytes) for the store's smaller sizes: the same pixels as the full-size copy halved.
@Suite("Drawn pages' halves")
struct DrawnPageHalvesTests {
    @Test("cairo's words and a gray page halve to the bytes their full-size copies halve to, odd sides too")
    func sameAsTheCopyHalved() throws {
        var generator = SystemRandomNumberGenerator()
        for (width, height) in [(37, 23), (64, 48), (1, 1), (2, 3)] {
            let surface = CairoImageSurface(width: width, height: height)
            let painted = surface.paintPixels { data in
                for index in 0..<(width * height * 4) {
                    // Every fourth byte (the word's top: alpha in memory order B, G, R, A) opaque.
                    data[index] = index % 4 == 3 ? 255 : UInt8.random(in: 0...255, using: &generator)
                }
            }
            #expect(painted)
            // Compared as a Bool: a failure would print every byte of both.
            let cairoSame = surface.halvedPixels() == surface.rgbPixels().halved()
            #expect(cairoSame, "cairo, \(width)x\(height)")
            let gray = try #require(GrayPage(width: width, height: height))
            for index in 0..<(width * height) { gray.pixels[index] = UInt8.random(in: 0...255, using: &generator) }
            let graySame = gray.halvedPixels() == gray.grayPixels().halved()
            #expect(graySame, "gray, \(width)x\(height)")
        }
    }

    @Test("a page filling the box with sizes that halve it comes with its halves; one that does not, with its pixels")
    func halvesOnlyWhenTheyHalve() throws {
        let path = TestAssets.path("pdf/letter.pdf")
        let thumbnailer = Thumbnailer()
        let file = try OpenFile.regularFile(atPath: path)
        let request = RenderRequest(file: file, name: path, maxSide: 1024)
        let halved = try thumbnailer.render(
            request, as: .pdf, encodingAs: .png, keepingPixels: true, halvingsFor: [512, 256])
        guard case .encodedWithHalves(let encoded, let halves) = halved else {
            Issue.record("not halves: \(halved)")
            return
        }
        #expect(max(encoded.width, encoded.height) == 1024)
        #expect(halves.map { max($0.width, $0.height) } == [512, 256])
        let other = try thumbnailer.render(
            request, as: .pdf, encodingAs: .png, keepingPixels: true, halvingsFor: [300])
        guard case .encodedWithPixels(_, let pixels) = other else {
            Issue.record("not pixels: \(other)")
            return
        }
        let same = pixels.halved() == halves[0]
        #expect(same, "the first half is not the pixels halved")
    }
}
