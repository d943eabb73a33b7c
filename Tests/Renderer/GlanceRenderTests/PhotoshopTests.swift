import GlanceCore
import Testing

@testable import GlanceRender

/// Photoshop documents' composites, in every colour mode and depth, against the pictures they
/// were made from.
@Suite("Photoshop", .timeLimit(.minutes(10)))
struct PhotoshopTests {
    @Test(
        "RGB (PackBits, raw, 16-bit) and RGB with transparency (PSD and PSB) keep their pixels",
        arguments: [
            ("psd/rgb.psd", "png/rgb8.png"), ("psd/raw.psd", "png/rgb8.png"), ("psd/rgb16.psd", "png/rgb8.png"),
            ("psd/rgba.psd", "png/rgba8.png"), ("psd/rgba.psb", "png/rgba8.png"),
        ])
    func exact(_ path: String, source: String) throws {
        let (type, rendered) = try renderDocument(path: TestAssets.path(path))
        #expect(type == .photoshop)
        let reference = try decodeFullSize(TestAssets.path(source))
        #expect(rendered.image.hasAlpha == reference.hasAlpha, "\(path)")
        #expect(rendered.image == reference, "\(path): not \(source)'s pixels")
    }

    @Test(
        "Lab, 32-bit linear light and CMYK without a profile come out as the RGB they were made from",
        arguments: [("psd/lab.psd", 40.0), ("psd/float32.psd", 40), ("psd/cmyk.psd", 45)])
    func converted(_ path: String, minimumPSNR: Double) throws {
        let image = try renderDocument(path: TestAssets.path(path)).thumbnail.image
        let reference = try decodeFullSize(TestAssets.path("png/rgb8.png"))
        try #require(image.width == reference.width && image.height == reference.height)
        let psnr = PixelStatistics.psnr(image, reference)
        #expect(psnr > minimumPSNR, "\(path): \(psnr) dB")
    }

    @Test("a CMYK file's own profile converts it")
    func cmykProfile() throws {
        let rendered = try renderDocument(path: TestAssets.path("psd/cmyk-profiled.psd")).thumbnail
        #expect(rendered.colour != nil)
        // Through SWOP's gamut and back: what ImageMagick's conversion also gives (about 24 dB).
        let reference = try decodeFullSize(TestAssets.path("png/rgb8.png"))
        let psnr = PixelStatistics.psnr(rendered.image, reference)
        #expect(psnr > 21, "\(psnr) dB")
    }

    @Test("gray, 1-bit bitmap and indexed files keep their kind of colour")
    func fewColours() throws {
        let gray = try renderDocument(path: TestAssets.path("psd/gray.psd")).thumbnail.image
        let mean = PixelStatistics.meanColour(gray)
        #expect(abs(mean.r - mean.g) < 0.5 && abs(mean.g - mean.b) < 0.5 && mean.g > 40, "\(mean)")
        let bitmap = try decodeFullSize(TestAssets.path("psd/bitmap.psd"))
        #expect(Set(bitmap.bytes).isSubset(of: [0, 255]) && Set(bitmap.bytes).count == 2)
        let indexed = try decodeFullSize(TestAssets.path("psd/indexed.psd"))
        var colours = Set<Int>()
        for at in stride(from: 0, to: indexed.bytes.count, by: indexed.channels) {
            colours.insert(Int(indexed.bytes[at]) << 16 | Int(indexed.bytes[at + 1]) << 8 | Int(indexed.bytes[at + 2]))
        }
        #expect(colours.count > 4 && colours.count <= 16, "\(colours.count) colours")
    }

    @Test("a file saved without a composite is drawn from its thumbnail, and says so; without either it fails")
    func withoutComposite() throws {
        let rendered = try renderDocument(path: TestAssets.path("psd/no-composite.psd")).thumbnail
        #expect(rendered.image.width == 160 && rendered.image.height == 120)
        #expect(rendered.warnings.contains { $0.contains("160x120 thumbnail") }, "\(rendered.warnings)")
        #expect(PixelStatistics.meanColour(rendered.image).g < 230, "the blank composite was drawn")
        #expect(throws: ThumbnailError.self) {
            try renderDocument(path: TestAssets.path("psd/no-composite-no-thumbnail.psd"))
        }
    }

    @Test("a file cut short, and one whose header claims too many pixels, fail in one line before reading rows")
    func hostile() {
        #expect(throws: ThumbnailError.truncated(format: "Photoshop")) {
            try renderDocument(path: TestAssets.path("psd/cut.psd"))
        }
        #expect(
            throws: ThumbnailError.tooLarge(width: 30000, height: 30000, limitPixels: RenderRequest.defaultMaxPixels)
        ) {
            try renderDocument(path: TestAssets.path("psd/huge.psd"))
        }
    }

    @Test("PackBits rows unpack exactly, and a row that makes too few or too many bytes is refused")
    func packBits() {
        var out = [UInt8](repeating: 0, count: 6)
        // A literal run of two, then a repeat of four.
        #expect(PhotoshopRows.unpack([1, 7, 8, 0xFD, 9], into: &out, at: 0, count: 6))
        #expect(out == [7, 8, 9, 9, 9, 9])
        #expect(!PhotoshopRows.unpack([1, 7, 8], into: &out, at: 0, count: 6))
        #expect(!PhotoshopRows.unpack([0xF9, 1], into: &out, at: 0, count: 6))
    }
}
