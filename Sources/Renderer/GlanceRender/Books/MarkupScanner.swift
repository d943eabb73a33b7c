import GlanceCore

/// Reads the tags, attributes and text of XML and XHTML well enough for an e-book's package
/// files: `META-INF/container.xml`, the OPF package document, and a chapter's first picture and
/// text. Not a validating parser: comments, CDATA, processing instructions and doctypes are
/// skipped, namespace prefixes kept apart from local names, entities decoded. Nothing is nested,
/// so unclosed or mismatched elements do not matter; a tag or comment left open ends the scan
/// where it stands, never in an error (a damaged book still shows what its readable part says).
///
/// Kept instead of libxml2 (Debian's, which librsvg already maps) for what it does not do: it
/// never stops at the first error (books' chapters are often not well-formed XML, and libxml2's
/// XML parser gives up on them while its HTML parser is a second API to confine), and it has no
/// DTDs, entity definitions or external entities to switch off. Measured here on a package
/// document of 400 items (43 kB): libxml2's `xmlReadMemory` 1.2 ms a parse, this scanner 2.6 to
/// 3.2 ms (`swiftc -O`), once a book, next to 20 to 40 ms for decoding its cover.
struct MarkupScanner {
    /// One tag.
    struct Tag {
        /// The local name, lower case (`item`, `meta`, `title` for `dc:title`).
        var name: String
        /// The attributes by local name, lower case (`href`, `properties`, `href` for `xlink:href`),
        /// values with entities decoded.
        var attributes: [String: String]
        /// `</name>`.
        var isClosing: Bool
        /// `<name/>`.
        var isSelfClosing: Bool
    }

    /// What the scan meets, in order.
    enum Event {
        case tag(Tag)
        case text(String)
    }

    /// The most bytes scanned: a package document or a chapter larger than this is read only
    /// this far.
    static let maximumBytes = 4 << 20

    /// Every tag and run of text in `bytes`, in order, given to `visit` until it returns false.
    static func scan(_ bytes: [UInt8], _ visit: (Event) -> Bool) {
        let end = min(bytes.count, maximumBytes)
        var index = 0
        while index < end {
            if bytes[index] != UInt8(ascii: "<") {
                var stop = index
                while stop < end && bytes[stop] != UInt8(ascii: "<") { stop += 1 }
                let text = decodeEntities(String(decoding: bytes[index..<stop], as: UTF8.self))
                if !visit(.text(text)) { return }
                index = stop
                continue
            }
            if starts(bytes, at: index, with: "<!--") {
                guard let close = find(bytes, "-->", from: index + 4, end: end) else { return }
                index = close + 3
                continue
            }
            if starts(bytes, at: index, with: "<![CDATA[") {
                guard let close = find(bytes, "]]>", from: index + 9, end: end) else { return }
                if !visit(.text(String(decoding: bytes[(index + 9)..<close], as: UTF8.self))) { return }
                index = close + 3
                continue
            }
            if starts(bytes, at: index, with: "<?") || starts(bytes, at: index, with: "<!") {
                guard let close = find(bytes, ">", from: index + 2, end: end) else { return }
                index = close + 1
                continue
            }
            guard let (tag, next) = readTag(bytes, from: index, end: end) else { return }
            if !visit(.tag(tag)) { return }
            index = next
        }
    }

