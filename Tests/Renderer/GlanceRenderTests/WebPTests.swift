import GlanceCore
import Testing

@testable import GlanceRender

/// WebP documents through libwebp: each against the file it was made from.
@Suite("WebP", .timeLimit(.minutes(10)))
struct WebPTests {
    @Test("a lossy WebP, scaled while decoded, is the photo it was made from")
    func lossyPhoto() throws {
        let (type, rendered) = try renderDocument(path: TestAssets.path("webp/photo-lossy.webp"))
        #expect(type == .webp)
        let reference = try renderDocument(path: TestAssets.path("jpeg/photo-baseline.jpg")).thumbnail.image
        let image = rendered.image
        #expect(image.width == 1024 && image.height == 768 && !image.hasAlpha)
        #expect(rendered.sourceWidth == 1600 && rendered.sourceHeight == 1200)
        #expect(PixelStatistics.psnr(image, reference) > 30, "\(PixelStatistics.psnr(image, reference)) dB")
        // A photo's thumbnail: JPEG, as a JPEG source's is.
        #expect(rendered.lossySource)
        #expect(ImageFormat.automatic(for: .webp, image: image, lossySource: rendered.lossySource) == .jpeg)
    }

    @Test("a lossless WebP keeps its alpha and its pixels")
    func losslessAlpha() throws {
        let image = try renderDocument(path: TestAssets.path("webp/lossless-alpha.webp")).thumbnail.image
        let reference = try decodeFullSize(TestAssets.path("png/rgba8.png"))
        #expect(image.hasAlpha && image.width == reference.width && image.height == reference.height)
        let rendered = try renderDocument(path: TestAssets.path("webp/lossless-alpha.webp")).thumbnail
        #expect(!rendered.lossySource)
        #expect(ImageFormat.automatic(for: .webp, image: image, lossySource: rendered.lossySource) == .png)
        let differing = zip(image.bytes, reference.bytes).filter { $0 != $1 }.count
        #expect(
            image.bytes.count == reference.bytes.count && differing == 0,
            "lossless at its own size: \(differing) bytes differ")
    }

    @Test("the EXIF orientation turns the thumbnail upright, as a JPEG's does")
    func orientation() throws {
        let rendered = try renderDocument(path: TestAssets.path("webp/orient-6.webp")).thumbnail
        #expect(rendered.image.width == 600 && rendered.image.height == 400)
        #expect(rendered.sourceWidth == 600 && rendered.sourceHeight == 400)
        let upright = try renderDocument(path: TestAssets.path("orientation/upright.png")).thumbnail.image
        let psnr = PixelStatistics.psnr(rendered.image, upright)
        #expect(psnr > 25, "\(psnr) dB against the upright picture")
    }

    @Test("an animation's thumbnail is its first frame")
    func animationFirstFrame() throws {
        let rendered = try renderDocument(path: TestAssets.path("webp/animated.webp")).thumbnail
        let colour = PixelStatistics.meanColour(rendered.image)
        #expect(rendered.image.width == 320 && rendered.image.height == 240)
        #expect(colour.r > 200 && colour.g < 50 && colour.b < 50, "red, the first frame: \(colour)")
        #expect(rendered.warnings.contains { $0.contains("first frame") })
    }

    @Test("an ICC profile brings it into sRGB: the tagged WebP matches the tagged PNG")
    func colourProfile() throws {
        let rendered = try renderDocument(path: TestAssets.path("colour/display-p3.webp")).thumbnail
        let png = try renderDocument(path: TestAssets.path("colour/display-p3.png")).thumbnail
        #expect(rendered.colour?.profile == png.colour?.profile && rendered.colour != nil)
        #expect(PixelStatistics.meanAbsoluteDifference(rendered.image, png.image) < 3)
    }

    @Test("a canvas past the pixel limit is refused from its header; damage is a one-line error")
    func refusals() {
        #expect(throws: ThumbnailError.self) { try renderDocument(path: TestAssets.path("corrupt/huge-canvas.webp")) }
        do {
            _ = try renderDocument(path: TestAssets.path("corrupt/huge-canvas.webp"))
        } catch {
            #expect(error.description.contains("16000x16000 exceeds the 100-megapixel limit"), "\(error)")
        }
        for name in ["truncated", "damaged"] {
            do {
                _ = try renderDocument(path: TestAssets.path("corrupt/\(name).webp"))
                Issue.record("\(name).webp rendered")
            } catch {
                #expect(error.description.contains("WebP") && !error.description.contains("\n"), "\(error)")
            }
        }
    }
}
