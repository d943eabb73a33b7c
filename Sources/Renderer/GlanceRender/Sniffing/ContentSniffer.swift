import GlanceCore

/// What sniffing found out about a file.
public enum SniffResult: Sendable, Equatable {
    /// A supported document of this type.
    case supported(ContentType)
    /// The file has no bytes and its name does not say it is text.
    case empty
    /// Not a supported type; `detail` says why, when there is more to say.
    case unsupported(detail: String?)
}

/// Finds a document's content type from its first bytes, and from its name only where the
/// bytes leave the question open.
///
/// Order: every registered family's sniff rules (``SniffRule``), by priority (PNG, JPEG, WebP,
/// GIF, a camera raw photo before TIFF, as most raws are TIFF variants, and before the ISO media
/// files, as CR3 is one, TIFF, a video's `ftyp` box before HEIF's brands, SVG, PDF, RTF, an
/// OpenDocument package's or an EPUB's stored `mimetype`, a video or sound container); then text
/// (see ``TextEncodingDetector``); then, for a ZIP, an OLE2 compound file, a RAR or a 7-Zip
/// archive, what it holds (``ArchiveSniffer``, which reads its listing: an office document, an
/// EPUB, a comic book). The name decides only for an empty file (empty `notes.txt` is a blank
/// text page, empty `photo.jpg` is an error), lets a text file in a legacy encoding that the
/// detector cannot name be read as Windows-1252, and lets an archive without pictures named
/// `.cbz`, `.cbr` or `.cb7` be a comic book (which then fails as one).
public struct ContentSniffer: Sendable {
    /// How many bytes sniffing reads to recognise an image or a PDF by its signature.
    public static let prefixLength = 8192

    /// Every family's rules, lowest priority first.
    private let rules: [SniffRule]
    /// Every family's rules for what an archive holds, lowest priority first.
    private let containerRules: [ContainerRule]
    /// The types the families draw, by their extensions: what a name suggests.
    private let typesByExtension: [String: ContentType]
    /// Whether text is among them (the stage after the signatures).
    private let sniffsText: Bool
    /// The types drawn from a decompressed copy when kept compressed whole
    /// (``FormatCapabilities/drawnDecompressed``).
    private let drawnDecompressed: Set<ContentType>

    /// The sniffer of `families`.
    public init(families: [FormatFamily]) {
        rules = families.flatMap(\.sniffRules).sorted { $0.priority < $1.priority }
        containerRules = families.flatMap(\.containerRules).sorted { $0.priority < $1.priority }
        let types = families.flatMap(\.contentTypes)
        typesByExtension = ContentType.byExtension(types)
        sniffsText = types.contains(.text)
        drawnDecompressed = Set(
            families.filter { $0.capabilities.contains(.drawnDecompressed) }.flatMap(\.contentTypes))
    }

    /// The sniffer of the built-in families.
    public static let builtIn = ContentSniffer(families: FormatFamily.builtIn)

    /// What sniffing a file found: its type, and for text the decoded start of it, so that the
    /// text renderer lays out exactly what the detector accepted (detected once, not twice).
    public struct Sniffed: Sendable {
        public var result: SniffResult
        public var text: DecodedText?
        /// The bytes read to decide (for text, what ``text`` was decoded from): a text's line
        /// count goes on from them instead of reading them again.
        public var read = FilePrefix(bytes: [], isWholeFile: false)
        /// The archive's listing, when sniffing had to list it (an office package, an e-book, a
        /// comic book): handed on to the renderer, which then does not list it again.
        var listing: ArchiveReader?
        /// What to draw and read in the file's place: a compressed text's decompressed start, a
        /// compressed PDF's or SVG's decompressed copy
        /// (``ContentSniffer/compressedDocument(_:prefix:named:)``); nil for the file itself.
        public var document: OpenFile?
    }

    /// The type a name suggests by its extension, among the families' types.
    func type(named name: String) -> ContentType? {
        typesByExtension[ContentType.fileExtension(of: name).lowercased()]
    }

    /// The type a compressed file's name suggests under its compression's extension (`.gz`,
    /// `.bz2`, `.xz`, `.zst`): `.xcf` for `scan.xcf.bz2`.
    func type(namedUnderCompression name: String) -> ContentType? {
        let outer = ContentType.fileExtension(of: name)
        guard ["gz", "bz2", "xz", "zst"].contains(outer.lowercased()) else { return nil }
        return type(named: String(decoding: name.utf8.dropLast(outer.utf8.count + 1), as: UTF8.self))
    }

    /// Sniffs the open `file` named `name` with the built-in families.
    public static func sniff(file: OpenFile, named name: String) throws(ThumbnailError) -> Sniffed {
        try builtIn.sniff(file: file, named: name)
    }

    /// Sniffs `prefix`, the first bytes of a file named `fileName`, with the built-in families.
    public static func sniff(prefix: [UInt8], isWholeFile: Bool, fileName: String) -> SniffResult {
        builtIn.classify(prefix: prefix, isWholeFile: isWholeFile, fileName: fileName).result
    }

