/// The few pieces of C that X bitmaps and pixmaps are written in.
enum CSource {
    /// `#define NAME VALUE` in `line`: the name, and the value when it is a decimal number (of at
    /// most nine digits).
    static func define(in line: ArraySlice<UInt8>) -> (name: String, value: Int?)? {
        let words = line.split(whereSeparator: { $0 == 0x20 || $0 == 0x09 || $0 == 0x0D })
        guard words.count >= 2, words[0].elementsEqual("#define".utf8) else { return nil }
        let name = String(decoding: words[1], as: UTF8.self)
        guard words.count >= 3 else { return (name, nil) }
        let digits = words[2]
        guard !digits.isEmpty, digits.count <= 9, digits.allSatisfy({ (0x30...0x39).contains($0) }) else {
            return (name, nil)
        }
        return (name, digits.reduce(0) { $0 * 10 + Int($1 - 0x30) })
    }

    /// The numbers of an array's initialiser, in order: hexadecimal (`0x1f`) or decimal, between
    /// commas, spaces and comments; nil at its `}` or at anything else.
    struct Numbers {
        private let bytes: [UInt8]
        private var at: Int

        init(_ bytes: [UInt8], from start: Int) {
            self.bytes = bytes
            at = start
        }

        mutating func next() -> Int? {
            while at < bytes.count {
                let byte = bytes[at]
                if byte == UInt8(ascii: ",") || byte == 0x20 || (0x09...0x0D).contains(byte) {
                    at += 1
                } else if !CSource.skipComment(bytes, at: &at) {
                    break
                }
            }
            guard at < bytes.count else { return nil }
            var radix = 10
            if bytes[at] == UInt8(ascii: "0"), at + 1 < bytes.count, bytes[at + 1] | 0x20 == UInt8(ascii: "x") {
                radix = 16
                at += 2
            }
            var value = 0
            var digits = 0
            while at < bytes.count, let digit = Self.digit(bytes[at], radix: radix) {
                value = min(value * radix + digit, 1 << 32)
                digits += 1
                at += 1
            }
            return digits > 0 ? value : nil
        }

        private static func digit(_ byte: UInt8, radix: Int) -> Int? {
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): Int(byte - UInt8(ascii: "0"))
            case UInt8(ascii: "a")...UInt8(ascii: "f") where radix == 16: Int(byte - UInt8(ascii: "a")) + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F") where radix == 16: Int(byte - UInt8(ascii: "A")) + 10
            default: nil
            }
        }
    }

    /// The string literals of C source, in order, from `start` on: what is between them (a
    /// declaration, commas, comments) skipped.
    struct Strings {
        private let bytes: [UInt8]
        private var at: Int

        init(_ bytes: [UInt8], from start: Int) {
            self.bytes = bytes
            at = start
        }

        mutating func next() -> ArraySlice<UInt8>? {
            while at < bytes.count, bytes[at] != UInt8(ascii: "\"") {
                if !CSource.skipComment(bytes, at: &at) { at += 1 }
            }
            guard at < bytes.count else { return nil }
            // No escapes: XPM's writers never use `"` or `\` as a pixel's character, and
            // libXpm ends a string at the next `"` as this does.
            let start = at + 1
            guard let end = bytes[start...].firstIndex(of: UInt8(ascii: "\"")) else { return nil }
            at = end + 1
            return bytes[start..<end]
        }
    }

    /// Moves `at` past the comment that starts there (`/*` to `*/`, or to the end); false, and
    /// `at` unmoved, when none starts there.
    static func skipComment(_ bytes: [UInt8], at: inout Int) -> Bool {
        guard at + 1 < bytes.count, bytes[at] == UInt8(ascii: "/"), bytes[at + 1] == UInt8(ascii: "*") else {
            return false
        }
        at += 2
        while at + 1 < bytes.count, !(bytes[at] == UInt8(ascii: "*") && bytes[at + 1] == UInt8(ascii: "/")) { at += 1 }
        at += 2
        return true
    }
}
