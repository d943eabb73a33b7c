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
            ("paintings/layers.xcf.gz", "paintings/layers-zlib-xcf.png", 0),
            ("paintings/layers.xcf.bz2", "paintings/layers-zlib-xcf.png", 0),
            ("paintings/layers.xcf.xz", "paintings/layers-zlib-xcf.png", 0),
        ])
    func composed(_ path: String, reference: String, tolerance: Int) throws {
        try expectComposed(path, reference: reference, tolerance: tolerance)
    }

    @Test(
        "deeper precisions are drawn as the same picture in 8 bits: 16-bit integers, floats, halves (a mask's too), doubles, and linear 8-bit values on the sRGB curve",
        arguments: [
            ("paintings/deep16.xcf", "paintings/layers-xcf.png", 1),
            ("paintings/float-linear.xcf", "paintings/layers-xcf.png", 1),
            ("paintings/half-linear.xcf", "paintings/masked-xcf.png", 1),
            ("paintings/double-gray.xcf", "paintings/gray-xcf.png", 0),
            ("paintings/linear8.xcf", "paintings/linear8-xcf.png", 1),
        ])
    func precisions(_ path: String, reference: String, tolerance: Int) throws {
        try expectComposed(path, reference: reference, tolerance: tolerance)
    }

    private func expectComposed(_ path: String, reference: String, tolerance: Int) throws {
        let (type, rendered) = try renderDocument(path: TestAssets.path(path))
        #expect(type == .gimpImage)
        let expected = try decodeFullSize(TestAssets.path(reference))
        let (worst, compared) = PixelStatistics.worstDifference(rendered.image, expected)
        #expect(compared == 200 * 150 && worst <= tolerance, "\(path): worst \(worst) over \(compared)")
    }

    @Test(
        "layers in multiply, screen, overlay, difference, darken, lighten and hard light mix with what is below as ImageMagick's operators of those names do; a hue layer is drawn as normal, said in a warning"
    )
    func modes() throws {
        let (_, rendered) = try renderDocument(path: TestAssets.path("paintings/modes.xcf"))
        let expected = try decodeFullSize(TestAssets.path("paintings/modes-xcf.png"))
        let (worst, compared) = PixelStatistics.worstDifference(rendered.image, expected)
        #expect(compared == 200 * 150 && worst <= 1, "worst \(worst) over \(compared)")
        #expect(rendered.warnings.count == 1 && rendered.warnings[0].hasSuffix("are drawn as normal ones"))
    }

    @Test("GIMP's mode numbers, legacy and 2.10, name their blends; normal and pass-through are drawn, hue is not")
    func modeNumbers() {
        #expect(XCFBlend(mode: 3) == .multiply && XCFBlend(mode: 30) == .multiply)
        #expect(XCFBlend(mode: 5) == .softLight && XCFBlend(mode: 23) == .overlay)
        #expect(XCFBlend(mode: 0) == nil && XCFBlend(mode: 28) == nil && XCFBlend(mode: 37) == nil)
        #expect(XCFBlend.isDrawn(mode: 61) && XCFBlend.isDrawn(mode: 52) && !XCFBlend.isDrawn(mode: 11))
        #expect(XCFBlend.multiply.mix(128, 128) == 64 && XCFBlend.screen.mix(128, 128) == 192)
        #expect(XCFBlend.addition.mix(200, 100) == 255 && XCFBlend.subtract.mix(100, 200) == 0)
        #expect(XCFBlend.darkenOnly.mix(100, 160) == 100 && XCFBlend.hardMix.mix(100, 160) == 255)
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

    @Test(
        "a compressed GIMP file is told by its decompressed start; a bzip2 one, whose start comes only with its whole first block, by its name"
    )
    func compressedSniffing() throws {
        for name in ["layers.xcf.gz", "layers.xcf.xz"] {
            let start = Array(try TestAssets.readBytes(TestAssets.path("paintings/" + name)).prefix(4096))
            let result = ContentSniffer.sniff(prefix: start, isWholeFile: false, fileName: "no-name.bin")
            #expect(result == .supported(.gimpImage), "\(name)")
        }
        let bzip2 = Array(try TestAssets.readBytes(TestAssets.path("paintings/layers.xcf.bz2")).prefix(4096))
        for (name, expected) in [
            ("scan.xcf.bz2", true), ("scan.XCFBZ2", true), ("scan.bz2", false), ("scan.tar.bz2", false),
        ] {
            let result = ContentSniffer.sniff(prefix: bzip2, isWholeFile: false, fileName: name)
            #expect((result == .supported(.gimpImage)) == expected, "\(name): \(result)")
        }
    }

    @Test(
        "each version's precision codes name their precision; values outside 0 to 1 are clipped, not-a-number drawn as 0"
    )
    func precisionCodes() throws {
        let codes: [(Int, Int, String?)] = [
            (3, 7, "8-bit integers, sRGB-encoded"),
            (4, 0, "8-bit integers, sRGB-encoded"), (4, 1, "16-bit integers, sRGB-encoded"),
            (4, 4, "32-bit floating point, linear"), (4, 100, nil),
            (6, 100, "8-bit integers, linear"), (6, 450, "16-bit floating point, sRGB-encoded"), (6, 600, nil),
            (11, 175, "8-bit integers, sRGB-encoded"), (11, 300, "32-bit integers, linear"),
            (11, 500, "16-bit floating point, linear"), (11, 775, "64-bit floating point, sRGB-encoded"),
            (11, 400, nil), (11, 625, nil),
        ]
        for (version, code, expected) in codes {
            #expect(XCFPrecision(code: code, version: version)?.description == expected, "\(version), \(code)")
        }
        // Four gray pixels with alpha in linear 32-bit floats: NaN, infinity, -1 and 2 in colour,
        // 0.5 in alpha.
        let float = try #require(XCFPrecision(code: 600, version: 11))
        let values: [Float] = [.nan, 0.5, .infinity, 0.5, -1, 0.5, 2, 0.5]
        let bytes = values.flatMap { value in withUnsafeBytes(of: value.bitPattern.bigEndian) { Array($0) } }
        var table = [UInt8](repeating: 0, count: 65536)
        for index in table.indices { table[index] = UInt8(index >> 8) }
        #expect(
            float.eightBit(bytes, components: 2, hasAlpha: true, table: table) == [0, 128, 255, 128, 0, 128, 255, 128])
    }

    @Test(
        "an unknown precision and a layer not of its precision's size are refused, a cut file is truncated or does not decompress, a compressed one that decompresses past its limit is refused, an absurd canvas is held to the pixel limit"
    )
    func hostile() throws {
        #expect(
            throws: ThumbnailError.unsupportedEncoding(
                format: "GIMP image", detail: "a precision Glance does not know (400)")
        ) { try renderDocument(path: TestAssets.path("paintings/unknown-precision.xcf")) }
        #expect(
            throws: ThumbnailError.unsupportedEncoding(
                format: "GIMP image", detail: "3 bytes a pixel in a layer of 16-bit integers, sRGB-encoded")
        ) { try renderDocument(path: TestAssets.path("paintings/deep-mismatch.xcf")) }
        #expect(throws: ThumbnailError.truncated(format: "GIMP image")) {
            try renderDocument(path: TestAssets.path("paintings/cut.xcf"))
        }
        #expect(throws: ThumbnailError.corrupt(format: "compressed GIMP image", detail: "it does not decompress")) {
            try renderDocument(path: TestAssets.path("paintings/cut.xcf.gz"))
        }
        #expect(throws: ThumbnailError.needsTooMuchMemory(format: "compressed GIMP image", limitMegabytes: 512)) {
            try renderDocument(path: TestAssets.path("paintings/bomb.xcf.bz2"))
        }
        #expect {
            try renderDocument(path: TestAssets.path("paintings/huge.xcf"))
        } throws: { error in
            (error as? ThumbnailError)?.description.contains("100-megapixel limit") == true
        }
    }
}
