import GlanceCore
import Testing

@testable import GlanceRender

/// PNG thumbnails encoded row by row as the scaler makes them (the thumbnail never whole in
/// memory) against the same thumbnails made whole and then encoded.
@Suite("Streamed PNG thumbnails")
struct StreamedPNGTests {
    /// Renders `path` both ways through one thumbnailer: (streamed, whole then encoded).
    static func bothWays(_ path: String, maxSide: Int = ThumbnailGeometry.defaultMaxSide) throws -> (
        streamed: RenderResult, whole: RenderedThumbnail, wholeBytes: [UInt8]
    ) {
        let thumbnailer = Thumbnailer()
        let file = try OpenFile.regularFile(atPath: path)
        let request = RenderRequest(file: file, name: path, maxSide: maxSide)
        let streamed = try thumbnailer.render(request, as: .png, encodingAs: .png)
        let again = RenderRequest(file: try OpenFile.regularFile(atPath: path), name: path, maxSide: maxSide)
        let whole = try thumbnailer.render(again, as: .png)
        let bytes = try ImageEncoder.encode(whole.image, as: .png, content: .photographic)
        return (streamed, whole, bytes)
    }

    @Test(
        "an opaque, non-interlaced PNG is encoded as it is made, to the same bytes, size, colour and warnings",
        arguments: [
            "png/photo-like.png",  // RGB, reduced
            "png/rgb16.png",  // 16-bit samples
            "png/gray8.png",  // gray: written as gray
            "png/tall-4000.png",  // much taller than wide
            "png/rgb8-1x1.png",  // nothing to reduce: rows copied through
            "colour/display-p3.png",  // an ICC profile: converted row by row
            "colour/gamma-1.0.png",  // gAMA without iCCP
        ])
    func sameAsWhole(asset: String) throws {
        let (streamed, whole, wholeBytes) = try Self.bothWays(TestAssets.path(asset))
        guard case .encoded(let encoded) = streamed else {
            Issue.record("\(asset) was not streamed")
            return
        }
        #expect(encoded.data == wholeBytes)
        #expect(encoded.width == whole.image.width && encoded.height == whole.image.height)
        #expect(encoded.averageColour == whole.image.averageColour)
        #expect(encoded.warnings == whole.warnings)
        #expect(encoded.colour?.profile == whole.colour?.profile)
        if asset.hasPrefix("colour/") { #expect(encoded.colour != nil, "converted to sRGB") }
        #expect(encoded.sourceWidth == whole.sourceWidth && encoded.sourceHeight == whole.sourceHeight)
    }

    @Test(
        "images whose alpha, interlacing or gray profile is known only at the end are made whole",
        arguments: ["png/rgba8.png", "png/rgb8-trns.png", "png/interlaced-rgb8.png", "png/palette8-trns.png"])
    func madeWhole(asset: String) throws {
        let (streamed, _, _) = try Self.bothWays(TestAssets.path(asset))
        guard case .pixels = streamed else {
            Issue.record("\(asset) was streamed")
            return
        }
    }

    @Test("an RGB image whose rows are all gray comes out as 8-bit gray, as a whole one does")
    func grayRowsOfRGB() throws {
        let folder = ScratchFolder()
        var gray = syntheticImage(width: 300, height: 200)
        for index in stride(from: 0, to: gray.bytes.count, by: 3) {
            gray.bytes[index + 1] = gray.bytes[index]
            gray.bytes[index + 2] = gray.bytes[index]
        }
        let path = try folder.write(try ImageEncoder.encode(gray, as: .png), to: "gray-as-rgb.png")
        let (streamed, _, wholeBytes) = try Self.bothWays(path, maxSide: 100)
        guard case .encoded(let encoded) = streamed else {
            Issue.record("not streamed")
            return
        }
        #expect(encoded.data == wholeBytes)
        // IHDR's colour type (byte 25): 0 is gray.
        #expect(encoded.data[25] == 0)
    }

    @Test(
        "a PDF or text page goes to PNG straight from cairo's surface, to the bytes the pixels would give",
        arguments: [
            "pdf/letter.pdf",
            "pdf/with-photo.pdf",
            "pdf/rotate-90.pdf",
            "text/latin-utf8.txt",
            "text/chinese-utf8.txt",
            "text/empty.txt",  // a blank page
        ])
    func pageFromSurface(asset: String) throws {
        let path = TestAssets.path(asset)
        let thumbnailer = Thumbnailer()
        let (type, text) = try thumbnailer.sniff(try OpenFile.regularFile(atPath: path), named: path)
        var request = RenderRequest(file: try OpenFile.regularFile(atPath: path), name: path)
        request.text = text
        guard case .encoded(let encoded) = try thumbnailer.render(request, as: type, encodingAs: .png) else {
            Issue.record("\(asset) was not encoded from the surface")
            return
        }
        var again = RenderRequest(file: try OpenFile.regularFile(atPath: path), name: path)
        again.text = text
        let whole = try thumbnailer.render(again, as: type)
        #expect(encoded.data == (try ImageEncoder.encode(whole.image, as: .png, content: .document)))
        #expect(encoded.width == whole.image.width && encoded.height == whole.image.height)
        #expect(encoded.averageColour == whole.image.averageColour)
        #expect(encoded.warnings == whole.warnings)
        #expect(encoded.sourceWidth == whole.sourceWidth && encoded.sourceHeight == whole.sourceHeight)
        // IHDR's colour type (byte 25): 0 gray when every pixel is gray (text pages are), 2 RGB.
        let pixels: [UInt8] = whole.image.bytes
        var isGray = true
        for index in stride(from: 0, to: pixels.count, by: 3)
        where pixels[index] != pixels[index + 1]
            || pixels[index] != pixels[index + 2]
        {
            isGray = false
        }
        #expect(encoded.data[25] == (isGray ? 0 : 2))
        if type == .text { #expect(isGray) }
    }
}
