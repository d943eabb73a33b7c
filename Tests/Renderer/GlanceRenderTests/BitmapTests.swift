import GlanceCore
import Testing

@testable import GlanceRender

/// BMP, icons and cursors through gdk-pixbuf's loaders, Targa by Glance's reader, and Netpbm
/// (binary by Glance's reader, plain by gdk-pixbuf's): each the way up it was drawn, whatever order its rows are
/// stored in, against the picture it was made from.
@Suite("Bitmaps", .timeLimit(.minutes(10)))
struct BitmapTests {
    /// The files of a picture red above blue, by how their rows are stored.
    static let halves = [
        "bitmaps/v3.bmp", "bitmaps/os2.bmp", "bitmaps/rle8.bmp", "bitmaps/top-down.bmp", "bitmaps/bottom-first.tga",
        "bitmaps/top-first.tga", "bitmaps/rle.tga", "bitmaps/binary.ppm",
    ]

    @Test("red above blue, whichever way the rows are stored", arguments: BitmapTests.halves)
    func upright(_ path: String) throws {
        let image = try renderDocument(path: TestAssets.path(path)).thumbnail.image
        #expect(image.width == 40 && image.height == 30)
        let top = mean(image, rows: 0..<10)
        let bottom = mean(image, rows: 20..<30)
        #expect(top.r > 180 && top.b < 80, "\(path): the top is \(top)")
        #expect(bottom.b > 180 && bottom.r < 80, "\(path): the bottom is \(bottom)")
    }

    @Test("gray and 16-bit Netpbm keep their light and dark halves")
    func grayNetpbm() throws {
        for path in ["bitmaps/plain.pgm", "bitmaps/deep.pgm"] {
            let image = try renderDocument(path: TestAssets.path(path)).thumbnail.image
            let (top, bottom) = (mean(image, rows: 0..<10), mean(image, rows: 20..<30))
            // Red (220, 30, 30) is lighter than blue (30, 40, 220) in ImageMagick's gray: 70 against 51.
            #expect(top.g > bottom.g + 10, "\(path): top \(top), bottom \(bottom)")
        }
    }

