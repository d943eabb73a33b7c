import ArgumentParser
import Foundation
import GlanceCore
import GlanceListing
import GlancePipeline
import GlanceTerminal

#if canImport(Glibc)
    import Glibc
#endif

/// What `--preview` needs besides its mode: `-v` (say which protocol and why), and the
/// renderers that turn stored thumbnails into pixels.
struct PictureOptions: ParsableArguments {
    @Flag(name: [.customShort("v"), .customLong("verbose")], help: "Say which picture protocol was chosen, and why.")
    var verbose = false

    @OptionGroup var jobs: JobsOption
    @OptionGroup var sandbox: SandboxOptions

    /// Draws `items` as a grid in the protocol `choice` leads to; false when it leads to none
    /// (standard output is not a terminal and no mode was named): the caller prints the table.
    /// With `reservingRows`, one picture as large as the terminal allows with that many rows
    /// left for text (`show`).
    func draw(
        _ items: [PromisedItemAttributes], choice: PictureChoice, store: any ThumbnailStore, reservingRows: Int? = nil
    ) async throws -> Bool {
        let terminal = TerminalSize.of(descriptor: 1)
        let environment = ProcessInfo.processInfo.environment
        var answers: TerminalAnswers?
        let decision = PictureProtocolDecision.decide(
            choice, environment: environment, isTerminal: terminal != nil,
            ask: {
                answers = TerminalAnswers.ask()
                return answers
            }, tmuxPassesThrough: TmuxPassthrough.isAllowed)
        if verbose { StandardError.writeRaw("glance: preview: \(decision.reason)\n") }
        guard let kind = decision.chosen else { return false }
        if let reason = TerminalPicture.unavailableReason { throw CommandFailure.unusable(reason) }
        let cell = Self.cell(terminal: terminal, answers: answers)
        let columns = terminal?.columns ?? environment["COLUMNS"].flatMap { Int($0) } ?? 80
        let pool = RendererPool(
            configuration: try RendererLauncher.configuration(
                renderers: jobs.jobs, timeoutSeconds: RendererLimits.defaultTimeoutSeconds, sandbox: sandbox,
                startingAhead: true))
        let grid =
            if let reservingRows {
                PreviewGrid.single(
                    columns: columns, rows: terminal?.rows ?? environment["LINES"].flatMap { Int($0) } ?? 24,
                    cell: cell, reservedRows: reservingRows)
            } else {
                PreviewGrid(columns: columns, cell: cell)
            }
        let listing = TerminalPreviewListing(
            grid: grid, kind: kind, cell: cell, pixels: ThumbnailPixels(store: store, pool: pool),
            throughTmux: decision.throughTmux)
        await listing.draw(items) { TerminalOutput.write($0) }
        await pool.shutdown()
        return true
    }

    /// The terminal's cell in pixels: from its window size in pixels, else from its answer to
    /// `CSI 16 t`, else the usual 10 x 20.
    static func cell(terminal: TerminalSize?, answers: TerminalAnswers?) -> CellSize {
        if let terminal, terminal.pixelWidth > 0, terminal.pixelHeight > 0, terminal.rows > 0 {
            return CellSize(
                width: max(1, terminal.pixelWidth / terminal.columns),
                height: max(1, terminal.pixelHeight / terminal.rows))
        }
        return answers?.cell ?? .usual
    }
}

/// `--preview` with no mode, as the listing's help writes it.
enum PreviewArgument {
    static let modes = ["auto", "kitty", "iterm", "sixel", "symbols"]

    /// `arguments` with a `--preview` not followed by a mode written `--preview=auto` (before a
    /// `--`, after which every argument is a name).
    static func normalised(_ arguments: [String]) -> [String] {
        var result: [String] = []
        var index = 0
        while index < arguments.count {
            let argument = arguments[index]
            if argument == "--" {
                result += arguments[index...]
                break
            }
            if argument == "--preview", index + 1 >= arguments.count || !modes.contains(arguments[index + 1]) {
                result.append("--preview=auto")
            } else {
                result.append(argument)
            }
            index += 1
        }
        return result
    }
}
