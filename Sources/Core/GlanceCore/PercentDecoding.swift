/// Percent-decoding, the one rule for every part of a URL the server reads: `%XX` is the byte
/// XX, and the bytes are read as UTF-8; a `%` without two hex digits after it, or bytes that are
/// not UTF-8, decode to nothing (what Foundation's `removingPercentEncoding` refuses too). On
/// the bytes, with a way through for the common text without escapes: Foundation's decoding
/// returns a string bridged to Core Foundation, and every later look at it (the path's checks,
/// its bytes for `open`) went through CF: with it a thumbnail GET spent 9% of its CPU there.
public enum PercentDecoding {
    /// `text` decoded; with `plusIsSpace` (a form's query), `+` is a space and `%2B` a plus.
    public static func decoded(_ text: Substring, plusIsSpace: Bool = false) -> String? {
        let utf8 = text.utf8
        guard utf8.contains(where: { $0 == UInt8(ascii: "%") || (plusIsSpace && $0 == UInt8(ascii: "+")) }) else {
            return String(text)
        }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(utf8.count)
        var index = utf8.startIndex
        while index != utf8.endIndex {
            let byte = utf8[index]
            index = utf8.index(after: index)
            switch byte {
            case UInt8(ascii: "+") where plusIsSpace:
                bytes.append(UInt8(ascii: " "))
            case UInt8(ascii: "%"):
                guard index != utf8.endIndex, let high = hexValue(utf8[index]) else { return nil }
                index = utf8.index(after: index)
                guard index != utf8.endIndex, let low = hexValue(utf8[index]) else { return nil }
                index = utf8.index(after: index)
                bytes.append(high << 4 | low)
            default:
                bytes.append(byte)
            }
        }
        return String(validating: bytes, as: UTF8.self)
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
