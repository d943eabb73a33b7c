import GlanceCore
import Testing

@testable import GlanceRender

/// OpenEXR pictures through OpenEXRCore: each against the pixels it was written from.
@Suite("OpenEXR", .timeLimit(.minutes(10)))
struct OpenEXRTests {
    @Test(
        "linear light draws the sRGB picture it holds: run-length and PIZ halves, tiles, a multi-layer render's beauty pass",
        arguments: ["rgb8-rle.exr", "rgb8-piz.exr", "tiled.exr", "layers.exr"])
    func pixels(_ name: String) throws {
        let (type, rendered) = try renderDocument(path: TestAssets.path("exr/\(name)"))
        #expect(type == .openEXR)
        #expect(rendered.image.width == 200 && rendered.image.height == 150 && !rendered.image.hasAlpha)
        let (worst, compared) = PixelStatistics.worstDifference(
            rendered.image, try decodeFullSize(TestAssets.path("png/rgb8.png")))
        #expect(compared == 200 * 150 && worst <= 1, "worst \(worst)")
        if name == "layers.exr" {
            #expect(rendered.warnings.contains { $0.contains("layer \"View.Combined\"") }, "\(rendered.warnings)")
        }
    }

    @Test("alpha is premultiplied in OpenEXR and drawn straight; a Y channel alone is gray")
    func alphaAndGray() throws {
        let image = try renderDocument(path: TestAssets.path("exr/rgba-premultiplied.exr")).thumbnail.image
        #expect(
            image.hasAlpha && image.channels == 4 && image.width == 200 && image.height == 150,
            "\(image.channels) \(image.width)x\(image.height)")
        let reference = try decodeFullSize(TestAssets.path("png/rgba8.png"))
        let (worst, compared) = PixelStatistics.worstDifference(image, reference)
        #expect(compared > 1000 && worst <= 3, "\(compared) pixels compared, worst \(worst)")
        var alphaWorst = 0
        for y in stride(from: 0, to: 150, by: 5) {
            for x in stride(from: 0, to: 200, by: 5) {
                alphaWorst = max(alphaWorst, abs(Int(image.pixel(x: x, y: y).a) - Int(reference.pixel(x: x, y: y).a)))
            }
        }
        #expect(alphaWorst <= 1)
        let gray = try renderDocument(path: TestAssets.path("exr/gray.exr")).thumbnail.image
        let (grayWorst, _) = PixelStatistics.worstDifference(
            gray, try decodeFullSize(TestAssets.path("png/rgb8.png")), gray: true)
        #expect(grayWorst <= 1, "worst \(grayWorst)")
    }

    @Test("the chromaticities attribute brings the picture to sRGB's primaries: P3's match the P3-tagged TIFF")
    func chromaticities() throws {
        let exr = try renderDocument(path: TestAssets.path("exr/p3.exr")).thumbnail.image
        let tiff = try renderDocument(path: TestAssets.path("tiff/rgb8-p3.tiff")).thumbnail.image
        #expect(PixelStatistics.meanAbsoluteDifference(exr, tiff) < 1)
        #expect(PixelStatistics.meanAbsoluteDifference(exr, try decodeFullSize(TestAssets.path("png/rgb8.png"))) > 2)
    }

    @Test("refused in one line: cut, past the pixel limit")
    func refusals() {
        for (name, expected) in [
            ("truncated.exr", "truncated OpenEXR"), ("huge.exr", "exceeds the 100-megapixel limit"),
        ] {
            do {
                _ = try renderDocument(path: TestAssets.path("exr/\(name)"))
                Issue.record("\(name) rendered")
            } catch {
                #expect(error.description.contains(expected) && !error.description.contains("\n"), "\(error)")
            }
        }
    }
}
