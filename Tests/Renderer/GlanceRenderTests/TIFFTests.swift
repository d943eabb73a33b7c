import GlanceCore
import Testing

@testable import GlanceRender

/// TIFF documents through libtiff: each against what its generator drew.
@Suite("TIFF", .timeLimit(.minutes(10)))
struct TIFFTests {
    @Test("strips, tiles, 16 bits, gray and CMYK all render to their size")
    func encodings() throws {
        let reference = try renderDocument(path: TestAssets.path("tiff/rgb8-lzw.tiff")).thumbnail.image
        #expect(reference.width == 800 && reference.height == 600 && !reference.hasAlpha)
        let tiled = try renderDocument(path: TestAssets.path("tiff/tiled-jpeg.tiff")).thumbnail
        #expect(tiled.image.width == 1024 && tiled.image.height == 768)
        // JPEG-compressed: a photo's thumbnail.
        #expect(tiled.lossySource)
        #expect(!(try renderDocument(path: TestAssets.path("tiff/rgb8-lzw.tiff")).thumbnail.lossySource))
        let gray = try renderDocument(path: TestAssets.path("tiff/gray-packbits.tiff")).thumbnail.image
        #expect(gray.width == 500 && gray.height == 500)
        let cmyk = try renderDocument(path: TestAssets.path("tiff/cmyk.tiff")).thumbnail
        #expect(cmyk.image.width == 600 && cmyk.warnings.contains { $0.contains("CMYK") })
    }

    @Test("the Orientation tag turns the thumbnail: stored top-left lands top-right for 6")
    func orientation() throws {
        let rendered = try renderDocument(path: TestAssets.path("tiff/orientation-6.tiff")).thumbnail
        let image = rendered.image
        #expect(image.width == 200 && image.height == 300)
        #expect(rendered.sourceWidth == 200 && rendered.sourceHeight == 300)
        let topRight = image.pixel(x: 180, y: 20)
        let topLeft = image.pixel(x: 20, y: 20)
        #expect(topRight.r > 200 && topRight.g < 60, "red top-right: \(topRight)")
        #expect(topLeft.r > 200 && topLeft.g > 200, "white top-left: \(topLeft)")
    }

    @Test("unassociated alpha is kept straight, in strips or in tiles", arguments: ["rgba.tiff", "rgba-tiled.tiff"])
    func alpha(_ name: String) throws {
        let image = try renderDocument(path: TestAssets.path("tiff/\(name)")).thumbnail.image
        #expect(image.hasAlpha && image.width == 200 && image.height == 150)
        let reference = try decodeFullSize(TestAssets.path("png/rgba8.png"))
        // The same pixels as the PNG it was made from, where it is opaque enough to compare.
        var compared = 0
        var worst = 0
        for y in stride(from: 0, to: 150, by: 7) {
            for x in stride(from: 0, to: 200, by: 7) {
                let p = image.pixel(x: x, y: y)
                let q = reference.pixel(x: x, y: y)
                #expect(abs(Int(p.a) - Int(q.a)) <= 1)
                guard q.a > 64 else { continue }
                compared += 1
                worst = max(worst, abs(Int(p.r) - Int(q.r)), abs(Int(p.g) - Int(q.g)), abs(Int(p.b) - Int(q.b)))
            }
        }
        #expect(compared > 50 && worst <= 4, "\(compared) pixels compared, worst \(worst)")
    }

