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
/// Order: PNG signature, JPEG start-of-image marker, WebP's RIFF header, GIF's signature, a camera
/// raw photo (``RawSniffer``: before TIFF, as most raws are TIFF variants, and before the ISO
/// media files, as CR3 is one), TIFF's signatures, a video or HEIF `ftyp` box (HEIC or AVIF by its
/// brands), XML whose root is `<svg` (or gzip named `.svgz`), `%PDF-` within the first KiB, RTF,
/// an OpenDocument package's or an EPUB's stored `mimetype`, a video or sound container
/// (``MediaSniffer``); then text; then, for a ZIP, an OLE2 compound file, a RAR or a 7-Zip
/// archive, what it holds (``ArchiveSniffer``, which reads its listing: an office document, an
/// EPUB, a comic book) (see ``TextEncodingDetector``). The name decides only for an empty file
/// (empty `notes.txt` is a blank text page, empty `photo.jpg` is an error), lets a text file in a
/// legacy encoding that the detector cannot name be read as Windows-1252, and lets an archive
/// without pictures named `.cbz`, `.cbr` or `.cb7` be a comic book (which then fails as one).
public enum ContentSniffer {
    /// How many bytes sniffing reads to recognise an image or a PDF by its signature.
    public static let prefixLength = 8192

    /// What sniffing a file found: its type, and for text the decoded start of it, so that the
    /// text renderer lays out exactly what the detector accepted (detected once, not twice).
    public struct Sniffed: Sendable {
        public var result: SniffResult
        public var text: DecodedText?
        /// The bytes read to decide (for text, what ``text`` was decoded from): a text's line
        /// count goes on from them instead of reading them again.
        public var read = FilePrefix(bytes: [], isWholeFile: false)
    }

    /// Sniffs the open `file` named `name`: ``prefixLength`` bytes for the signatures, and, when
    /// none matches, up to ``TextRenderer/maxBytesRead`` bytes decoded as text.
    public static func sniff(file: OpenFile, named name: String) throws(ThumbnailError) -> Sniffed {
        var prefix = try FileReader.readPrefix(of: file, maxBytes: prefixLength)
        if !prefix.isWholeFile && !hasSignature(prefix.bytes, fileName: name) {
            prefix = try FileReader.readPrefix(of: file, maxBytes: TextRenderer.maxBytesRead)
        }
        var sniffed = classify(prefix: prefix.bytes, isWholeFile: prefix.isWholeFile, fileName: name)
        sniffed.read = prefix
        if case .unsupported = sniffed.result, ArchiveSniffer.startsAsContainer(prefix.bytes) {
            sniffed.result = try ArchiveSniffer.type(of: file, prefix: prefix.bytes, named: ContentType(named: name))
        }
        return sniffed
    }

    /// Sniffs `prefix`, the first bytes of a file named `fileName` (a path is fine).
    public static func sniff(prefix: [UInt8], isWholeFile: Bool, fileName: String) -> SniffResult {
        classify(prefix: prefix, isWholeFile: isWholeFile, fileName: fileName).result
    }

    /// Whether `prefix` starts like one of the formats with a signature (every one but text).
    static func hasSignature(_ prefix: [UInt8], fileName: String) -> Bool {
        if ArchiveSniffer.startsAsContainer(prefix) { return true }
        return switch classify(prefix: prefix, isWholeFile: true, fileName: fileName, textAllowed: false).result {
        case .supported: true
        default: false
        }
    }

