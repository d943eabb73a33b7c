import GlanceCore
import Testing

@testable import GlanceRender

/// Camera raw photos through LibRaw: the embedded preview when it fills the box, else the sensor
/// data developed; the camera's turn; the details. The DNGs are written by `generate.py` from the
/// DNG specification: four flat quadrants (red, green, blue, gray), and in the preview only a
/// white square at the centre, so that a thumbnail tells which was drawn.
@Suite("Camera raw photos", .timeLimit(.minutes(10)))
struct RawPhotoTests {
    /// Whether a pixel is near a colour.
    static func near(_ pixel: (r: UInt8, g: UInt8, b: UInt8, a: UInt8), _ colour: (Int, Int, Int), by tolerance: Int)
        -> Bool
    {
        abs(Int(pixel.r) - colour.0) <= tolerance && abs(Int(pixel.g) - colour.1) <= tolerance
            && abs(Int(pixel.b) - colour.2) <= tolerance
    }

    /// Whether the quadrants are red, green, blue and gray (top-left, top-right, bottom-left,
    /// bottom-right) as the image lies.
    static func expectQuadrants(_ image: PixelBuffer, turned: Bool = false, _ name: String) {
        let (w, h) = (image.width, image.height)
        let at = { (x: Double, y: Double) in image.pixel(x: Int(x * Double(w)), y: Int(y * Double(h))) }
        // Stored top-left red and bottom-left blue; turned a quarter clockwise, red lies
        // top-right, blue top-left and gray bottom-left.
        let red = turned ? at(0.75, 0.25) : at(0.25, 0.25)
        let blue = turned ? at(0.25, 0.25) : at(0.25, 0.75)
        #expect(red.r > 180 && red.g < 80 && red.b < 80, "\(name): red quadrant is \(red)")
        #expect(blue.b > 180 && blue.r < 80 && blue.g < 100, "\(name): blue quadrant is \(blue)")
        let gray = turned ? at(0.25, 0.75) : at(0.75, 0.75)
        #expect(abs(Int(gray.r) - Int(gray.g)) < 8 && abs(Int(gray.g) - Int(gray.b)) < 8, "\(name): gray is \(gray)")
    }

    @Test("a preview that fills the box is drawn, not the sensor data: its white square shows")
    func previewIsDrawn() throws {
        let rendered = try renderDocument(path: TestAssets.path("raw/preview.dng"))
        #expect(rendered.type == .dng)
        let image = rendered.thumbnail.image
        #expect(Self.near(image.pixel(x: image.width / 2, y: image.height / 2), (255, 255, 255), by: 6))
        Self.expectQuadrants(image, "preview.dng")
        #expect(rendered.thumbnail.details?.camera?.picture == .preview)
        #expect(rendered.thumbnail.lossySource)
    }

    @Test(
        "without a preview, or with one smaller than the box, the sensor data is developed (no white square)",
        arguments: ["raw/no-preview.dng", "raw/small-preview.dng"])
    func sensorDataIsDeveloped(_ path: String) throws {
        let rendered = try renderDocument(path: TestAssets.path(path))
        let image = rendered.thumbnail.image
        #expect(image.width == 640 && image.height == 480)
        #expect(!Self.near(image.pixel(x: image.width / 2 + 8, y: image.height / 2 + 8), (255, 255, 255), by: 30))
        Self.expectQuadrants(image, path)
        #expect(rendered.thumbnail.details?.camera?.picture == .developed)
    }

    @Test(
        "a preview cut short by the end of the file is not drawn: the intact sensor data is, from a fresh LibRaw state")
    func cutPreviewFallsBackToSensorData() throws {
        let rendered = try renderDocument(path: TestAssets.path("raw/cut-preview.dng"))
        let image = rendered.thumbnail.image
        Self.expectQuadrants(image, "cut-preview.dng")
        #expect(rendered.thumbnail.details?.camera?.picture == .developed)
        #expect(rendered.thumbnail.warnings.contains { $0.contains("embedded preview was not drawn") })
    }

