import CScaler
import Foundation
import GlanceCore
import Testing

@testable import GlanceRender

/// The resampler through the PNG and JPEG renderers: sizes, colour drift, alpha edges.
@Suite("Resampler", .timeLimit(.minutes(10)))
struct ResamplerTests {
    @Test("exact output sizes over a sweep of PNG source sizes")
    func exactSizesPNG() throws {
        let scratch = ScratchFolder()
        for (width, height) in [
            (1, 1), (2, 3), (1025, 7), (7, 1025), (2047, 1536), (2048, 2048), (3001, 1999), (1024, 1), (4100, 300),
        ] {
            let image = syntheticImage(width: width, height: height)
            let path = try scratch.write(try ImageEncoder.encode(image, as: .png), to: "\(width)x\(height).png")
            let thumbnail = try renderDocument(path: path).thumbnail.image
            let expected = ThumbnailGeometry.fit(width: width, height: height)
            #expect(thumbnail.width == expected.width && thumbnail.height == expected.height, "\(width)x\(height)")
        }
    }

    @Test("exact output sizes over a sweep of JPEG source sizes (DCT scaling at work)")
    func exactSizesJPEG() throws {
        let scratch = ScratchFolder()
        for (width, height) in [(9, 9), (1023, 1025), (2049, 1000), (4001, 3001), (8200, 64), (1500, 8200)] {
            let image = syntheticImage(width: width, height: height)
            let path = try scratch.write(try ImageEncoder.encode(image, as: .jpeg), to: "\(width)x\(height).jpg")
            let thumbnail = try renderDocument(path: path).thumbnail.image
            let expected = ThumbnailGeometry.fit(width: width, height: height)
            #expect(thumbnail.width == expected.width && thumbnail.height == expected.height, "\(width)x\(height)")
        }
    }

    @Test(
        "the AVX2 passes agree with the portable ones within one level, RGB and RGBA",
        arguments: [(2000, 1500, false), (1201, 1603, false), (1600, 1200, true)])
    func avx2AgreesWithPortable(size: (Int, Int, Bool)) throws {
        let source = syntheticImage(width: size.0, height: size.1, alpha: size.2)
        let target = ThumbnailGeometry.fit(width: size.0, height: size.1)
        func scaled(avx2: Bool) throws -> (pixels: [UInt8], usedAVX2: Bool) {
            let scaler = try #require(
                glance_scaler_create(
                    Int32(source.width), Int32(source.height), Int32(source.channels), Int32(target.width),
                    Int32(target.height)))
            defer { glance_scaler_free(scaler) }
            let used = glance_scaler_use_avx2(scaler, avx2 ? 1 : 0) != 0
            var pixels = [UInt8](repeating: 0, count: target.width * target.height * source.channels)
            pixels.withUnsafeMutableBufferPointer { glance_scaler_set_target(scaler, $0.baseAddress) }
            source.bytes.withUnsafeBufferPointer {
                glance_scaler_push_rows(scaler, $0.baseAddress, source.rowBytes, Int32(source.height))
            }
            glance_scaler_finish(scaler)
            return (pixels, used)
        }
        let portable = try scaled(avx2: false)
        let fast = try scaled(avx2: true)
        #expect(!portable.usedAVX2)
        var differing = 0
        var largest = 0
        for (a, b) in zip(portable.pixels, fast.pixels) where a != b {
            differing += 1
            largest = max(largest, abs(Int(a) - Int(b)))
        }
        #expect(largest <= 1)
        // Fused multiply-adds round once where the portable passes round twice: a handful of
        // samples land on the other side of a half.
        #expect(differing * 1000 <= portable.pixels.count, "\(differing) of \(portable.pixels.count) differ")
        if !fast.usedAVX2 { #expect(differing == 0) }
    }

    @Test("the mean colour survives downscaling", arguments: [(3000, 2000), (1500, 4500), (1025, 1025)])
    func meanColourDrift(size: (Int, Int)) throws {
        let scratch = ScratchFolder()
        let source = syntheticImage(width: size.0, height: size.1)
        let path = try scratch.write(try ImageEncoder.encode(source, as: .png), to: "drift.png")
        let thumbnail = try renderDocument(path: path).thumbnail.image
        let before = PixelStatistics.meanColour(source)
        let after = PixelStatistics.meanColour(thumbnail)
        #expect(abs(before.r - after.r) < 1.5 && abs(before.g - after.g) < 1.5 && abs(before.b - after.b) < 1.5)
    }

