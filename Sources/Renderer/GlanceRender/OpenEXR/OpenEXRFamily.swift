import GlanceCore

extension FormatFamily {
    /// OpenEXR pictures (`v/1\x01`), the HDR format of film, compositing and 3D renderers, drawn by
    /// ``RasterPipeline`` over ``OpenEXRDecoder``.
    public static let openEXR = raster(
        "OpenEXR", types: [.openEXR], decoder: OpenEXRDecoder.self,
        rules: [.signature([0x76, 0x2F, 0x31, 0x01], priority: 177, type: .openEXR)])
}
