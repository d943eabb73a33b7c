import CHEIF
import GlanceCore
import Testing

@testable import GlanceRender

/// HEIC and AVIF documents through libheif: each against the file it was made from.
@Suite("HEIC and AVIF", .timeLimit(.minutes(10)))
struct HEIFTests {
    @Test("a HEIC and an AVIF photo are the photo they were made from", arguments: ["photo.heic", "photo.avif"])
    func photo(_ name: String) throws {
        let (type, rendered) = try renderDocument(path: TestAssets.path("heif/\(name)"))
        #expect(type == (name.hasSuffix("avif") ? .avif : .heic))
        #expect(rendered.image.width == 1024 && rendered.image.height == 768 && !rendered.image.hasAlpha)
        #expect(rendered.sourceWidth == 1600 && rendered.sourceHeight == 1200)
        let reference = try renderDocument(path: TestAssets.path("jpeg/photo-baseline.jpg")).thumbnail.image
        let psnr = PixelStatistics.psnr(rendered.image, reference)
        #expect(psnr > 28, "\(psnr) dB")
        // A photo's thumbnail: JPEG.
        #expect(ImageFormat.automatic(for: type, image: rendered.image, lossySource: rendered.lossySource) == .jpeg)
    }

    @Test("an nclx box of a transfer no standard has is left aside: the picture is drawn as sRGB")
    func unknownTransfer() throws {
        let odd = try renderDocument(path: TestAssets.path("heif/unknown-transfer.avif")).thumbnail.image
        let plain = try renderDocument(path: TestAssets.path("heif/photo.avif")).thumbnail.image
        #expect(odd.width == 1024 && odd.height == 768)
        let psnr = PixelStatistics.psnr(odd, plain)
        #expect(psnr > 40, "\(psnr) dB against photo.avif")
    }

    @Test("the file's own thumbnail serves when it is at least the size asked for")
    func ownThumbnail() throws {
        let path = TestAssets.path("heif/photo-with-thumbnail.heic")
        let large = try renderDocument(path: path).thumbnail
        #expect(large.image.width == 1024 && large.image.height == 768)
        #expect(large.warnings.contains { $0.contains("own 1024x768 thumbnail") }, "\(large.warnings)")
        let primary = try renderDocument(path: TestAssets.path("heif/photo.heic")).thumbnail.image
        #expect(PixelStatistics.psnr(large.image, primary) > 30)
        // Larger than the file's thumbnail: the primary image.
        let full = try renderDocument(path: path, maxSide: 1600).thumbnail
        #expect(full.image.width == 1600 && !full.warnings.contains { $0.contains("thumbnail") })
    }

    @Test("a thumbnail a pixel short of the rounding still serves; a smaller or other-shaped one does not")
    func thumbnailChoice() {
        func serves(_ thumbnail: (Int32, Int32), primary: (Int, Int) = (4000, 2667)) -> Bool {
            let info = glance_heif_info(
                width: Int32(primary.0), height: Int32(primary.1), has_alpha: 0, thumbnail_width: thumbnail.0,
                thumbnail_height: thumbnail.1)
            let target = ThumbnailGeometry.fit(width: primary.0, height: primary.1, maxSide: 1024)
            return HEIFDecoder.thumbnailServes(info, target: target, width: primary.0, height: primary.1)
        }
        #expect(serves((1024, 682)))  // 2667 x 1024 / 4000 = 682.75: heif-enc rounds down
        #expect(serves((1024, 683)))
        #expect(serves((2048, 1365)))
        #expect(!serves((512, 341)))
        #expect(!serves((1024, 1024)))
        #expect(!serves((0, 0)))
        #expect(!serves((1023, 682)))
    }

    @Test("irot turns the image: stored top-left lands bottom-left")
    func rotation() throws {
        let rendered = try renderDocument(path: TestAssets.path("heif/rotated.heic")).thumbnail
        let image = rendered.image
        #expect(image.width == 200 && image.height == 300)
        let bottomLeft = image.pixel(x: 20, y: 280)
        let topRight = image.pixel(x: 180, y: 20)
        #expect(bottomLeft.r > 180 && bottomLeft.g < 80, "red bottom-left: \(bottomLeft)")
        #expect(topRight.r > 200 && topRight.g > 200, "white top-right: \(topRight)")
    }

    @Test("alpha is kept", arguments: ["alpha.heic", "alpha.avif"])
    func alpha(_ name: String) throws {
        let image = try renderDocument(path: TestAssets.path("heif/\(name)")).thumbnail.image
        let reference = try decodeFullSize(TestAssets.path("png/rgba8.png"))
        #expect(image.hasAlpha && image.width == 200 && image.height == 150)
        var worst = 0
        for y in stride(from: 0, to: 150, by: 5) {
            for x in stride(from: 0, to: 200, by: 5) {
                worst = max(worst, abs(Int(image.pixel(x: x, y: y).a) - Int(reference.pixel(x: x, y: y).a)))
            }
        }
        #expect(worst <= 24, "alpha differs by up to \(worst)")
    }

