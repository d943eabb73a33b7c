/// Which protocol a terminal gets, and why (what `glance list --preview -v` says): a named one as
/// asked; `auto` decides from the environment first (`KITTY_WINDOW_ID`, `TERM`, `TERM_PROGRAM`,
/// …), then from the terminal's own answers (``TerminalAnswers``: kitty's graphics query,
/// primary device attributes for sixel), and falls back to symbols. Inside tmux or screen the
/// pictures would be eaten by the multiplexer, so `auto` draws symbols there. Standard output
/// that is not a terminal gets no picture unless one is named: a script never receives escape
/// sequences it did not ask for.
public struct PictureProtocolDecision: Sendable, Equatable {
    /// The protocol to draw with, or nil for no pictures (the plain table).
    public let chosen: PictureProtocol?
    /// Why, in a few words.
    public let reason: String

    public init(chosen: PictureProtocol?, reason: String) {
        self.chosen = chosen
        self.reason = reason
    }

    /// The decision for `choice`, with `environment`, when standard output `isTerminal`; `ask`
    /// queries the terminal (called only when the environment does not settle it).
    public static func decide(
        _ choice: PictureChoice, environment: [String: String], isTerminal: Bool,
        ask: () -> TerminalAnswers? = { nil }
    ) -> PictureProtocolDecision {
        if case .named(let named) = choice { return PictureProtocolDecision(chosen: named, reason: "named") }
        guard isTerminal else {
            return PictureProtocolDecision(
                chosen: nil, reason: "standard output is not a terminal: no pictures unless a mode is named")
        }
        let term = environment["TERM"] ?? ""
        let program = environment["TERM_PROGRAM"] ?? ""
        if environment["TMUX"] != nil || term.hasPrefix("screen") || term.hasPrefix("tmux") {
            return PictureProtocolDecision(
                chosen: .symbols, reason: "inside tmux or screen, which do not pass pictures through: symbols")
        }
        if environment["KITTY_WINDOW_ID"] != nil || term == "xterm-kitty" || term == "xterm-ghostty"
            || program == "ghostty"
        {
            return PictureProtocolDecision(chosen: .kitty, reason: "kitty's graphics protocol (\(term), \(program))")
        }
        if program == "iTerm.app" || program == "WezTerm" {
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
