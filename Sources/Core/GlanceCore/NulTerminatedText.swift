extension String {
    /// The UTF-8 text a C function wrote into `buffer`, up to its first NUL (or all of it); bytes
    /// that are not UTF-8 become U+FFFD. For the reasons, names and messages the C shims return.
    public init(nulTerminated buffer: [CChar]) {
        self.init(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
