#if canImport(Glibc)
    import Glibc
#endif

/// Lines to standard error. (C's `stderr` is a global that Swift 6 will not share across tasks;
/// a `write(2)` on descriptor 2 needs no shared state.)
enum StandardError {
    /// Writes `line` and a newline to standard error.
    static func write(_ line: String) {
        writeRaw(line + "\n")
    }

    /// Writes `text` as it is (progress bars redraw a line with a carriage return).
    static func writeRaw(_ text: String) {
        let bytes = Array(text.utf8)
        bytes.withUnsafeBytes { raw in
            var offset = 0
            while offset < raw.count {
                let count = Glibc.write(2, raw.baseAddress! + offset, raw.count - offset)
                if count <= 0 { return }
                offset += count
            }
        }
    }

    /// Reports a failed document the way every command does: `glance: PATH: reason`.
    static func report(path: String, _ reason: CustomStringConvertible) {
        write("glance: \(path): \(reason)")
    }
}
