import GlanceCore
import Testing

@testable import GlanceRender

/// The raster pipeline over a decoder that supplies nothing but a header, a plan and rows: the
/// fit, the pixel limit, the downscale, the alpha and the orientation are the pipeline's, so a new
/// format gets them by being a decoder.
@Suite("One raster pipeline over every decoder", .timeLimit(.minutes(10)))
struct RasterPipelineTests {
    /// A decoder of a made-up format whose document name says what it is:
    /// `WIDTHxHEIGHT-ORIENTATION-CHANNELS-SHRINK`, for example `3000x2000-6-4-2`. Its pixels are
    /// a gradient (red across, green down), opaque, each row made as it is asked for.
    final class GradientDecoder: RasterDecoder {
        let header: RasterHeader
        let warnings = ["a made-up format"]
        private let channels: Int
        private let shrink: Int

        init(_ request: RenderRequest, type: ContentType, colourTransforms: ColourTransformCache) throws(ThumbnailError)
        {
            let parts = request.name.split(whereSeparator: { $0 == "x" || $0 == "-" }).compactMap { Int($0) }
            guard parts.count == 5 else { throw .unsupported(detail: "a name the test does not know") }
            channels = parts[3]
            shrink = parts[4]
            header = RasterHeader(
                size: PixelSize(width: parts[0], height: parts[1]), orientation: ExifOrientation(rawValue: parts[2])!)
        }

        func plan(for target: PixelSize) -> RasterPlan {
            RasterPlan(
                size: PixelSize(width: header.size.width / shrink, height: header.size.height / shrink), shrink: shrink)
        }

        func start(_ plan: RasterPlan) throws(ThumbnailError) -> RasterRows {
            RasterRows(size: plan.size, channels: channels, streamed: true)
        }

        func read(into rows: Downscaler) throws(ThumbnailError) {
            let (width, height) = (rows.sourceWidth, rows.sourceHeight)
            var row = [UInt8](repeating: 255, count: width * channels)
            for y in 0..<height {
                for x in 0..<width {
                    row[x * channels] = UInt8(x * 255 / max(1, width - 1))
                    row[x * channels + 1] = UInt8(y * 255 / max(1, height - 1))
                    row[x * channels + 2] = 0
                }
                row.withUnsafeBufferPointer { rows.push(rows: $0.baseAddress!, stride: width * channels, count: 1) }
            }
        }
    }

    private func render(_ name: String, maxPixels: Int = RenderRequest.defaultMaxPixels) throws -> RenderedThumbnail {
        let file = try OpenFile.regularFile(atPath: TestAssets.path("png/alpha-edge.png"))
        let pipeline = RasterPipeline(.png, decoder: GradientDecoder.self, colourTransforms: ColourTransformCache())
        return try pipeline.render(RenderRequest(file: file, name: name, maxPixels: maxPixels))
    }

    @Test("the stored size is fitted as displayed, and the orientation applied to the small result")
    func fitAndOrientation() throws {
        // Stored 3000x2000, shown turned a quarter (EXIF 6): 2000x3000 upright.
        let turned = try render("3000x2000-6-3-1")
        #expect(turned.sourceWidth == 2000 && turned.sourceHeight == 3000)
        #expect(turned.image.width == 683 && turned.image.height == 1024)
        // Red grows across the stored rows; turned clockwise, it grows down the thumbnail's left column.
        let top = turned.image.pixel(x: 0, y: 0)
        let bottom = turned.image.pixel(x: 0, y: 1023)
        #expect(top.r < 20 && bottom.r > 235, "\(top) \(bottom)")
        #expect(turned.warnings == ["a made-up format"])

        let upright = try render("3000x2000-1-3-1")
        #expect(upright.image.width == 1024 && upright.image.height == 683)
        #expect(upright.image.pixel(x: 1023, y: 0).r > 235)
    }

    @Test("the decoder's plan is held to the pixel limit before anything is decoded, with its reduction")
    func limit() throws {
        #expect(throws: ThumbnailError.tooLarge(width: 4000, height: 4000, limitPixels: 3_000_000, shrunkBy: 2)) {
            try render("4000x4000-1-3-2", maxPixels: 3_000_000)
        }
        // A quarter of the pixels fits the same limit.
        let reduced = try render("4000x4000-1-3-4", maxPixels: 3_000_000)
        #expect(reduced.image.width == 1000 && reduced.sourceWidth == 4000)
    }

    @Test("an alpha channel that is opaque everywhere is dropped; a source smaller than the box is not enlarged")
    func alphaAndSmall() throws {
        let small = try render("300x200-1-4-1")
        #expect(small.image.width == 300 && small.image.height == 200)
        #expect(!small.image.hasAlpha)
    }

    @Test("rows of a lossless source are encoded as PNG while scaled; a lossy source's pixels go back for a JPEG")
    func encodedWhileScaledOnlyWhenLossless() throws {
        let thumbnailer = Thumbnailer()
        func result(_ asset: String, _ type: ContentType) throws -> RenderResult {
            let file = try OpenFile.regularFile(atPath: TestAssets.path(asset))
            return try thumbnailer.render(RenderRequest(file: file, name: asset), as: type, encodingAs: .png)
        }
        guard case .encoded(let png) = try result("png/rgb8.png", .png) else {
            Issue.record("an opaque PNG was not encoded as it was made")
            return
        }
        #expect(png.format == .png)
        guard case .pixels(let photo) = try result("jpeg/photo-baseline.jpg", .jpeg) else {
            Issue.record("a JPEG photo's thumbnail was encoded as PNG")
            return
        }
        #expect(ImageFormat.automatic(for: .jpeg, image: photo.image, lossySource: photo.lossySource) == .jpeg)
    }
}
