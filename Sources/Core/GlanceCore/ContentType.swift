/// The kind of content a document holds, in the sense of a uniform type identifier.
///
/// Glance decides it by sniffing the bytes first and the file name second (see
/// ``ContentSniffer``); it never trusts an extension that the bytes contradict.
public enum ContentType: String, Sendable, Codable, CaseIterable, Hashable {
    case pdf
    case png
    case jpeg
    case text
    case webp
    case gif
    case tiff
    /// HEIF with HEVC-coded images (`.heic`, what phones save), or another HEIF brand.
    case heic
    /// HEIF with AV1-coded images.
    case avif
    case svg

    /// The uniform type identifier (`com.adobe.pdf`, `public.png`, ...).
    public var uniformTypeIdentifier: String {
        switch self {
        case .pdf: "com.adobe.pdf"
        case .png: "public.png"
        case .jpeg: "public.jpeg"
        case .text: "public.plain-text"
        case .webp: "org.webmproject.webp"
        case .gif: "com.compuserve.gif"
        case .tiff: "public.tiff"
        case .heic: "public.heic"
        case .avif: "public.avif"
        case .svg: "public.svg-image"
        }
    }

    /// The MIME type, as used in JSON and HTTP.
    public var mimeType: String {
        switch self {
        case .pdf: "application/pdf"
        case .png: "image/png"
        case .jpeg: "image/jpeg"
        case .text: "text/plain"
        case .webp: "image/webp"
        case .gif: "image/gif"
        case .tiff: "image/tiff"
        case .heic: "image/heic"
        case .avif: "image/avif"
        case .svg: "image/svg+xml"
        }
    }

    /// A short name for people (`PDF`, `PNG`, `JPEG`, `text`, `HEIC`...).
    public var displayName: String {
        switch self {
        case .pdf: "PDF"
        case .png: "PNG"
        case .jpeg: "JPEG"
        case .text: "text"
        case .webp: "WebP"
        case .gif: "GIF"
        case .tiff: "TIFF"
        case .heic: "HEIC"
        case .avif: "AVIF"
        case .svg: "SVG"
        }
    }

    /// File name extensions conventionally used for this type, lower case, without the dot.
    public var conventionalExtensions: [String] {
        switch self {
        case .pdf: ["pdf"]
        case .png: ["png"]
        case .jpeg: ["jpg", "jpeg", "jpe", "jfif"]
        case .text: ["txt", "text", "md", "markdown", "csv", "tsv", "log", "srt", "rst", "ini", "conf"]
        case .webp: ["webp"]
        case .gif: ["gif"]
        case .tiff: ["tif", "tiff"]
        case .heic: ["heic", "heif", "hif"]
        case .avif: ["avif"]
        case .svg: ["svg", "svgz"]
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

extension ContentType {
    /// The type a file name suggests by its extension (`notes.TXT` → text), if any. Names decide
    /// only what bytes cannot: see ``ContentSniffer``.
    public init?(named name: String) {
        self.init(fileExtension: ContentType.fileExtension(of: name))
    }

    /// The extension of a path's last component, without the dot; "" if none (a leading dot,
    /// as in `.profile`, is not an extension).
    public static func fileExtension(of path: String) -> String {
        let base = path.split(separator: "/").last.map(String.init) ?? path
        guard let dot = base.lastIndex(of: "."), dot != base.startIndex else { return "" }
        return String(base[base.index(after: dot)...])
    }
}
