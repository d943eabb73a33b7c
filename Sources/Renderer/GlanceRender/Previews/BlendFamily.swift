import GlanceCore

extension FormatFamily {
    /// Blender files, drawn from the thumbnail they carry (``BlendDecoder``): `BLENDER` as stored,
    /// or at the start of their gzip or Zstandard stream. Only the file's start is read.
    public static let blender = FormatFamily(
        name: "Blender", contentTypes: [.blenderScene],
        sniffRules: [SniffRule(priority: 440) { BlendThumbnail.isBlend($0.prefix) ? .blenderScene : nil }],
        capabilities: [.readsOnlyWhatItNeeds]
    ) { type, tools in
        RasterPipeline(type, decoder: BlendDecoder.self, colourTransforms: tools.colourTransforms)
    }
}
