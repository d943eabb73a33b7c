import Foundation
import GlanceCore
import Testing

@testable import GlanceRender

/// PCX, SGI, Sun raster, X window dump, DDS and FITS pictures, through Glance's own readers: each exactly
/// the pixels it was made from (ImageMagick's files, a block-compressed DDS as ImageMagick reads
/// it, BC7 as Pillow reads it, and the layouts encoded by TestAssets/generate.py; netpbm's
/// pcxtoppm, sgitopnm and rasttopnm read the latter the same), whatever their name says.
@Suite("PCX and DCX, SGI, Sun raster, X window dumps, DDS textures and FITS")
struct OldRasterTests {
    /// Each file, the type it must be sniffed as, and the picture it holds.
    static let cases: [(String, ContentType, String)] = [
        ("rasters/rgb.pcx", .pcx, "png/rgb8.png"), ("rasters/rgba.pcx", .pcx, "png/rgba8.png"),
        ("rasters/palette.pcx", .pcx, "rasters/palette.ras"), ("rasters/mono.pcx", .pcx, "rasters/mono.png"),
        ("rasters/ega.pcx", .pcx, "rasters/sixteen.png"),
        ("rasters/pages.dcx", .dcx, "rasters/palette.ras"),
        ("rasters/rgb.sgi", .sgiImage, "png/rgb8.png"), ("rasters/rgba.sgi", .sgiImage, "png/rgba8.png"),
        ("rasters/deep.sgi", .sgiImage, "rasters/deep.png"),
        ("rasters/rgb.ras", .sunRaster, "png/rgb8.png"), ("rasters/rgba.ras", .sunRaster, "png/rgba8.png"),
        ("rasters/rle.ras", .sunRaster, "png/rgb8.png"), ("rasters/mono.ras", .sunRaster, "rasters/mono.png"),
        ("rasters/rgb.xwd", .xWindowDump, "png/rgb8.png"),
        ("rasters/bc1.dds", .directDrawSurface, "rasters/bc1-dds.png"),
        ("rasters/bc2.dds", .directDrawSurface, "rasters/bc2-dds.png"),
        ("rasters/bc3.dds", .directDrawSurface, "rasters/bc3-dds.png"),
        ("rasters/dx10.dds", .directDrawSurface, "rasters/bc3-dds.png"),
        ("rasters/bc7.dds", .directDrawSurface, "rasters/bc7-dds.png"),
        ("rasters/bc7-modes.dds", .directDrawSurface, "rasters/bc7-modes-dds.png"),
        ("rasters/plain.dds", .directDrawSurface, "png/rgba8.png"),
        ("rasters/rgb.fits", .fits, "png/rgb8.png"), ("rasters/mono.wbmp", .wirelessBitmap, "rasters/mono.png"),
    ]

    @Test("each layout comes out as the pixels it was made from", arguments: OldRasterTests.cases)
    func pixels(_ path: String, type: ContentType, source: String) throws {
        let (sniffed, rendered) = try renderDocument(path: TestAssets.path(path))
        #expect(sniffed == type)
        let reference = try decodeFullSize(TestAssets.path(source))
        #expect(rendered.image.hasAlpha == reference.hasAlpha, "\(path)")
        #expect(rendered.image == reference, "\(path): not \(source)'s pixels")
    }

