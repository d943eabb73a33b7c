import Foundation
import GlanceCore
import GlancePipeline
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// The progress bar of a batch on a terminal: count, rate, time left and the current file,
/// redrawn at most ten times a second on one line of stderr. Silent when not enabled (a pipe).
final class ProgressBar: Sendable {
    private struct State {
        var total = 0
        var done = 0
        var current = ""
        var started = DispatchTime.now()
        var lastDrawn: UInt64 = 0
        var drawn = false
    }

    private let enabled: Bool
    private let state = Mutex(State())

    /// Whether stderr is a terminal (the bar is drawn there).
    static var standardErrorIsTerminal: Bool { isatty(2) == 1 }

    init(enabled: Bool) { self.enabled = enabled }

    /// Takes one event from the batch.
    func update(_ event: GenerationEvent) {
        guard enabled else { return }
        let line: String? = state.withLock { state in
            switch event {
            case .planned(let total):
                state.total = total
                state.started = DispatchTime.now()
            case .started(let path):
                state.current = path
            case .finished(_, let done, let total):
                state.done = done
                state.total = total
            }
            let now = DispatchTime.now().uptimeNanoseconds
            guard now - state.lastDrawn > 100_000_000 || state.done == state.total else { return nil }
            state.lastDrawn = now
            state.drawn = true
            return Self.render(state, now: now)
        }
        if let line { StandardError.writeRaw("\r\u{1B}[K" + line) }
    }

    /// Clears the bar's line.
    func finish() {
        guard enabled, state.withLock({ $0.drawn }) else { return }
        StandardError.writeRaw("\r\u{1B}[K")
    }

    private static func render(_ state: State, now: UInt64) -> String {
        let width = 24
        let fraction = state.total > 0 ? Double(state.done) / Double(state.total) : 1
        let filled = Int(fraction * Double(width))
        let bar = String(repeating: "=", count: filled) + String(repeating: " ", count: width - filled)
        let seconds = Double(now - state.started.uptimeNanoseconds) / 1e9
        let rate = seconds > 0 ? Double(state.done) / seconds : 0
        let left = rate > 0 ? Double(state.total - state.done) / rate : 0
        let eta = state.done == 0 ? "--" : Self.duration(left)
        var name = DisplayText.escaped(state.current)
        if name.count > 40 { name = "…" + name.suffix(39) }
        return "[\(bar)] \(state.done)/\(state.total) \(String(format: "%.1f", rate))/s ETA \(eta) \(name)"
    }

    static func duration(_ seconds: Double) -> String {
        let whole = Int(seconds.rounded())
        if whole < 60 { return "\(whole)s" }
        if whole < 3600 { return "\(whole / 60)m\(String(format: "%02d", whole % 60))s" }
        return "\(whole / 3600)h\(String(format: "%02d", whole / 60 % 60))m"
    }
}
