import CJPEG
import GlanceCore
import Testing

@testable import GlanceRender

/// Format-specific behaviour beyond what the manifest states.
@Suite("Renderers", .timeLimit(.minutes(10)))
struct FormatTests {
    @Test("every PNG colour type and bit depth decodes to the same picture as 8-bit RGB")
    func pngColourTypes() throws {
        // rgb16 and rgb8 hold the same gradient: scaled 16 -> 8 bits they must agree closely.
        let rgb8 = try decodeFullSize(TestAssets.path("png/rgb8.png"))
        let rgb16 = try decodeFullSize(TestAssets.path("png/rgb16.png"))
        #expect(rgb8.width == rgb16.width)
        if rgb8.width == rgb16.width && rgb8.height == rgb16.height {
            #expect(PixelStatistics.meanAbsoluteDifference(rgb8, rgb16) < 1.0)
        }
        for name in ["rgba8", "rgba16", "gray-alpha8", "gray-alpha16", "palette8-trns", "gray8-trns", "rgb8-trns"] {
            let image = try decodeFullSize(TestAssets.path("png/\(name).png"))
            #expect(image.hasAlpha, "\(name) has transparency, the thumbnail must keep it")
        }
        for name in [
            "gray1", "gray2", "gray4", "gray8", "gray16", "palette1", "palette2", "palette4", "palette8", "rgb8",
        ] {
            let image = try decodeFullSize(TestAssets.path("png/\(name).png"))
            #expect(!image.hasAlpha, "\(name) is opaque")
            // Gray stays gray when expanded to RGB.
            if name.hasPrefix("gray") {
                let p = image.pixel(x: image.width / 2, y: image.height / 2)
                #expect(p.r == p.g && p.g == p.b, "\(name)")
            }
        }
    }

    @Test("CMYK and YCCK JPEGs match ImageMagick's colours", arguments: ["cmyk", "ycck"])
    func cmykColours(_ name: String) throws {
        let thumbnail = try renderDocument(path: TestAssets.path("jpeg/\(name).jpg")).thumbnail
            .image
        let reference = try decodeFullSize(TestAssets.path("jpeg/\(name).reference.png"))
        #expect(thumbnail.width == reference.width && thumbnail.height == reference.height)
        if thumbnail.width == reference.width && thumbnail.height == reference.height {
            let difference = PixelStatistics.meanAbsoluteDifference(thumbnail, reference)
            #expect(difference < 4, "\(name): mean difference \(difference)")
        }
    }

    @Test(
        "progressive, arithmetic, restart-marker and 4:4:4 JPEGs decode to the same picture",
        arguments: [
            "photo-progressive", "photo-arithmetic", "photo-restart", "photo-444",
        ])
    func jpegCodings(_ name: String) throws {
        let baseline = try renderDocument(path: TestAssets.path("jpeg/photo-baseline.jpg"))
            .thumbnail.image
        let other = try renderDocument(path: TestAssets.path("jpeg/\(name).jpg")).thumbnail.image
        #expect(PixelStatistics.meanAbsoluteDifference(baseline, other) < 3)
    }

    @Test("a 12-bit JPEG is an unsupported encoding, not corrupt data")
    func twelveBitJPEG() throws {
        var bytes = try TestAssets.readBytes(TestAssets.path("jpeg/gray.jpg"))
        // The baseline frame header: FF C0, length (2 bytes), then the sample precision.
        let sof = try #require((0..<(bytes.count - 4)).first { bytes[$0] == 0xFF && bytes[$0 + 1] == 0xC0 })
        #expect(bytes[sof + 4] == 8)
        bytes[sof + 4] = 12
        let scratch = ScratchFolder()
        let path = try scratch.write(bytes, to: "twelve-bit.jpg")
        let outcome = Result { () throws(ThumbnailError) in try renderDocument(path: path) }
        guard case .failure(let error) = outcome else {
            Issue.record("a 12-bit JPEG cannot decode with an 8-bit libjpeg")
            return
        }
        #expect(error.description.hasPrefix("unsupported JPEG encoding"), "\(error)")
    }

    @Test("a truncated JPEG renders what decoded and says so")
    func truncatedJPEG() throws {
        let rendered = try renderDocument(path: TestAssets.path("corrupt/truncated.jpg")).thumbnail
        #expect(rendered.warnings.contains { $0.contains("truncated JPEG data") })
    }

