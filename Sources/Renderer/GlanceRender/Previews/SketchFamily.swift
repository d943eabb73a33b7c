import GlanceCore

extension FormatFamily {
    /// Sketch documents (`.sketch`, since Sketch 43 a ZIP of JSON), drawn from
    /// `previews/preview.png`, the picture of its first page Sketch writes with every save
    /// (``PackagePreviewRenderer``). Told by their listing (``isSketch(_:)``), before the comic
    /// books' rule, which would draw whichever of the document's bitmaps came first.
    public static let sketch: FormatFamily = {
        var family = FormatFamily(
            name: "Sketch", contentTypes: [.sketchDocument], sniffRules: [], capabilities: [.readsOnlyWhatItNeeds]
        ) { type, tools in
            PackagePreviewRenderer(
                contentType: type, pictures: tools.pictures, previews: ["previews/preview.png"],
                limits: FormatFamily.sketch.limits.archive!)
        }
        family.limits.archive = .package
        family.containerRules = [
            ContainerRule(priority: 35, kinds: "Sketch") { archive, container, _ in
                container == .zip && isSketch(archive.entries) ? .sketchDocument : nil
            }
        ]
        return family
    }()

    /// Whether an archive listing `entries` is a Sketch document: its `document.json` and
    /// `meta.json` at the top and a page in `pages/` (one without its preview is still Sketch's,
    /// and fails in one line rather than showing one of its bitmaps).
    static func isSketch(_ entries: [ArchiveReader.Entry]) -> Bool {
        let names = Set(entries.filter(\.isFile).map(\.name))
        return names.contains("document.json") && names.contains("meta.json")
            && names.contains { $0.hasPrefix("pages/") && $0.hasSuffix(".json") }
    }
}
