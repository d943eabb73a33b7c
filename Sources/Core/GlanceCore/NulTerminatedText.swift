extension String {
    /// The UTF-8 text a C function wrote into `buffer`, up to its first NUL (or all of it); bytes
    /// that are not UTF-8 become U+FFFD. For the reasons, names and messages the C shims return.
    public init(nulTerminated buffer: [CChar]) {
        self.init(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}

extension String {
    /// The UTF-8 text in a fixed-size C character array (imported into Swift as a tuple, such as
    /// a `char name[64]` struct field), up to its first NUL; bytes that are not UTF-8 become U+FFFD.
    public init<Field>(fixedCText field: Field) {
        self = withUnsafeBytes(of: field) { bytes in String(decoding: bytes.prefix { $0 != 0 }, as: UTF8.self) }
    }
}
