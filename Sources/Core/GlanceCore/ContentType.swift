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
    /// An MPEG-4 movie (ISO base media file: `.mp4`, `.m4v`, `.3gp`).
    case mpeg4Video = "mp4"
    /// A QuickTime movie (`.mov`, what iPhones record).
    case quickTimeMovie = "mov"
    /// Matroska (`.mkv`, `.mka`).
    case matroska = "mkv"
    /// WebM, the Matroska profile of the web (`.webm`).
    case webm
    /// AVI (RIFF).
    case avi
    /// An MPEG transport stream (`.ts`, `.m2ts`, `.mts`).
    case mpegTransportStream = "mpegts"
    /// Ogg with a video stream (`.ogv`).
    case oggVideo = "ogv"
    /// Ogg with only audio (Vorbis, Opus, FLAC: `.ogg`, `.oga`, `.opus`).
    case oggAudio = "ogg"
    /// MPEG audio layer III (`.mp3`).
    case mp3
    /// FLAC (`.flac`).
    case flac
    /// MPEG-4 audio (`.m4a`, `.m4b`).
    case m4a

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
        case .mpeg4Video: "public.mpeg-4"
        case .quickTimeMovie: "com.apple.quicktime-movie"
        case .matroska: "org.matroska.mkv"
        case .webm: "org.webmproject.webm"
        case .avi: "public.avi"
        case .mpegTransportStream: "public.mpeg-2-transport-stream"
        case .oggVideo: "org.xiph.ogv"
        case .oggAudio: "org.xiph.ogg-audio"
        case .mp3: "public.mp3"
        case .flac: "org.xiph.flac"
        case .m4a: "com.apple.m4a-audio"
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
        case .mpeg4Video: "video/mp4"
        case .quickTimeMovie: "video/quicktime"
        case .matroska: "video/x-matroska"
        case .webm: "video/webm"
        case .avi: "video/x-msvideo"
        case .mpegTransportStream: "video/mp2t"
        case .oggVideo: "video/ogg"
        case .oggAudio: "audio/ogg"
        case .mp3: "audio/mpeg"
        case .flac: "audio/flac"
        case .m4a: "audio/mp4"
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
        case .mpeg4Video: "MP4 video"
        case .quickTimeMovie: "QuickTime movie"
        case .matroska: "Matroska video"
        case .webm: "WebM video"
        case .avi: "AVI video"
        case .mpegTransportStream: "MPEG-TS video"
        case .oggVideo: "Ogg video"
        case .oggAudio: "Ogg audio"
        case .mp3: "MP3 audio"
        case .flac: "FLAC audio"
        case .m4a: "M4A audio"
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
        case .mpeg4Video: ["mp4", "m4v", "3gp", "3g2"]
        case .quickTimeMovie: ["mov", "qt"]
        case .matroska: ["mkv", "mka", "mk3d"]
        case .webm: ["webm"]
        case .avi: ["avi"]
        case .mpegTransportStream: ["ts", "m2ts", "mts"]
        case .oggVideo: ["ogv"]
        case .oggAudio: ["ogg", "oga", "opus", "spx"]
        case .mp3: ["mp3"]
        case .flac: ["flac"]
        case .m4a: ["m4a", "m4b"]
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
    /// Videos and sound: what FFmpeg's libraries open (a frame, or the cover picture).
    public var isMedia: Bool { isVideo || isAudio }

    /// A container of moving pictures (it may hold sound too).
    public var isVideo: Bool {
        switch self {
        case .mpeg4Video, .quickTimeMovie, .matroska, .webm, .avi, .mpegTransportStream, .oggVideo: true
        default: false
        }
    }

    /// Sound alone, whose picture is its cover.
    public var isAudio: Bool {
        switch self {
        case .oggAudio, .mp3, .flac, .m4a: true
        default: false
        }
    }

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
