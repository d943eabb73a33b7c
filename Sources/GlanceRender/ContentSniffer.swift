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
/// Order: PNG signature, JPEG start-of-image marker, `%PDF-` within the first KiB; then text
/// (see ``TextEncodingDetector``). The name decides only for an empty file (empty `notes.txt` is
/// a blank text page, empty `photo.jpg` is an error) and lets a text file in a legacy encoding
/// that the detector cannot name be read as Windows-1252.
public enum ContentSniffer {
    /// How many bytes sniffing reads: enough for the text detector to be confident.
    public static let prefixLength = 8192

    /// Sniffs the open `file` named `name`, reading at most ``prefixLength`` bytes of it.
    public static func sniff(file: OpenFile, named name: String) throws(ThumbnailError) -> SniffResult {
        let prefix = try FileReader.readPrefix(of: file, maxBytes: prefixLength)
        return sniff(prefix: prefix.bytes, isWholeFile: prefix.isWholeFile, fileName: name)
    }

    /// Sniffs `prefix`, the first bytes of a file named `fileName` (a path is fine).
    public static func sniff(prefix: [UInt8], isWholeFile: Bool, fileName: String) -> SniffResult {
        let named = ContentType(named: fileName)
        if prefix.isEmpty {
            return named == .text ? .supported(.text) : .empty
        }
        if prefix.starts(with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) { return .supported(.png) }
        if prefix.starts(with: [0xFF, 0xD8, 0xFF]) { return .supported(.jpeg) }
        // A start-of-image marker followed by damage: a JPEG if the name agrees, so that the
        // error says "corrupt JPEG data" rather than "not a supported type".
        if prefix.starts(with: [0xFF, 0xD8]) && named == .jpeg { return .supported(.jpeg) }
        if containsPDFHeader(prefix) { return .supported(.pdf) }
        if TextEncodingDetector.detect(prefix, isWholeFile: isWholeFile, namedAsText: named == .text) != nil {
            return .supported(.text)
        }
        if let named, named != .text {
            return .unsupported(
                detail: "named .\(ContentType.fileExtension(of: fileName)) but the bytes are not \(named.displayName)")
        }
        return .unsupported(detail: nil)
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
