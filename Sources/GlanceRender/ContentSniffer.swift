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
/// Order: PNG signature, JPEG start-of-image marker, WebP's RIFF header, `%PDF-` within the
/// first KiB; then text
/// (see ``TextEncodingDetector``). The name decides only for an empty file (empty `notes.txt` is
/// a blank text page, empty `photo.jpg` is an error) and lets a text file in a legacy encoding
/// that the detector cannot name be read as Windows-1252.
public enum ContentSniffer {
    /// How many bytes sniffing reads to recognise an image or a PDF by its signature.
    public static let prefixLength = 8192

    /// What sniffing a file found: its type, and for text the decoded start of it, so that the
    /// text renderer lays out exactly what the detector accepted (detected once, not twice).
    public struct Sniffed: Sendable {
        public var result: SniffResult
        public var text: DecodedText?
    }

    /// Sniffs the open `file` named `name`: ``prefixLength`` bytes for the signatures, and, when
    /// none matches, up to ``TextRenderer/maxBytesRead`` bytes decoded as text.
    public static func sniff(file: OpenFile, named name: String) throws(ThumbnailError) -> Sniffed {
        var prefix = try FileReader.readPrefix(of: file, maxBytes: prefixLength)
        if !prefix.isWholeFile && !hasSignature(prefix.bytes, fileName: name) {
            prefix = try FileReader.readPrefix(of: file, maxBytes: TextRenderer.maxBytesRead)
        }
        return classify(prefix: prefix.bytes, isWholeFile: prefix.isWholeFile, fileName: name)
    }

    /// Sniffs `prefix`, the first bytes of a file named `fileName` (a path is fine).
    public static func sniff(prefix: [UInt8], isWholeFile: Bool, fileName: String) -> SniffResult {
        classify(prefix: prefix, isWholeFile: isWholeFile, fileName: fileName).result
    }

    /// Whether `prefix` starts like a PNG, a JPEG or a PDF.
    static func hasSignature(_ prefix: [UInt8], fileName: String) -> Bool {
        switch classify(prefix: prefix, isWholeFile: true, fileName: fileName, textAllowed: false).result {
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
        // A start-of-image marker followed by damage: a JPEG if the name agrees, so that the
        // error says "corrupt JPEG data" rather than "not a supported type".
        if prefix.starts(with: [0xFF, 0xD8]) && named == .jpeg { return Sniffed(result: .supported(.jpeg), text: nil) }
        if containsPDFHeader(prefix) { return Sniffed(result: .supported(.pdf), text: nil) }
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
