import GlanceCore

/// Draws an EPUB's cover, found in this order (``BookDetails/CoverSource``):
///
/// 1. the item the package's `<meta name="cover">` names (EPUB 2, and most EPUB 3 books too);
/// 2. the manifest item whose properties say `cover-image` (EPUB 3);
/// 3. the first picture of the first chapter in reading order that has one (an `<img>`, or an
///    SVG `<image>` as cover pages use), among the first few chapters;
///
/// each drawn by the image renderers (``EmbeddedPicture``) when its entry is in the book. A
/// declared cover that is missing, not a picture, or encrypted (DRM: `META-INF/encryption.xml`
/// lists it) is passed over for the next. A book with no picture at all gets its first chapter's
/// text laid out as a text document's page; one whose cover and chapters are all encrypted fails
/// in one line. The title and author go into the details either way.
struct EPUBRenderer: DocumentRenderer {
    var contentType: ContentType { .epub }
    let pictures: EmbeddedPicture
    let text: TextRenderer
    /// What the book's listing may hold (its family's ``FormatLimits/archive``).
    let limits: ArchiveReader.Limits

    /// How many chapters are searched for a first picture, and for text.
    static let chaptersSearched = 3

    func render(_ request: RenderRequest) throws(ThumbnailError) -> RenderedThumbnail {
        let format = contentType.displayName
        let archive = try ArchiveReader.open(request, format: format, limits: limits)
        let package = try EPUBPackage(archive, format: format)
        var details = BookDetails(title: package.title, author: package.author)
        var passedOver: [String] = []
        var candidates = package.declaredCovers
        let chapters = Array(package.chapters.prefix(Self.chaptersSearched))
        var chapterBytes: [String: [UInt8]] = [:]
        for chapter in chapters where !package.encryptedEntries.contains(chapter) {
            guard let index = archive.index(of: chapter) else { continue }
            let bytes = try EPUBPackage.read(index, of: archive, format: format)
            chapterBytes[chapter] = bytes
            if let picture = Self.firstPicture(in: bytes, chapter: chapter) {
                candidates.append((picture, .firstImage))
                break
            }
        }
        for candidate in candidates {
            if package.encryptedEntries.contains(candidate.entry) {
                passedOver.append("the \(candidate.source.rawValue) cover \(candidate.entry) is encrypted (DRM)")
                continue
            }
            guard let index = archive.index(of: candidate.entry) else {
                passedOver.append("the \(candidate.source.rawValue) cover \(candidate.entry) is not in the book")
                continue
            }
            if archive.entries[index].isEncrypted { throw .passwordProtected(format: format) }
            do throws(ThumbnailError) {
                var result = try pictures.render(archive.read(index), as: "the cover picture", request: request)
                details.cover = candidate.source
                result.details = DocumentDetails(book: details)
                result.warnings = passedOver + result.warnings
                return result
            } catch {
                if case .passwordProtected = error { throw error }
                passedOver.append("the \(candidate.source.rawValue) cover \(candidate.entry) was not drawn (\(error))")
            }
        }
        if !chapters.isEmpty, chapters.allSatisfy(package.encryptedEntries.contains) {
            throw .unsupportedEncoding(
                format: format,
                detail: "its cover and first chapters are encrypted (DRM): only its bookseller's reader opens them")
        }
        let words = chapters.lazy.compactMap { chapterBytes[$0] }.map(Self.readableText).first { !$0.isEmpty } ?? ""
        var result = try text.render(
            DecodedText(text: words.isEmpty ? (package.title ?? "") : words, encoding: "UTF-8", language: nil),
            maxSide: request.maxSide)
        details.cover = .text
        result.details = DocumentDetails(book: details)
        result.warnings = passedOver
        return result
    }

    /// The entry of the first picture `bytes` (the chapter `chapter`) shows: an `<img src>` or
    /// an SVG `<image href>`.
    static func firstPicture(in bytes: [UInt8], chapter: String) -> String? {
        var found: String?
        MarkupScanner.scan(bytes) { event in
            guard case .tag(let tag) = event, !tag.isClosing else { return true }
            let source = tag.name == "img" ? tag.attributes["src"] : tag.name == "image" ? tag.attributes["href"] : nil
            if let source, !source.isEmpty, !source.hasPrefix("data:"), !source.contains("://") {
                found = EPUBPackage.resolve(source, from: chapter)
                return false
            }
            return true
        }
        return found
    }

    /// The text a chapter shows, as paragraphs: tags dropped, blocks made lines, the head,
    /// scripts and styles left out, spaces run together.
    static func readableText(_ bytes: [UInt8]) -> String {
        let blocks: Set<String> = [
            "p", "div", "br", "h1", "h2", "h3", "h4", "h5", "h6", "li", "tr", "blockquote", "section", "title", "hr",
        ]
        let hidden: Set<String> = ["head", "script", "style"]
        var lines: [String] = []
        var line = ""
        var hiddenDepth = 0
        func endLine() {
            let words = line.split(whereSeparator: { $0 == " " || $0 == "\n" || $0 == "\t" || $0 == "\r" })
            if !words.isEmpty { lines.append(words.joined(separator: " ")) }
            line = ""
        }
        MarkupScanner.scan(bytes) { event in
            switch event {
            case .text(let run):
                if hiddenDepth == 0 { line += run }
            case .tag(let tag):
                if hidden.contains(tag.name) && !tag.isSelfClosing {
                    hiddenDepth = max(0, hiddenDepth + (tag.isClosing ? -1 : 1))
                }
                if blocks.contains(tag.name) { endLine() }
            }
            return lines.count < TextRenderer.maxLines
        }
        endLine()
        return lines.joined(separator: "\n\n")
    }
}
