import Foundation

/// Which protocol a terminal gets, and why (what `glance list --preview -v` says): a named one as
/// asked; `auto` decides from the environment first (`KITTY_WINDOW_ID`, `TERM`, `TERM_PROGRAM`,
/// …), then from the terminal's own answers (``TerminalAnswers``: kitty's graphics query,
/// primary device attributes for sixel), and falls back to symbols. Inside tmux, kitty's and
/// iTerm2's pictures go through to the terminal outside when tmux allows it (`set -g
/// allow-passthrough on`) and that terminal is known from the environment (`KITTY_WINDOW_ID`,
/// `LC_TERMINAL=iTerm2`, WezTerm's variables); otherwise, and inside screen, `auto` draws
/// symbols. Standard output that is not a terminal gets no picture unless one is named: a script
/// never receives escape sequences it did not ask for.
public struct PictureProtocolDecision: Sendable, Equatable {
    /// The protocol to draw with, or nil for no pictures (the plain table).
    public let chosen: PictureProtocol?
    /// Why, in a few words.
    public let reason: String
    /// Whether each picture is wrapped for tmux to pass through (``TmuxPassthrough``).
    public let throughTmux: Bool

    public init(chosen: PictureProtocol?, reason: String, throughTmux: Bool = false) {
        self.chosen = chosen
        self.reason = reason
        self.throughTmux = throughTmux
    }

    /// The decision for `choice`, with `environment`, when standard output `isTerminal`; `ask`
    /// queries the terminal (called only when the environment does not settle it);
    /// `tmuxPassesThrough` says whether tmux's `allow-passthrough` is on (asked only inside tmux).
    public static func decide(
        _ choice: PictureChoice, environment: [String: String], isTerminal: Bool,
        ask: () -> TerminalAnswers? = { nil }, tmuxPassesThrough: () -> Bool = { false }
    ) -> PictureProtocolDecision {
        let term = environment["TERM"] ?? ""
        let program = environment["TERM_PROGRAM"] ?? ""
        let inTmux = environment["TMUX"] != nil
        if case .named(let named) = choice {
            // Named inside tmux: kitty's and iTerm2's pictures are wrapped when tmux lets them out.
            let through = inTmux && isTerminal && named != .symbols && named != .sixel && tmuxPassesThrough()
            return PictureProtocolDecision(
                chosen: named, reason: through ? "named, passed through tmux" : "named", throughTmux: through)
        }
        guard isTerminal else {
            return PictureProtocolDecision(
                chosen: nil, reason: "standard output is not a terminal: no pictures unless a mode is named")
        }
        if inTmux {
            let outside: PictureProtocol? =
                environment["KITTY_WINDOW_ID"] != nil
                ? .kitty
                : environment["LC_TERMINAL"] == "iTerm2" || environment["WEZTERM_PANE"] != nil ? .iterm : nil
            guard let outside else {
                return PictureProtocolDecision(
                    chosen: .symbols,
                    reason: "inside tmux, and the terminal outside it is not known to draw pictures: symbols")
            }
            guard tmuxPassesThrough() else {
                return PictureProtocolDecision(
                    chosen: .symbols,
                    reason:
                        "inside tmux, which does not pass pictures through (tmux set -g allow-passthrough on): symbols")
            }
            return PictureProtocolDecision(
                chosen: outside, reason: "\(outside.rawValue) pictures passed through tmux (allow-passthrough)",
                throughTmux: true)
        }
        if term.hasPrefix("screen") || term.hasPrefix("tmux") {
            return PictureProtocolDecision(
                chosen: .symbols, reason: "inside screen, which does not pass pictures through: symbols")
        }
        if environment["KITTY_WINDOW_ID"] != nil || term == "xterm-kitty" || term == "xterm-ghostty"
            || program == "ghostty"
        {
            return PictureProtocolDecision(chosen: .kitty, reason: "kitty's graphics protocol (\(term), \(program))")
        }
        if program == "iTerm.app" || program == "WezTerm" || environment["LC_TERMINAL"] == "iTerm2" {
            return PictureProtocolDecision(chosen: .iterm, reason: "iTerm2's inline images (TERM_PROGRAM=\(program))")
        }
        if ["foot", "foot-extra", "mlterm", "contour"].contains(term) || environment["WT_SESSION"] != nil {
            return PictureProtocolDecision(chosen: .sixel, reason: "sixel (TERM=\(term))")
        }
        guard let answers = ask() else {
            return PictureProtocolDecision(
                chosen: .symbols, reason: "the terminal did not answer its queries (TERM=\(term)): symbols")
        }
        if answers.kittyGraphics {
            return PictureProtocolDecision(chosen: .kitty, reason: "the terminal answered kitty's graphics query")
        }
        if answers.sixel {
            return PictureProtocolDecision(chosen: .sixel, reason: "the terminal's device attributes include sixel")
        }
        return PictureProtocolDecision(
            chosen: .symbols, reason: "the terminal (TERM=\(term)) speaks no picture protocol: symbols")
    }
}

/// Pictures wrapped for tmux to hand to the terminal outside it: `ESC P tmux; … ESC \`, with
/// every `ESC` inside doubled (tmux 3.3 and later, with `allow-passthrough on`).
public enum TmuxPassthrough {
    public static func wrapped(_ bytes: [UInt8]) -> [UInt8] {
        var out = Array("\u{1B}Ptmux;".utf8)
        out.reserveCapacity(bytes.count + bytes.count / 64 + 16)
        for byte in bytes {
            if byte == 0x1B { out.append(0x1B) }
            out.append(byte)
        }
        return out + Array("\u{1B}\\".utf8)
    }

    /// Whether the tmux this process runs in passes pictures through: `allow-passthrough` is `on`
    /// or `all` (`tmux show-options -gv`; false when tmux cannot be asked).
    public static func isAllowed() -> Bool {
        let tmux = Process()
        tmux.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        tmux.arguments = ["tmux", "show-options", "-gv", "allow-passthrough"]
        let output = Pipe()
        tmux.standardOutput = output
        tmux.standardError = FileHandle.nullDevice
        tmux.standardInput = FileHandle.nullDevice
        do {
            try tmux.run()
        } catch {
            return false
        }
        let answer = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        tmux.waitUntilExit()
        let value = answer.trimmingCharacters(in: .whitespacesAndNewlines)
        return tmux.terminationStatus == 0 && (value == "on" || value == "all")
    }
}
