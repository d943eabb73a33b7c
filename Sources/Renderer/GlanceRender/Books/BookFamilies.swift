import GlanceCore

extension FormatFamily {
    /// EPUB books: the cover, or the first chapter's first picture or text. A ZIP whose stored
    /// `mimetype` says so (and, stored otherwise, one whose listing does: ``ArchiveSniffer``).
    public static let epub: FormatFamily = {
        var family = FormatFamily(
            name: "EPUB", contentTypes: [.epub],
            sniffRules: [
                SniffRule(priority: 530) {
                    OfficeSniffer.storedMimetype(prefix: $0.prefix) == ArchiveSniffer.epubMimetype ? .epub : nil
                }
            ]
        ) { _, tools in EPUBRenderer(pictures: tools.pictures, text: tools.text, limits: .package) }
        family.limits.archive = .package
        family.containerRules = [
            ContainerRule(priority: 20, kinds: "EPUB") { (archive, container, _) throws(ThumbnailError) in
                guard container == .zip else { return nil }
                return try OfficeSniffer.mimetype(of: archive) == ArchiveSniffer.epubMimetype ? .epub : nil
            }
        ]
        return family
    }()

    /// Comic books (ZIP, RAR, 7-Zip): their pages are the pictures they hold, read one at a time.
    /// Told by their archives' listings (``ArchiveSniffer``), not by a signature.
    public static let comics: FormatFamily = {
        var family = FormatFamily(
            name: "comic book", contentTypes: [.comicZip, .comicRar, .comic7z], sniffRules: [],
            capabilities: [.pages, .readsOnlyWhatItNeeds]
        ) { type, tools in ComicRenderer(contentType: type, pictures: tools.pictures, limits: .comics) }
        family.limits.archive = .comics
        // Last: any archive holding a picture, when nothing more specific claims it.
        family.containerRules = [
            ContainerRule(priority: 900, kinds: "comic book") { archive, container, named in
                let kind: ContentType =
                    switch container {
                    case .zip: .comicZip
                    case .rar: .comicRar
                    case .sevenZip: .comic7z
                    }
                return named == kind || ComicPages.hasPages(archive.entries) ? kind : nil
            }
        ]
        return family
    }()
}
