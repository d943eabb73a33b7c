import GlanceCore

extension FormatFamily {
    /// Windows and OS/2 bitmaps, drawn by ``RasterPipeline`` over ``PixbufDecoder`` (gdk-pixbuf's
    /// BMP loader alone), sniffed by their header.
    public static let bitmaps = raster(
        "bitmap", types: [.bmp], decoder: PixbufDecoder.self,
        rules: [SniffRule(priority: 140) { BitmapHeaders.isBMP($0.prefix) ? .bmp : nil }])

    /// Targa images (``TargaDecoder``): Targa has no signature, so its header must be plausible
    /// and its name must say so.
    public static let targa = raster(
        "Targa", types: [.targa], decoder: TargaDecoder.self,
        rules: [SniffRule(priority: 430) { $0.named == .targa && BitmapHeaders.isTarga($0.prefix) ? .targa : nil }])

    /// Netpbm's pictures: PBM, PGM and PPM (`P1` to `P6`), and PAM (`P7`) (``NetpbmDecoder``).
    public static let netpbm = raster(
        "Netpbm", types: [.portableAnymap, .portableArbitraryMap], decoder: NetpbmDecoder.self,
        rules: [
            SniffRule(priority: 160) { BitmapHeaders.isNetpbm($0.prefix) ? .portableAnymap : nil },
            .signature(Array("P7\n".utf8), priority: 165, type: .portableArbitraryMap),
        ])

    /// QOI images: `qoif` (``QOIDecoder``).
    public static let qoi = raster(
        "QOI", types: [.quiteOKImage], decoder: QOIDecoder.self,
        rules: [.signature(Array("qoif".utf8), priority: 170, type: .quiteOKImage)])

    /// ZSoft PCX pictures: `0A` and a plausible header (``PCXDecoder``).
    public static let pcx = raster(
        "PCX", types: [.pcx], decoder: PCXDecoder.self,
        rules: [SniffRule(priority: 435) { PCXDecoder.matches($0.prefix) ? .pcx : nil }])

    /// ZSoft's multi-page PCX: its magic number (``DCXDecoder``), the first page the thumbnail,
    /// each page in the preview.
    public static let dcx = raster(
        "DCX", types: [.dcx], decoder: DCXDecoder.self,
        rules: [.signature(DCXDecoder.signature, priority: 177, type: .dcx)], capabilities: [.pages])

    /// Silicon Graphics images: the magic number 474 and a plausible header (``SGIDecoder``).
    public static let sgi = raster(
        "SGI image", types: [.sgiImage], decoder: SGIDecoder.self,
        rules: [SniffRule(priority: 179) { SGIDecoder.matches($0.prefix) ? .sgiImage : nil }])

    /// Sun raster pictures: `59 A6 6A 95` (``SunRasterDecoder``).
    public static let sunRaster = raster(
        "Sun raster", types: [.sunRaster], decoder: SunRasterDecoder.self,
        rules: [.signature(SunRasterDecoder.signature, priority: 174, type: .sunRaster)])

    /// X window dumps: version 7 in a plausible header (``XWindowDumpDecoder``); before the
    /// text rule, and after every format with a signature of its own.
    public static let xWindowDumps = raster(
        "X window dump", types: [.xWindowDump], decoder: XWindowDumpDecoder.self,
        rules: [SniffRule(priority: 436) { XWindowDumpDecoder.matches($0.prefix) ? .xWindowDump : nil }])

    /// DirectDraw surfaces: `DDS ` (``DirectDrawSurfaceDecoder``).
    public static let directDrawSurfaces = raster(
        "DDS texture", types: [.directDrawSurface], decoder: DirectDrawSurfaceDecoder.self,
        rules: [.signature(DirectDrawSurfaceDecoder.signature, priority: 173, type: .directDrawSurface)])

    /// FITS images: `SIMPLE  =` and `T` (``FITSDecoder``); before the text rule, which would
    /// draw their header's cards.
    public static let fits = raster(
        "FITS", types: [.fits], decoder: FITSDecoder.self,
        rules: [SniffRule(priority: 171) { FITSDecoder.matches($0.prefix) ? .fits : nil }])