    @Test("the pixel limit refuses before decoding, and can be raised or lowered")
    func pixelLimit() throws {
        let path = TestAssets.path("jpeg/photo-baseline.jpg")  // 1600x1200, decoded at full size
        #expect(throws: ThumbnailError.tooLarge(width: 1600, height: 1200, limitPixels: 1_000_000)) {
            try renderDocument(path: path, maxPixels: 1_000_000)
        }
        _ = try renderDocument(path: path, maxPixels: 2_000_000)
        // For a 256 box the JPEG is decoded at 1/4 (400x300): the limit counts those pixels, and
        // the refusal says so.
        let shrunk = ThumbnailError.tooLarge(width: 1600, height: 1200, limitPixels: 100_000, shrunkBy: 4)
        #expect(throws: shrunk) { try renderDocument(path: path, maxSide: 256, maxPixels: 100_000) }
        #expect(
            shrunk.description
                == "image of 1600x1200, decoded at 1/4 as 400x300, exceeds the 100000-pixel limit")
        _ = try renderDocument(path: path, maxSide: 256, maxPixels: 120_000)
        let huge = TestAssets.path("corrupt/huge-dimensions.png")
        #expect(throws: ThumbnailError.tooLarge(width: 20000, height: 20000, limitPixels: 100_000_000)) {
            try renderDocument(path: huge)
        }
    }

    @Test(
        "PDF pages honour /Rotate and draw on white",
        arguments: [
            ("letter", 791, 1024), ("rotate-90", 1024, 791), ("rotate-180", 791, 1024), ("rotate-270", 1024, 791),
        ])
    func pdfRotation(name: String, width: Int, height: Int) throws {
        let image = try renderDocument(path: TestAssets.path("pdf/\(name).pdf")).thumbnail.image
        #expect(image.width == width && image.height == height)
        let corner = image.pixel(x: 1, y: 1)
        #expect(corner.r == 255 && corner.g == 255 && corner.b == 255, "paper is white")
    }

    @Test("a rotated page is the upright page turned")
    func pdfRotationContent() throws {
        let upright = try renderDocument(path: TestAssets.path("pdf/letter.pdf")).thumbnail.image
        let turned = try renderDocument(path: TestAssets.path("pdf/rotate-180.pdf")).thumbnail
            .image
        let back = ExifOrientation.down.apply(to: turned)
        #expect(PixelStatistics.meanAbsoluteDifference(upright, back) < 2)
    }

    @Test("encrypted PDFs: a user password is an error, an owner password alone is not")
    func pdfEncryption() throws {
        #expect(throws: ThumbnailError.encrypted) {
            try renderDocument(path: TestAssets.path("pdf/encrypted-user.pdf"))
        }
        let owner = try renderDocument(path: TestAssets.path("pdf/owner-only.pdf")).thumbnail.image
        let plain = try renderDocument(path: TestAssets.path("pdf/letter.pdf")).thumbnail.image
        #expect(PixelStatistics.meanAbsoluteDifference(owner, plain) < 1)
    }

    @Test("the JPEG encoder's own Huffman statistics give libjpeg's bytes exactly")
    func ownHuffmanStatistics() throws {
        // Glance counts the symbols its optimised tables are made from instead of libjpeg's
        // statistics pass: same counts, same tables, same file. Photos (smooth runs), noise (large
        // magnitudes, few zeros), lone dots on a flat field (zero runs past 15) and tiny images
        // (partial blocks and MCUs).
        var seed: UInt32 = 12345
        func random() -> UInt8 {
            seed = seed &* 1_103_515_245 &+ 12345
            return UInt8(truncatingIfNeeded: seed >> 16)
        }
        let noise = PixelBuffer(
            width: 200, height: 120, channels: 3, bytes: (0..<(200 * 120 * 3)).map { _ in random() })
        var dots = [UInt8](repeating: 128, count: 256 * 256 * 3)
        for index in stride(from: 0, to: dots.count, by: 3 * 37) { dots[index] = 255 }
        let images = [
            try decodeFullSize(TestAssets.path("jpeg/photo-baseline.jpg")), syntheticImage(width: 1024, height: 768),
            noise, PixelBuffer(width: 256, height: 256, channels: 3, bytes: dots), syntheticImage(width: 1, height: 1),
            syntheticImage(width: 17, height: 9),
        ]
        func encoded(_ image: PixelBuffer, ownStatistics: Bool) -> [UInt8] {
            let capacity = glance_jpeg_encoded_bound(Int32(image.width), Int32(image.height))
            var error = glance_jpeg_error()
            return [UInt8](unsafeUninitializedCapacity: capacity) { buffer, count in
                var length = 0
                let status = image.bytes.withUnsafeBufferPointer { pixels in
                    glance_jpeg_encode(
                        pixels.baseAddress, Int32(image.width), Int32(image.height), image.rowBytes, 85, 80,
                        ownStatistics ? 1 : 0, buffer.baseAddress, capacity, &length, &error)
                }
                count = status == Int32(GLANCE_JPEG_OK.rawValue) ? length : 0
            }
        }
        for image in images {
            let libjpeg = encoded(image, ownStatistics: false)
            let own = encoded(image, ownStatistics: true)
            #expect(libjpeg.count > 100, "\(image.width)x\(image.height)")
            let shorter = min(own.count, libjpeg.count)
            let firstDifference = (0..<shorter).first { own[$0] != libjpeg[$0] } ?? shorter
            let same = own == libjpeg
            #expect(
                same,
                "\(image.width)x\(image.height): \(own.count) against \(libjpeg.count) bytes, from \(firstDifference)")
        }
    }

    @Test("encoders round-trip: PNG exactly, JPEG closely")
    func encoders() throws {
        let scratch = ScratchFolder()
        let image = syntheticImage(width: 300, height: 200, alpha: true)
        let png = try scratch.write(try ImageEncoder.encode(image, as: .png), to: "round.png")
        #expect(try decodeFullSize(png) == image)
        let opaque = syntheticImage(width: 300, height: 200)
        let jpeg = try scratch.write(try ImageEncoder.encode(opaque, as: .jpeg), to: "round.jpg")
        let decoded = try decodeFullSize(jpeg)
        #expect(PixelStatistics.psnr(decoded, opaque) > 30)
        #expect(ImageFormat.automatic(for: .jpeg, image: opaque) == .jpeg)
        #expect(ImageFormat.automatic(for: .jpeg, image: image) == .png)
        #expect(ImageFormat.automatic(for: .pdf, image: opaque) == .png)
    }
}
