import GlanceCore

/// A format family described once, in the manner of a libvips loader class: the content types it
/// draws, how its bytes are recognised and before or after whom, what it can do, which pool of
/// renderers draws it, and how its renderer is made. ``Thumbnailer`` builds its table, the
/// sniffing order, the pictures that may sit inside other files and every capability question
/// from the families it is given; nothing else lists formats.
///
/// A new family is its folder and one line in ``builtIn``. A test (`FormatFamilyTests`) registers
/// a family of its own and sees it sniffed, drawn, listed and shown.
public struct FormatFamily: Sendable {
    /// The family's name in messages and tests (`PNG`, `camera raw`).
    public var name: String
    /// The types it draws.
    public var contentTypes: [ContentType]
    /// How its documents are recognised by their first bytes (an archive's contents are looked
    /// at after every family's signatures and text: see `ArchiveSniffer`).
    public var sniffRules: [SniffRule]
    /// What it can do.
    public var capabilities: FormatCapabilities
    /// Which pool of renderers draws it.
    public var pool: RendererPoolKind
    /// What its documents may hold before they are refused, declared here once.
    var limits = FormatLimits()
    /// How its documents are recognised by what their archive holds, once listed (a ZIP, RAR or
    /// 7-Zip archive whose first bytes no family claimed: see ``ArchiveSniffer``).
    var containerRules: [ContainerRule] = []
    /// Makes the renderer of one of its types from the tools renderers share; nil when the tools
    /// lack what it needs (an office family without a started LibreOffice).
    public var makeRenderer: @Sendable (ContentType, RendererTools) -> (any DocumentRenderer)?
    /// A raster family's decoder, opened over a request: what ``EmbeddedPicture`` opens a
    /// picture inside a file with.
    var openDecoder: OpenDecoder?
    typealias OpenDecoder =
        @Sendable (RenderRequest, ContentType, ColourTransformCache) throws(ThumbnailError) ->
        any RasterDecoder

    public init(
        name: String, contentTypes: [ContentType], sniffRules: [SniffRule], capabilities: FormatCapabilities = [],
        pool: RendererPoolKind = .ordinary,
        makeRenderer: @escaping @Sendable (ContentType, RendererTools) -> (any DocumentRenderer)?
    ) {
        self.name = name
        self.contentTypes = contentTypes
        self.sniffRules = sniffRules
        self.capabilities = capabilities
        self.pool = pool
        self.makeRenderer = makeRenderer
    }
}

/// What a family's documents may hold before they are refused: its descriptor says it, and its
/// renderer and the sniffing read it from there.
struct FormatLimits: Sendable {
    /// For a family whose documents are archives (office packages, e-books, comic books): what the
    /// listing may hold, checked before any entry is read; nil for the others.
    var archive: ArchiveReader.Limits?
}

/// One way a family's documents are recognised by what their archive holds, once it is listed.
struct ContainerRule: Sendable {
    /// Where the rule stands among every family's: lower goes first. A rule that would take a
    /// later one's archives goes after it (a comic book's, any archive holding a picture, last).
    var priority: Int
    /// What its documents are, for the message that an archive is none of them ("EPUB").
    var kinds: String
    /// The type the archive is, nil when it is not this family's; `named` is the type the file's
    /// name suggests, which a rule may use only where the listing leaves the question open.
    var match:
        @Sendable (ArchiveReader, _ container: ArchiveContainer, _ named: ContentType?) throws(ThumbnailError) ->
            ContentType?
}

/// The kinds of archive sniffing lists.
enum ArchiveContainer: Sendable {
    case zip, rar, sevenZip
}

/// One way a family's documents are recognised by their first bytes.
public struct SniffRule: Sendable {
    /// Where the rule stands among every family's: lower goes first. A rule that would take a
    /// later one's files goes after it (a camera raw's, 200, before TIFF's, 210: most raws are
    /// TIFF variants).
    public var priority: Int
    /// The type the bytes are, nil when they are not this family's.
    public var match: @Sendable (SniffInput) -> ContentType?

    public init(priority: Int, match: @escaping @Sendable (SniffInput) -> ContentType?) {
        self.priority = priority
        self.match = match
    }

    /// A rule that matches files starting with `signature`, as `type`.
    public static func signature(_ signature: [UInt8], priority: Int, type: ContentType) -> SniffRule {
        SniffRule(priority: priority) { $0.prefix.starts(with: signature) ? type : nil }
    }
}

/// What a sniff rule looks at.
public struct SniffInput: Sendable {
    /// The file's first bytes (up to `ContentSniffer.prefixLength`).
    public var prefix: [UInt8]
    /// The type the file's name suggests, which a rule may use only where bytes leave the
    /// question open (a damaged JPEG named `.jpg` is still said to be a JPEG, to fail as one).
    public var named: ContentType?
    /// For a compressed file's name, the type its name suggests under the compression's
    /// extension (`.xcf` for `scan.xcf.bz2`): again only for what the bytes leave open.
    public var namedUnderCompression: ContentType?

    /// What a rule sees of a file starting with `prefix`, named as `named` suggests.
    public init(prefix: [UInt8], named: ContentType?, namedUnderCompression: ContentType? = nil) {
        (self.prefix, self.named, self.namedUnderCompression) = (prefix, named, namedUnderCompression)
    }
}

/// What a family can do, as the pipeline asks it.
public struct FormatCapabilities: OptionSet, Sendable, Hashable {
    public let rawValue: Int
    public init(rawValue: Int) { self.rawValue = rawValue }

    /// It has pages beyond the first (a PDF's, a TIFF's, a video's strip of frames), and its
    /// renderer checks a page against its own count; any other document has page 1 only.
    public static let pages = FormatCapabilities(rawValue: 1 << 0)
    /// It reads only what it needs (the start of a text, a video's packets, a comic's pages one at
    /// a time): the file-size limit does not apply.
    public static let readsOnlyWhatItNeeds = FormatCapabilities(rawValue: 1 << 1)
    /// No content digest is taken: a digest reads every byte, seven times a video's thumbnail.
    public static let noDigest = FormatCapabilities(rawValue: 1 << 2)
    /// It may be the picture held inside another file (a cover, a comic's page, a raw preview),
    /// drawn through ``EmbeddedPicture``.
    public static let embeddable = FormatCapabilities(rawValue: 1 << 3)
    /// Kept compressed whole (`.gz`, `.xz`, `.zst`; `.bz2` when its name says so under it), it is
    /// drawn from a copy decompressed into a memory file, up to ``DecompressedFile/documentLimit``
    /// (a `report.pdf.gz`). A text is always read from its decompressed start instead.
    public static let drawnDecompressed = FormatCapabilities(rawValue: 1 << 4)
}

/// Which pool of renderer processes draws a family.
public enum RendererPoolKind: Sendable, Equatable {
    /// The ordinary renderers: one document at a time, under the common sandbox.
    case ordinary
    /// The office renderers, which start LibreOffice before they confine themselves: an ordinary
    /// renderer checks the document and hands it on.
    case office
}

/// What renderers share, handed to each family's ``FormatFamily/makeRenderer``.
public struct RendererTools: Sendable {
    /// Colour transforms, built once per profile for every image renderer.
    public var colourTransforms: ColourTransformCache
    /// The pictures that may sit inside other files (empty while those families' own renderers
    /// are made).
    var pictures: EmbeddedPicture
    /// The text renderer (an e-book without a cover draws its first chapter's text).
    var text: TextRenderer
    /// An office renderer's LibreOffice; nil in an ordinary renderer.
    public var office: LibreOffice?
}