    @Test(
        "a DCX's first page is drawn from its own bytes (pixels above); its second for page 2, as that PCX alone; the details count the pages and give their sizes; page 3 is out of range"
    )
    func dcxPages() throws {
        let (_, rendered) = try renderDocument(path: TestAssets.path("rasters/pages.dcx"))
        #expect(rendered.warnings == ["page 1 of 2 drawn"])
        #expect(rendered.details?.pageCount == 2)
        #expect(rendered.details?.pageSizes?.map { [$0.width, $0.height, Double($0.count)] } == [[200, 150, 2]])
        let second = try renderDocument(path: TestAssets.path("rasters/pages.dcx"), page: 2).thumbnail
        #expect(second.warnings == ["page 2 of 2 drawn"])
        #expect(second.image == (try decodeFullSize(TestAssets.path("rasters/mono.pcx"))))
        #expect(throws: ThumbnailError.pageOutOfRange(page: 3, pageCount: 2)) {
            try renderDocument(path: TestAssets.path("rasters/pages.dcx"), page: 3)
        }
    }

    @Test(
        "an X window dump's colour map of 16-bit components is rounded to 8 bits: within 1 of ImageMagick, which truncates"
    )
    func xWindowDumpMap() throws {
        let (type, rendered) = try renderDocument(path: TestAssets.path("rasters/palette.xwd"))
        #expect(type == .xWindowDump)
        let reference = try decodeFullSize(TestAssets.path("rasters/palette-xwd.png"))
        let (worst, compared) = PixelStatistics.worstDifference(rendered.image, reference)
        #expect(compared == 200 * 150 && worst == 1, "worst \(worst) over \(compared)")
    }

    @Test(
        "BC4 is drawn gray and BC5 red and green, each within a level of Pillow's reading; BC5's blue is the normal's z"
    )
    func bc4AndBC5() throws {
        for name in ["bc4", "bc5"] {
            let (type, rendered) = try renderDocument(path: TestAssets.path("rasters/\(name).dds"))
            #expect(type == .directDrawSurface)
            let image = rendered.image
            let reference = try decodeFullSize(TestAssets.path("rasters/\(name)-dds.png"))
            #expect(!image.hasAlpha && image.width == 200 && image.height == 150)
            var worst = 0
            for y in 0..<150 {
                for x in 0..<200 {
                    let (got, want) = (image.pixel(x: x, y: y), reference.pixel(x: x, y: y))
                    worst = max(worst, abs(Int(got.r) - Int(want.r)), abs(Int(got.g) - Int(want.g)))
                    if name == "bc4" {
                        #expect(got.g == got.r && got.b == got.r)
                    } else {
                        // Pillow leaves blue 0; here it is z of the unit normal (x, y, z).
                        let (nx, ny) = (Double(got.r) / 127.5 - 1, Double(got.g) / 127.5 - 1)
                        let z = max(0, 1 - nx * nx - ny * ny).squareRoot()
                        #expect(abs(Int(got.b) - Int((z + 1) * 127.5 + 0.5)) <= 1, "(\(x), \(y))")
                    }
                }
            }
            #expect(worst <= 1, "\(name): worst difference \(worst)")
        }
    }

    @Test("a BC7 block of no mode is transparent black")
    func bc7Reserved() throws {
        let image = try decodeFullSize(TestAssets.path("rasters/bc7-reserved.dds"))
        #expect(image.width == 4 && image.height == 4 && image.hasAlpha)
        for y in 0..<4 {
            for x in 0..<4 { #expect(image.pixel(x: x, y: y) == (0, 0, 0, 0)) }
        }
    }

    @Test(
        "a channel mask with a gap in its ones is read as its lowest run, whatever the pixel's other bits (fuzz-bitmap trapped)"
    )
    func gappedMask() {
        let gapped = ChannelMask(0x00FF_00FF)
        #expect(gapped.value(in: 0x00FF_0000, absent: 7) == 0)
        #expect(gapped.value(in: 0x7FFF_FF80, absent: 7) == 0x80)
        #expect(ChannelMask(0x0000_0F00).value(in: 0xFFFF_FFFF, absent: 7) == 255)
        #expect(ChannelMask(0).value(in: 0xFFFF_FFFF, absent: 7) == 7)
    }

    @Test("a BC1 block of three colours and a clear one: the middle is the ends' mean, the fourth transparent")
    func bc1Alpha() throws {
        let image = try decodeFullSize(TestAssets.path("rasters/bc1-alpha.dds"))
        #expect(image.width == 4 && image.height == 4 && image.hasAlpha)
        #expect(image.pixel(x: 0, y: 0) == (0, 0, 0, 255))
        #expect(image.pixel(x: 1, y: 0) == (255, 255, 255, 255))
        #expect(image.pixel(x: 2, y: 0) == (127, 127, 127, 255))
        #expect(image.pixel(x: 3, y: 0).a == 0)
        #expect(image.pixel(x: 0, y: 3) == (255, 255, 255, 255))
    }

    @Test(
        "a 16-bit FITS star field is stretched: its background at about a quarter, its stars white, its first rows at the bottom"
    )
    func fitsStretch() throws {
        let (type, rendered) = try renderDocument(path: TestAssets.path("rasters/stars.fits"))
        #expect(type == .fits)
        let image = rendered.image
        #expect(image.width == 160 && image.height == 120)
        // Drawn linearly, the background (1200 of 0 to 60000) would be 5 of 255.
        let background = (10..<100).flatMap { y in
            stride(from: 5, to: 155, by: 7).map { x in Int(image.pixel(x: x, y: y).g) }
        }
        .sorted()[900]
        #expect((52...76).contains(background), "background \(background)")
        #expect(image.pixel(x: 20, y: 119 - 30) == (255, 255, 255, 255), "a star")
        #expect(image.pixel(x: 50, y: 119).g == 255 && image.pixel(x: 50, y: 0).g < 200, "rows go up from the bottom")
    }

    @Test(
        "a float FITS stored top-down is drawn from DATAMIN to DATAMAX after its BZERO (a FORTRAN number); an RGGB mosaic is colour at half the size"
    )
    func fitsLinearAndMosaic() throws {
        let gradient = try decodeFullSize(TestAssets.path("rasters/gradient.fits"))
        #expect(gradient.pixel(x: 0, y: 60).g <= 2 && gradient.pixel(x: 159, y: 60).g >= 253)
        let middle = Int(gradient.pixel(x: 80, y: 60).g)
        #expect((122...134).contains(middle), "linear, not stretched: \(middle)")
        #expect(gradient.pixel(x: 0, y: 0).g == 255, "the first stored rows on top")
        let mosaic = try decodeFullSize(TestAssets.path("rasters/mosaic.fits"))
        #expect(mosaic.width == 80 && mosaic.height == 60)
        #expect(mosaic.pixel(x: 10, y: 30) == (255, 0, 0, 255) && mosaic.pixel(x: 70, y: 30) == (0, 0, 255, 255))
        #expect(
            throws: ThumbnailError.unsupportedEncoding(
                format: "FITS", detail: "no image in its primary header (its extensions are not drawn)")
        ) { try renderDocument(path: TestAssets.path("rasters/table.fits")) }
    }

    @Test("a WBMP has no signature: its bytes under another name are not taken for one")
    func wirelessBitmapNeedsItsName() throws {
        let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: TestAssets.path("rasters/mono.wbmp"))))
        let (folder, copy) = try FormatFamilyTests.file(bytes, named: "mono.bin")
        defer { try? FileManager.default.removeItem(at: folder) }
        #expect(throws: ThumbnailError.self) { try renderDocument(path: copy) }
    }

    @Test("an uncompressed DDS whose rows are padded is read by the header's pitch")
    func ddsPitch() throws {
        let image = try decodeFullSize(TestAssets.path("rasters/padded.dds"))
        #expect(image.width == 3 && image.height == 2 && !image.hasAlpha)
        #expect(image.pixel(x: 0, y: 0) == (255, 0, 0, 255) && image.pixel(x: 2, y: 0) == (0, 0, 255, 255))
        #expect(image.pixel(x: 0, y: 1) == (255, 255, 255, 255) && image.pixel(x: 2, y: 1) == (128, 128, 128, 255))
    }

    @Test("a gray SGI is gray, and holds the picture")
    func gray() throws {
        let gray = try decodeFullSize(TestAssets.path("rasters/gray.sgi"))
        #expect(gray.width == 200 && gray.height == 150 && !gray.hasAlpha)
        for (x, y) in [(10, 10), (100, 75), (190, 140)] {
            let pixel = gray.pixel(x: x, y: y)
            #expect(pixel.r == pixel.g && pixel.g == pixel.b, "\(pixel)")
        }
        // Not a blank: the gradient of rgb8.png is there.
        #expect(gray.pixel(x: 5, y: 5) != gray.pixel(x: 195, y: 145))
    }

    @Test("the content decides, not the name: a PCX named .ras, an SGI named .pcx, an XWD named .txt")
    func sniffedByContent() throws {
        for (path, name, type) in [
            ("rasters/rgb.pcx", "misnamed.ras", ContentType.pcx), ("rasters/rgb.sgi", "misnamed.pcx", .sgiImage),
            ("rasters/rgb.ras", "misnamed.sgi", .sunRaster), ("rasters/rgb.xwd", "misnamed.txt", .xWindowDump),
        ] {
            let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: TestAssets.path(path))))
            let (folder, copy) = try FormatFamilyTests.file(bytes, named: name)
            defer { try? FileManager.default.removeItem(at: folder) }
            #expect(try renderDocument(path: copy).type == type, "\(name)")
        }
    }

    @Test(
        "a cut file fails as truncated, a DCX without pages or with one outside it as corrupt, a BC6H or signed BC5 texture as not drawn; a header of 65535x65535 pixels is refused before a row is decoded"
    )
    func hostile() throws {
        for (path, format) in [
            ("rasters/cut.pcx", "PCX"), ("rasters/cut.sgi", "SGI image"), ("rasters/cut.ras", "Sun raster"),
            ("rasters/cut.xwd", "X window dump"), ("rasters/cut.dds", "DDS texture"), ("rasters/cut.fits", "FITS"),
            ("rasters/cut.wbmp", "WBMP"),
        ] {
            #expect(throws: ThumbnailError.truncated(format: format), "\(path)") {
                try renderDocument(path: TestAssets.path(path))
            }
        }
        for (path, detail) in [
            ("rasters/no-pages.dcx", "it holds no page"),
            ("rasters/page-past-end.dcx", "a page's offset lies outside the file's pages"),
        ] {
            #expect(throws: ThumbnailError.corrupt(format: "DCX", detail: detail), "\(path)") {
                try renderDocument(path: TestAssets.path(path))
            }
        }
        let refused = "(signed BC4 and BC5, BC6H and floating point are not drawn)"
        for (path, code) in [("rasters/bc6h.dds", "DXGI format 95"), ("rasters/bc5-signed.dds", "BC5S")] {
            #expect(
                throws: ThumbnailError.unsupportedEncoding(format: "DDS texture", detail: "\(code) \(refused)")
            ) { try renderDocument(path: TestAssets.path(path)) }
        }
        for path in [
            "rasters/huge.pcx", "rasters/huge.sgi", "rasters/huge.ras", "rasters/huge.xwd", "rasters/huge.dds",
            "rasters/huge.fits",
        ] {
            #expect(throws: ThumbnailError.self, "\(path)") { try renderDocument(path: TestAssets.path(path)) }
            do {
                _ = try renderDocument(path: TestAssets.path(path))
            } catch {
                guard case .tooLarge(let width, let height, _, _) = error else {
                    Issue.record("\(path): \(error)")
                    continue
                }
                #expect(width == 65535 && height == 65535)
            }
        }
    }
}
