import GlanceCore

/// Writes `glance list --json` rows directly as UTF-8 bytes.
///
/// The schema is small and fixed, and Foundation's JSONEncoder spends more time on 10,000 rows
/// than the rest of the listing together (reflection, boxing, sorting keys per object), so the
/// listing writes the same pretty-printed, key-sorted JSON itself, into one byte buffer (building
/// it from `String` pieces took half of `list --json`'s time for 10,000 rows). `ListingFormatter.Row`
/// stays the Codable definition of the format; a test checks that both agree.
public enum ListingJSONWriter {
    /// The rows as a pretty-printed JSON array with sorted keys, like JSONEncoder's output.
    public static func array(_ rows: [ListingFormatter.Row]) -> String {
        if rows.isEmpty { return "[\n\n]" }
        var output = JSONBytes(capacity: rows.count * 420)
        output.raw("[\n")
        for (index, row) in rows.enumerated() {
            append(row, to: &output)
            output.raw(index == rows.count - 1 ? "\n" : ",\n")
        }
        output.raw("]")
        return String(decoding: output.bytes, as: UTF8.self)
    }

    /// One row as a JSON object, indented as an element of the array.
    private static func append(_ row: ListingFormatter.Row, to output: inout JSONBytes) {
        output.raw("  {\n")
        // Keys in sorted order, as JSONEncoder's .sortedKeys writes them.
        if let details = row.details { append(details, to: &output) }
        if let digest = row.digest { output.field("digest", string: digest) }
        if let error = row.error { output.field("error", string: error) }
        if let generatedAt = row.generatedAt { output.field("generatedAt", string: generatedAt) }
        if let version = row.generatorVersion { output.field("generatorVersion", string: version) }
        output.field("kind", string: row.kind)
        output.field("mimeType", string: row.mimeType)
        output.field("modified", string: row.modified)
        output.field("name", string: row.name)
        output.field("path", string: row.path)
        output.raw("    \"size\" : ")
        output.number(row.size)
        output.raw(",\n")
        output.field("state", string: row.state)
        output.raw("    \"thumbnails\" : ")
        thumbnails(row.thumbnails, to: &output)
        output.raw("\n  }")
    }

    /// `"details" : {...},` at a row's indent, written from the details' own Codable fields.
    private static func append(_ details: DocumentDetails, to output: inout JSONBytes) {
        output.raw("    \"details\" : ")
        // Encoding a value type of plain fields cannot fail.
        try? SortedJSONEncoder.write(details, level: 2, to: &output)
        output.raw(",\n")
    }

    private static func thumbnails(_ thumbnails: [String: ListingFormatter.Row.Thumbnail], to output: inout JSONBytes) {
        if thumbnails.isEmpty {
            output.raw("{\n\n    }")
            return
        }
        output.raw("{\n")
        let keys = thumbnails.keys.sorted()
        for (index, key) in keys.enumerated() {
            let image = thumbnails[key]!
            output.raw("      ")
            output.quoted(key)
            output.raw(" : {\n")
            if let colour = image.averageColour {
                output.raw("        \"averageColour\" : ")
                output.quoted(colour)
                output.raw(",\n")
            }
            output.raw("        \"bytes\" : ")
            output.number(Int64(image.bytes))
            output.raw(",\n        \"format\" : ")
            output.quoted(image.format)
            output.raw(",\n        \"height\" : ")
            output.number(Int64(image.height))
            if let sameAs = image.sameAs {
                output.raw(",\n        \"sameAs\" : ")
                output.quoted(sameAs)
            }
            if let hash = image.thumbHash {
                output.raw(",\n        \"thumbHash\" : ")
                output.quoted(hash)
            }
            output.raw(",\n        \"width\" : ")
            output.number(Int64(image.width))
            output.raw(index == keys.count - 1 ? "\n      }\n" : "\n      },\n")
        }
        output.raw("    }")
    }
}

/// A growing buffer of JSON text as UTF-8 bytes.
struct JSONBytes {
    private(set) var bytes: [UInt8] = []

    init(capacity: Int) { bytes.reserveCapacity(capacity) }

    /// Text written as it is (no escaping): the writer's own punctuation and keys.
    mutating func raw(_ text: StaticString) {
        text.withUTF8Buffer { bytes.append(contentsOf: $0) }
    }

    /// `"key" : "value",` and a line break, at the indent of a row's fields.
    mutating func field(_ key: StaticString, string value: String) {
        raw("    \"")
        raw(key)
        raw("\" : ")
        quoted(value)
        raw(",\n")
    }

    /// A number as JSONEncoder writes a Double: without a fraction when it has none
    /// (`842`), else Swift's shortest form (`595.276`).
    mutating func decimal(_ value: Double) {
        if value == value.rounded(), abs(value) < 1e15 {
            number(Int64(value))
        } else {
            bytes.append(contentsOf: Array(String(value).utf8))
        }
    }

    /// `level` indents of two spaces.
    mutating func indent(_ level: Int) {
        bytes.append(contentsOf: repeatElement(UInt8(ascii: " "), count: 2 * level))
    }

    /// Text written as it is (a number already formatted).
    mutating func text(_ value: String) {
        bytes.append(contentsOf: value.utf8)
    }

    /// An integer in decimal.
    mutating func number(_ value: Int64) {
        bytes.append(contentsOf: String(value).utf8)
    }

    /// A JSON string literal: quotes, backslashes and control characters escaped; `/` is not.
    mutating func quoted(_ value: String) {
        bytes.append(UInt8(ascii: "\""))
        var value = value
        value.withUTF8 { utf8 in
            var start = 0
            for (index, byte) in utf8.enumerated() where byte < 0x20 || byte == 0x22 || byte == 0x5C {
                bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[start..<index]))
                start = index + 1
                switch byte {
                case 0x22: raw("\\\"")
                case 0x5C: raw("\\\\")
                case 0x0A: raw("\\n")
                case 0x0D: raw("\\r")
                case 0x09: raw("\\t")
                case 0x08: raw("\\b")
                case 0x0C: raw("\\f")
                default:
                    let hex: [UInt8] = Array("0123456789abcdef".utf8)
                    raw("\\u00")
                    bytes.append(hex[Int(byte >> 4)])
                    bytes.append(hex[Int(byte & 0x0F)])
                }
            }
            bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[start...]))
        }
        bytes.append(UInt8(ascii: "\""))
    }
}
