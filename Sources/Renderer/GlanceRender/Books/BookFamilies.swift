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
        return family
    }()
}
