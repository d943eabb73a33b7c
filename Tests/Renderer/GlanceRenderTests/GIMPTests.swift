import GlanceCore
import Testing

@testable import GlanceRender

/// GIMP's own files, their visible layers composed by Glance's reader (XCFDecoder), against
/// ImageMagick's reading of the files it reads (versions 0 to 3, stored or run-length encoded)
/// and the composition TestAssets/generate.py does for the others.
@Suite("GIMP images")
struct GIMPTests {
    @Test(
        "layers composed at their offsets, opacities and masks, in every version's layout and compression; hidden layers and groups left out",
        arguments: [
            ("paintings/layers.xcf", "paintings/layers-xcf.png", 1),
            ("paintings/layers-zlib.xcf", "paintings/layers-zlib-xcf.png", 0),
            ("paintings/gray.xcf", "paintings/gray-xcf.png", 0),
            ("paintings/masked.xcf", "paintings/masked-xcf.png", 0),
        ])
    func composed(_ path: String, reference: String, tolerance: Int) throws {
        let (type, rendered) = try renderDocument(path: TestAssets.path(path))
        #expect(type == .gimpImage)
        let expected = try decodeFullSize(TestAssets.path(reference))
        let (worst, compared) = PixelStatistics.worstDifference(rendered.image, expected)
        #expect(compared == 200 * 150 && worst <= tolerance, "\(path): worst \(worst) over \(compared)")
    }

    @Test("an indexed image's pixels are its colour map's colours")
    func indexed() throws {
        let (_, rendered) = try renderDocument(path: TestAssets.path("paintings/indexed.xcf"))
        let image = rendered.image
        #expect(!image.hasAlpha)
        #expect(image.pixel(x: 10, y: 10) == (0, 0, 0, 255))
        #expect(image.pixel(x: 60, y: 10) == (255, 255, 255, 255))
        #expect(image.pixel(x: 110, y: 10) == (255, 0, 0, 255))
        #expect(image.pixel(x: 160, y: 10) == (0, 0, 255, 255))
        #expect(image.pixel(x: 10, y: 80) == (255, 255, 255, 255))
    }

    @Test("16-bit images are refused, a cut file is truncated, an absurd canvas is held to the pixel limit")
    func hostile() throws {
        #expect(
            throws: ThumbnailError.unsupportedEncoding(
                format: "GIMP image", detail: "precision 250 (only images of 8-bit integers are drawn)")
        ) { try renderDocument(path: TestAssets.path("paintings/deep.xcf")) }
        #expect(throws: ThumbnailError.truncated(format: "GIMP image")) {
            try renderDocument(path: TestAssets.path("paintings/cut.xcf"))
        }
        #expect {
            try renderDocument(path: TestAssets.path("paintings/huge.xcf"))
        } throws: { error in
            (error as? ThumbnailError)?.description.contains("100-megapixel limit") == true
        }
    }
}
