/// The check on a ThumbHash read back from a store (another program may have written it): base64
/// of 5 to 32 bytes, nothing else, so that a page may put it in an attribute and a script decode it.
public enum ThumbHashText {
    /// Whether `text` can be a ThumbHash.
    public static func isValid(_ text: String) -> Bool {
        guard (8...44).contains(text.utf8.count) else { return false }
        return text.utf8.allSatisfy { byte in
            (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte) || (0x30...0x39).contains(byte)
                || byte == 0x2B || byte == 0x2F || byte == 0x3D
        }
    }
}