    /// Wireless bitmaps: no signature, so a `.wbmp` name and a type 0 header whose length the
    /// file holds (``WirelessBitmapDecoder``).
    public static let wirelessBitmaps = raster(
        "WBMP", types: [.wirelessBitmap], decoder: WirelessBitmapDecoder.self,
        rules: [
            SniffRule(priority: 431) {
                $0.named == .wirelessBitmap && WirelessBitmapDecoder.dimensions($0.prefix) != nil
                    ? .wirelessBitmap : nil
            }
        ])

    /// Radiance HDR pictures: `#?RADIANCE` or `#?RGBE` (``RadianceDecoder``).
    public static let radiance = raster(
        "Radiance HDR", types: [.radianceHDR], decoder: RadianceDecoder.self,
        rules: RadianceDecoder.signatures.map { .signature($0, priority: 172, type: .radianceHDR) })

    /// X11's pixmaps and bitmaps: C source, told by XPM's opening comment and XBM's first
    /// `#define` of a width (before the text rule, which would draw their source);
    /// ``XPixmapDecoder`` and ``XBitmapDecoder``.
    public static let xPixmaps = raster(
        "X pixmap", types: [.xPixmap], decoder: XPixmapDecoder.self,
        rules: [.signature(XPixmapDecoder.signature, priority: 175, type: .xPixmap)])
    public static let xBitmaps = raster(
        "X bitmap", types: [.xBitmap], decoder: XBitmapDecoder.self,
        rules: [SniffRule(priority: 176) { XBitmapDecoder.matches($0.prefix) ? .xBitmap : nil }])

    /// macOS icon files: `icns` and their length, the largest picture drawn (``AppleIconDecoder``).
    public static let appleIcons = raster(
        "macOS icon", types: [.appleIcon], decoder: AppleIconDecoder.self,
        rules: [
            SniffRule(priority: 155) {
                $0.prefix.starts(with: Array("icns".utf8)) && $0.prefix.count >= 8 ? .appleIcon : nil
            }
        ])

    /// Windows icons and cursors: a directory of pictures, the largest drawn (``IconDecoder``).
    public static let icons = raster(
        "icon", types: [.windowsIcon, .windowsCursor], decoder: IconDecoder.self,
        rules: [SniffRule(priority: 150) { BitmapHeaders.iconType(of: $0.prefix) }])
}

/// What the bitmap formats' headers must look like to be taken as theirs.
enum BitmapHeaders {
    /// `BM`, then a bitmap header of one of the sizes Windows and OS/2 wrote (12: OS/2 1.x; 16 and
    /// 64: OS/2 2.x; 40, 52, 56, 108, 124: Windows 3 to 5).
    static func isBMP(_ prefix: [UInt8]) -> Bool {
        guard prefix.count >= 18, prefix[0] == 0x42, prefix[1] == 0x4D else { return false }
        return [12, 16, 40, 52, 56, 64, 108, 124].contains(prefix.littleEndian(at: 14, count: 4))
    }

    /// An icon (type 1) or a cursor (type 2): a directory of at least one entry whose picture
    /// starts after the directory.
    static func iconType(of prefix: [UInt8]) -> ContentType? {
        guard prefix.count >= 22, prefix[0] == 0, prefix[1] == 0, prefix[3] == 0, prefix[2] == 1 || prefix[2] == 2
        else { return nil }
        let count = Int(prefix[4]) | Int(prefix[5]) << 8
        guard count > 0, prefix.littleEndian(at: 18, count: 4) >= 6 + 16 * count else { return nil }
        return prefix[2] == 1 ? .windowsIcon : .windowsCursor
    }

    /// `P1` to `P6`, then the width and the height (and for gray and colour, the largest
    /// sample), as decimal numbers between whitespace and comments.
    static func isNetpbm(_ prefix: [UInt8]) -> Bool { netpbmHeader(prefix) != nil }

    /// A Netpbm header's kind (`1` to `6`), its numbers (width, height, and the largest sample but
    /// for bitmaps), and where its samples start (after the one whitespace byte that ends it).
    static func netpbmHeader(_ bytes: [UInt8]) -> (kind: Int, numbers: [Int], end: Int)? {
        guard bytes.count >= 3, bytes[0] == UInt8(ascii: "P"),
            (UInt8(ascii: "1")...UInt8(ascii: "6")).contains(bytes[1])
        else { return nil }
        let kind = Int(bytes[1] - UInt8(ascii: "0"))
        var index = 2
        var numbers: [Int] = []
        while numbers.count < (kind == 1 || kind == 4 ? 2 : 3) {
            guard index < bytes.count, isSpace(bytes[index]) || bytes[index] == UInt8(ascii: "#") else { return nil }
            skipSpaceAndComments(bytes, &index)
            let start = index
            while index < bytes.count, isDigit(bytes[index]) { index += 1 }
            guard index > start, index - start <= 9 else { return nil }
            numbers.append(bytes[start..<index].reduce(0) { $0 * 10 + Int($1 - UInt8(ascii: "0")) })
        }
        guard index < bytes.count, isSpace(bytes[index]) else { return nil }
        return (kind, numbers, index + 1)
    }

