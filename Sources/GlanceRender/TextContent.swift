import GlanceCore

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
}
