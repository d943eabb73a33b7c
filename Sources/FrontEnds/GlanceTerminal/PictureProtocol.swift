/// How a terminal is given a picture.
public enum PictureProtocol: String, Sendable, CaseIterable {
    /// kitty's graphics protocol (kitty, WezTerm, Ghostty, Konsole).
    case kitty
    /// iTerm2's inline images (iTerm2, WezTerm).
    case iterm
    /// DEC sixel graphics (xterm -ti vt340, foot, mlterm, Windows Terminal, recent Konsole).
    case sixel
    /// Unicode block and border symbols in 24-bit colour: any UTF-8 terminal.
    case symbols

    /// Whether the protocol draws pixels (the others are text).
    public var drawsPixels: Bool { self != .symbols }
}

/// What `--preview` asks for: a protocol, or the one the terminal is found to speak.
public enum PictureChoice: Sendable, Equatable {
    case automatic
    case named(PictureProtocol)

    /// `auto`, `kitty`, `iterm`, `sixel` or `symbols`; nil for anything else.
    public init?(_ text: String) {
        if text == "auto" {
            self = .automatic
        } else if let named = PictureProtocol(rawValue: text) {
            self = .named(named)
        } else {
            return nil
        }
    }
}
