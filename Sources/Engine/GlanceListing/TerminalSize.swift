#if canImport(Glibc)
    import Glibc
#endif

/// The size of the terminal a descriptor writes to: columns and rows of character cells, and
/// the window in pixels when the terminal says (0 when it does not).
public struct TerminalSize: Sendable, Equatable {
    public var columns: Int
    public var rows: Int
    public var pixelWidth: Int
    public var pixelHeight: Int

    public init(columns: Int, rows: Int, pixelWidth: Int = 0, pixelHeight: Int = 0) {
        self.columns = columns
        self.rows = rows
        self.pixelWidth = pixelWidth
        self.pixelHeight = pixelHeight
    }

    /// The size of the terminal `descriptor` is, from `TIOCGWINSZ`; nil when it is not a
    /// terminal (a pipe, a file) or says no size: then output is made for scripts, unfitted.
    public static func of(descriptor: Int32) -> TerminalSize? {
        guard isatty(descriptor) == 1 else { return nil }
        var size = winsize()
        guard ioctl(descriptor, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0 else { return nil }
        return TerminalSize(
            columns: Int(size.ws_col), rows: Int(size.ws_row), pixelWidth: Int(size.ws_xpixel),
            pixelHeight: Int(size.ws_ypixel))
    }
}
