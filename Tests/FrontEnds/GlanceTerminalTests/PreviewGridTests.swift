import Testing

@testable import GlanceTerminal

@Suite("The preview grid and how its protocol is chosen", .timeLimit(.minutes(10)))
struct PreviewGridTests {
    @Test("as many tiles to a row as the width allows, two columns apart; the box square in pixels")
    func layout() {
        let cell = CellSize(width: 10, height: 20)
        #expect(PreviewGrid(columns: 80, cell: cell).tilesPerRow == 3)
        #expect(PreviewGrid(columns: 120, cell: cell).tilesPerRow == 5)
        #expect(PreviewGrid(columns: 200, cell: cell).tilesPerRow == 9)
        #expect(PreviewGrid(columns: 21, cell: cell).tilesPerRow == 1)
        let grid = PreviewGrid(columns: 80, cell: cell)
        #expect(grid.pictureColumns == 20 && grid.pictureRows == 10)
        #expect(grid.pictureBox(cell: cell) == 200)
        // Narrow cells: more rows for the same square.
        #expect(PreviewGrid(columns: 80, cell: CellSize(width: 8, height: 17)).pictureRows == 9)
        // A terminal narrower than a tile still gets one, as wide as it is.
        #expect(PreviewGrid(columns: 12, cell: cell).pictureColumns == 12)
    }