    /// The type of the file that starts with `prefix`, and its decoded text when it is text.
    static func classify(prefix: [UInt8], isWholeFile: Bool, fileName: String, textAllowed: Bool = true) -> Sniffed {
        let named = ContentType(named: fileName)
        if prefix.isEmpty {
            if named == .text {
                return Sniffed(result: .supported(.text), text: DecodedText(text: "", encoding: "UTF-8", language: nil))
            }
            return Sniffed(result: .empty, text: nil)
        }
        if prefix.starts(with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) {
            return Sniffed(result: .supported(.png), text: nil)
        }
        if prefix.starts(with: [0xFF, 0xD8, 0xFF]) { return Sniffed(result: .supported(.jpeg), text: nil) }
        // RIFF, a little-endian length, WEBP.
        if prefix.count >= 12, prefix.starts(with: Array("RIFF".utf8)), prefix[8..<12].elementsEqual("WEBP".utf8) {
            return Sniffed(result: .supported(.webp), text: nil)
        }
        if prefix.starts(with: Array("GIF87a".utf8)) || prefix.starts(with: Array("GIF89a".utf8)) {
            return Sniffed(result: .supported(.gif), text: nil)
        }
        // Camera raw photos first: most are TIFF variants, and CR3 is an ISO base media file.
        if let raw = RawSniffer.type(of: prefix) { return Sniffed(result: .supported(raw), text: nil) }
        // Little- or big-endian TIFF, classic (42) or BigTIFF (43).
        if [[0x49, 0x49, 0x2A, 0x00], [0x4D, 0x4D, 0x00, 0x2A], [0x49, 0x49, 0x2B, 0x00], [0x4D, 0x4D, 0x00, 0x2B]]
            .contains(where: { prefix.starts(with: $0) })
        {
            return Sniffed(result: .supported(.tiff), text: nil)
        }
        if let movie = MediaSniffer.isoMovie(prefix, named: named) {
            return Sniffed(result: .supported(movie), text: nil)
        }
        if let heif = heifBrand(prefix) { return Sniffed(result: .supported(heif), text: nil) }
        if startsAsSVG(prefix) { return Sniffed(result: .supported(.svg), text: nil) }
        // gzip: a compressed SVG (.svgz) when the name says so.
        if prefix.starts(with: [0x1F, 0x8B]) && named == .svg { return Sniffed(result: .supported(.svg), text: nil) }
        // A start-of-image marker followed by damage: a JPEG if the name agrees, so that the
        // error says "corrupt JPEG data" rather than "not a supported type".
        if prefix.starts(with: [0xFF, 0xD8]) && named == .jpeg { return Sniffed(result: .supported(.jpeg), text: nil) }
        if containsPDFHeader(prefix) { return Sniffed(result: .supported(.pdf), text: nil) }
        if OfficeSniffer.startsAsRichText(prefix) { return Sniffed(result: .supported(.richText), text: nil) }
        if let openDocument = OfficeSniffer.openDocumentType(prefix: prefix) {
            return Sniffed(result: .supported(openDocument), text: nil)
        }
        if OfficeSniffer.storedMimetype(prefix: prefix) == ArchiveSniffer.epubMimetype {
            return Sniffed(result: .supported(.epub), text: nil)
        }
        if let media = MediaSniffer.type(of: prefix) {
            return Sniffed(result: .supported(media), text: nil)
        }
        guard textAllowed else { return Sniffed(result: .unsupported(detail: nil), text: nil) }
        if let text = TextEncodingDetector.detect(prefix, isWholeFile: isWholeFile, namedAsText: named == .text) {
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

    /// HEIC or AVIF, from an ISO base media file's leading `ftyp` box: its major brand, then its
    /// compatible brands (an AV1 brand anywhere makes it AVIF; `mif1` alone, a HEIF of some codec,
    /// is left to libheif as HEIC).
    static func heifBrand(_ bytes: [UInt8]) -> ContentType? {
        guard bytes.count >= 16, bytes[4..<8].elementsEqual("ftyp".utf8) else { return nil }
        let boxSize = Int(bytes[0]) << 24 | Int(bytes[1]) << 16 | Int(bytes[2]) << 8 | Int(bytes[3])
        guard boxSize >= 16, boxSize % 4 == 0 else { return nil }
        let end = min(boxSize, bytes.count)
        var brands = [String(decoding: bytes[8..<12], as: UTF8.self)]
        var offset = 16
        while offset + 4 <= end {
            brands.append(String(decoding: bytes[offset..<(offset + 4)], as: UTF8.self))
            offset += 4
        }
        if brands.contains(where: { $0 == "avif" || $0 == "avis" }) { return .avif }
        let heicBrands: Set = ["heic", "heix", "hevc", "hevx", "heim", "heis", "hevm", "hevs", "mif1", "msf1"]
        return brands.contains(where: heicBrands.contains) ? .heic : nil
    }

    /// Whether `bytes` are XML whose root element is `<svg`: a byte-order mark, white space, the
    /// XML declaration, processing instructions, comments and a DOCTYPE may come first.
    static func startsAsSVG(_ bytes: [UInt8]) -> Bool {
        var index = bytes.starts(with: [0xEF, 0xBB, 0xBF]) ? 3 : 0
        func starts(_ text: String) -> Bool {
            let marker = Array(text.utf8)
            return index + marker.count <= bytes.count && bytes[index..<(index + marker.count)].elementsEqual(marker)
        }
        func skip(past text: String) -> Bool {
            let marker = Array(text.utf8)
            while index + marker.count <= bytes.count {
                if bytes[index..<(index + marker.count)].elementsEqual(marker) {
                    index += marker.count
                    return true
                }
                index += 1
            }
            return false
        }
        while index < bytes.count {
            let byte = bytes[index]
            if byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D {
                index += 1
            } else if starts("<?") {
                guard skip(past: "?>") else { return false }
            } else if starts("<!--") {
                guard skip(past: "-->") else { return false }
            } else if starts("<!DOCTYPE") {
                // To its closing `>`, past an internal subset in brackets.
                var depth = 0
                while index < bytes.count {
                    let next = bytes[index]
                    index += 1
                    if next == UInt8(ascii: "[") { depth += 1 }
                    if next == UInt8(ascii: "]") { depth -= 1 }
                    if next == UInt8(ascii: ">") && depth <= 0 { break }
                }
            } else if starts("<svg") || starts("<svg:svg") {
                let after = index + (starts("<svg:svg") ? 8 : 4)
                guard after < bytes.count else { return false }
                return [0x20, 0x09, 0x0A, 0x0D, UInt8(ascii: ">"), UInt8(ascii: "/")].contains(bytes[after])
            } else {
                return false
            }
        }
        return false
    }

    /// `%PDF-` in the first KiB (some producers put junk before it; readers accept that).
    static func containsPDFHeader(_ bytes: [UInt8]) -> Bool {
        let marker: [UInt8] = Array("%PDF-".utf8)
        let limit = min(bytes.count, 1024) - marker.count
        guard limit >= 0 else { return false }
        for start in 0...limit where bytes[start] == 0x25 {
            if bytes[start..<(start + marker.count)].elementsEqual(marker) { return true }
        }
        return false
    }
}
