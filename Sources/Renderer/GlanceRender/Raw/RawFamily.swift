import GlanceCore

extension FormatFamily {
    /// Camera raw photos, through LibRaw: the embedded preview, or the sensor data developed.
    /// Sniffed before TIFF (most raws are TIFF variants) and before the videos (CR3 is an ISO
    /// base media file).
    public static let cameraRaw = FormatFamily(
        name: "camera raw",
        contentTypes: [.dng, .canonRaw2, .canonRaw3, .nikonRaw, .sonyRaw, .olympusRaw, .panasonicRaw, .fujifilmRaw],
        sniffRules: [SniffRule(priority: 200) { RawSniffer.type(of: $0.prefix) }]
    ) { type, tools in
        RasterPipeline(type, decoder: RawDecoder.self, colourTransforms: tools.colourTransforms)
    }
}