    @Test("hostile raw files: a CR3 box of size 0 is refused at once; a DNG without its sensor data is truncated")
    func hostileRawFiles() {
        #expect(
            throws: ThumbnailError.corrupt(
                format: "Canon CR3 raw photo", detail: "a box of 0 bytes, smaller than its own header")
        ) {
            try renderDocument(path: TestAssets.path("raw/zero-box.cr3"))
        }
        #expect(throws: ThumbnailError.truncated(format: "DNG raw photo")) {
            try renderDocument(path: TestAssets.path("raw/no-sensor-data.dng"))
        }
    }

    @Test("a TIFF that only looks like a NEF (maker's name, a sub-directory) is drawn as the TIFF it is, saying so")
    func plainTIFFTakenForRaw() throws {
        let rendered = try renderDocument(path: TestAssets.path("raw/nef-like.tif"))
        let image = rendered.thumbnail.image
        #expect(image.width == 300 && image.height == 200)
        Self.expectQuadrants(image, "nef-like.tif")
        #expect(rendered.thumbnail.warnings.contains { $0.contains("drawn as the TIFF it is") })
    }

    @Test(
        "a camera LibRaw does not know: drawn from the JPEG preview it stores, read without LibRaw (CR3's PRVW, a NEF's sub-directory)",
        arguments: ["raw/unknown-camera.cr3", "raw/unknown-camera.nef"])
    func unknownCameraPreview(_ path: String) throws {
        let rendered = try renderDocument(path: TestAssets.path(path))
        let image = rendered.thumbnail.image
        #expect(image.width == 640 && image.height == 480)
        // The preview's white square: the camera's picture, not a development.
        #expect(Self.near(image.pixel(x: image.width / 2, y: image.height / 2), (255, 255, 255), by: 6))
        Self.expectQuadrants(image, path)
        #expect(rendered.thumbnail.details?.camera?.picture == .preview)
        #expect(rendered.thumbnail.warnings.contains { $0.contains("drawn from the JPEG preview the camera stored") })
    }

    @Test("a small preview serves a box it fills: the 128 of small-preview.dng is drawn from it")
    func smallPreviewServesSmallBox() throws {
        let rendered = try renderDocument(path: TestAssets.path("raw/small-preview.dng"), maxSide: 128)
        #expect(rendered.thumbnail.details?.camera?.picture == .preview)
        #expect(rendered.thumbnail.image.width == 128 && rendered.thumbnail.image.height == 96)
    }

    @Test("half-size development serves a box half the image fills")
    func halfSizeDevelopment() throws {
        let rendered = try renderDocument(path: TestAssets.path("raw/no-preview.dng"), maxSide: 256)
        #expect(rendered.thumbnail.image.width == 256 && rendered.thumbnail.image.height == 192)
        Self.expectQuadrants(rendered.thumbnail.image, "no-preview.dng at 256")
    }

    @Test(
        "the camera's turn is applied to the preview and to the development, once",
        arguments: ["raw/rotated.dng", "raw/rotated-no-preview.dng"])
    func orientationApplied(_ path: String) throws {
        let rendered = try renderDocument(path: TestAssets.path(path))
        #expect(rendered.thumbnail.image.width == 480 && rendered.thumbnail.image.height == 640)
        Self.expectQuadrants(rendered.thumbnail.image, turned: true, path)
        #expect(rendered.thumbnail.details?.camera?.width == 480)
        #expect(rendered.thumbnail.details?.camera?.height == 640)
    }

    @Test("a camera of another maker: a Nikon NEF's sensor data developed by LibRaw with that camera's matrix")
    func otherMakerDeveloped() throws {
        let rendered = try renderDocument(path: TestAssets.path("raw/sensor-data.nef"))
        #expect(rendered.type == .nikonRaw)
        let image = rendered.thumbnail.image
        #expect(image.width == 636 && image.height == 480)
        #expect(rendered.thumbnail.details?.camera?.picture == .developed)
        #expect(rendered.thumbnail.details?.camera?.model?.contains("D3") == true)
        // The mosaic holds linear sRGB, not the D3's own primaries: its matrix moves the colours,
        // but each quadrant keeps its dominant channel, in its place.
        let at = { (x: Double, y: Double) -> (r: Int, g: Int, b: Int) in
            let pixel = image.pixel(x: Int(x * Double(image.width)), y: Int(y * Double(image.height)))
            return (Int(pixel.r), Int(pixel.g), Int(pixel.b))
        }
        let (red, green, blue) = (at(0.25, 0.25), at(0.75, 0.25), at(0.25, 0.75))
        #expect(red.r > 150 && red.r > red.g + 80 && red.r > red.b + 80, "red quadrant is \(red)")
        #expect(green.g > 150 && green.g > green.r + 80 && green.g > green.b + 80, "green quadrant is \(green)")
        #expect(blue.b > 150 && blue.b > blue.r + 80 && blue.b > blue.g + 80, "blue quadrant is \(blue)")
    }

    @Test("the details name the camera and the time the photo was taken")
    func cameraDetails() throws {
        let camera = try #require(
            try renderDocument(path: TestAssets.path("raw/preview.dng")).thumbnail.details?.camera)
        #expect(camera.make == "Glance")
        #expect(camera.model == "Test Camera")
        #expect(camera.captured == "2024-05-17T10:30:00")
        #expect(camera.width == 640 && camera.height == 480)
    }

    @Test("a header past the pixel limit is refused before the sensor data is read, counting the sensor's pixels")
    func pixelLimitFromHeader() {
        #expect {
            try renderDocument(path: TestAssets.path("raw/huge.dng"))
        } throws: { error in
            guard let error = error as? ThumbnailError, case .tooLarge(let width, let height, _, let shrunk) = error
            else { return false }
            return width == 60000 && height == 40000 && shrunk == 1
        }
    }

    @Test("the limit counts what is decoded: a preview under it is drawn though the sensor is past it")
    func limitCountsWhatIsDecoded() throws {
        let limit = 30_000  // more than the 160x120 preview, less than the 640x480 sensor
        let rendered = try renderDocument(
            path: TestAssets.path("raw/small-preview.dng"), maxSide: 128, maxPixels: limit)
        #expect(rendered.thumbnail.details?.camera?.picture == .preview)
        #expect(throws: ThumbnailError.self) {
            try renderDocument(path: TestAssets.path("raw/no-preview.dng"), maxSide: 128, maxPixels: limit)
        }
    }

    @Test("the preview is chosen only when it fills the box in the image's proportions")
    func previewChoice() {
        let photo = PixelSize(width: 6000, height: 4000)
        #expect(RawDecoder.previewServes(image: photo, preview: PixelSize(width: 1620, height: 1080), box: 1024))
        #expect(!RawDecoder.previewServes(image: photo, preview: PixelSize(width: 1620, height: 1080), box: 2048))
        #expect(
            !RawDecoder.previewServes(image: photo, preview: PixelSize(width: 1920, height: 1080), box: 1024),
            "a 16:9 preview of a 3:2 photo is padded or cropped")
        let small = PixelSize(width: 640, height: 480)
        #expect(
            RawDecoder.previewServes(image: small, preview: small, box: 1024),
            "a preview of the whole image serves a larger box")
        #expect(!RawDecoder.previewServes(image: small, preview: nil, box: 256))
    }

    @Test("LibRaw's flip values turn as EXIF's orientations do")
    func flips() {
        #expect(RawDecoder.orientation(flip: 0) == .up)
        #expect(RawDecoder.orientation(flip: 3) == .down)
        #expect(RawDecoder.orientation(flip: 5) == .left)
        #expect(RawDecoder.orientation(flip: 6) == .right)
    }
}