    @Test("a symbols row is text: each line holds every tile's line side by side, then the names and states")
    func symbolsRow() throws {
        let grid = PreviewGrid(columns: 50, cell: CellSize(width: 10, height: 20), pictureColumns: 10)
        #expect(grid.tilesPerRow == 4 && grid.pictureRows == 5)
        let picture = TerminalPicture(
            bytes: Array(Array(repeating: "\u{1B}[38;2;1;2;3m▀▀▀▀▀▀\u{1B}[0m", count: 3).joined(separator: "\n").utf8),
            columns: 6, rows: 3)
        let tiles = [
            PreviewTile(content: .picture(picture), name: "a.png", state: "fresh"),
            PreviewTile(content: .placeholder(colour: "#336699", label: "pdf"), name: "b.pdf", state: "unsupported"),
            PreviewTile(
                content: .placeholder(colour: nil, label: "failed"), name: "a very long name indeed.txt",
                state: "failed: corrupt"),
        ]
        let text = String(decoding: grid.row(tiles, drawsPixels: false), as: UTF8.self)
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        #expect(lines.count == grid.pictureRows + 2 + 1 && lines.last == "")
        for line in lines.prefix(grid.pictureRows) {
            let bare = line.replacing(/\x{1B}\[[0-9;]*m/, with: "")
            #expect(bare.count == 3 * 10 + 2 * PreviewGrid.gap, "\(line.debugDescription)")
        }
        #expect(lines[grid.pictureRows] == "a.png       b.pdf       a very lo…")
        #expect(lines[grid.pictureRows + 1] == "fresh       unsupport…  failed: c…")
        // The placeholder of a known colour is filled with it, its word in the middle.
        #expect(text.contains("\u{1B}[48;2;51;102;153m"))
        #expect(lines[2].replacing(/\x{1B}\[[0-9;]*m/, with: "").contains("   pdf    "))
    }

    @Test(
        "a picture protocol's row reserves its lines, places each image at its tile with the cursor saved, and ends below"
    )
    func pixelRow() {
        let grid = PreviewGrid(columns: 50, cell: CellSize(width: 10, height: 20), pictureColumns: 10)
        let sixel = TerminalPicture(bytes: Array("\u{1B}Pq#0!10~\u{1B}\\".utf8), columns: 10, rows: 5)
        let tiles = [
            PreviewTile(content: .picture(sixel), name: "a", state: "fresh"),
            PreviewTile(content: .picture(sixel), name: "b", state: "fresh"),
        ]
        let text = String(decoding: grid.row(tiles, drawsPixels: true), as: UTF8.self)
        #expect(text.hasPrefix("\n\n\n\n\n\u{1B}[5A"))
        #expect(text.contains("\u{1B}[1G\u{1B}7\u{1B}Pq#0!10~\u{1B}\\\u{1B}8"))
        #expect(text.contains("\u{1B}[13G\u{1B}7\u{1B}Pq"))
        #expect(text.hasSuffix("\u{1B}[5B\ra           b\nfresh       fresh\n"))
    }

    @Test("auto: a named mode always; on a pipe nothing; the environment, then the terminal's answers, then symbols")
    func decisions() {
        func decide(
            _ choice: PictureChoice, _ environment: [String: String], terminal: Bool = true,
            answers: TerminalAnswers? = nil
        ) -> PictureProtocol? {
            PictureProtocolDecision.decide(choice, environment: environment, isTerminal: terminal, ask: { answers })
                .chosen
        }
        #expect(decide(.named(.sixel), [:], terminal: false) == .sixel)
        #expect(decide(.automatic, ["TERM": "xterm-kitty"], terminal: false) == nil)
        #expect(decide(.automatic, ["TERM": "xterm-kitty"]) == .kitty)
        #expect(decide(.automatic, ["TERM": "xterm-256color", "KITTY_WINDOW_ID": "1"]) == .kitty)
        #expect(decide(.automatic, ["TERM": "xterm-256color", "TERM_PROGRAM": "iTerm.app"]) == .iterm)
        #expect(decide(.automatic, ["TERM": "foot"]) == .sixel)
        #expect(decide(.automatic, ["TERM": "xterm-kitty", "TMUX": "/tmp/tmux-0/default,1,0"]) == .symbols)
        #expect(decide(.automatic, ["TERM": "screen-256color"]) == .symbols)
        #expect(decide(.automatic, ["TERM": "xterm"], answers: TerminalAnswers(sixel: true)) == .sixel)
        #expect(
            decide(.automatic, ["TERM": "xterm"], answers: TerminalAnswers(kittyGraphics: true, sixel: true)) == .kitty)
        #expect(decide(.automatic, ["TERM": "xterm"], answers: TerminalAnswers()) == .symbols)
        #expect(decide(.automatic, ["TERM": "xterm"], answers: nil) == .symbols)
        #expect(
            PictureChoice("auto") == .automatic && PictureChoice("iterm") == .named(.iterm)
                && PictureChoice("png") == nil)
    }

    @Test(
        "inside tmux: kitty or iTerm2 passed through when tmux allows it and the terminal outside is known, else symbols"
    )
    func tmux() {
        let inside = ["TERM": "tmux-256color", "TMUX": "/tmp/tmux-0/default,1,0", "TERM_PROGRAM": "tmux"]
        func decide(_ choice: PictureChoice, _ extra: [String: String], allowed: Bool) -> PictureProtocolDecision {
            PictureProtocolDecision.decide(
                choice, environment: inside.merging(extra) { $1 }, isTerminal: true, ask: { nil },
                tmuxPassesThrough: { allowed })
        }
        let kitty = decide(.automatic, ["KITTY_WINDOW_ID": "3"], allowed: true)
        #expect(kitty.chosen == .kitty && kitty.throughTmux && kitty.reason.contains("passed through tmux"))
        let iterm = decide(.automatic, ["LC_TERMINAL": "iTerm2"], allowed: true)
        #expect(iterm.chosen == .iterm && iterm.throughTmux)
        let closed = decide(.automatic, ["KITTY_WINDOW_ID": "3"], allowed: false)
        #expect(closed.chosen == .symbols && !closed.throughTmux && closed.reason.contains("allow-passthrough on"))
        let unknown = decide(.automatic, [:], allowed: true)
        #expect(unknown.chosen == .symbols && !unknown.throughTmux)
        let named = decide(.named(.kitty), [:], allowed: true)
        #expect(named.chosen == .kitty && named.throughTmux)
        #expect(!decide(.named(.sixel), [:], allowed: true).throughTmux)
        // Wrapped: ESC P tmux; ... ESC \ with each ESC inside doubled.
        let wrapped = TmuxPassthrough.wrapped(Array("\u{1B}_Ga=T;AAAA\u{1B}\\".utf8))
        #expect(String(decoding: wrapped, as: UTF8.self) == "\u{1B}Ptmux;\u{1B}\u{1B}_Ga=T;AAAA\u{1B}\u{1B}\\\u{1B}\\")
    }

    @Test("names are cut and padded by the columns a terminal gives them: CJK and emoji take two, marks none")
    func wideNames() {
        #expect(DisplayColumns.of("abc") == 3)
        #expect(DisplayColumns.of("報告書.pdf") == 10)
        #expect(DisplayColumns.of("한국어") == 6)
        #expect(DisplayColumns.of("🎉x") == 3)
        #expect(DisplayColumns.of("e\u{301}") == 1)
        // Cut to fit: a wide character that would straddle the edge goes with the rest.
        #expect(PreviewGrid.fitted("年次報告書2026.pdf", to: 10) == "年次報告… ")
        #expect(DisplayColumns.of(PreviewGrid.fitted("年次報告書2026.pdf", to: 10)) == 10)
        let grid = PreviewGrid(columns: 50, cell: CellSize(width: 10, height: 20), pictureColumns: 10)
        let tiles = ["年次報告書.pdf", "a.png", "한국어 메모.txt"].map {
            PreviewTile(content: .placeholder(colour: nil, label: "x"), name: $0, state: "fresh")
        }
        let text = String(decoding: grid.row(tiles, drawsPixels: false), as: UTF8.self)
        let names = text.split(separator: "\n").first { $0.hasPrefix("年") }.map(String.init) ?? ""
        // Each name in its 10 columns and 2 of gap: the second starts at column 12, the third at 24.
        #expect(DisplayColumns.of(String(names.prefix { $0 != "a" })) == 12, "\(names)")
        #expect(names.contains("a.png       한국어 메…"), "\(names)")
    }

    @Test("the terminal's answers: kitty's OK, sixel among the device attributes, the cell size")
    func answers() {
        let xterm = Array("\u{1B}[6;17;8t\u{1B}[?63;1;2;4;6;9;15;16;22;28c".utf8)
        #expect(TerminalAnswers.parse(xterm) == TerminalAnswers(sixel: true, cell: CellSize(width: 8, height: 17)))
        let kitty = Array("\u{1B}_Gi=31;OK\u{1B}\\\u{1B}[6;20;10t\u{1B}[?62;c".utf8)
        #expect(
            TerminalAnswers.parse(kitty) == TerminalAnswers(kittyGraphics: true, cell: CellSize(width: 10, height: 20)))
        // Not complete until the device attributes' answer ends.
        #expect(TerminalAnswers.parse(Array("\u{1B}[6;17;8t\u{1B}[?63;1".utf8)) == nil)
        // A cell size out of reason is not taken.
        #expect(TerminalAnswers.parse(Array("\u{1B}[6;0;0t\u{1B}[?1;2c".utf8)) == TerminalAnswers())
    }
}
