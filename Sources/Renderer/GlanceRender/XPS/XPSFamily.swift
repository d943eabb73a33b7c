import GlanceCore

extension FormatFamily {
    /// XPS and OpenXPS prints: a ZIP package whose listing holds a package relationship part and
    /// a fixed document sequence (`.fdseq`), claimed before a comic book's rule would take its
    /// pictures; the two told apart by the name only (their packages are alike). Held to an
    /// office package's limits while it is listed. Drawn by ``XPSRenderer``; its pages are pages.
    public static let xps: FormatFamily = {
        var family = FormatFamily(
            name: "XPS", contentTypes: [.xps, .openXPS], sniffRules: [], capabilities: [.pages]
        ) { _, _ in XPSRenderer() }
        family.limits.archive = .package
        family.containerRules = [
            ContainerRule(priority: 40, kinds: "XPS") { archive, container, named in
                container == .zip && XPSRenderer.isPackage(archive.entries)
                    ? (named == .openXPS ? .openXPS : .xps) : nil
            }
        ]
        return family
    }()
}
