import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// What a terminal says about itself when asked on `/dev/tty`: whether it answers kitty's
/// graphics query, whether its primary device attributes include sixel (4), and its cell size in
/// pixels (`CSI 16 t`). Every terminal answers the device attributes, and answers in order, so
/// that answer ends the wait; a terminal that says nothing within the time-out is taken to speak
/// no picture protocol.
public struct TerminalAnswers: Sendable, Equatable {
    public var kittyGraphics = false
    public var sixel = false
    public var cell: CellSize?

    public init(kittyGraphics: Bool = false, sixel: Bool = false, cell: CellSize? = nil) {
        self.kittyGraphics = kittyGraphics
        self.sixel = sixel
        self.cell = cell
    }

    /// The queries, in one write: kitty's (a 1x1 image it only checks), the cell size, and the
    /// primary device attributes last.
    static let queries = Array("\u{1B}_Gi=31,s=1,v=1,a=q,t=d,f=24;AAAA\u{1B}\\\u{1B}[16t\u{1B}[c".utf8)

    /// The answers read from `bytes` (what the terminal wrote back), or nil before the device
    /// attributes' answer is complete.
    static func parse(_ bytes: [UInt8]) -> TerminalAnswers? {
        let text = String(decoding: bytes, as: UTF8.self)
        guard let attributes = text.range(of: "\u{1B}[?"),
            let end = text[attributes.upperBound...].firstIndex(of: "c")
        else { return nil }
        var answers = TerminalAnswers()
        answers.sixel = text[attributes.upperBound..<end].split(separator: ";").contains("4")
        answers.kittyGraphics = text.contains("\u{1B}_Gi=31;OK")
        if let size = text.range(of: "\u{1B}[6;"), let t = text[size.upperBound...].firstIndex(of: "t") {
            let numbers = text[size.upperBound..<t].split(separator: ";").compactMap { Int($0) }
            if numbers.count == 2, (4...200).contains(numbers[0]), (2...100).contains(numbers[1]) {
                answers.cell = CellSize(width: numbers[1], height: numbers[0])
            }
        }
        return answers
    }

    /// Asks the terminal of `/dev/tty`, waiting at most `timeout` for its answers; nil when there is
    /// no terminal or it does not answer. The terminal's modes are restored before returning.
    public static func ask(timeout: Duration = .milliseconds(300)) -> TerminalAnswers? {
        let terminal = open("/dev/tty", O_RDWR | O_NOCTTY | O_CLOEXEC)
        guard terminal >= 0 else { return nil }
        defer { close(terminal) }
        var original = termios()
        guard tcgetattr(terminal, &original) == 0 else { return nil }
        var raw = original
        raw.c_lflag &= ~tcflag_t(ICANON | ECHO)
        guard tcsetattr(terminal, TCSANOW, &raw) == 0 else { return nil }
        defer { tcsetattr(terminal, TCSANOW, &original) }
        let written = queries.withUnsafeBytes { write(terminal, $0.baseAddress, $0.count) }
        guard written == queries.count else { return nil }
        let deadline = ContinuousClock.now + timeout
        var received: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 512)
        while received.count < 4096 {
            let left = deadline - ContinuousClock.now
            guard left > .zero else { return nil }
            var poller = pollfd(fd: terminal, events: Int16(POLLIN), revents: 0)
            let milliseconds = Int32(
                max(1, left.components.seconds * 1000 + left.components.attoseconds / 1_000_000_000_000_000))
            guard poll(&poller, 1, milliseconds) > 0 else { continue }
            let count = read(terminal, &buffer, buffer.count)
            guard count > 0 else { return nil }
            received += buffer.prefix(count)
            if let answers = parse(received) { return answers }
        }
        return nil
    }
}