    /// The tag that starts at `start` (a `<`), and where the scan goes on.
    private static func readTag(_ bytes: [UInt8], from start: Int, end: Int) -> (Tag, Int)? {
        var index = start + 1
        let isClosing = index < end && bytes[index] == UInt8(ascii: "/")
        if isClosing { index += 1 }
        let nameStart = index
        while index < end && !isSpace(bytes[index]) && bytes[index] != UInt8(ascii: ">")
            && bytes[index] != UInt8(ascii: "/")
        {
            index += 1
        }
        let name = localName(String(decoding: bytes[nameStart..<index], as: UTF8.self))
        var attributes: [String: String] = [:]
        var isSelfClosing = false
        while index < end {
            let byte = bytes[index]
            if byte == UInt8(ascii: ">") {
                return (
                    Tag(name: name, attributes: attributes, isClosing: isClosing, isSelfClosing: isSelfClosing),
                    index + 1
                )
            }
            if byte == UInt8(ascii: "/") {
                isSelfClosing = true
                index += 1
                continue
            }
            if isSpace(byte) {
                index += 1
                continue
            }
            let keyStart = index
            while index < end && bytes[index] != UInt8(ascii: "=") && !isSpace(bytes[index])
                && bytes[index] != UInt8(ascii: ">") && bytes[index] != UInt8(ascii: "/")
            {
                index += 1
            }
            let key = localName(String(decoding: bytes[keyStart..<index], as: UTF8.self))
            while index < end && isSpace(bytes[index]) { index += 1 }
            guard index < end, bytes[index] == UInt8(ascii: "=") else {
                attributes[key] = ""
                continue
            }
            index += 1
            while index < end && isSpace(bytes[index]) { index += 1 }
            guard index < end else { return nil }
            let quote = bytes[index]
            if quote == UInt8(ascii: "\"") || quote == UInt8(ascii: "'") {
                guard let close = bytes[(index + 1)..<end].firstIndex(of: quote) else { return nil }
                attributes[key] = decodeEntities(String(decoding: bytes[(index + 1)..<close], as: UTF8.self))
                index = close + 1
            } else {
                let valueStart = index
                while index < end && !isSpace(bytes[index]) && bytes[index] != UInt8(ascii: ">") { index += 1 }
                attributes[key] = decodeEntities(String(decoding: bytes[valueStart..<index], as: UTF8.self))
            }
        }
        return nil
    }

    /// `dc:title` → `title`, lower case.
    private static func localName(_ name: String) -> String {
        let local = name.split(separator: ":", omittingEmptySubsequences: false).last.map(String.init) ?? name
        return local.lowercased()
    }

    private static func isSpace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D
    }

    private static func starts(_ bytes: [UInt8], at index: Int, with text: StaticString) -> Bool {
        let count = text.utf8CodeUnitCount
        guard index + count <= bytes.count else { return false }
        return text.withUTF8Buffer { bytes[index..<(index + count)].elementsEqual($0) }
    }

    private static func find(_ bytes: [UInt8], _ text: StaticString, from start: Int, end: Int) -> Int? {
        var index = start
        while index < end {
            if starts(bytes, at: index, with: text) { return index }
            index += 1
        }
        return nil
    }

    /// The few named entities books use besides XML's five.
    private static let namedEntities: [String: String] = [
        "amp": "&", "lt": "<", "gt": ">", "quot": "\"", "apos": "'", "nbsp": "\u{A0}", "mdash": "\u{2014}",
        "ndash": "\u{2013}", "hellip": "\u{2026}", "lsquo": "\u{2018}", "rsquo": "\u{2019}", "ldquo": "\u{201C}",
        "rdquo": "\u{201D}", "copy": "\u{A9}",
    ]

    /// `text` with `&amp;`, `&#233;`, `&#xE9;` and the named entities above decoded; anything
    /// else left as written.
    static func decodeEntities(_ text: String) -> String {
        guard text.contains("&") else { return text }
        var result = ""
        var rest = Substring(text)
        while let ampersand = rest.firstIndex(of: "&") {
            result += rest[..<ampersand]
            let after = rest[rest.index(after: ampersand)...]
            guard let semicolon = after.prefix(12).firstIndex(of: ";") else {
                result += "&"
                rest = after
                continue
            }
            let name = after[..<semicolon]
            var replacement: String?
            if name.hasPrefix("#x") || name.hasPrefix("#X") {
                replacement = UInt32(name.dropFirst(2), radix: 16).flatMap(Unicode.Scalar.init).map { String($0) }
            } else if name.hasPrefix("#") {
                replacement = UInt32(name.dropFirst()).flatMap(Unicode.Scalar.init).map { String($0) }
            } else {
                replacement = namedEntities[String(name)]
            }
            if let replacement {
                result += replacement
                rest = after[after.index(after: semicolon)...]
            } else {
                result += "&"
                rest = after
            }
        }
        return result + rest
    }
}
