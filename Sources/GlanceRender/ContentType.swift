/// The kind of content a document holds, in the sense of a uniform type identifier.
///
/// Glance decides it by sniffing the bytes first and the file name second (see
/// ``ContentSniffer``); it never trusts an extension that the bytes contradict.
public enum ContentType: String, Sendable, Codable, CaseIterable, Hashable {
    case pdf
    case png
    case jpeg
    case text

    /// The uniform type identifier (`com.adobe.pdf`, `public.png`, ...).
    public var uniformTypeIdentifier: String {
        switch self {
        case .pdf: "com.adobe.pdf"
        case .png: "public.png"
        case .jpeg: "public.jpeg"
        case .text: "public.plain-text"
        }
    }

    /// The MIME type, as used in JSON and HTTP.
    public var mimeType: String {
        switch self {
        case .pdf: "application/pdf"
        case .png: "image/png"
        case .jpeg: "image/jpeg"
        case .text: "text/plain"
        }
    }

    /// A short name for people (`PDF`, `PNG`, `JPEG`, `text`).
    public var displayName: String {
        switch self {
        case .pdf: "PDF"
        case .png: "PNG"
        case .jpeg: "JPEG"
        case .text: "text"
        }
    }

    /// File name extensions conventionally used for this type, lower case, without the dot.
    public var conventionalExtensions: [String] {
        switch self {
        case .pdf: ["pdf"]
        case .png: ["png"]
        case .jpeg: ["jpg", "jpeg", "jpe", "jfif"]
        case .text: ["txt", "text", "md", "markdown", "csv", "tsv", "log", "srt", "rst", "ini", "conf"]
        }
    }

    /// The type whose conventional extensions include `fileExtension`, if any.
    public init?(fileExtension: String) {
        let lowered = fileExtension.lowercased()
        guard let match = ContentType.allCases.first(where: { $0.conventionalExtensions.contains(lowered) })
        else { return nil }
        self = match
    }
}
