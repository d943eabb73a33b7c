import GlanceCore

extension FormatFamily {
    /// Photoshop documents, PSD (`8BPS`, version 1) and PSB (version 2, the large format): the
    /// composite image they store, drawn by ``RasterPipeline`` over ``PhotoshopDecoder``.
    public static let photoshop = raster(
        "Photoshop", types: [.photoshop], decoder: PhotoshopDecoder.self,
        rules: [
            SniffRule(priority: 180) { input in
                let prefix = input.prefix
                guard prefix.count >= 26, prefix.starts(with: Array("8BPS".utf8)) else { return nil }
                return [1, 2].contains(prefix.bigEndian(at: 4, count: 2)) ? .photoshop : nil
            }
        ])
}
