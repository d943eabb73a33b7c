/// What an e-book tells besides its cover: its title and author, and where the thumbnail came
/// from. Part of ``DocumentDetails``; a renderer fills it, ``checked`` keeps what holds together.
public struct BookDetails: Sendable, Equatable, Codable {
    /// The book's title and its first author, as its package document gives them.
    public var title: String?
    public var author: String?
    /// Where the thumbnail came from.
    public var cover: CoverSource?

    /// How an EPUB's cover was found, in the order they are tried.
    public enum CoverSource: String, Sendable, Equatable, Codable {
        /// The package's `<meta name="cover">` (EPUB 2), or a Mobipocket book's EXTH cover.
        case coverMeta = "cover-meta"
        /// The manifest item whose properties say `cover-image` (EPUB 3).
        case coverImage = "cover-image"
        /// The first picture of the first chapter in reading order (a Mobipocket book's thumbnail
        /// record, or its first image).
        case firstImage = "first-image"
        /// No picture: the first chapter's text, laid out as a text document's page.
        case text
    }

    public init(title: String? = nil, author: String? = nil, cover: CoverSource? = nil) {
        self.title = title
        self.author = author
        self.cover = cover
    }

    /// The longest title or author kept, in characters.
    public static let maximumLength = 200

    /// The details with what does not hold together left out, nil when nothing is left: the
    /// title and author cleaned (``cleaned(_:)``).
    public var checked: BookDetails? {
        let result = BookDetails(title: title.flatMap(Self.cleaned), author: author.flatMap(Self.cleaned), cover: cover)
        return result == BookDetails() ? nil : result
    }

    /// `text` cleaned as every name is (``DocumentDetails/cleanName(_:maximumLength:)``), cut to
    /// ``maximumLength``; nil when nothing is left.
    public static func cleaned(_ text: String) -> String? {
        let cleaned = DocumentDetails.cleanName(text, maximumLength: maximumLength)
        return cleaned.isEmpty ? nil : cleaned
    }
}
