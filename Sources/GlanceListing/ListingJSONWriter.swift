/// Writes `glance list --json` rows directly as text.
///
/// The schema is small and fixed, and Foundation's JSONEncoder spends more time on 10,000 rows
/// than the rest of the listing together (reflection, boxing, sorting keys per object), so the
/// listing writes the same pretty-printed, key-sorted JSON itself. `ListingFormatter.Row` stays
/// the Codable definition of the format; a test checks that both agree.
public enum ListingJSONWriter {
    /// The rows as a pretty-printed JSON array with sorted keys, like JSONEncoder's output.
    public static func array(_ rows: [ListingFormatter.Row]) -> String {
        if rows.isEmpty { return "[\n\n]" }
        var text = "[\n"
        text.reserveCapacity(rows.count * 420)
        for (index, row) in rows.enumerated() {
            append(row, to: &text, indent: "  ")
            text += index == rows.count - 1 ? "\n" : ",\n"
        }
        text += "]"
        return text
    }

    /// One row as a JSON object at `indent`.
    static func append(_ row: ListingFormatter.Row, to text: inout String, indent: String) {
        let inner = indent + "  "
        var fields: [(String, String)] = []
        if let digest = row.digest { fields.append(("digest", quoted(digest))) }
        if let error = row.error { fields.append(("error", quoted(error))) }
        if let generatedAt = row.generatedAt { fields.append(("generatedAt", quoted(generatedAt))) }
        if let version = row.generatorVersion { fields.append(("generatorVersion", quoted(version))) }
        fields.append(("kind", quoted(row.kind)))
        fields.append(("mimeType", quoted(row.mimeType)))
        fields.append(("modified", quoted(row.modified)))
        fields.append(("name", quoted(row.name)))
        fields.append(("path", quoted(row.path)))
        fields.append(("size", String(row.size)))
        fields.append(("state", quoted(row.state)))
        fields.append(("thumbnails", thumbnails(row.thumbnails, indent: inner)))
        text += indent + "{\n"
        for (index, field) in fields.enumerated() {
            text += inner + quoted(field.0) + " : " + field.1
            text += index == fields.count - 1 ? "\n" : ",\n"
        }
        text += indent + "}"
    }

    private static func thumbnails(_ thumbnails: [String: ListingFormatter.Row.Thumbnail], indent: String) -> String {
        if thumbnails.isEmpty { return "{\n\n" + indent + "}" }
        let inner = indent + "  "
        let deeper = inner + "  "
        var text = "{\n"
        let keys = thumbnails.keys.sorted()
        for (index, key) in keys.enumerated() {
            let image = thumbnails[key]!
            text += inner + quoted(key) + " : {\n"
            if let colour = image.averageColour { text += deeper + "\"averageColour\" : " + quoted(colour) + ",\n" }
            text += deeper + "\"bytes\" : \(image.bytes),\n"
            text += deeper + "\"format\" : " + quoted(image.format) + ",\n"
            text += deeper + "\"height\" : \(image.height),\n"
            text += deeper + "\"width\" : \(image.width)\n"
            text += inner + (index == keys.count - 1 ? "}\n" : "},\n")
        }
        return text + indent + "}"
    }

    /// A JSON string literal: quotes, backslashes and control characters escaped; `/` is not.
    static func quoted(_ value: String) -> String {
        var result = "\""
        for scalar in value.unicodeScalars {
            switch scalar {
            case "\"": result += "\\\""
            case "\\": result += "\\\\"
            case "\n": result += "\\n"
            case "\r": result += "\\r"
            case "\t": result += "\\t"
            case "\u{08}": result += "\\b"
            case "\u{0C}": result += "\\f"
            case _ where scalar.value < 0x20:
                let hex = String(scalar.value, radix: 16)
                result += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: result.unicodeScalars.append(scalar)
            }
        }
        return result + "\""
    }
}
