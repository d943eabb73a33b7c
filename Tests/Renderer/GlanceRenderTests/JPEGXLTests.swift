import GlanceCore
import Testing

@testable import GlanceRender

/// JPEG XL through libjxl: each file made by cjxl from another asset, drawn like that asset.
@Suite("JPEG XL", .timeLimit(.minutes(10)))
struct JPEGXLTests {
    @Test("a lossless picture with alpha keeps its pixels exactly")
    func lossless() throws {
        let (type, rendered) = try renderDocument(path: TestAssets.path("jxl/rgba.jxl"))
        #expect(type == .jpegXL)
        let reference = try decodeFullSize(TestAssets.path("png/rgba8.png"))
        #expect(rendered.image.hasAlpha)
        #expect(rendered.image == reference, "not png/rgba8.png's pixels")
    }

    @Test(
        "lossy, a recompressed JPEG turned by its codestream, a Display P3 profile, an animation's first frame: each like its source",
        arguments: [
            ("jxl/photo.jxl", "png/rgb8.png", 30.0), ("jxl/orient-6.jxl", "orientation/orient-6.jpg", 35),
            ("jxl/display-p3.jxl", "colour/display-p3.png", 40), ("jxl/animation.jxl", "gif/animated.gif", 45),
        ])
    func likeItsSource(_ path: String, source: String, minimumPSNR: Double) throws {
        let image = try renderDocument(path: TestAssets.path(path)).thumbnail.image
        let reference = try renderDocument(path: TestAssets.path(source)).thumbnail.image
        #expect(image.width == reference.width && image.height == reference.height, "\(path)")
        guard image.width == reference.width, image.height == reference.height else { return }
        let psnr = PixelStatistics.psnr(image, reference)
        #expect(psnr > minimumPSNR, "\(path): \(psnr) dB against \(source)")
    }

    @Test(
        "a lossy picture's thumbnail is a JPEG, a recompressed JPEG's too (its pixels are not XYB), a lossless one's a PNG",
        arguments: [("jxl/photo.jxl", true), ("jxl/orient-6.jxl", true), ("jxl/rgba.jxl", false)])
    func lossySource(_ path: String, lossy: Bool) throws {
        let rendered = try renderDocument(path: TestAssets.path(path)).thumbnail
        #expect(rendered.lossySource == lossy, "\(path)")
    }

    @Test("a gray picture is drawn gray")
    func gray() throws {
        let image = try renderDocument(path: TestAssets.path("jxl/gray.jxl")).thumbnail.image
        #expect(image.width == 200 && image.height == 150)
        let mean = PixelStatistics.meanColour(image)
        #expect(abs(mean.r - mean.g) < 1 && abs(mean.g - mean.b) < 1 && mean.g > 40, "\(mean)")
    }

    @Test(
        "HDR (PQ, HLG) is tone-mapped to SDR: it looks like the SDR picture it was made from",
        arguments: ["jxl/pq.jxl", "jxl/hlg.jxl"])
    func toneMapping(_ path: String) throws {
        let image = try renderDocument(path: TestAssets.path(path)).thumbnail.image
        let reference = try renderDocument(path: TestAssets.path("media/hdr-reference.png")).thumbnail.image
        #expect(image.width == reference.width && image.height == reference.height)
        // As for HDR videos: BT.2390's curve dims SDR white to 0.81 of it, so close, not equal.
        let (mean, expected) = (PixelStatistics.meanColour(image), PixelStatistics.meanColour(reference))
        for (got, want) in [(mean.r, expected.r), (mean.g, expected.g), (mean.b, expected.b)] {
            #expect(abs(got - want) < 8, "\(path): mean \(mean) against \(expected)")
        }
        let psnr = PixelStatistics.psnr(image, reference)
        #expect(psnr > 28, "\(path): \(psnr) dB")
    }

    @Test("a file cut short says so")
    func truncated() {
        #expect(throws: ThumbnailError.truncated(format: "JPEG XL")) {
            try renderDocument(path: TestAssets.path("jxl/cut.jxl"))
        }
    }

    @Test("a codestream and a container are JPEG XL by their bytes, whatever their names")
    func sniffing() throws {
        let bare = Array(try TestAssets.readBytes(TestAssets.path("jxl/photo.jxl")).prefix(64))
        let boxed = Array(try TestAssets.readBytes(TestAssets.path("jxl/orient-6.jxl")).prefix(64))
        for (bytes, name) in [(bare, "photo.png"), (boxed, "scan.dat")] {
            #expect(ContentSniffer.sniff(prefix: bytes, isWholeFile: false, fileName: name) == .supported(.jpegXL))
        }
        #expect(
            ContentSniffer.sniff(prefix: Array("a note\n".utf8), isWholeFile: true, fileName: "note.jxl")
                != .supported(.jpegXL))
    }
}
