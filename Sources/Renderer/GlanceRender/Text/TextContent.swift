import GlanceCore

#if canImport(Glibc)
    import Glibc
#endif

/// A text document's content for reading, decoded in the renderer (never in the server or the
/// browser) with the encoding detection the text thumbnail uses, as UTF-8, capped.
public struct TextContent: Sendable {
    /// The most bytes of a document read (``TextLimits``).
    public static let maximumBytes = TextLimits.maximumBytes
    /// The most lines given (``TextLimits``).
    public static let maximumLines = TextLimits.maximumLines

    /// The text, UTF-8, lines ending as in the document.
    public var utf8: [UInt8]
    /// The encoding it was decoded from, as iconv names it.
    public var encoding: String
    /// How many lines `utf8` holds.
    public var lineCount: Int
    /// False when the document goes on past ``maximumBytes`` or ``maximumLines``.
    public var isComplete: Bool

    /// The content of the text document open at `file` (named `name`, for what a name tells).
    public static func read(_ file: OpenFile, named name: String) throws(ThumbnailError) -> TextContent {
        let prefix = try FileReader.readPrefix(of: file, maxBytes: maximumBytes)
        if prefix.bytes.isEmpty {
            return TextContent(utf8: [], encoding: "UTF-8", lineCount: 0, isComplete: prefix.isWholeFile)
        }
        guard
            let decoded = TextEncodingDetector.detect(
                prefix.bytes, isWholeFile: prefix.isWholeFile, namedAsText: ContentType(named: name) == .text)
        else {
            throw .unsupported(detail: "not a text document")
        }
        var utf8 = Array(decoded.text.utf8)
        var isComplete = prefix.isWholeFile
        // Lines: count the line feeds, and cut after the last allowed one.
        var lines = 0
        var index = 0
        while index < utf8.count {
            if utf8[index] == 0x0A {
                lines += 1
                if lines == maximumLines && index + 1 < utf8.count {
                    utf8.removeSubrange((index + 1)...)
                    isComplete = false
                    break
                }
            }
            index += 1
        }
        if let last = utf8.last, last != 0x0A { lines += 1 }
        return TextContent(utf8: utf8, encoding: decoded.encoding, lineCount: lines, isComplete: isComplete)
    }

    /// How many lines the text document open at `file` has in its first ``maximumBytes``, read
    /// in `encoding` (as detected), and whether it goes on past them. Counted on the bytes, not
    /// decoded: in every encoding the detector gives but UTF-16 and UTF-32, a line feed is the
    /// byte 0x0A and no character's later byte is (Shift_JIS, Big5 and GB18030 continue with
    /// 0x40 and up); in those two, a line feed is the code unit 0x000A at a whole unit.
    /// `read` is what the sniff read of the file's start: a text no longer than that (most are,
    /// at 64 KiB) is counted without another read, a longer one reads only what follows it.
    public static func lineCount(of file: OpenFile, encoding: String, continuing read: FilePrefix)
        throws(ThumbnailError) -> (lines: Int, isLonger: Bool)
    {
        let prefix = try FileReader.readPrefix(of: file, maxBytes: maximumBytes, continuing: read)
        let bytes = prefix.bytes
        let name = encoding.uppercased()
        let unit = name.hasPrefix("UTF-32") ? 4 : name.hasPrefix("UTF-16") ? 2 : 1
        let bigEndian = name.hasSuffix("BE")
        var lines = 0
        var lastIsBreak = true
        bytes.withUnsafeBufferPointer { buffer in
            if unit == 1 {
                lines = Self.lineFeeds(in: UnsafeRawBufferPointer(buffer))
                lastIsBreak = buffer.last.map { $0 == 0x0A } ?? true
                return
            }
            var index = 0
            while index + unit <= buffer.count {
                let isBreak: Bool
                switch unit {
                case 1: isBreak = buffer[index] == 0x0A
                default:
                    // The low byte is the unit's last in big-endian order, its first otherwise.
                    let low = bigEndian ? index + unit - 1 : index
                    isBreak =
                        buffer[low] == 0x0A
                        && (index..<(index + unit)).allSatisfy { $0 == low || buffer[$0] == 0 }
                }
                if isBreak { lines += 1 }
                lastIsBreak = isBreak
                index += unit
            }
        }
        // A last line without a line feed counts too; a byte-order mark alone is no line.
        let content = bytes.count > (unit == 1 ? 0 : unit)
        if content && !lastIsBreak { lines += 1 }
        return (lines, !prefix.isWholeFile)
    }

    /// The line feeds in `bytes`, found by memchr with the processor's vector instructions: a
    /// tenth of the time of a loop over the bytes here.
    static func lineFeeds(in bytes: UnsafeRawBufferPointer) -> Int {
        guard var cursor = bytes.baseAddress else { return 0 }
        let end = cursor + bytes.count
        var count = 0
        while cursor < end, let found = memchr(cursor, 0x0A, end - cursor) {
            count += 1
            cursor = UnsafeRawPointer(found) + 1
        }
        return count
    }
}
