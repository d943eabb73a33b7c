import GlanceCore

extension FormatFamily {
    /// Sketch documents (`.sketch`, since Sketch 43 a ZIP of JSON), drawn from the preview they
    /// carry (``SketchRenderer``). Told by their listing, before the comic books' rule, which
    /// would draw whichever of the document's bitmaps came first.
    public static let sketch: FormatFamily = {
        var family = FormatFamily(
            name: "Sketch", contentTypes: [.sketchDocument], sniffRules: [], capabilities: [.readsOnlyWhatItNeeds]
        ) { type, tools in SketchRenderer(contentType: type, pictures: tools.pictures) }
        family.limits.archive = .package
        family.containerRules = [
            ContainerRule(priority: 35, kinds: "Sketch") { archive, container, _ in
                container == .zip && SketchRenderer.isSketch(archive.entries) ? .sketchDocument : nil
            }
        ]
        return family
    }()
}

/// Draws a Sketch document from `previews/preview.png`, the picture of its first page Sketch
/// writes with every save, through the image renderers (``EmbeddedPicture``).
struct SketchRenderer: DocumentRenderer {
    let contentType: ContentType
    let pictures: EmbeddedPicture

    static let preview = "previews/preview.png"

    /// Whether an archive listing `entries` is a Sketch document: its `document.json` and
    /// `meta.json` at the top and a page in `pages/` (one without its preview is still Sketch's,
    /// and fails in one line rather than showing one of its bitmaps).
    static func isSketch(_ entries: [ArchiveReader.Entry]) -> Bool {
        let names = Set(entries.filter(\.isFile).map(\.name))
        return names.contains("document.json") && names.contains("meta.json")
            && names.contains { $0.hasPrefix("pages/") && $0.hasSuffix(".json") }
    }

    func render(_ request: RenderRequest) throws(ThumbnailError) -> RenderedThumbnail {
        let format = contentType.displayName
        let archive = try ArchiveReader.open(request, format: format, limits: FormatFamily.sketch.limits.archive!)
        guard let preview = archive.index(of: Self.preview) else {
            throw .corrupt(format: format, detail: "it carries no preview picture")
        }
        return try pictures.render(try archive.read(preview), as: "its preview", request: request)
    }
}