    @Test("a Display P3 HEIC is brought into sRGB: it matches the tagged PNG")
    func colourProfile() throws {
        let rendered = try renderDocument(path: TestAssets.path("colour/display-p3.heic")).thumbnail
        let png = try renderDocument(path: TestAssets.path("colour/display-p3.png")).thumbnail
        #expect(rendered.colour != nil && rendered.colour?.profile == png.colour?.profile)
        #expect(PixelStatistics.meanAbsoluteDifference(rendered.image, png.image) < 3)
    }

    @Test("an AVIF whose nclx box says Display P3 (no ICC profile) is brought into sRGB")
    func nclxFile() throws {
        let rendered = try renderDocument(path: TestAssets.path("colour/display-p3-nclx.avif")).thumbnail
        let png = try renderDocument(path: TestAssets.path("colour/display-p3.png")).thumbnail
        #expect(rendered.colour?.profile == "Display P3 (nclx)")
        // Left as they are, its numbers are about 9 off the sRGB ones.
        let difference = PixelStatistics.meanAbsoluteDifference(rendered.image, png.image)
        #expect(difference < 2, "\(difference)")
    }

    @Test("an nclx description of Display P3 is a profile made from its primaries")
    func nclxPrimaries() throws {
        // Display P3's chromaticities (white D65, red, green, blue), as an nclx box carries them.
        let p3 = [0.3127, 0.3290, 0.680, 0.320, 0.265, 0.690, 0.150, 0.060]
        let profile = try ColourProfile.fromPrimaries(p3, name: "Display P3 (nclx)")
        #expect(profile.space == .rgb && !profile.isSRGB && profile.isUsableClass)
        var warnings: [String] = []
        var image = PixelBuffer(width: 1, height: 1, channels: 3, bytes: [0, 255, 0])
        let conversion = SRGBConversion(transforms: ColourTransformCache())
            .convert(&image, from: profile, sourceIsGray: false, warnings: &warnings)
        // P3's green is outside sRGB: clipped to sRGB's most saturated green, red and blue at 0.
        #expect(conversion?.profile == "Display P3 (nclx)" && warnings.isEmpty)
        #expect(image.bytes[0] == 0 && image.bytes[1] == 255 && image.bytes[2] <= 30, "\(image.bytes)")
        let srgbPrimaries = try ColourProfile.fromPrimaries(
            [0.3127, 0.3290, 0.64, 0.33, 0.30, 0.60, 0.15, 0.06], name: "BT.709 (nclx)")
        var grey = PixelBuffer(width: 1, height: 1, channels: 3, bytes: [128, 64, 200])
        _ = SRGBConversion(transforms: ColourTransformCache())
            .convert(&grey, from: srgbPrimaries, sourceIsGray: false, warnings: &warnings)
        #expect(zip(grey.bytes, [128, 64, 200]).allSatisfy { abs(Int($0) - Int($1)) <= 1 }, "\(grey.bytes)")
    }

    @Test("a size past the pixel limit is refused from its header; damage is a one-line error")
    func refusals() {
        for (name, expected) in [
            ("huge.heic", "20000x20000 exceeds the 100-megapixel limit"), ("truncated.heic", "truncated HEIC data"),
            ("truncated.avif", "truncated AVIF data"), ("damaged.heic", "HEIC"),
        ] {
            do {
                _ = try renderDocument(path: TestAssets.path("corrupt/\(name)"))
                Issue.record("\(name) rendered")
            } catch {
                #expect(error.description.contains(expected) && !error.description.contains("\n"), "\(error)")
            }
        }
    }
}

/// Sniffing an ISO base media file by its `ftyp` brands.
@Suite("HEIF brands", .timeLimit(.minutes(10)))
struct HEIFBrandTests {
    /// An `ftyp` box of `major` and `compatible` brands, then a few bytes.
    static func ftyp(_ major: String, _ compatible: [String]) -> [UInt8] {
        let size = 16 + 4 * compatible.count
        return [0, 0, 0, UInt8(size)] + Array("ftyp".utf8) + Array(major.utf8) + [0, 0, 0, 0]
            + compatible.flatMap { Array($0.utf8) } + Array(repeating: 0, count: 16)
    }

    @Test("HEIC, AVIF and neither, by major and compatible brands")
    func brands() {
        func sniff(_ bytes: [UInt8]) -> SniffResult {
            ContentSniffer.sniff(prefix: bytes, isWholeFile: true, fileName: "photo")
        }
        #expect(sniff(Self.ftyp("heic", ["mif1", "heic"])) == .supported(.heic))
        #expect(sniff(Self.ftyp("mif1", ["mif1", "heic"])) == .supported(.heic))
        #expect(sniff(Self.ftyp("avif", ["mif1", "avif"])) == .supported(.avif))
        #expect(sniff(Self.ftyp("mif1", ["mif1", "miaf", "avif"])) == .supported(.avif))
        // An MP4 video is an ISO base media file too, but not an image.
        #expect(sniff(Self.ftyp("isom", ["isom", "mp41"])) != .supported(.heic))
        #expect(sniff(Self.ftyp("isom", ["isom", "mp41"])) != .supported(.avif))
    }
}
