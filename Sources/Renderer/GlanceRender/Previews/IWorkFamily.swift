import GlanceCore

extension FormatFamily {
    /// Pages, Keynote and Numbers files (iWork, since 2013 a ZIP), drawn from the preview they
    /// carry. Told by their listing: an `Index/` of IWA archives, or an older `index.xml`, with
    /// a preview picture; which of the three by the name where it says so, else by what the index
    /// holds (slides for Keynote, a calculation engine for Numbers).
    public static let iWork: FormatFamily = {
        var family = FormatFamily(
            name: "iWork", contentTypes: [.pagesDocument, .keynotePresentation, .numbersSpreadsheet], sniffRules: [],
            capabilities: [.readsOnlyWhatItNeeds]
        ) { type, tools in IWorkRenderer(contentType: type, pictures: tools.pictures) }
        family.limits.archive = .package
        family.containerRules = [
            ContainerRule(priority: 30, kinds: "Pages, Keynote, Numbers") { archive, container, named in
                container == .zip ? IWorkRenderer.type(of: archive.entries, named: named) : nil
            }
        ]
        return family
    }()
}
