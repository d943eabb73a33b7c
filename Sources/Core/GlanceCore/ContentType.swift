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
    /// A Word document (Office Open XML: `.docx`, and `.docm`, `.dotx`, `.dotm`).
    case wordDocument = "docx"
    /// An Excel workbook (Office Open XML: `.xlsx`, and `.xlsm`, `.xltx`, `.xltm`).
    case spreadsheet = "xlsx"
    /// A PowerPoint presentation (Office Open XML: `.pptx`, and `.pptm`, `.ppsx`, `.potx`).
    case presentation = "pptx"
    /// An OpenDocument text (`.odt`, `.ott`).
    case openDocumentText = "odt"
    /// An OpenDocument spreadsheet (`.ods`, `.ots`).
    case openDocumentSpreadsheet = "ods"
    /// An OpenDocument presentation (`.odp`, `.otp`).
    case openDocumentPresentation = "odp"
    /// An OpenDocument drawing (`.odg`, `.otg`).
    case openDocumentDrawing = "odg"
    /// Rich Text Format (`.rtf`).
    case richText = "rtf"
    /// A Word 97-2003 document (an OLE2 compound file: `.doc`, `.dot`).
    case legacyWordDocument = "doc"
    /// An Excel 97-2003 workbook (`.xls`, `.xlt`).
    case legacySpreadsheet = "xls"
    /// A PowerPoint 97-2003 presentation (`.ppt`, `.pps`, `.pot`).
    case legacyPresentation = "ppt"
    /// A digital negative (Adobe DNG: TIFF with a `DNGVersion` tag).
    case dng
    /// A Canon raw photo of the EOS generation before 2018 (`.cr2`: TIFF marked `CR` at byte 8).
    case canonRaw2 = "cr2"
    /// A Canon raw photo of the newer kind (`.cr3`: ISO base media, brand `crx `).
    case canonRaw3 = "cr3"
    /// A Nikon raw photo (`.nef`, `.nrw`: TIFF holding colour-filter data, made by Nikon).
    case nikonRaw = "nef"
    /// A Sony raw photo (`.arw`, `.srf`, `.sr2`).
    case sonyRaw = "arw"
    /// An Olympus (OM System) raw photo (`.orf`: a TIFF variant marked `IIRO`, `IIRS` or `MMOR`).
    case olympusRaw = "orf"
    /// A Panasonic (Lumix) or Leica raw photo (`.rw2`, `.rwl`: a TIFF variant marked `IIU`).
    case panasonicRaw = "rw2"
    /// A Fujifilm raw photo (`.raf`: `FUJIFILMCCD-RAW`).
    case fujifilmRaw = "raf"
    /// An EPUB e-book (a ZIP whose stored `mimetype` is `application/epub+zip`).
    case epub
    /// A comic book in a ZIP archive (`.cbz`): its pages are the images it holds.
    case comicZip = "cbz"
    /// A comic book in a RAR archive (`.cbr`, RAR 4 or 5).
    case comicRar = "cbr"
    /// A comic book in a 7-Zip archive (`.cb7`).
    case comic7z = "cb7"

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
        case .wordDocument: "org.openxmlformats.wordprocessingml.document"
        case .spreadsheet: "org.openxmlformats.spreadsheetml.sheet"
        case .presentation: "org.openxmlformats.presentationml.presentation"
        case .openDocumentText: "org.oasis-open.opendocument.text"
        case .openDocumentSpreadsheet: "org.oasis-open.opendocument.spreadsheet"
        case .openDocumentPresentation: "org.oasis-open.opendocument.presentation"
        case .openDocumentDrawing: "org.oasis-open.opendocument.graphics"
        case .richText: "public.rtf"
        case .legacyWordDocument: "com.microsoft.word.doc"
        case .legacySpreadsheet: "com.microsoft.excel.xls"
        case .legacyPresentation: "com.microsoft.powerpoint.ppt"
        case .dng: "com.adobe.raw-image"
        case .canonRaw2: "com.canon.cr2-raw-image"
        case .canonRaw3: "com.canon.cr3-raw-image"
        case .nikonRaw: "com.nikon.raw-image"
        case .sonyRaw: "com.sony.arw-raw-image"
        case .olympusRaw: "com.olympus.raw-image"
        case .panasonicRaw: "com.panasonic.rw2-raw-image"
        case .fujifilmRaw: "com.fuji.raw-image"
        case .epub: "org.idpf.epub-container"
        case .comicZip: "public.cbz-archive"
        case .comicRar: "public.cbr-archive"
        case .comic7z: "public.cb7-archive"
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
        case .wordDocument: "application/vnd.openxmlformats-officedocument.wordprocessingml.document"
        case .spreadsheet: "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"
        case .presentation: "application/vnd.openxmlformats-officedocument.presentationml.presentation"
        case .openDocumentText: "application/vnd.oasis.opendocument.text"
        case .openDocumentSpreadsheet: "application/vnd.oasis.opendocument.spreadsheet"
        case .openDocumentPresentation: "application/vnd.oasis.opendocument.presentation"
        case .openDocumentDrawing: "application/vnd.oasis.opendocument.graphics"
        case .richText: "application/rtf"
        case .legacyWordDocument: "application/msword"
        case .legacySpreadsheet: "application/vnd.ms-excel"
        case .legacyPresentation: "application/vnd.ms-powerpoint"
        case .dng: "image/x-adobe-dng"
        case .canonRaw2: "image/x-canon-cr2"
        case .canonRaw3: "image/x-canon-cr3"
        case .nikonRaw: "image/x-nikon-nef"
        case .sonyRaw: "image/x-sony-arw"
        case .olympusRaw: "image/x-olympus-orf"
        case .panasonicRaw: "image/x-panasonic-rw2"
        case .fujifilmRaw: "image/x-fuji-raf"
        case .epub: "application/epub+zip"
        case .comicZip: "application/vnd.comicbook+zip"
        case .comicRar: "application/vnd.comicbook-rar"
        case .comic7z: "application/x-cb7"
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
        case .wordDocument: "Word document"
        case .spreadsheet: "Excel workbook"
        case .presentation: "PowerPoint presentation"
        case .openDocumentText: "OpenDocument text"
        case .openDocumentSpreadsheet: "OpenDocument spreadsheet"
        case .openDocumentPresentation: "OpenDocument presentation"
        case .openDocumentDrawing: "OpenDocument drawing"
        case .richText: "RTF document"
        case .legacyWordDocument: "Word 97-2003 document"
        case .legacySpreadsheet: "Excel 97-2003 workbook"
        case .legacyPresentation: "PowerPoint 97-2003 presentation"
        case .dng: "DNG raw photo"
        case .canonRaw2: "Canon CR2 raw photo"
        case .canonRaw3: "Canon CR3 raw photo"
        case .nikonRaw: "Nikon NEF raw photo"
        case .sonyRaw: "Sony ARW raw photo"
        case .olympusRaw: "Olympus ORF raw photo"
        case .panasonicRaw: "Panasonic RW2 raw photo"
        case .fujifilmRaw: "Fujifilm RAF raw photo"
        case .epub: "EPUB book"
        case .comicZip: "CBZ comic"
        case .comicRar: "CBR comic"
        case .comic7z: "CB7 comic"
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
        case .wordDocument: ["docx", "docm", "dotx", "dotm"]
        case .spreadsheet: ["xlsx", "xlsm", "xltx", "xltm"]
        case .presentation: ["pptx", "pptm", "ppsx", "ppsm", "potx", "potm"]
        case .openDocumentText: ["odt", "ott"]
        case .openDocumentSpreadsheet: ["ods", "ots"]
        case .openDocumentPresentation: ["odp", "otp"]
        case .openDocumentDrawing: ["odg", "otg"]
        case .richText: ["rtf"]
        case .legacyWordDocument: ["doc", "dot"]
        case .legacySpreadsheet: ["xls", "xlt"]
        case .legacyPresentation: ["ppt", "pps", "pot"]
        case .dng: ["dng"]
        case .canonRaw2: ["cr2"]
        case .canonRaw3: ["cr3"]
        case .nikonRaw: ["nef", "nrw"]
        case .sonyRaw: ["arw", "srf", "sr2"]
        case .olympusRaw: ["orf"]
        case .panasonicRaw: ["rw2", "rwl"]
        case .fujifilmRaw: ["raf"]
        case .epub: ["epub"]
        case .comicZip: ["cbz"]
        case .comicRar: ["cbr"]
        case .comic7z: ["cb7"]
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

    /// A camera's raw photo: what LibRaw opens (its embedded preview, or its sensor data developed).
    public var isCameraRaw: Bool {
        switch self {
        case .dng, .canonRaw2, .canonRaw3, .nikonRaw, .sonyRaw, .olympusRaw, .panasonicRaw, .fujifilmRaw: true
        default: false
        }
    }

    /// A comic book archive, whose pages are the images it holds in natural order.
    public var isComicBook: Bool { self == .comicZip || self == .comicRar || self == .comic7z }

    /// An office document: what LibreOffice draws, in the renderers of the office lane.
    public var isOffice: Bool { officeFamily != nil }

    /// What kind of office document it is (its pages are pages, sheets or slides), nil for any
    /// other type.
    public var officeFamily: OfficeFamily? {
        switch self {
        case .wordDocument, .openDocumentText, .richText, .legacyWordDocument: .text
        case .spreadsheet, .openDocumentSpreadsheet, .legacySpreadsheet: .spreadsheet
        case .presentation, .openDocumentPresentation, .legacyPresentation: .presentation
        case .openDocumentDrawing: .drawing
        default: nil
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

/// The kinds of office document, by what their pages are.
public enum OfficeFamily: String, Sendable, Codable {
    /// Pages of text (Word, Writer, RTF).
    case text
    /// Sheets (Excel, Calc): each sheet is a page.
    case spreadsheet
    /// Slides (PowerPoint, Impress): each slide is a page.
    case presentation
    /// Drawings (Draw): each drawing page is a page.
    case drawing
}
