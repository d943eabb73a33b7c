/// Text that is safe to show on a terminal or in a one-line message.
///
/// File names and decoder messages are untrusted: a name holding a newline could forge a second
/// `glance: FILE: reason` line, and one holding ESC sequences could rewrite the terminal. Every
/// human-readable output escapes them here; JSON output is escaped by its encoder instead.
public enum DisplayText {
    /// `text` with control characters, line and paragraph separators, bidirectional overrides and
    /// the backslash escaped (`\n`, `\t`, `\x1B`, `\u{202E}`, `\\`), and bytes of a name that were
    /// not UTF-8 (see ``FileName``) shown as `\xFF`. Other characters stay as they are.
    public static func escaped(_ text: String) -> String {
        escaped(text, backslash: true)
    }

    /// `text` made safe for one line of a log, whether it is a raw name or a message whose names
    /// are already ``escaped(_:)``: the same escapes except that a backslash stays as it is, so
    /// escaping twice changes nothing (`bad\xFF` is not logged as `bad\\xFF`). A log handler
    /// applies this once to everything it writes; callers hand it raw values.
    public static func lineSafe(_ text: String) -> String {
        escaped(text, backslash: false)
    }

    private static func escaped(_ text: String, backslash: Bool) -> String {
        let needsEscape = { (scalar: Unicode.Scalar) in
            (backslash || scalar != "\\") && Self.needsEscape(scalar)
        }
        // Fast path: nothing to escape in most names.
        if !text.unicodeScalars.contains(where: needsEscape) { return text }
        var result = ""
        result.reserveCapacity(text.utf8.count + 8)
        for scalar in text.unicodeScalars {
            guard needsEscape(scalar) else {
                result.unicodeScalars.append(scalar)
                continue
            }
            switch scalar {
            case "\n": result += "\\n"
            case "\r": result += "\\r"
            case "\t": result += "\\t"
            case "\\": result += "\\\\"
            default:
                if FileName.escapedRange.contains(scalar.value) {
                    result += "\\x" + hex(scalar.value - FileName.escapeBase, digits: 2)
                } else if scalar.value < 0x80 {
                    result += "\\x" + hex(scalar.value, digits: 2)
                } else {
                    result += "\\u{" + hex(scalar.value, digits: 4) + "}"
                }
            }
        }
        return result
    }

    private static func needsEscape(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x00...0x1F, 0x5C, 0x7F...0x9F: return true
        case 0x2028, 0x2029, 0x202A...0x202E, 0x2066...0x2069, 0x200E, 0x200F, 0x061C: return true
        default: return FileName.escapedRange.contains(scalar.value)
        }
    }

    private static func hex(_ value: UInt32, digits: Int) -> String {
        let text = String(value, radix: 16, uppercase: true)
        return String(repeating: "0", count: max(0, digits - text.count)) + text
    }
}
