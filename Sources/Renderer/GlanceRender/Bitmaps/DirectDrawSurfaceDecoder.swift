import GlanceCore

/// Decodes DirectDraw surfaces (`.dds`: the textures of games and their mods) for the
/// ``RasterPipeline``: `DDS `, a 124-byte header (and a DX10 header after it when its format
/// code says so), then the largest picture (its smaller mipmaps and a cube's other faces follow;
/// they are passed over). Block-compressed BC1 (DXT1, its 1-bit alpha too), BC2 (DXT2, DXT3),
/// BC3 (DXT4, DXT5), BC4 (ATI1: one channel, drawn gray) and BC5 (ATI2: two channels, red and
/// green, the blue drawn as a normal map's z, sqrt(1 - x² - y²), since games keep their normal
/// maps in BC5 and rebuild z that way; Pillow, the tests' reference, leaves it 0), BC7
/// (``BC7Block``); uncompressed RGB and RGBA of 16, 24 or 32 bits through the header's masks,
/// luminance and alpha-only. Signed BC4 and BC5, BC6H and floating-point surfaces are refused in
/// one line. The rows are decoded a row of 4x4 blocks at a time.
///
/// Glance's own reader (gdk-pixbuf has no DDS loader; ImageMagick's is the reference its tests
/// compare with): the header is held to the pixel limit before a block is decoded, the picture's
/// length is checked against the file before the first row, and it has a fuzz target
/// (`fuzz-bitmap`).
final class DirectDrawSurfaceDecoder: RasterDecoder {
    let header: RasterHeader
    let warnings: [String] = []

    /// How the largest picture's pixels are kept.
    private enum Layout {
        /// 4x4 blocks of BC`n`: 8 bytes (BC1, BC4) or 16 (BC2: explicit alpha, BC3: interpolated
        /// alpha, BC5: two interpolated channels, BC7).
        case blocks(Int)
        /// Pixels of `bytes` each, little-endian, red, green, blue and alpha through masks (a
        /// luminance surface's in the red mask).
        case masked(bytes: Int, masks: [Int], luminance: Bool)
    }

    private let data: [UInt8]
    private let format: String
    private let layout: Layout
    private let pixelsStart: Int
    private let hasAlpha: Bool

    /// `DDS `.
    static let signature = Array("DDS ".utf8)

