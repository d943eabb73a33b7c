import GlanceCore

/// Lines to standard error. (C's `stderr` is a global that Swift 6 will not share across tasks;
/// a `write(2)` on descriptor 2 needs no shared state.)
enum StandardError {
    /// Writes `line` and a newline to standard error, with control characters in it escaped so
    /// that it stays one line (see ``DisplayText``).
    static func write(_ line: String) {
        writeRaw(DisplayText.escaped(line) + "\n")
    }

    /// Writes `text` as it is (progress bars redraw a line with a carriage return).
    static func writeRaw(_ text: String) {
        DescriptorWriter.writeAll(Array(text.utf8), to: 2)
    }

    /// Reports a failed document the way every command does: `glance: PATH: reason`.
    static func report(path: String, _ reason: CustomStringConvertible) {
        write("glance: \(path): \(reason)")
    }
}