    /// Sniffs the open `file` named `name`: ``prefixLength`` bytes for the signatures, and, when
    /// none matches, up to ``TextRenderer/maxBytesRead`` bytes decoded as text.
    public func sniff(file: OpenFile, named name: String) throws(ThumbnailError) -> Sniffed {
        var prefix = try FileReader.readPrefix(of: file, maxBytes: Self.prefixLength)
        if !prefix.isWholeFile && !hasSignature(prefix.bytes, fileName: name) {
            prefix = try FileReader.readPrefix(of: file, maxBytes: TextRenderer.maxBytesRead)
        }
        var sniffed = classify(prefix: prefix.bytes, isWholeFile: prefix.isWholeFile, fileName: name)
        sniffed.read = prefix
        if case .unsupported = sniffed.result, ArchiveSniffer.startsAsContainer(prefix.bytes) {
            (sniffed.result, sniffed.listing) = try ArchiveSniffer.type(
                of: file, prefix: prefix.bytes, named: type(named: name), rules: containerRules)
        }
        if case .unsupported = sniffed.result,
            let compressed = try compressedDocument(file, prefix: prefix.bytes, named: name)
        {
            return compressed
        }
        return sniffed
    }

    /// A document kept compressed whole: a text (a rotated log's `.gz`, a package's
    /// `changelog.gz`, a `notes.txt.xz`), or a type drawn from a decompressed copy
    /// (``FormatCapabilities/drawnDecompressed``: a `report.pdf.gz`). gzip, xz and Zstandard are
    /// told by what they decompress to, bzip2 only when its name says one of those under the
    /// `.bz2` (its start comes only with a whole block, up to 900 kB, which sniffing every `.bz2`
    /// would decode). A text's first ``TextLimits/maximumBytes``, and one more to tell that it goes
    /// on, are decompressed into a memory file, drawn and read in the file's place, the rest never
    /// decompressed; another type is decompressed whole (up to ``DecompressedFile/documentLimit``).
    /// Nil when it is not compressed, does not decompress or is neither; another kind kept
    /// compressed is refused, named.
    func compressedDocument(_ file: OpenFile, prefix: [UInt8], named name: String) throws(ThumbnailError) -> Sniffed? {
        guard sniffsText || !drawnDecompressed.isEmpty, DecompressedFile.isCompressed(prefix) else { return nil }
        let under = type(namedUnderCompression: name)
        let namedAsOne = under.map { $0 == .text || drawnDecompressed.contains($0) } ?? false
        if prefix.starts(with: Array("BZh".utf8)), !namedAsOne { return nil }
        let start: (file: OpenFile, isComplete: Bool)
        do {
            start = try DecompressedFile.start(of: file, limit: TextLimits.maximumBytes + 1, format: "document")
        } catch {
            return nil
        }
        let inner = try FileReader.readPrefix(of: start.file, maxBytes: TextRenderer.maxBytesRead)
        if let other = signatureType(inner.bytes, named: under) {
            guard drawnDecompressed.contains(other) else {
                // Not drawn as a page of its source.
                return Sniffed(
                    result: .unsupported(
                        detail: "a compressed \(other.displayName): of its kind only a plain file is drawn"),
                    text: nil)
            }
            var sniffed = Sniffed(result: .supported(other), text: nil)
            sniffed.document =
                start.isComplete
                ? start.file
                : try DecompressedFile.of(file, limit: DecompressedFile.documentLimit, format: other.displayName)
            return sniffed
        }
        guard sniffsText, !inner.bytes.isEmpty,
            let text = TextEncodingDetector.detect(
                inner.bytes, isWholeFile: inner.isWholeFile, namedAsText: under == .text)
        else { return nil }
        var sniffed = Sniffed(result: .supported(.text), text: text)
        sniffed.read = inner
        sniffed.document = start.file
        return sniffed
    }

    /// Whether `prefix` starts like one of the formats with a signature (every one but text).
    func hasSignature(_ prefix: [UInt8], fileName: String) -> Bool {
        if ArchiveSniffer.startsAsContainer(prefix) { return true }
        return signatureType(prefix, fileName: fileName) != nil
    }

    /// The type the first matching rule gives `prefix`, the start of a file named `fileName`.
    func signatureType(_ prefix: [UInt8], fileName: String) -> ContentType? {
        signatureType(
            prefix, named: type(named: fileName), namedUnderCompression: type(namedUnderCompression: fileName))
    }

    /// The type the first matching rule gives `prefix`.
    func signatureType(_ prefix: [UInt8], named: ContentType?, namedUnderCompression: ContentType? = nil)
        -> ContentType?
    {
        let input = SniffInput(prefix: prefix, named: named, namedUnderCompression: namedUnderCompression)
        for rule in rules {
            if let type = rule.match(input) { return type }
        }
        return nil
    }

    /// The type of the file that starts with `prefix`, and its decoded text when it is text.
    func classify(prefix: [UInt8], isWholeFile: Bool, fileName: String) -> Sniffed {
        let named = type(named: fileName)
        if prefix.isEmpty {
            if named == .text && sniffsText {
                return Sniffed(result: .supported(.text), text: DecodedText(text: "", encoding: "UTF-8", language: nil))
            }
            return Sniffed(result: .empty, text: nil)
        }
        if let type = signatureType(prefix, named: named, namedUnderCompression: type(namedUnderCompression: fileName))
        {
            return Sniffed(result: .supported(type), text: nil)
        }
        if sniffsText,
            let text = TextEncodingDetector.detect(prefix, isWholeFile: isWholeFile, namedAsText: named == .text)
        {
            return Sniffed(result: .supported(.text), text: text)
        }
        if let named, named != .text {
            return Sniffed(
                result: .unsupported(
                    detail:
                        "named .\(ContentType.fileExtension(of: fileName)) but the bytes are not \(named.displayName)"),
                text: nil)
        }
        return Sniffed(result: .unsupported(detail: nil), text: nil)
    }
}
