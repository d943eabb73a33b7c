/// The kind of content a document holds, in the sense of a uniform type identifier: what the
/// store keeps of it (its identifier) and what a listing or a page shows of it (its names, and
/// how a preview lays it out).
///
/// A value, not an enum: the built-in types are its static members (`.pdf`, `.png`, ...: see
/// `BuiltInContentTypes.swift`), and a format family in the render layer may bring its own. Two
/// types are the same when their identifiers are. Glance decides a document's type by sniffing
/// the bytes first and the file name second (see `ContentSniffer`); it never trusts an
/// extension that the bytes contradict.
public struct ContentType: Sendable, Hashable, RawRepresentable, Codable, CustomStringConvertible {
    /// The identifier a store keeps and a query names (`pdf`, `mp4`, `docx`).
    public let rawValue: String
    /// The uniform type identifier (`com.adobe.pdf`, `public.png`, ...).
    public let uniformTypeIdentifier: String
    /// The MIME type, as used in JSON and HTTP.
    public let mimeType: String
    /// A short name for people (`PDF`, `PNG`, `JPEG`, `text`, `HEIC`...).
    public let displayName: String
    /// File name extensions conventionally used for this type, lower case, without the dot.
    public let conventionalExtensions: [String]
    /// How a preview lays the document out.
    public let preview: PreviewLayout
    /// Whether browsers draw the original themselves (it may be shown inline, and zoomed into).
    public let browsersDraw: Bool

    /// A type with its identifier and facts.
    public init(
        _ identifier: String, uniformTypeIdentifier: String, mimeType: String, displayName: String,
        extensions: [String], preview: PreviewLayout = .picture, browsersDraw: Bool = false
    ) {
        self.rawValue = identifier
        self.uniformTypeIdentifier = uniformTypeIdentifier
        self.mimeType = mimeType
        self.displayName = displayName
        self.conventionalExtensions = extensions
        self.preview = preview
        self.browsersDraw = browsersDraw
    }

    /// The built-in type whose identifier is `rawValue`; nil for one this version does not know
    /// (a store's row or a query naming it is refused).
    public init?(rawValue: String) {
        guard let known = Self.builtInByIdentifier[rawValue] else { return nil }
        self = known
    }

    /// The built-in type whose conventional extensions include `fileExtension`, if any.
    public init?(fileExtension: String) {
        guard let known = Self.builtInByExtension[fileExtension.lowercased()] else { return nil }
        self = known
    }

    private static let builtInByIdentifier = Dictionary(
        builtIn.map { ($0.rawValue, $0) }, uniquingKeysWith: { first, _ in first })
    private static let builtInByExtension = byExtension(builtIn)

    /// `types` by their conventional extensions (an extension two types claim is the first's):
    /// what a file's name suggests among them.
    public static func byExtension(_ types: [ContentType]) -> [String: ContentType] {
        Dictionary(
            types.flatMap { type in type.conventionalExtensions.map { ($0, type) } },
            uniquingKeysWith: { first, _ in first })
    }

    public static func == (left: ContentType, right: ContentType) -> Bool { left.rawValue == right.rawValue }
    public func hash(into hasher: inout Hasher) { hasher.combine(rawValue) }
    public var description: String { rawValue }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        let identifier = try container.decode(String.self)
        guard let known = Self(rawValue: identifier) else {
            throw DecodingError.dataCorruptedError(
                in: container, debugDescription: "unknown content type '\(identifier)'")
        }
        self = known
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(rawValue)
    }
}

/// How a preview lays a document out.
public enum PreviewLayout: Sendable, Equatable {
    /// One picture, larger (an image, a video's frame, a raw photo, a book's cover).
    case picture
    /// Its pages stacked, every one drawn when it comes into view (a PDF, an office document's
    /// pages, sheets or slides, a comic book).
    case pages
    /// Stacked pages when it has several (a multi-page TIFF, a scan), one picture otherwise.
    case pagesWhenSeveral
    /// Its text, as text.
    case text
}

extension ContentType {
    /// The type a file name suggests by its extension (`notes.TXT` → text), if any. Names decide
    /// only what bytes cannot: see ``ContentSniffer``.
    public init?(named name: String) {
        self.init(fileExtension: ContentType.fileExtension(of: name))
    }

    /// The extension of a path's last component, without the dot; "" if none (a leading dot,
    /// as in `.profile`, is not an extension).
    public static func fileExtension(of path: String) -> String {
        // From the end, in bytes: a name may be thousands of characters long (an archive's
        // entry), and only its end matters.
        var path = path
        return path.withUTF8 { bytes in
            var end = bytes.count
            while end > 0 && bytes[end - 1] == UInt8(ascii: "/") { end -= 1 }
            var index = end
            while index > 0 {
                let byte = bytes[index - 1]
                if byte == UInt8(ascii: "/") { return "" }
                if byte == UInt8(ascii: ".") {
                    // A leading dot (`.profile`) starts the name; it is no extension.
                    guard index - 1 > 0, bytes[index - 2] != UInt8(ascii: "/") else { return "" }
                    return String(decoding: UnsafeBufferPointer(rebasing: bytes[index..<end]), as: UTF8.self)
                }
                index -= 1
            }
            return ""
        }
    }
}
