import GlanceCore

extension FormatFamily {
    /// Procreate artworks (`.procreate`: a ZIP of the layers' tiles, the time-lapse and
    /// `Document.archive`), drawn from `QuickLook/Thumbnail.png`, the picture of the canvas
    /// Procreate saves with the artwork (``PackagePreviewRenderer``; a small one, and said so).
    /// Told by their listing, before the comic books' rule, which would draw the first of the
    /// time-lapse's or the layers' files it could.
    public static let procreate: FormatFamily = {
        var family = FormatFamily(
            name: "Procreate", contentTypes: [.procreateArtwork], sniffRules: [],
            capabilities: [.readsOnlyWhatItNeeds]
        ) { type, tools in
            PackagePreviewRenderer(
                contentType: type, pictures: tools.pictures, previews: ["QuickLook/Thumbnail.png"],
                limits: FormatFamily.procreate.limits.archive!,
                smallPreviewWarning: "drawn from the small picture the artwork carries (QuickLook/Thumbnail.png)")
        }
        // Its layers and its time-lapse make an artwork gigabytes; only the preview is read.
        family.limits.archive = .comics
        family.containerRules = [
            ContainerRule(priority: 36, kinds: "Procreate") { archive, container, _ in
                container == .zip && PackagePreviewRenderer.holds(archive.entries, "Document.archive")
                    ? .procreateArtwork : nil
            }
        ]
        return family
    }()
}