    @Test("a multi-page TIFF's thumbnail is its first page, and says so")
    func firstPage() throws {
        let rendered = try renderDocument(path: TestAssets.path("tiff/multipage.tiff")).thumbnail
        #expect(rendered.image.width == 300 && rendered.image.height == 200)
        let colour = PixelStatistics.meanColour(rendered.image)
        #expect(colour.r > 200 && colour.g < 50, "red, the first page: \(colour)")
        #expect(rendered.warnings.contains { $0.contains("3 pages") })
        #expect(rendered.details?.pageCount == 3)
        // Every page's size, for a preview that stacks them (72 dpi: a pixel a point).
        #expect(
            rendered.details?.pageSizes == [
                .init(width: 300, height: 200, count: 1), .init(width: 500, height: 500, count: 1),
                .init(width: 400, height: 300, count: 1),
            ])
        // Any page may be asked for, as a PDF's: the second is blue and 500x500.
        var request = try pageRequest(2)
        let second = try Thumbnailer().render(request, as: .tiff)
        let blue = PixelStatistics.meanColour(second.image)
        #expect(second.image.width == 500 && second.image.height == 500 && blue.b > 150 && blue.r < 80, "\(blue)")
        request = try pageRequest(4)
        #expect(throws: ThumbnailError.pageOutOfRange(page: 4, pageCount: 3)) {
            try Thumbnailer().render(request, as: .tiff)
        }
    }

    @Test(
        "a scan's page sizes in points come from its resolution, per inch or per centimetre, turned by its orientation")
    func pageSizesFromResolution() throws {
        let rendered = try renderDocument(path: TestAssets.path("tiff/scanned-pages.tiff")).thumbnail
        let sizes = try #require(rendered.details?.pageSizes)
        #expect(rendered.details?.pageCount == 2 && sizes.count == 2)
        // 600x300 at 300 dots an inch.
        #expect(sizes[0] == .init(width: 144, height: 72, count: 1))
        // 100x200 at 50 dots a centimetre (127 an inch), turned a quarter by orientation 6.
        #expect(abs(sizes[1].width - 200 * 72 / 127) < 0.01 && abs(sizes[1].height - 100 * 72 / 127) < 0.01)
        // A preview of one page does not list them.
        let second = try Thumbnailer().render(
            {
                var request = RenderRequest(
                    file: try OpenFile.regularFile(atPath: TestAssets.path("tiff/scanned-pages.tiff")), name: "scan")
                request.page = 2
                return request
            }(), as: .tiff)
        #expect(second.details?.pageSizes == nil && second.details?.pageCount == 2)
    }

    /// A request for `page` of the multi-page TIFF.
    private func pageRequest(_ page: Int) throws -> RenderRequest {
        let path = TestAssets.path("tiff/multipage.tiff")
        var request = RenderRequest(file: try OpenFile.regularFile(atPath: path), name: path)
        request.page = page
        return request
    }

    @Test("an ICC profile brings it into sRGB: the tagged TIFF matches the tagged PNG")
    func colourProfile() throws {
        let rendered = try renderDocument(path: TestAssets.path("colour/display-p3.tiff")).thumbnail
        let png = try renderDocument(path: TestAssets.path("colour/display-p3.png")).thumbnail
        #expect(rendered.colour != nil && rendered.colour?.profile == png.colour?.profile)
        #expect(PixelStatistics.meanAbsoluteDifference(rendered.image, png.image) < 1)
    }

    @Test(
        "floating-point samples without a profile are linear light: they draw the sRGB picture they hold",
        arguments: ["float32-linear.tiff", "float32-tiled.tiff"])
    func floatingPoint(_ name: String) throws {
        let reference = try decodeFullSize(TestAssets.path("png/rgb8.png"))
        let rendered = try renderDocument(path: TestAssets.path("tiff/\(name)")).thumbnail
        #expect(rendered.image.width == 200 && rendered.image.height == 150 && !rendered.image.hasAlpha)
        #expect(rendered.warnings.contains { $0.contains("floating-point samples") })
        let (worst, compared) = PixelStatistics.worstDifference(rendered.image, reference, step: 7, alpha: true)
        #expect(compared > 500 && worst <= 2, "\(compared) pixels compared, worst \(worst)")
    }

    @Test(
        "half floats big-endian with straight alpha, and 32-bit floats with premultiplied alpha",
        arguments: [("half-gray-alpha.tiff", true), ("float32-premultiplied.tiff", false)])
    func floatingPointAlpha(_ name: String, gray: Bool) throws {
        let reference = try decodeFullSize(TestAssets.path("png/rgba8.png"))
        let image = try renderDocument(path: TestAssets.path("tiff/\(name)")).thumbnail.image
        #expect(image.hasAlpha && image.width == 200 && image.height == 150)
        let (worst, compared) = PixelStatistics.worstDifference(image, reference, step: 7, gray: gray, alpha: true)
        #expect(compared > 50 && worst <= 3, "\(compared) pixels compared, worst \(worst)")
    }

    @Test(
        "floating-point samples are linear light on their ICC profile's primaries: 64-bit floats match the 8-bit twin")
    func floatingPointProfile() throws {
        let float = try renderDocument(path: TestAssets.path("tiff/float64-p3.tiff")).thumbnail.image
        let eight = try renderDocument(path: TestAssets.path("tiff/rgb8-p3.tiff")).thumbnail
        #expect(eight.colour != nil)
        #expect(PixelStatistics.meanAbsoluteDifference(float, eight.image) < 1)
        // The profile was applied: the codes as sRGB would be another picture.
        let untagged = try decodeFullSize(TestAssets.path("png/rgb8.png"))
        #expect(PixelStatistics.meanAbsoluteDifference(float, untagged) > 2)
    }

    @Test("not-a-number and infinite samples are drawn, not refused; 24-bit floats are refused in one line")
    func floatingPointOddities() throws {
        let odd = try renderDocument(path: TestAssets.path("tiff/float32-nan.tiff")).thumbnail.image
        let clean = try renderDocument(path: TestAssets.path("tiff/float32-linear.tiff")).thumbnail.image
        #expect(odd.width == 200 && odd.height == 150)
        let difference = PixelStatistics.meanAbsoluteDifference(odd, clean)
        #expect(difference > 1 && difference < 40, "mean difference \(difference)")
        do {
            _ = try renderDocument(path: TestAssets.path("tiff/float24.tiff"))
            Issue.record("a 24-bit float TIFF rendered")
        } catch {
            #expect(error.description.contains("floating-point samples of 24 bits"), "\(error)")
            #expect(!error.description.contains("\n"))
        }
    }

    @Test("a page past the pixel limit is refused from its tags; a cut file is a one-line error")
    func refusals() {
        for (name, expected) in [
            ("huge.tiff", "20000x20000 exceeds the 100-megapixel limit"), ("truncated.tiff", "TIFF"),
            ("bad-ifd.tiff", "TIFF"),
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
