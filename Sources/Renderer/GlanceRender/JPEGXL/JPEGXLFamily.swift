import GlanceCore

extension FormatFamily {
    /// JPEG XL pictures, a bare codestream (`FF 0A`) or in the format's ISO container (its
    /// `JXL ` signature box), drawn by ``RasterPipeline`` over ``JPEGXLDecoder``.
    public static let jpegXL = raster(
        "JPEG XL", types: [.jpegXL], decoder: JPEGXLDecoder.self,
        rules: [
            .signature([0xFF, 0x0A], priority: 175, type: .jpegXL),
            .signature(
                [0x00, 0x00, 0x00, 0x0C, 0x4A, 0x58, 0x4C, 0x20, 0x0D, 0x0A, 0x87, 0x0A], priority: 176, type: .jpegXL),
        ])
}
