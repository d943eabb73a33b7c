import GlanceCore
import Testing

@testable import GlanceRender

/// GIF documents through giflib: each against what its generator drew.
@Suite("GIF", .timeLimit(.minutes(10)))
struct GIFTests {
    @Test("a still GIF keeps its own pixels at its own size; interlaced rows land where they belong")
    func stillAndInterlaced() throws {
        let still = try renderDocument(path: TestAssets.path("gif/still.gif")).thumbnail
        let interlaced = try renderDocument(path: TestAssets.path("gif/interlaced.gif")).thumbnail
        #expect(still.image.width == 400 && still.image.height == 300 && !still.image.hasAlpha)
        // The same picture, stored in four passes: an interlace drawn in file order would differ.
        #expect(still.image.bytes == interlaced.image.bytes)
    }

    @Test("a transparent colour is alpha; opaque pixels keep their colour")
    func transparency() throws {
        let image = try renderDocument(path: TestAssets.path("gif/transparent.gif")).thumbnail.image
        #expect(image.hasAlpha && image.width == 200 && image.height == 150)
        #expect(image.pixel(x: 10, y: 75).a == 0, "left half transparent")
        #expect(image.pixel(x: 190, y: 75).a == 255, "right half opaque")
    }

    @Test("an animation's thumbnail is its first frame, composed on its logical screen")
    func firstFrame() throws {
        let animated = try renderDocument(path: TestAssets.path("gif/animated.gif")).thumbnail
        let colour = PixelStatistics.meanColour(animated.image)
        #expect(colour.r > 200 && colour.g < 50 && colour.b < 50, "red, the first frame: \(colour)")
        #expect(animated.warnings.contains { $0.contains("first frame") })
        // A 100x80 green frame at (50, 40) on a 300x200 screen: the rest is transparent.
        let offset = try renderDocument(path: TestAssets.path("gif/offset-frame.gif")).thumbnail.image
        #expect(offset.width == 300 && offset.height == 200 && offset.hasAlpha)
        #expect(offset.pixel(x: 20, y: 20).a == 0 && offset.pixel(x: 250, y: 170).a == 0)
        let inside = offset.pixel(x: 100, y: 80)
        #expect(inside.a == 255 && inside.g > 140 && inside.r < 60, "\(inside)")
    }

    @Test("a screen past the pixel limit is refused from its header; damage is a one-line error")
    func refusals() {
        do {
            _ = try renderDocument(path: TestAssets.path("corrupt/huge-screen.gif"))
            Issue.record("huge-screen.gif rendered")
        } catch {
            #expect(error.description.contains("20000x20000 exceeds the 100-megapixel limit"), "\(error)")
        }
        do {
            _ = try renderDocument(path: TestAssets.path("corrupt/truncated.gif"))
            Issue.record("truncated.gif rendered")
        } catch {
            #expect(error == .truncated(format: "GIF"), "\(error)")
        }
    }
}
