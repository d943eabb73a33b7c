/// Colours as CSS writes them, `#rrggbb`: how a thumbnail's placeholder colour is stored and sent.
public enum HexColour {
    /// `#rrggbb` for 8-bit channels (values outside 0-255 are clamped).
    public static func text(red: Int, green: Int, blue: Int) -> String {
        let digits = Array("0123456789abcdef")
        var text = "#"
        for channel in [red, green, blue] {
            let value = min(max(channel, 0), 255)
            text.append(digits[value >> 4])
            text.append(digits[value & 15])
        }
        return text
    }

    /// Whether `text` is exactly `#` and six lower-case hexadecimal digits (what a worker may
    /// report and a page may put in a style attribute).
    public static func isValid(_ text: String) -> Bool {
        let bytes = Array(text.utf8)
        return bytes.count == 7 && bytes[0] == UInt8(ascii: "#")
            && bytes.dropFirst().allSatisfy {
                (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0)
                    || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains($0)
            }
    }
}
