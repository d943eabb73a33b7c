import GlanceCore
import Testing

@testable import GlanceRender

/// JPEG 2000 through OpenJPEG: JP2 files and bare codestreams, decoded no finer than the
/// thumbnail needs, and macOS icons whose pictures are JPEG 2000.
@Suite("JPEG 2000", .timeLimit(.minutes(10)))
struct JPEG2000Tests {
    @Test("a lossless JP2 with alpha keeps its pixels; a gray codestream is gray")
    func pixels() throws {
        let (type, rgba) = try renderDocument(path: TestAssets.path("jpeg2000/rgba.jp2"))
        #expect(type == .jpeg2000)
        let reference = try decodeFullSize(TestAssets.path("png/rgba8.png"))
        #expect(rgba.image.hasAlpha)
        #expect(rgba.image == reference, "not png/rgba8.png's pixels")
        let (codestream, gray) = try renderDocument(path: TestAssets.path("jpeg2000/gray.j2k"))
        #expect(codestream == .jpeg2000Codestream)
        let mean = PixelStatistics.meanColour(gray.image)
        #expect(abs(mean.r - mean.g) < 0.5 && abs(mean.g - mean.b) < 0.5 && mean.g > 40, "\(mean)")
    }

    @Test("a large picture is decoded at the coarsest level that still covers the thumbnail")
    func reduced() throws {
        let file = try OpenFile.regularFile(atPath: TestAssets.path("jpeg2000/large.jp2"))
        let decoder = try JPEG2000Decoder(
            RenderRequest(file: file, name: "large.jp2"), type: .jpeg2000, colourTransforms: ColourTransformCache())
        // 3200x2400: once halved, 1600x1200 still covers 1024x768; twice, 800x600 would not.
        let plan = decoder.plan(for: PixelSize(width: 1024, height: 768))
        #expect(plan.shrink == 2 && plan.size == PixelSize(width: 1600, height: 1200))
        let rendered = try renderDocument(path: TestAssets.path("jpeg2000/large.jp2")).thumbnail.image
        let reference = try renderDocument(path: TestAssets.path("png/rgb8.png"), maxSide: 1024).thumbnail.image
        #expect(rendered.width == 1024 && rendered.height == 768)
        let mean = (PixelStatistics.meanColour(rendered), PixelStatistics.meanColour(reference))
        #expect(abs(mean.0.r - mean.1.r) < 6 && abs(mean.0.b - mean.1.b) < 6, "\(mean)")
    }

    @Test("a JP2's ICC profile converts it, as the PNG it was made from is converted")
    func profile() throws {
        let jp2 = try renderDocument(path: TestAssets.path("jpeg2000/display-p3.jp2")).thumbnail
        let png = try renderDocument(path: TestAssets.path("colour/display-p3.png")).thumbnail
        #expect(jp2.colour != nil)
        let psnr = PixelStatistics.psnr(jp2.image, png.image)
        #expect(psnr > 35, "\(psnr) dB")
    }

    @Test("a macOS icon of JPEG 2000 pictures alone draws its largest; the start of one alone fails in one line")
    func icons() throws {
        let icon = try renderDocument(path: TestAssets.path("icns/jpeg2000-only.icns")).thumbnail.image
        #expect(icon.width == 512 && icon.height == 512 && icon.hasAlpha)
        #expect(throws: ThumbnailError.self) { try renderDocument(path: TestAssets.path("icns/jpeg2000-broken.icns")) }
    }
}
