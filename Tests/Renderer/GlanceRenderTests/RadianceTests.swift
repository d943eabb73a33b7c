import GlanceCore
import Testing

@testable import GlanceRender

/// Radiance HDR pictures through Glance's own decoder: each against the pixels it was written from.
@Suite("Radiance HDR", .timeLimit(.minutes(10)))
struct RadianceTests {
    @Test(
        "linear RGBE draws the sRGB picture it holds: flat rows stored bottom up, ImageMagick's run-length rows with its GAMMA",
        arguments: ["flat-bottom-up.hdr", "rgb8.hdr"])
    func pixels(_ name: String) throws {
        let (type, rendered) = try renderDocument(path: TestAssets.path("hdr/\(name)"))
        #expect(type == .radianceHDR)
        #expect(rendered.image.width == 200 && rendered.image.height == 150 && !rendered.image.hasAlpha)
        let reference = try decodeFullSize(TestAssets.path("png/rgb8.png"))
        let mean = PixelStatistics.meanAbsoluteDifference(rendered.image, reference)
        let worst = PixelStatistics.worstDifference(rendered.image, reference).worst
        // RGBE keeps 8 bits of the brightest component: the others of a saturated pixel lose a few
        // codes (measured: mean 0.38, worst 13); ImageMagick's GAMMA=0.454545 is not sRGB's curve
        // (mean 1.84, worst 8). Read without its GAMMA, that file is 40 codes off on average.
        #expect(mean < 2.5 && worst <= 16, "mean \(mean), worst \(worst)")
    }

    @Test("run-length rows: runs and literals of each component land where they belong")
    func runs() throws {
        let image = try renderDocument(path: TestAssets.path("hdr/rle-bands.hdr")).thumbnail.image
        let reference = try decodeFullSize(TestAssets.path("png/rgb8.png"))
        // Every 50 rows' first 10 are linear (0.5, 0.25, 0.125): sRGB (188, 137, 99).
        for y in [0, 9, 50, 59, 100, 109] {
            for x in [0, 99, 199] {
                let p = image.pixel(x: x, y: y)
                let off: Int = max(abs(Int(p.r) - 188), abs(Int(p.g) - 137), abs(Int(p.b) - 99))
                #expect(off <= 1, "\(x),\(y): \(p)")
            }
        }
        for y in [10, 30, 49, 60, 149] {
            for x in stride(from: 0, to: 200, by: 13) {
                let p = image.pixel(x: x, y: y)
                let q = reference.pixel(x: x, y: y)
                let distance: Int = abs(Int(p.r) - Int(q.r)) + abs(Int(p.g) - Int(q.g)) + abs(Int(p.b) - Int(q.b))
                #expect(distance <= 24, "\(x),\(y): \(p) against \(q)")
            }
        }
    }

    @Test("PRIMARIES= brings the picture to sRGB's: Display P3's match the P3-tagged TIFF of the same codes")
    func primaries() throws {
        let hdr = try renderDocument(path: TestAssets.path("hdr/p3-primaries.hdr")).thumbnail.image
        let tiff = try renderDocument(path: TestAssets.path("tiff/rgb8-p3.tiff")).thumbnail.image
        #expect(PixelStatistics.meanAbsoluteDifference(hdr, tiff) < 1.5)
        // Read as sRGB's primaries, it would be the untagged picture.
        #expect(PixelStatistics.meanAbsoluteDifference(hdr, try decodeFullSize(TestAssets.path("png/rgb8.png"))) > 2)
    }

    @Test("#?RGBE and old-style repeats: four rows of linear 0.2 gray")
    func oldRepeats() throws {
        let image = try renderDocument(path: TestAssets.path("hdr/old-repeats.rgbe")).thumbnail.image
        #expect(image.width == 200 && image.height == 4)
        for (x, y) in [(0, 0), (1, 0), (199, 0), (100, 3), (199, 3)] {
            let p = image.pixel(x: x, y: y)
            // Linear 0.2 is sRGB 124.
            #expect(abs(Int(p.r) - 124) <= 1 && p.r == p.g && p.g == p.b, "\(x),\(y): \(p)")
        }
    }

    @Test("refused in one line: cut, XYZE, past the pixel limit, a run past its row")
    func refusals() {
        for (name, expected) in [
            ("truncated.hdr", "truncated"), ("xyze.hdr", "32-bit_rle_xyze"),
            ("huge.hdr", "exceeds the 100-megapixel limit"), ("overrun.hdr", "a run overruns its row"),
        ] {
            do {
                _ = try renderDocument(path: TestAssets.path("hdr/\(name)"))
                Issue.record("\(name) rendered")
            } catch {
                #expect(error.description.contains(expected) && !error.description.contains("\n"), "\(error)")
            }
        }
    }
}