    init(_ request: RenderRequest, type: ContentType, colourTransforms: ColourTransformCache) throws(ThumbnailError) {
        format = type.displayName
        let data = try FileReader.readWhole(of: request.file)
        self.data = data
        guard data.count >= 128, data.starts(with: Self.signature) else { throw .truncated(format: format) }
        let (height, width) = (data.littleEndian(at: 12, count: 4), data.littleEndian(at: 16, count: 4))
        guard data.littleEndian(at: 4, count: 4) == 124, width > 0, height > 0 else {
            throw .corrupt(format: format, detail: "its header says \(width)x\(height)")
        }
        let flags = data.littleEndian(at: 80, count: 4)
        let fourCC = String(decoding: data[84..<88], as: UTF8.self)
        var start = 128
        let blockKind: Int?
        if flags & 0x4 != 0 {
            var code = fourCC
            if fourCC == "DX10" {
                guard data.count >= 148 else { throw .truncated(format: format) }
                start = 148
                // DXGI formats: BC1 70-72, BC2 73-75, BC3 76-78, BC4 79-80 (81 signed), BC5 82-83
                // (84 signed), BC7 97-99; 8-bit RGBA 27-29, BGRA 87, 90, 91.
                switch data.littleEndian(at: 128, count: 4) {
                case 70...72: code = "DXT1"
                case 73...75: code = "DXT3"
                case 76...78: code = "DXT5"
                case 79...80: code = "ATI1"
                case 82...83: code = "ATI2"
                case 81: code = "BC4S"
                case 84: code = "BC5S"
                case 97...99: code = "BC7"
                case 27...29: code = "RGBA"
                case 87, 90, 91: code = "BGRA"
                case let other: code = "DXGI format \(other)"
                }
            }
            switch code {
            case "DXT1": blockKind = 1
            case "DXT2", "DXT3": blockKind = 2
            case "DXT4", "DXT5": blockKind = 3
            case "ATI1", "BC4U": blockKind = 4
            case "ATI2", "BC5U": blockKind = 5
            case "BC7": blockKind = 7
            case "RGBA", "BGRA": blockKind = nil
            default:
                let named = code.filter { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == " ") }
                throw .unsupportedEncoding(
                    format: format,
                    detail:
                        "\(named.isEmpty ? "an unnamed format" : named) (signed BC4 and BC5, BC6H and floating point are not drawn)"
                )
            }
            if let blockKind {
                layout = .blocks(blockKind)
            } else {
                let red = code == "RGBA" ? 0xFF : 0xFF_0000
                layout = .masked(
                    bytes: 4, masks: [red, 0xFF00, red == 0xFF ? 0xFF_0000 : 0xFF, 0xFF00_0000], luminance: false)
            }
        } else {
            let bits = data.littleEndian(at: 88, count: 4)
            guard [8, 16, 24, 32].contains(bits), flags & (0x40 | 0x20000 | 0x2) != 0 else {
                throw .unsupportedEncoding(format: format, detail: "\(bits) bits a pixel, pixel format flags \(flags)")
            }
            let alpha = flags & 0x1 != 0 || flags & 0x2 != 0 ? data.littleEndian(at: 104, count: 4) : 0
            layout = .masked(
                bytes: bits / 8,
                masks: [
                    data.littleEndian(at: 92, count: 4), data.littleEndian(at: 96, count: 4),
                    data.littleEndian(at: 100, count: 4), alpha,
                ],
                luminance: flags & 0x20000 != 0)
        }
        pixelsStart = start
        switch layout {
        // BC1's transparent pixels count only when the header says the surface has alpha; BC4
        // and BC5 have none.
        case .blocks(let kind): hasAlpha = kind == 2 || kind == 3 || kind == 7 || (kind == 1 && flags & 0x1 != 0)
        case .masked(_, let masks, _): hasAlpha = masks[3] != 0
        }
        header = RasterHeader(size: PixelSize(width: width, height: height))
    }

    func plan(for target: PixelSize) -> RasterPlan { RasterPlan(size: header.size) }

    func start(_ plan: RasterPlan) throws(ThumbnailError) -> RasterRows {
        RasterRows(size: header.size, channels: hasAlpha ? 4 : 3, streamed: true)
    }

    func read(into rows: Downscaler) throws(ThumbnailError) {
        let (width, height, channels) = (header.size.width, header.size.height, rows.channels)
        switch layout {
        case .blocks(let kind):
            let blockBytes = kind == 1 || kind == 4 ? 8 : 16
            let blocksAcross = (width + 3) / 4
            guard data.count - pixelsStart >= blocksAcross * ((height + 3) / 4) * blockBytes else {
                throw .truncated(format: format)
            }
            // Four rows of RGBA, decoded a row of blocks at a time.
            var band = [UInt8](repeating: 0, count: blocksAcross * 4 * 4 * 4)
            let bandStride = blocksAcross * 4 * 4
            try rows.pushRows(width: width, height: height, channels: channels) { (y, row) throws(ThumbnailError) in
                if y % 4 == 0 {
                    let rowStart = pixelsStart + (y / 4) * blocksAcross * blockBytes
                    for block in 0..<blocksAcross {
                        Self.decodeBlock(
                            data, at: rowStart + block * blockBytes, kind: kind, into: &band,
                            at: block * 4, stride: bandStride)
                    }
                }
                let source = (y % 4) * bandStride
                for x in 0..<width {
                    for channel in 0..<channels { row[x * channels + channel] = band[source + x * 4 + channel] }
                }
            }
        case .masked(let bytes, let masks, let luminance):
            // The header's pitch when it gives one (rows padded, as some writers pad 24-bit rows
            // to 4 bytes), else the pixels side by side.
            let declared = data.littleEndian(at: 20, count: 4)
            let pitch =
                data.littleEndian(at: 8, count: 4) & 0x8 != 0 && declared >= width * bytes ? declared : width * bytes
            guard data.count - pixelsStart >= pitch * height else { throw .truncated(format: format) }
            // A missing colour channel is full (an alpha-only surface is white through its
            // alpha), a missing alpha opaque.
            let channelMasks = masks.map(ChannelMask.init)
            try rows.pushRows(width: width, height: height, channels: channels) { (y, row) throws(ThumbnailError) in
                let start = pixelsStart + y * pitch
                for x in 0..<width {
                    let pixel = data.littleEndian(at: start + x * bytes, count: bytes)
                    let target = x * channels
                    let red = channelMasks[0].value(in: pixel, absent: 255)
                    row[target] = red
                    row[target + 1] = luminance ? red : channelMasks[1].value(in: pixel, absent: 255)
                    row[target + 2] = luminance ? red : channelMasks[2].value(in: pixel, absent: 255)
                    if channels == 4 { row[target + 3] = channelMasks[3].value(in: pixel, absent: 255) }
                }
            }
        }
    }

    /// Decodes the 4x4 block at `at` into `band` (RGBA, `stride` bytes a row) from pixel `column`.
    private static func decodeBlock(
        _ data: [UInt8], at: Int, kind: Int, into band: inout [UInt8], at column: Int, stride: Int
    ) {
        if kind == 7 {
            BC7Block.decode(data, at: at, into: &band, at: column * 4, stride: stride)
            return
        }
        if kind == 4 || kind == 5 {
            let red = interpolatedChannel(data, at: at)
            let green = kind == 5 ? interpolatedChannel(data, at: at + 8) : red
            for pixel in 0..<16 {
                let target = (pixel / 4) * stride + (column + pixel % 4) * 4
                band[target] = red[pixel]
                band[target + 1] = green[pixel]
                band[target + 2] = kind == 5 ? normalZ(red[pixel], green[pixel]) : red[pixel]
                band[target + 3] = 255
            }
            return
        }
        let colourAt = kind == 1 ? at : at + 8
        let (c0, c1) = (data.littleEndian(at: colourAt, count: 2), data.littleEndian(at: colourAt + 2, count: 2))
        func expand(_ c: Int) -> (Int, Int, Int) {
            let (r, g, b) = (c >> 11 & 31, c >> 5 & 63, c & 31)
            return (r << 3 | r >> 2, g << 2 | g >> 4, b << 3 | b >> 2)
        }
        let (e0, e1) = (expand(c0), expand(c1))
        var palette = [(e0.0, e0.1, e0.2, 255), (e1.0, e1.1, e1.2, 255)]
        if kind != 1 || c0 > c1 {
            palette.append(((2 * e0.0 + e1.0) / 3, (2 * e0.1 + e1.1) / 3, (2 * e0.2 + e1.2) / 3, 255))
            palette.append(((e0.0 + 2 * e1.0) / 3, (e0.1 + 2 * e1.1) / 3, (e0.2 + 2 * e1.2) / 3, 255))
        } else {
            palette.append(((e0.0 + e1.0) / 2, (e0.1 + e1.1) / 2, (e0.2 + e1.2) / 2, 255))
            palette.append((0, 0, 0, 0))
        }
        let indices = data.littleEndian(at: colourAt + 4, count: 4)
        let alphas = kind == 3 ? interpolatedChannel(data, at: at) : []
        for pixel in 0..<16 {
            let colour = palette[indices >> (2 * pixel) & 3]
            let target = (pixel / 4) * stride + (column + pixel % 4) * 4
            band[target] = UInt8(colour.0)
            band[target + 1] = UInt8(colour.1)
            band[target + 2] = UInt8(colour.2)
            switch kind {
            case 2: band[target + 3] = UInt8((data.littleEndian(at: at, count: 8) >> (4 * pixel) & 15) * 17)
            case 3: band[target + 3] = alphas[pixel]
            default: band[target + 3] = UInt8(colour.3)
            }
        }
    }

    /// The 16 values of an 8-byte block of one interpolated channel (BC3's alpha, BC4's and
    /// BC5's channels): two ends, then six between them, or four and 0 and 255 when the first end
    /// is not the larger, chosen by 3 bits a pixel.
    private static func interpolatedChannel(_ data: [UInt8], at: Int) -> [UInt8] {
        let (a0, a1) = (Int(data[at]), Int(data[at + 1]))
        var levels = [a0, a1]
        if a0 > a1 {
            levels += (1...6).map { ((7 - $0) * a0 + $0 * a1) / 7 }
        } else {
            levels += (1...4).map { ((5 - $0) * a0 + $0 * a1) / 5 } + [0, 255]
        }
        let bits = data.littleEndian(at: at + 2, count: 6)
        return (0..<16).map { UInt8(levels[bits >> (3 * $0) & 7]) }
    }

    /// The blue of a BC5 pixel: the z of the unit normal whose x and y its red and green hold
    /// (0 to 255 for -1 to 1), z 0 where they are longer than 1 already; a flat normal is 255.
    private static func normalZ(_ red: UInt8, _ green: UInt8) -> UInt8 {
        let (x, y) = (Double(red) / 127.5 - 1, Double(green) / 127.5 - 1)
        let z = max(0, 1 - x * x - y * y).squareRoot()
        return UInt8(min(255, (z + 1) * 127.5 + 0.5))
    }
}