    @Test(
        "close to an independent Lanczos-3 reference (ImageMagick), PNG and JPEG",
        arguments: [
            ("png/photo-like.png", "png/photo-like.reference.png"),
            ("jpeg/photo-baseline.jpg", "jpeg/photo-baseline.reference.png"),
        ])
    func matchesReference(source: String, reference: String) throws {
        let thumbnail = try renderDocument(path: TestAssets.path(source)).thumbnail.image
        let expected = try decodeFullSize(TestAssets.path(reference))
        let difference = PixelStatistics.meanAbsoluteDifference(thumbnail, expected)
        let psnr = PixelStatistics.psnr(thumbnail, expected)
        #expect(difference < 3.0, "mean difference \(difference)")
        #expect(psnr > 32, "PSNR \(psnr) dB")
    }

    @Test("alpha edges have no dark fringe")
    func noDarkFringe() throws {
        // An opaque red disc on transparent black: every pixel that is visible at all must stay
        // pure red; premultiplied filtering gives partial alpha, not darker red.
        let image = try renderDocument(path: TestAssets.path("png/alpha-edge.png")).thumbnail.image
        #expect(image.hasAlpha)
        var partial = 0
        var fringe = 0
        for y in 0..<image.height {
            for x in 0..<image.width {
                let p = image.pixel(x: x, y: y)
                guard p.a >= 8 else { continue }
                if p.a < 255 { partial += 1 }
                if p.r < 250 || p.g > 4 || p.b > 4 { fringe += 1 }
            }
        }
        #expect(fringe == 0, "\(fringe) visible pixels are not pure red")
        #expect(partial > 100, "the disc edge should be anti-aliased")
    }

    @Test("a tall streamed PNG gives the same thumbnail as its interlaced (whole-image) twin")
    func streamingMatchesWholeImage() throws {
        let plain = try renderDocument(path: TestAssets.path("png/rgb8.png")).thumbnail.image
        let interlaced = try renderDocument(path: TestAssets.path("png/interlaced-rgb8.png"))
            .thumbnail.image
        if plain.width == interlaced.width && plain.height == interlaced.height {
            #expect(PixelStatistics.meanAbsoluteDifference(plain, interlaced) < 0.01)
        }
        let tall = try renderDocument(path: TestAssets.path("png/tall-4000.png")).thumbnail.image
        #expect(tall.width == 102 && tall.height == 1024)
    }
}

/// Halving, which makes the store's smaller sizes where a size is exactly half the next.
@Suite("Halving", .timeLimit(.minutes(10)))
struct HalvingTests {
    @Test("each pixel the mean of its 2x2 block; an odd last row and column count twice")
    func meansOfBlocks() {
        // 3x3 RGB: the right column and the bottom row have no partner.
        let values: [UInt8] = [10, 20, 30, 40, 50, 60, 70, 80, 90]
        let bytes = values.flatMap { [$0, $0 &+ 1, 255 - $0] }
        let half = PixelBuffer(width: 3, height: 3, channels: 3, bytes: bytes).halved()
        #expect(half.width == 2 && half.height == 2)
        #expect(half.pixel(x: 0, y: 0).r == 30)  // (10 + 20 + 40 + 50) / 4
        #expect(half.pixel(x: 1, y: 0).r == 45)  // (30 + 60) / 2
        #expect(half.pixel(x: 0, y: 1).r == 75)  // (70 + 80) / 2
        #expect(half.pixel(x: 1, y: 1).r == 90)
        #expect(half.pixel(x: 0, y: 0).b == 225)  // (245 + 235 + 215 + 205) / 4
    }

    @Test(
        "a gray picture's halving is the rounded mean of each block at every width (the vector part and the rest)",
        arguments: [1, 2, 31, 32, 33, 64, 77, 100])
    func grayMeansAtEveryWidth(width: Int) {
        let height = 5
        var generator = SystemRandomNumberGenerator()
        let bytes = (0..<width * height).map { _ in UInt8.random(in: 0...255, using: &generator) }
        let half = PixelBuffer(width: width, height: height, channels: 1, bytes: bytes).halved()
        var expected: [UInt8] = []
        for y in stride(from: 0, to: height, by: 2) {
            for x in stride(from: 0, to: width, by: 2) {
                let (right, below) = (min(x + 1, width - 1), min(y + 1, height - 1))
                let block = [(x, y), (right, y), (x, below), (right, below)].map { Int(bytes[$0.1 * width + $0.0]) }
                expected.append(UInt8((block.reduce(0, +) + 2) / 4))
            }
        }
        // Compared as a Bool: a failure would print every byte of both.
        let same = half.bytes == expected
        #expect(same, "width \(width)")
    }