    /// Whether `data`, a whole file of `type`, holds every sample its header promises: gdk-pixbuf's
    /// BMP and plain Netpbm loaders draw what a cut file holds and say nothing. Nil where it cannot be
    /// told from the header (a compressed bitmap without its compressed size).
    static func isWhole(_ data: [UInt8], as type: ContentType) -> Bool? {
        if type == .bmp { return bmpLength(data).map { data.count >= $0 } }
        // Netpbm's plain kinds only: the binary ones are read by BinaryNetpbmDecoder, which finds
        // a cut file itself.
        guard type == .portableAnymap, let header = netpbmHeader(data), header.kind <= 3 else { return nil }
        let (width, height) = (header.numbers[0], header.numbers[1])
        let channels = header.kind == 3 ? 3 : 1
        // A bitmap's samples are single digits, which may touch; the others' are numbers.
        var (index, samples) = (header.end - 1, 0)
        while samples < width * height * channels {
            skipSpaceAndComments(data, &index)
            guard index < data.count, isDigit(data[index]) else { return false }
            if header.kind == 1 {
                index += 1
            } else {
                while index < data.count, isDigit(data[index]) { index += 1 }
            }
            samples += 1
        }
        return true
    }

    /// The length a bitmap's header promises: where its pixels start, plus their length (an
    /// uncompressed one's from its size and depth, a compressed one's as its header gives it).
    private static func bmpLength(_ data: [UInt8]) -> Int? {
        guard data.count >= 26 else { return nil }
        let offset = data.littleEndian(at: 10, count: 4)
        let headerSize = data.littleEndian(at: 14, count: 4)
        if headerSize == 12 {
            let (width, height, depth) = (
                data.littleEndian(at: 18, count: 2), data.littleEndian(at: 20, count: 2),
                data.littleEndian(at: 24, count: 2)
            )
            return offset + (width * depth + 31) / 32 * 4 * height
        }
        guard data.count >= 38 else { return nil }
        let width = data.littleEndian(at: 18, count: 4)
        let height = abs(Int(Int32(truncatingIfNeeded: data.littleEndian(at: 22, count: 4))))
        let (depth, compression) = (data.littleEndian(at: 28, count: 2), data.littleEndian(at: 30, count: 4))
        switch compression {
        case 0, 3, 6: return offset + (width * depth + 31) / 32 * 4 * height
        default:
            let stored = data.littleEndian(at: 34, count: 4)
            return stored > 0 ? offset + stored : nil
        }
    }

    private static func skipSpaceAndComments(_ bytes: [UInt8], _ index: inout Int) {
        while index < bytes.count, isSpace(bytes[index]) || bytes[index] == UInt8(ascii: "#") {
            if bytes[index] == UInt8(ascii: "#") {
                while index < bytes.count, bytes[index] != 0x0A { index += 1 }
            } else {
                index += 1
            }
        }
    }

    private static func isDigit(_ byte: UInt8) -> Bool { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) }

    /// A Targa header that makes sense: no or one colour map, a known image type (colour-mapped,
    /// true-colour or gray, run-length encoded or not), a nonzero size and a known depth.
    static func isTarga(_ prefix: [UInt8]) -> Bool {
        guard prefix.count >= 18, prefix[1] <= 1, [1, 2, 3, 9, 10, 11].contains(prefix[2]) else { return false }
        let width = Int(prefix[12]) | Int(prefix[13]) << 8
        let height = Int(prefix[14]) | Int(prefix[15]) << 8
        return width > 0 && height > 0 && [8, 15, 16, 24, 32].contains(prefix[16])
    }

    private static func isSpace(_ byte: UInt8) -> Bool { byte == 0x20 || (0x09...0x0D).contains(byte) }
}
