/// File names as Linux has them: bytes, not text.
///
/// A name that is valid UTF-8 is the same string here. A byte that is not part of valid UTF-8 is
/// kept as one private-use character, U+10FF80 to U+10FFFF (byte `0xNN` becomes U+10FF`NN`), so
/// that every name round-trips exactly: `x\xff.txt` and `x\u{FFFD}.txt` stay two documents. A
/// name that really contains one of those 128 private-use characters has that character's bytes
/// escaped the same way, so the mapping is one-to-one. (No real name is expected to use them:
/// they are the last characters of the last private-use plane.)
///
/// Everything that turns bytes from the file system or `argv` into a `String` goes through
/// ``decode(_:)``, and everything that hands a `String` to the file system through
/// ``encode(_:)``. People see the escaped form (``DisplayText``): `x\xFF.txt`.
public enum FileName {
    /// The `/`-separated components of `path`, split on the byte as the kernel splits it, empty
    /// ones dropped. (`split(separator: "/")` compares characters, and a `/` followed by a
    /// combining mark is one character: no separator to Swift, a separator to the kernel.)
    public static func components(of path: String) -> [String] {
        path.utf8.split(separator: UInt8(ascii: "/")).map { String(decoding: $0, as: UTF8.self) }
    }

    /// Whether `path` can name a document of a container as it is spelled: ``DocumentPath``'s
    /// rule, with nothing to normalise.
    public static func isDocumentPath(_ path: String) -> Bool {
        DocumentPath(exactly: path) != nil
    }

    /// Whether a path component is hidden: its first byte is `.` (a `.` followed by a combining
    /// mark is another character to Swift, but still a hidden name).
    public static func isHidden(component: some StringProtocol) -> Bool {
        component.utf8.first == UInt8(ascii: ".")
    }

    /// The first character used for an escaped byte (byte 0x80 → U+10FF80).
    static let escapeBase: UInt32 = 0x10_FF00
    /// Escaped bytes are 0x80...0xFF, the ones that can be invalid in UTF-8.
    static let escapedRange: ClosedRange<UInt32> = 0x10_FF80...0x10_FFFF

    /// The string for `bytes`, one-to-one (see the type's summary).
    public static func decode<Bytes: Collection<UInt8>>(_ bytes: Bytes) -> String {
        // The common case: valid UTF-8 without the lead byte 0xF4 that escaped characters use.
        if !bytes.contains(0xF4), let text = String(validating: bytes, as: UTF8.self) { return text }
        let array = Array(bytes)
        var scalars = String.UnicodeScalarView()
        var index = 0
        while index < array.count {
            if let (scalar, length) = scalar(in: array, at: index), !escapedRange.contains(scalar.value) {
                scalars.append(scalar)
                index += length
                continue
            }
            // Not valid UTF-8 here, or a character that escapes use: keep bytes one at a time.
            let length = scalar(in: array, at: index)?.length ?? 1
            for byte in array[index..<index + length] {
                scalars.append(Unicode.Scalar(escapeBase + UInt32(byte))!)
            }
            index += length
        }
        return String(scalars)
    }

    /// The string for a NUL-terminated C string's bytes (from `realpath`, `readdir`, `argv`).
    public static func decode(cString: UnsafePointer<CChar>) -> String {
        var length = 0
        while cString[length] != 0 { length += 1 }
        return cString.withMemoryRebound(to: UInt8.self, capacity: length) {
            decode(UnsafeBufferPointer(start: $0, count: length))
        }
    }

    /// The bytes that `name` stands for (the inverse of ``decode(_:)``).
    public static func encode(_ name: String) -> [UInt8] {
        // An escaped byte is a scalar of U+10FF80...U+10FFFF, whose UTF-8 starts with 0xF4: a
        // name without that byte is its UTF-8 as it is.
        guard name.utf8.contains(0xF4) else { return Array(name.utf8) }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(name.utf8.count)
        for scalar in name.unicodeScalars {
            if escapedRange.contains(scalar.value) {
                bytes.append(UInt8(scalar.value - escapeBase))
            } else {
                bytes.append(contentsOf: UTF8.encode(scalar).map(Array.init) ?? [])
            }
        }
        return bytes
    }

    /// The longest file name Linux file systems take, in bytes (`NAME_MAX`).
    public static let maximumNameBytes = 255

    /// `name` cut (at a byte, from its end) so that `extra` more bytes still fit in a file
    /// name: the base of a temporary name made beside it (`.NAME.random.partial`), which must not
    /// fail where the name itself would not.
    public static func prefix(of name: String, leavingRoomFor extra: Int) -> String {
        let bytes = encode(name)
        let room = max(1, maximumNameBytes - extra)
        return bytes.count <= room ? name : decode(bytes.prefix(room))
    }

    /// Whether `name` holds escaped bytes (it was not valid UTF-8 on disk).
    public static func hasEscapedBytes(_ name: String) -> Bool {
        name.unicodeScalars.contains { escapedRange.contains($0.value) }
    }

    /// Calls `body` with `name`'s bytes as a C string (for `open`, `stat` and friends). A name
    /// holding a NUL byte cannot be a file name: `body` gets an empty string then, which every
    /// file system call rejects.
    public static func withCString<Result>(_ name: String, _ body: (UnsafePointer<CChar>) throws -> Result)
        rethrows -> Result
    {
        var bytes = encode(name)
        if bytes.contains(0) { bytes = [] }
        bytes.append(0)
        return try bytes.withUnsafeBufferPointer { buffer in
            try buffer.withMemoryRebound(to: CChar.self) { try body($0.baseAddress!) }
        }
    }

    /// The valid UTF-8 scalar starting at `index`, and its length in bytes; nil if the bytes there
    /// are not valid UTF-8 (overlong forms and surrogates included).
    private static func scalar(in bytes: [UInt8], at index: Int) -> (Unicode.Scalar, length: Int)? {
        let lead = bytes[index]
        let length: Int
        let minimum: UInt32
        var value: UInt32
        switch lead {
        case 0x00...0x7F: return (Unicode.Scalar(lead), 1)
        case 0xC2...0xDF: (length, minimum, value) = (2, 0x80, UInt32(lead & 0x1F))
        case 0xE0...0xEF: (length, minimum, value) = (3, 0x800, UInt32(lead & 0x0F))
        case 0xF0...0xF4: (length, minimum, value) = (4, 0x1_0000, UInt32(lead & 0x07))
        default: return nil
        }
        guard index + length <= bytes.count else { return nil }
        for offset in 1..<length {
            let byte = bytes[index + offset]
            guard byte & 0xC0 == 0x80 else { return nil }
            value = value << 6 | UInt32(byte & 0x3F)
        }
        guard value >= minimum, let scalar = Unicode.Scalar(value) else { return nil }
        return (scalar, length)
    }
}
