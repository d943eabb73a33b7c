import GlanceCore

/// An EPUB's package, read as far as a thumbnail needs: `META-INF/container.xml` names the
/// package document (the OPF), which gives the title and author, the manifest, the reading
/// order (the spine) and the cover. Hrefs are resolved against the file that holds them, and
/// only ever looked up among the archive's entry names: never used as paths.
struct EPUBPackage {
    /// One manifest item.
    struct Item {
        var id: String
        /// The entry it names, resolved.
        var entry: String
        var mediaType: String
        var properties: [String]
    }

    /// The package document's entry name (`OEBPS/content.opf`).
    let packagePath: String
    let title: String?
    let author: String?
    /// The items by id.
    let items: [String: Item]
    /// The manifest ids of the reading order.
    let spine: [String]
    /// The id `<meta name="cover" content="...">` names (EPUB 2).
    let coverMeta: String?
    /// The entries `META-INF/encryption.xml` says are encrypted (DRM), fonts merely obfuscated
    /// (IDPF's and Adobe's font mangling, which hides nothing of the book) left out.
    let encryptedEntries: Set<String>

    /// The font obfuscation algorithms: they scramble fonts only, and say nothing of the rest.
    static let fontObfuscation: Set<String> = ["http://www.idpf.org/2008/embedding", "http://ns.adobe.com/pdf/enc#RC"]

    /// The largest package file read (container, OPF or chapter): 4 MiB.
    static let maximumFileBytes: Int64 = 4 << 20

    /// Reads the package of the EPUB whose archive is `archive`; `format` names it in errors.
    init(_ archive: ArchiveReader, format: String) throws(ThumbnailError) {
        guard let container = archive.index(of: "META-INF/container.xml") else {
            throw .corrupt(format: format, detail: "no META-INF/container.xml: nothing says where the book starts")
        }
        var rootfile: String?
        MarkupScanner.scan(try Self.read(container, of: archive, format: format)) { event in
            if case .tag(let tag) = event, tag.name == "rootfile", !tag.isClosing,
                let path = tag.attributes["full-path"]
            {
                rootfile = Self.resolve(path, from: "")
                return false
            }
            return true
        }
        guard let rootfile, let opf = archive.index(of: rootfile) else {
            throw .corrupt(format: format, detail: "META-INF/container.xml names no package document the book holds")
        }
        packagePath = rootfile
        var title: String?
        var author: String?
        var items: [String: Item] = [:]
        var spine: [String] = []
        var coverMeta: String?
        var collecting: String?
        var text = ""
        MarkupScanner.scan(try Self.read(opf, of: archive, format: format)) { event in
            switch event {
            case .text(let run):
                if collecting != nil { text += run }
            case .tag(let tag) where tag.isClosing:
                if tag.name == collecting {
                    if tag.name == "title", title == nil { title = text }
                    if tag.name == "creator", author == nil { author = text }
                    collecting = nil
                }
            case .tag(let tag):
                switch tag.name {
                case "title",
                    "creator" where !tag.isSelfClosing:
                    collecting = tag.name
                    text = ""
                case "item":
                    if let id = tag.attributes["id"], let href = tag.attributes["href"] {
                        items[id] = Item(
                            id: id, entry: Self.resolve(href, from: rootfile),
                            mediaType: tag.attributes["media-type"] ?? "",
                            properties: (tag.attributes["properties"] ?? "").split(separator: " ").map(String.init))
                    }
                case "itemref":
                    if let id = tag.attributes["idref"] { spine.append(id) }
                case "meta":
                    if tag.attributes["name"] == "cover", let id = tag.attributes["content"] { coverMeta = id }
                default: break
                }
            }
            return true
        }
        self.title = title.flatMap(BookDetails.cleaned)
        self.author = author.flatMap(BookDetails.cleaned)
        self.items = items
        self.spine = spine
        self.coverMeta = coverMeta
        encryptedEntries = try Self.encryptedEntries(of: archive, format: format)
    }

    /// The entries `META-INF/encryption.xml` lists under an algorithm that is not a font's
    /// obfuscation; none without the file.
    static func encryptedEntries(of archive: ArchiveReader, format: String) throws(ThumbnailError) -> Set<String> {
        guard let index = archive.index(of: "META-INF/encryption.xml") else { return [] }
        var entries: Set<String> = []
        var algorithm = ""
        MarkupScanner.scan(try read(index, of: archive, format: format)) { event in
            guard case .tag(let tag) = event, !tag.isClosing else { return true }
            if tag.name == "encryptionmethod" { algorithm = tag.attributes["algorithm"] ?? "" }
            if tag.name == "cipherreference", let uri = tag.attributes["uri"], !fontObfuscation.contains(algorithm) {
                entries.insert(resolve(uri, from: ""))
            }
            return true
        }
        return entries
    }

    /// The cover candidates the package declares, in the order they are tried: the
    /// `<meta name="cover">` item (or the picture it names by its href, as some books do), then
    /// the `cover-image` item.
    var declaredCovers: [(entry: String, source: BookDetails.CoverSource)] {
        var covers: [(entry: String, source: BookDetails.CoverSource)] = []
        if let id = coverMeta {
            // Some books name the picture's href instead of its item's id.
            if let item = items[id] {
                covers.append((item.entry, .coverMeta))
            } else if EmbeddedPicture.isPictureName(id) {
                covers.append((Self.resolve(id, from: packagePath), .coverMeta))
            }
        }
        if let item = items.values.sorted(by: { $0.id < $1.id }).first(where: { $0.properties.contains("cover-image") })
        {
            covers.append((item.entry, .coverImage))
        }
        return covers
    }

    /// The entries of the reading order's chapters, first to last.
    var chapters: [String] { spine.compactMap { items[$0]?.entry } }

    /// Entry `index` of `archive`, at most ``maximumFileBytes``.
    static func read(_ index: Int, of archive: ArchiveReader, format: String) throws(ThumbnailError) -> [UInt8] {
        let size = archive.entries[index].size
        if size > maximumFileBytes {
            throw .archiveRefused(
                format: format,
                detail: "\(archive.entries[index].name) declares \(size) bytes, more than a book's part needs")
        }
        if archive.entries[index].isEncrypted { throw .passwordProtected(format: format) }
        return try archive.read(index)
    }

    /// `href` (percent-encoded, maybe with a fragment) resolved against the folder of the entry
    /// `base`: `../images/a%20b.png` from `OEBPS/text/ch1.xhtml` is `OEBPS/images/a b.png`.
    /// An href that climbs above the archive's top stays at the top.
    static func resolve(_ href: String, from base: String) -> String {
        let withoutFragment = href.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
        let decoded = PercentDecoding.decoded(withoutFragment) ?? String(withoutFragment)
        var parts = decoded.hasPrefix("/") ? [] : base.split(separator: "/").dropLast().map(String.init)
        for part in decoded.split(separator: "/") {
            switch part {
            case ".": continue
            case "..": if !parts.isEmpty { parts.removeLast() }
            default: parts.append(String(part))
            }
        }
        return parts.joined(separator: "/")
    }
}
