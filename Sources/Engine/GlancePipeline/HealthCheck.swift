internal import CFileAccess
import GlanceCore
import Synchronization

/// Whether a service is ready (`GET /readyz`): its stores answer, and a renderer answers, each
/// within a few seconds. The renderer is asked with a job of its own (a 1x1 PNG, its pixels
/// only) in the interactive lane, so a busy batch delays it by one document at most. A result is
/// kept for a few seconds and asked once at a time: probes that come in a flood make no flood of
/// jobs or queries.
public final class HealthCheck: Sendable {
    /// The answer.
    public struct Readiness: Sendable, Equatable {
        /// Whether everything answered.
        public var isReady: Bool { problems.isEmpty }
        /// What did not, in a few words each (no path, no document).
        public var problems: [String]
    }

    private struct State {
        var last: (readiness: Readiness, at: ContinuousClock.Instant)?
        var running: Task<Readiness, Never>?
    }

    let pool: RendererPool
    let stores: [any ThumbnailStore]
    let timeout: Duration
    let reuse: Duration
    private let state = Mutex(State())

    public init(
        pool: RendererPool, stores: [any ThumbnailStore], timeout: Duration = .seconds(3),
        reuse: Duration = .seconds(2)
    ) {
        self.pool = pool
        self.stores = stores
        self.timeout = timeout
        self.reuse = reuse
    }

    /// The readiness, asked now or kept from less than ``reuse`` ago.
    public func readiness() async -> Readiness {
        let now = ContinuousClock.now
        let task = state.withLock { state -> Task<Readiness, Never> in
            if let running = state.running { return running }
            if let last = state.last, now - last.at < reuse {
                let kept = last.readiness
                return Task { kept }
            }
            let task = Task { await self.ask() }
            state.running = task
            return task
        }
        let readiness = await task.value
        state.withLock { state in
            if state.running == task {
                state.running = nil
                state.last = (readiness, ContinuousClock.now)
            }
        }
        return readiness
    }

    /// Asks the stores and a renderer, each within ``timeout``.
    private func ask() async -> Readiness {
        var problems: [String] = []
        for (index, store) in stores.enumerated() {
            let answered = await Self.within(timeout) { () -> Bool in
                do {
                    _ = try await store.setting("glance.readiness")
                    return true
                } catch {
                    return false
                }
            }
            if answered != true {
                let which = stores.count > 1 ? " \(index + 1)" : ""
                problems.append(answered == nil ? "store\(which) did not answer" : "store\(which) unreachable")
            }
        }
        let rendered = await Self.within(timeout) { () -> Bool in await self.renderProbe() }
        if rendered != true {
            problems.append(rendered == nil ? "no renderer answered" : "the renderer failed its probe")
        }
        return Readiness(problems: problems)
    }

    /// A 1x1 PNG's pixels from a renderer.
    private func renderProbe() async -> Bool {
        let descriptor = Self.probePNG.withUnsafeBytes { glance_memory_file($0.baseAddress, $0.count) }
        guard descriptor >= 0 else { return false }
        var job = RenderJob(id: 1, name: "readiness-probe.png", maxSide: 16, computeDigest: false)
        job.pixelsOnly = true
        let result = await pool.run(job, file: OpenFile(adopting: descriptor), lane: .interactive, counted: false)
        guard case .finished(let outcome) = result else { return false }
        return outcome.status == .rendered && outcome.width == 1 && outcome.height == 1
    }

    /// `body`'s value, or nil when it takes longer than `timeout` (it goes on, unheeded: a
    /// store that hangs must not hold the probe).
    static func within<Value: Sendable>(_ timeout: Duration, _ body: @escaping @Sendable () async -> Value) async
        -> Value?
    {
        let answer = FirstAnswer<Value?>()
        return await withCheckedContinuation { continuation in
            answer.set(continuation)
            Task { answer.give(await body()) }
            Task {
                try? await Task.sleep(for: timeout)
                answer.give(nil)
            }
        }
    }

    /// A white 1x1 RGB PNG.
    static let probePNG: [UInt8] = [
        0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0x00, 0x00, 0x00, 0x0D, 0x49, 0x48, 0x44, 0x52, 0x00, 0x00,
        0x00, 0x01, 0x00, 0x00, 0x00, 0x01, 0x08, 0x02, 0x00, 0x00, 0x00, 0x90, 0x77, 0x53, 0xDE, 0x00, 0x00, 0x00,
        0x0C, 0x49, 0x44, 0x41, 0x54, 0x78, 0x9C, 0x63, 0xF8, 0xFF, 0xFF, 0x3F, 0x00, 0x05, 0xFE, 0x02, 0xFE, 0x0D,
        0xEF, 0x46, 0xB8, 0x00, 0x00, 0x00, 0x00, 0x49, 0x45, 0x4E, 0x44, 0xAE, 0x42, 0x60, 0x82,
    ]
}

/// A continuation resumed by the first of several answers; the others are dropped.
final class FirstAnswer<Value: Sendable>: Sendable {
    private let continuation = Mutex<CheckedContinuation<Value, Never>?>(nil)

    func set(_ waiting: CheckedContinuation<Value, Never>) { continuation.withLock { $0 = waiting } }

    func give(_ value: Value) {
        let waiting = continuation.withLock { waiting in
            defer { waiting = nil }
            return waiting
        }
        waiting?.resume(returning: value)
    }
}