    @Test("a transparent pixel's colour does not bleed into its visible neighbours")
    func alphaWeighted() {
        // Opaque red beside transparent green: the mean is red at half alpha, never brown.
        let bytes: [UInt8] = [255, 0, 0, 255, 0, 255, 0, 0, 255, 0, 0, 255, 0, 255, 0, 0]
        let half = PixelBuffer(width: 2, height: 2, channels: 4, bytes: bytes).halved()
        let pixel = half.pixel(x: 0, y: 0)
        #expect(pixel.r == 255 && pixel.g == 0 && pixel.b == 0 && pixel.a == 128)
    }

    @Test(
        "a size exactly half the image is halved; the sizes match the geometry's",
        arguments: [
            (1024, 724), (1024, 683), (725, 1024), (1024, 1024),
        ])
    func fitsTheGeometry(size: (Int, Int)) throws {
        let (width, height) = size
        var bytes = [UInt8](repeating: 0, count: width * height * 3)
        for index in bytes.indices { bytes[index] = UInt8(truncatingIfNeeded: index / 3 % width) }
        let image = PixelBuffer(width: width, height: height, channels: 3, bytes: bytes)
        let fitted = try RenditionMaker.fit(image, into: 512)
        let expected = ThumbnailGeometry.fit(width: width, height: height, maxSide: 512)
        #expect(fitted.width == expected.width && fitted.height == expected.height)
        #expect(fitted == image.halved())
    }

    @Test("a text page's gray pixels stay gray: halved to each size and written as gray PNGs")
    func graySizes() throws {
        let (width, height) = (724, 1024)
        var bytes = [UInt8](repeating: 255, count: width * height)
        for y in stride(from: 40, to: 980, by: 24) {
            for x in 60..<660 where (x / 7) % 3 != 0 { bytes[y * width + x] = 20 }
        }
        let page = PixelBuffer(width: width, height: height, channels: 1, bytes: bytes)
        let made = try RenditionMaker.sizes(of: page, fitting: [256, 512], as: .png, content: .document)
        #expect(made.sizes.map(\.side) == [256, 512])
        #expect(made.sizes.map(\.format) == [.png, .png])
        #expect(made.sizes.map(\.width) == [181, 362] && made.sizes.map(\.height) == [256, 512])
        for size in made.sizes {
            // IHDR's colour type (byte 25 of the file): 0 is gray.
            #expect(size.data[25] == 0, "the \(size.side) is not a gray PNG")
        }
        #expect(made.smallest.channels == 1 && made.smallest.width == 181)
        // The ThumbHash of a gray page is a gray picture: its average colour has no tint.
        let hash = try #require(Data(base64Encoded: ThumbHashEncoder.hash(of: made.smallest)))
        let header = Int(hash[0]) | Int(hash[1]) << 8 | Int(hash[2]) << 16
        let (p, q) = ((header >> 6) & 63, (header >> 12) & 63)  // the two colour channels' means
        #expect((31...32).contains(p) && (31...32).contains(q), "p \(p), q \(q)")
    }

    @Test(
        "a PNG encoded as it is made halves its rows on the way: the same sizes as halving its whole thumbnail",
        arguments: ["png/photo-like.png", "png/tall-4000.png"])
    func streamedHalves(asset: String) throws {
        let path = TestAssets.path(asset)
        let thumbnailer = Thumbnailer()
        let file = try OpenFile.regularFile(atPath: path)
        let (type, _, _, _, _) = try thumbnailer.sniff(file, named: path)
        let request = RenderRequest(file: file, name: path)
        let result = try thumbnailer.render(
            request, as: type, encodingAs: .png, keepingPixels: true, halvingsFor: [256, 512])
        guard case .encodedWithHalves(let encoded, let halves) = result else {
            Issue.record("\(asset): not encoded as it was made")
            return
        }
        let whole = try renderDocument(path: path).thumbnail.image
        #expect(encoded.width == whole.width && encoded.height == whole.height)
        #expect(halves == [whole.halved(), whole.halved().halved()])
        // Sizes that are not halvings of the box keep the pixels instead.
        let other = try thumbnailer.render(
            request, as: type, encodingAs: .png, keepingPixels: true, halvingsFor: [384])
        guard case .pixels = other else {
            Issue.record("\(asset): a 384 was made from halves")
            return
        }
    }
}
