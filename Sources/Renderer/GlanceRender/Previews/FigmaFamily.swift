import GlanceCore

extension FormatFamily {
    /// Figma and FigJam files saved as local copies (`.fig`, `.jam`: a ZIP of the binary
    /// `canvas.fig`, its images and `meta.json`), drawn from `thumbnail.png`, the picture of the
    /// file Figma saves in it (``PackagePreviewRenderer``). Told by their listing, before the comic
    /// books' rule, which would draw one of the design's images. An older local copy, the bare
    /// `fig-kiwi` binary, carries no picture and is not drawn.
    public static let figma: FormatFamily = {
        var family = FormatFamily(
            name: "Figma", contentTypes: [.figmaDesign], sniffRules: [], capabilities: [.readsOnlyWhatItNeeds]
        ) { type, tools in
            PackagePreviewRenderer(
                contentType: type, pictures: tools.pictures, previews: ["thumbnail.png"],
                limits: FormatFamily.figma.limits.archive!)
        }
        family.limits.archive = .comics
        family.containerRules = [
            ContainerRule(priority: 37, kinds: "Figma") { archive, container, _ in
                container == .zip && PackagePreviewRenderer.holds(archive.entries, "canvas.fig") ? .figmaDesign : nil
            }
        ]
        return family
    }()
}
