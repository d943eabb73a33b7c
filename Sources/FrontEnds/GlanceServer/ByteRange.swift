/// One byte range of an HTTP `Range` header (`bytes=0-99`, `bytes=100-`, `bytes=-500`).
struct ByteRange: Equatable {
    let first: Int64
    let last: Int64

    var count: Int64 { last - first + 1 }

    /// What a `Range` header asks of a file of `size` bytes.
    enum Request: Equatable {
        /// No usable header (absent, not bytes, or several ranges): the whole file, 200.
        case whole
        /// One satisfiable range: 206.
        case range(ByteRange)
        /// A range that lies past the end: 416.
        case unsatisfiable
    }

    /// Parses `header` for a file of `size` bytes. Several ranges are answered with the whole
    /// file, which RFC 9110 allows.
    static func parse(_ header: String?, size: Int64) -> Request {
        guard let header, header.hasPrefix("bytes=") else { return .whole }
        let spec = String(header.dropFirst("bytes=".count).filter { $0 != " " && $0 != "\t" })
        guard !spec.contains(","), let dash = spec.firstIndex(of: "-") else { return .whole }
        let start = spec[..<dash]
        let end = spec[spec.index(after: dash)...]
        // Only digits are a number here (Int64 would take "+5" and "-5"); a malformed header
        // is ignored, as RFC 9110 asks: the whole file.
        if start.isEmpty {
            guard let suffix = Self.number(end) else { return .whole }
            guard suffix > 0 else { return .unsatisfiable }
            guard size > 0 else { return .unsatisfiable }
            return .range(ByteRange(first: max(0, size - suffix), last: size - 1))
        }
        guard let first = Self.number(start) else { return .whole }
        guard first < size else { return .unsatisfiable }
        if end.isEmpty { return .range(ByteRange(first: first, last: size - 1)) }
        guard let last = Self.number(end), last >= first else { return .whole }
        return .range(ByteRange(first: first, last: min(last, size - 1)))
    }

    /// `text` as a number if it is one or more ASCII digits; a number too large for `Int64` is
    /// `Int64.max` (past the end of any file: `bytes=0-99999999999999999999` is the whole file
    /// from 0, `bytes=99999999999999999999-` unsatisfiable, as RFC 9110 reads them).
    private static func number(_ text: Substring) -> Int64? {
        guard !text.isEmpty, text.utf8.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }) else {
            return nil
        }
        return Int64(text) ?? Int64.max
    }
}
