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
        if start.isEmpty {
            guard let suffix = Int64(end), suffix > 0 else { return .unsatisfiable }
            guard size > 0 else { return .unsatisfiable }
            return .range(ByteRange(first: max(0, size - suffix), last: size - 1))
        }
        guard let first = Int64(start), first >= 0 else { return .whole }
        guard first < size else { return .unsatisfiable }
        if end.isEmpty { return .range(ByteRange(first: first, last: size - 1)) }
        guard let last = Int64(end), last >= first else { return .whole }
        return .range(ByteRange(first: first, last: min(last, size - 1)))
    }
}
