import GlanceCore

extension FormatFamily {
    /// JPEG 2000 pictures: a JP2 file (its `jP  ` signature box) or a bare codestream (SOC then
    /// SIZ: `FF 4F FF 51`), drawn by ``RasterPipeline`` over ``JPEG2000Decoder``; macOS icons'
    /// JPEG 2000 pictures come through it too.
    public static let jpeg2000 = raster(
        "JPEG 2000", types: [.jpeg2000, .jpeg2000Codestream], decoder: JPEG2000Decoder.self,
        rules: [
            .signature(
                [0, 0, 0, 0x0C, 0x6A, 0x50, 0x20, 0x20, 0x0D, 0x0A, 0x87, 0x0A], priority: 177, type: .jpeg2000),
            .signature([0xFF, 0x4F, 0xFF, 0x51], priority: 178, type: .jpeg2000Codestream),
        ])
}
