import GlanceCore

/// The raster image families: each one ``RasterPipeline`` over its format's ``RasterDecoder``,
/// and each may be the picture inside another file (``EmbeddedPicture``).
extension FormatFamily {
    /// PNG, by its eight-byte signature.
    public static let png = raster(
        "PNG", types: [.png], decoder: PNGDecoder.self,
        rules: [.signature([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A], priority: 100, type: .png)])

    /// JPEG, by its start-of-image marker; a start-of-image marker followed by damage is a JPEG
    /// too when the name agrees, so that the error says "corrupt JPEG data" rather than "not a
    /// supported type".
    public static let jpeg = raster(
        "JPEG", types: [.jpeg], decoder: JPEGDecoder.self,
        rules: [
            .signature([0xFF, 0xD8, 0xFF], priority: 110, type: .jpeg),
            SniffRule(priority: 420) { $0.prefix.starts(with: [0xFF, 0xD8]) && $0.named == .jpeg ? .jpeg : nil },
        ])

    /// WebP: RIFF, a little-endian length, WEBP.
    public static let webp = raster(
        "WebP", types: [.webp], decoder: WebPDecoder.self,
        rules: [
            SniffRule(priority: 120) { input in
                let prefix = input.prefix
                return prefix.count >= 12 && prefix.starts(with: Array("RIFF".utf8))
                    && prefix[8..<12].elementsEqual("WEBP".utf8) ? .webp : nil
            }
        ])

    /// GIF, 87a or 89a.
    public static let gif = raster(
        "GIF", types: [.gif], decoder: GIFDecoder.self,
        rules: [
            .signature(Array("GIF87a".utf8), priority: 130, type: .gif),
            .signature(Array("GIF89a".utf8), priority: 130, type: .gif),
        ])

    /// TIFF, little- or big-endian, classic (42) or BigTIFF (43); after the camera raw photos,
    /// most of which are TIFF variants. Its pages are its directories.
    public static let tiff = raster(
        "TIFF", types: [.tiff], decoder: TIFFDecoder.self,
        rules: [
            SniffRule(priority: 210) { input in
                [
                    [0x49, 0x49, 0x2A, 0x00], [0x4D, 0x4D, 0x00, 0x2A], [0x49, 0x49, 0x2B, 0x00],
                    [0x4D, 0x4D, 0x00, 0x2B],
                ]
                .contains(where: { input.prefix.starts(with: $0) }) ? .tiff : nil
            }
        ], capabilities: [.pages])

    /// HEIF: HEIC or AVIF by the brands of its `ftyp` box, after the videos' brands.
    public static let heif = raster(
        "HEIF", types: [.heic, .avif], decoder: HEIFDecoder.self,
        rules: [SniffRule(priority: 310) { HEIFBrands.type(of: $0.prefix) }])

    /// A raster family: `types` drawn by one ``RasterPipeline`` each over `decoder`.
    static func raster<Decoder: RasterDecoder>(
        _ name: String, types: [ContentType], decoder: Decoder.Type, rules: [SniffRule],
        capabilities: FormatCapabilities = []
    ) -> FormatFamily {
        var family = FormatFamily(
            name: name, contentTypes: types, sniffRules: rules, capabilities: capabilities.union(.embeddable)
        ) { type, tools in
            RasterPipeline(type, decoder: decoder, colourTransforms: tools.colourTransforms)
        }
        family.openDecoder = { request, type, transforms throws(ThumbnailError) in
            try decoder.init(request, type: type, colourTransforms: transforms)
        }
        return family
    }
}

/// HEIF's brands.
enum HEIFBrands {
    /// HEIC or AVIF, from an ISO base media file's leading `ftyp` box: its major brand, then its
    /// compatible brands (an AV1 brand anywhere makes it AVIF; `mif1` alone, a HEIF of some codec,
    /// is left to libheif as HEIC).
    static func type(of bytes: [UInt8]) -> ContentType? {
        guard bytes.count >= 16, bytes[4..<8].elementsEqual("ftyp".utf8) else { return nil }
        let boxSize = Int(bytes[0]) << 24 | Int(bytes[1]) << 16 | Int(bytes[2]) << 8 | Int(bytes[3])
        guard boxSize >= 16, boxSize % 4 == 0 else { return nil }
        let end = min(boxSize, bytes.count)
        var brands = [String(decoding: bytes[8..<12], as: UTF8.self)]
        var offset = 16
        while offset + 4 <= end {
            brands.append(String(decoding: bytes[offset..<(offset + 4)], as: UTF8.self))
            offset += 4
        }
        if brands.contains(where: { $0 == "avif" || $0 == "avis" }) { return .avif }
        let heicBrands: Set = ["heic", "heix", "hevc", "hevx", "heim", "heis", "hevm", "hevs", "mif1", "msf1"]
        return brands.contains(where: heicBrands.contains) ? .heic : nil
    }

}