    @Test(
        "binary Netpbm through Glance's reader: a PPM keeps its pixels, a PBM's padded rows are its plain twin's, a ten-bit PGM is scaled to 8 bits, a cut one fails"
    )
    func binaryNetpbm() throws {
        let (type, rendered) = try renderDocument(path: TestAssets.path("bitmaps/rgb8.ppm"))
        #expect(type == .portableAnymap)
        #expect(rendered.image == (try decodeFullSize(TestAssets.path("png/rgb8.png"))), "not rgb8.png's pixels")
        // The plain PBM is read by gdk-pixbuf's loader: the two readers agree, pixel for pixel.
        let binary = try decodeFullSize(TestAssets.path("bitmaps/odd.pbm"))
        let plain = try decodeFullSize(TestAssets.path("bitmaps/odd-plain.pbm"))
        #expect(binary.width == 37 && binary == plain)
        #expect(binary.pixel(x: 36, y: 0).r == 255 && binary.pixel(x: 36, y: 29).r == 0, "\(binary.pixel(x: 36, y: 0))")
        let tenBit = try decodeFullSize(TestAssets.path("bitmaps/tenbit.pgm"))
        for x in [0, 1, 20, 38, 39] {
            let expected = x == 39 ? 255 : Int((Double(25 * x) * 255 / 1000).rounded())
            let pixel = tenBit.pixel(x: x, y: 15)
            #expect(Int(pixel.r) == expected && pixel.r == pixel.g && pixel.g == pixel.b, "column \(x): \(pixel)")
        }
        #expect(throws: ThumbnailError.truncated(format: "Netpbm")) {
            try renderDocument(path: TestAssets.path("bitmaps/cut.ppm"))
        }
    }

    @Test(
        "Targa through Glance's reader: rows stored right pixel first, a 16-bit picture's alpha bit, alpha its TGA 2.0 extension area says is unused (gdk-pixbuf drew the last two opaque and clear), a cut run-length one"
    )
    func targa() throws {
        let mirrored = try decodeFullSize(TestAssets.path("bitmaps/right-first.tga"))
        #expect(mirrored.pixel(x: 2, y: 2) == (220, 30, 30, 255) && mirrored.pixel(x: 37, y: 27) == (30, 40, 220, 255))
        let sixteen = try decodeFullSize(TestAssets.path("bitmaps/argb1555.tga"))
        // Five bits a channel, widened: 220 is stored as 27, drawn 222.
        #expect(sixteen.hasAlpha && sixteen.pixel(x: 2, y: 2) == (222, 24, 24, 255), "\(sixteen.pixel(x: 2, y: 2))")
        #expect(sixteen.pixel(x: 32, y: 27).a == 0 && sixteen.pixel(x: 31, y: 27) == (24, 41, 222, 255))
        let unused = try decodeFullSize(TestAssets.path("bitmaps/unused-alpha.tga"))
        #expect(!unused.hasAlpha && unused.pixel(x: 2, y: 2) == (220, 30, 30, 255), "\(unused.pixel(x: 2, y: 2))")
        #expect(throws: ThumbnailError.truncated(format: "TGA")) {
            try renderDocument(path: TestAssets.path("bitmaps/cut-rle.tga"))
        }
    }

    @Test("a 32-bit BMP keeps its alpha and its pixels")
    func alpha() throws {
        let image = try renderDocument(path: TestAssets.path("bitmaps/v5-alpha.bmp")).thumbnail.image
        let reference = try decodeFullSize(TestAssets.path("png/rgba8.png"))
        #expect(image.hasAlpha && image.width == reference.width && image.height == reference.height)
        let differing = zip(image.bytes, reference.bytes).filter { $0 != $1 }.count
        #expect(image.bytes.count == reference.bytes.count && differing == 0, "\(differing) bytes differ")
    }

    @Test(
        "a 16-bit BMP keeps the alpha its header's mask names (gdk-pixbuf drew it opaque, clear pixels black), within its bits of the picture",
        arguments: [("bitmaps/argb4444.bmp", 17), ("bitmaps/argb1555.bmp", 255)])
    func sixteenBitAlpha(_ path: String, alphaStep: Int) throws {
        let image = try renderDocument(path: TestAssets.path(path)).thumbnail.image
        let reference = try decodeFullSize(TestAssets.path("png/rgba8.png"))
        #expect(image.hasAlpha && image.width == reference.width && image.height == reference.height)
        var (clear, worstAlpha) = (0, 0)
        for y in 0..<reference.height {
            for x in 0..<reference.width {
                let (expected, drawn) = (reference.pixel(x: x, y: y), image.pixel(x: x, y: y))
                if expected.a == 0 && drawn.a == 0 { clear += 1 }
                worstAlpha = max(worstAlpha, abs(Int(expected.a) - Int(drawn.a)))
            }
        }
        // rgba8.png's clear pixels (648) stay clear: drawn opaque black before.
        #expect(clear == 648, "\(path): \(clear) clear pixels")
        // ImageMagick keeps the top bits: four bits of alpha are within a step of 17 of the
        // picture's, one bit is all or nothing.
        #expect(worstAlpha <= alphaStep, "\(path): alpha off by \(worstAlpha)")
    }

    @Test("an icon's largest picture is drawn, a PNG one too; a cursor is an icon")
    func icons() throws {
        let (type, large) = try renderDocument(path: TestAssets.path("bitmaps/icon.ico"))
        #expect(type == .windowsIcon && large.image.width == 256 && large.image.height == 256 && large.image.hasAlpha)
        let (cursorType, cursor) = try renderDocument(path: TestAssets.path("bitmaps/pointer.cur"))
        let icon = try renderDocument(path: TestAssets.path("bitmaps/small.ico")).thumbnail.image
        #expect(cursorType == .windowsCursor && cursor.image == icon)
    }

    @Test("a macOS icon's largest PNG picture is drawn; the older packed picture through gdk-pixbuf, upright")
    func appleIcons() throws {
        let (type, modern) = try renderDocument(path: TestAssets.path("icns/modern.icns"))
        #expect(type == .appleIcon && modern.image.width == 256 && modern.image.height == 256 && modern.image.hasAlpha)
        let legacy = try renderDocument(path: TestAssets.path("icns/legacy.icns")).thumbnail.image
        #expect(legacy.width == 16 && legacy.height == 16)
        let (top, bottom) = (legacy.pixel(x: 8, y: 2), legacy.pixel(x: 8, y: 13))
        #expect(top.r > 200 && top.b < 60 && bottom.b > 200 && bottom.r < 60, "top \(top), bottom \(bottom)")
    }

    @Test("a PAM keeps its alpha and its pixels; a 16-bit gray one is the same picture in gray")
    func pam() throws {
        let (type, rendered) = try renderDocument(path: TestAssets.path("pam/rgba.pam"))
        #expect(type == .portableArbitraryMap)
        let reference = try decodeFullSize(TestAssets.path("png/rgba8.png"))
        #expect(rendered.image == reference, "not the PNG it was made from")
        let gray = try renderDocument(path: TestAssets.path("pam/gray16.pam")).thumbnail.image
        #expect(gray.width == 200 && gray.height == 150 && !gray.hasAlpha)
        let pixel = gray.pixel(x: 100, y: 75)
        #expect(pixel.r == pixel.g && pixel.g == pixel.b, "\(pixel)")
    }

    @Test("a QOI keeps its pixels exactly, with alpha and without")
    func qoi() throws {
        for (path, source) in [("qoi/rgba.qoi", "png/rgba8.png"), ("qoi/rgb.qoi", "png/rgb8.png")] {
            let (type, rendered) = try renderDocument(path: TestAssets.path(path))
            #expect(type == .quiteOKImage)
            #expect(rendered.image == (try decodeFullSize(TestAssets.path(source))), "\(path): not \(source)'s pixels")
        }
        #expect(throws: ThumbnailError.truncated(format: "QOI")) {
            try renderDocument(path: TestAssets.path("qoi/cut.qoi"))
        }
    }

    @Test("an XPM keeps its pixels exactly; named colours, a 16-bit colour and None are read; a cut one fails")
    func xPixmap() throws {
        let (type, rendered) = try renderDocument(path: TestAssets.path("xpm/rgb8.xpm"))
        #expect(type == .xPixmap)
        #expect(rendered.image == (try decodeFullSize(TestAssets.path("png/rgb8.png"))), "not rgb8.png's pixels")
        let icon = try decodeFullSize(TestAssets.path("xpm/named.xpm"))
        #expect(icon.width == 4 && icon.height == 3 && icon.hasAlpha)
        #expect(icon.pixel(x: 0, y: 0).a == 0 && icon.pixel(x: 2, y: 1).a == 0, "None is transparent")
        #expect(icon.pixel(x: 1, y: 0) == (211, 211, 211, 255), "light grey (two words): \(icon.pixel(x: 1, y: 0))")
        #expect(icon.pixel(x: 2, y: 0) == (255, 0, 0, 255), "#f00")
        #expect(icon.pixel(x: 3, y: 0) == (0, 0, 255, 255), "#00000000FFFF, after a g4 key")
        let gray = icon.pixel(x: 0, y: 1)
        #expect(gray.r == gray.g && gray.g == gray.b && (127...128).contains(gray.r), "gray50: \(gray)")
        #expect(icon.pixel(x: 1, y: 1) == (0, 0, 0, 255), "a colour with only a mono key")
        #expect(throws: ThumbnailError.truncated(format: "X pixmap")) {
            try renderDocument(path: TestAssets.path("xpm/cut.xpm"))
        }
    }

    @Test("an XBM is ImageMagick's reading of it, as X11 chars and as X10 shorts; a cut one fails")
    func xBitmap() throws {
        let (type, rendered) = try renderDocument(path: TestAssets.path("xpm/stripes.xbm"))
        #expect(type == .xBitmap)
        let reference = try decodeFullSize(TestAssets.path("xpm/stripes-imagemagick.png"))
        let shorts = try decodeFullSize(TestAssets.path("xpm/stripes-x10.xbm"))
        let image = rendered.image
        #expect(image.width == 37 && image.height == 21)
        var differing = 0
        for y in 0..<21 {
            for x in 0..<37 {
                let (ours, theirs, other) = (
                    image.pixel(x: x, y: y), reference.pixel(x: x, y: y), shorts.pixel(x: x, y: y)
                )
                if ours != theirs || ours != other || (ours.r != 0 && ours.r != 255) { differing += 1 }
            }
        }
        #expect(differing == 0)
        #expect(image.pixel(x: 5, y: 5).r == 0 && image.pixel(x: 4, y: 0).r == 255, "the diagonal is black")
        #expect(throws: ThumbnailError.truncated(format: "X bitmap")) {
            try renderDocument(path: TestAssets.path("xpm/cut.xbm"))
        }
    }

    @Test("a Netpbm file, an XPM or an XBM is not text, a TGA needs its name, a BMP needs a header of a known size")
    func sniffing() {
        func sniffed(_ bytes: [UInt8], _ name: String) -> SniffResult {
            ContentSniffer.sniff(prefix: bytes, isWholeFile: true, fileName: name)
        }
        #expect(sniffed(Array("P1\n# a comment\n2 2\n0 1\n1 0\n".utf8), "x.txt") == .supported(.portableAnymap))
        #expect(sniffed(Array("P3 is the plan\n".utf8), "plan.txt") == .supported(.text))
        #expect(sniffed(Array("/* XPM */\nstatic char *x[] = {\n".utf8), "x.txt") == .supported(.xPixmap))
        #expect(sniffed(Array("#define icon_width 5\n#define icon_height 5\n".utf8), "x.h") == .supported(.xBitmap))
        #expect(sniffed(Array("#define VERSION 3\n#define icon_width\n".utf8), "x.h") == .supported(.text))
        #expect(sniffed(Array("#define screen_width 640\n#define depth 8\n".utf8), "x.h") == .supported(.text))
        let targa: [UInt8] =
            [0, 0, 2] + [UInt8](repeating: 0, count: 9) + [2, 0, 2, 0, 24, 0x20] + [UInt8](repeating: 9, count: 12)
        #expect(sniffed(targa, "a.tga") == .supported(.targa))
        #expect(sniffed(targa, "a.bin") != .supported(.targa))
        var bmp = [UInt8](repeating: 0, count: 64)
        bmp[0] = 0x42
        bmp[1] = 0x4D
        bmp[14] = 40
        #expect(sniffed(bmp, "a.dat") == .supported(.bmp))
        bmp[14] = 41
        #expect(sniffed(bmp, "a.dat") != .supported(.bmp))
    }

    /// The mean colour of `rows` of `image`.
    private func mean(_ image: PixelBuffer, rows: Range<Int>) -> (r: Double, g: Double, b: Double) {
        let stride = image.width * image.channels
        let band = PixelBuffer(
            width: image.width, height: rows.count, channels: image.channels,
            bytes: Array(image.bytes[(rows.lowerBound * stride)..<(rows.upperBound * stride)]))
        return PixelStatistics.meanColour(band)
    }
}
