import Foundation
import GlanceCore
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// One group of long-lived, supervised renderer processes of one kind (the ordinary renderers, or
/// the office lane's), with its own threads, queue and limits: one thread a renderer, each owning
/// its `glance-renderer` process and feeding it jobs from the group's lanes. A renderer that
/// crashes, hangs past the time limit or is killed by its memory limit costs its current job
/// only: the job is reported and a new renderer starts. ``RendererPool`` owns the groups and
/// routes between them.
final class RendererGroup: Sendable {
    /// A queued job, its open document, and the closure that receives its result (on a pool
    /// thread).
    struct Entry: Sendable {
        let job: RenderJob
        let file: OpenFile
        let completion: @Sendable (JobResult) -> Void
        /// Its lane, and when it was queued (for the lanes' metrics).
        var lane: Lane = .batch
        var queued = ContinuousClock.now
        /// Whether it counts among the renders in the metrics (a readiness probe does not).
        var counted = true
    }

    private struct Queue {
        var lanes: JobLanes<Entry>
        var closed = false
        /// Set by `stop()`: queued jobs are dropped, running ones abandoned.
        var cancelled = false
        /// The process of each pool thread's current worker, so that `stop()` can kill it.
        var running: [Int: pid_t] = [:]
        /// How many workers have been started (for tests).
        var started = 0
    }

    let configuration: RendererPool.Configuration
    private let queue: Mutex<Queue>
    /// What the engine does with a job's result before this group reports it: true when it has
    /// taken the job on (handed to another group), so that this one neither counts nor reports it.
    private let handOff: @Sendable (JobResult, Entry) -> Bool

    /// The sandbox workers run in: the configuration's, or the pending probe's answer (trying
    /// bubblewrap if no worker has shown it yet). nil only when seccomp is unavailable too, which
    /// commands refuse before making a pool.
    var sandbox: RendererSandbox? {
        guard let probe = configuration.pendingProbe else { return configuration.sandbox }
        return probe.result()
    }
    private let available = DispatchSemaphore(value: 0)
    private let stopped = DispatchGroup()

    /// Starts the group's threads; workers start on their first job, the first
    /// ``RendererPool/Configuration/renderersStartedAhead`` at once. `handOff` sees each result
    /// first (see ``RendererPool``).
    init(
        configuration: RendererPool.Configuration,
        handOff: @escaping @Sendable (JobResult, Entry) -> Bool = { _, _ in false }
    ) {
        self.configuration = configuration
        self.handOff = handOff
        queue = Mutex(Queue(lanes: JobLanes(renderers: configuration.renderers)))
        // A worker that dies while we write to it must not kill us with SIGPIPE.
        signal(SIGPIPE, SIG_IGN)
        for index in 0..<configuration.renderers {
            stopped.enter()
            let thread = Thread { [self] in
                self.serve(slot: index)
                self.stopped.leave()
            }
            thread.name = "glance-renderer-\(index)"
            thread.start()
        }
    }

    /// Queues `job` on the document open at `file` (held open until the job ends); `completion`
    /// runs on a pool thread when it ends. On a pool that is stopped or shut down, `completion`
    /// runs at once, here, with ``JobResult/cancelled``: its threads may be gone, and a job left
    /// in the queue would never end (a task awaiting it would wait forever).
    func submit(
        _ job: RenderJob, file: OpenFile, lane: Lane = .batch, counted: Bool = true,
        completion: @escaping @Sendable (JobResult) -> Void
    ) {
        let entry = Entry(job: job, file: file, completion: completion, lane: lane, counted: counted)
        let accepted = queue.withLock { queue -> Bool in
            guard !queue.closed else { return false }
            queue.lanes.append(entry, to: lane)
            recordDepths(queue.lanes)
            return true
        }
        guard accepted else {
            completion(.cancelled)
            return
        }
        available.signal()
    }

    /// Runs `job` on the document open at `file` and waits for its result without blocking a
    /// thread.
    /// `counted`: whether the job counts among the renders in the metrics.
    func run(_ job: RenderJob, file: OpenFile, lane: Lane = .batch, counted: Bool = true) async
        -> JobResult
    {
        await withCheckedContinuation { continuation in
            submit(job, file: file, lane: lane, counted: counted) { continuation.resume(returning: $0) }
        }
    }

    /// Lets the queued jobs finish, then stops the threads and their workers; returns when
    /// every thread is done, without holding a thread of Swift's cooperative pool meanwhile.
    func shutdown() async {
        close()
        await threadsEnded()
    }

    /// ``shutdown()`` for code that cannot await (a `defer` at the end of a command): the calling
    /// thread waits.
    func shutdownBlocking() {
        close()
        stopped.wait()
    }

    /// Stops at once (SIGINT, SIGTERM): queued jobs end `cancelled` without running, running
    /// workers are killed and their jobs end `cancelled` too; returns when every thread is done,
    /// without holding a thread of Swift's cooperative pool meanwhile.
    func stop() async {
        cancel()
        await threadsEnded()
    }

    /// ``stop()`` for code that cannot await (a `defer`, a signal's thread): the calling thread
    /// waits.
    func stopBlocking() {
        cancel()
        stopped.wait()
    }

    /// Takes no more jobs; the threads end when the queue is empty.
    private func close() {
        queue.withLock { $0.closed = true }
        for _ in 0..<configuration.renderers { available.signal() }
    }

    /// Takes no more jobs, drops the queued ones and kills the running workers.
    private func cancel() {
        let (dropped, running) = queue.withLock { queue -> ([Entry], [pid_t]) in
            queue.closed = true
            queue.cancelled = true
            let dropped = queue.lanes.removeAll()
            return (dropped, Array(queue.running.values))
        }
        // Each worker leads a process group of its own (with bubblewrap's processes in it).
        for pid in running { kill(-pid, SIGKILL) }
        for entry in dropped { entry.completion(.cancelled) }
        for _ in 0..<configuration.renderers { available.signal() }
    }

    /// Resumes when every pool thread has ended (the group's notification, not a parked thread).
    private func threadsEnded() async {
        await withCheckedContinuation { (ended: CheckedContinuation<Void, Never>) in
            stopped.notify(queue: .global()) { ended.resume() }
        }
    }

    /// One pool thread: take a job, hand it to this thread's worker, report, repeat.
    private func serve(slot: Int) {
        var startReason = "first"
        var worker =
            slot < configuration.renderersStartedAhead ? try? startWorker(slot: slot, reason: &startReason) : nil
        let metrics = configuration.metrics
        while true {
            available.wait()
            let (taken, closed) = queue.withLock { queue in
                let next = queue.lanes.next()
                if next != nil { recordDepths(queue.lanes) }
                return (next, queue.closed)
            }
            guard let (entry, isPreview) = taken else {
                if closed { break }
                continue
            }
            let start = ContinuousClock.now
            metrics.laneWait(entry.lane, start - entry.queued)
            let result = run(entry.job, file: entry.file, on: &worker, slot: slot, startReason: &startReason)
            let cancelled = queue.withLock { queue in
                if isPreview { queue.lanes.finishedPreview() }
                return queue.cancelled
            }
            if !cancelled, handOff(result, entry) { continue }
            if entry.counted { Self.record(result, of: entry, since: start, in: metrics) }
            entry.completion(cancelled ? .cancelled : result)
        }
        worker?.terminate()
    }

    /// The lanes' depths, for the metrics.
    private func recordDepths(_ lanes: JobLanes<Entry>) {
        let depths = lanes.depths
        configuration.metrics.laneDepths(interactive: depths.interactive, preview: depths.preview, batch: depths.batch)
    }

    /// One job's end, for the metrics: its kind and outcome, time, and the bytes read and made.
    private static func record(
        _ result: JobResult, of entry: Entry, since start: ContinuousClock.Instant, in metrics: RenderMetrics
    ) {
        var kind = "unknown"
        var bytesOut = 0
        if case .finished(let outcome) = result {
            kind = RenderMetrics.kind(outcome.contentType)
            bytesOut = outcome.byteCount + (outcome.sizes + outcome.renditions).reduce(0) { $0 + $1.byteCount }
        }
        let bytesIn = entry.file.status().map { Int($0.st_size) } ?? 0
        metrics.rendered(
            kind: kind, outcome: result.metricOutcome, duration: ContinuousClock.now - start, bytesIn: bytesIn,
            bytesOut: bytesOut)
    }

    /// The jobs waiting for a renderer now, by lane (`glance status`).
    var queuedJobs: (interactive: Int, preview: Int, batch: Int) {
        let depths = queue.withLock { $0.lanes.depths }
        return (depths.interactive, depths.preview, depths.batch)
    }

    /// The processes of the workers started so far, one for each pool thread (for tests).
    var rendererProcesses: [pid_t] { queue.withLock { Array($0.running.values) } }

    /// How many renderer processes the pool has started: one a worker at first, and one for each
    /// that replaced a worker that died, timed out or used up its share of CPU time. Far more
    /// than the worker count over a batch of sound documents means renderers are dying between
    /// documents, each document then paying a renderer's start (`generate --json` reports it).
    var startedRenderers: Int { queue.withLock { $0.started } }

    /// Starts a worker under the configured sandbox or, with a probe pending, under its answer
    /// if it has one, else under bubblewrap, tentatively (see ``Configuration/pendingProbe``).
    private func startWorker() throws(RendererStartError) -> RendererProcess {
        // seccomp missing as well: the worker says so itself (it exits, and its documents fail
        // saying the sandbox is unavailable).
        let known = configuration.pendingProbe?.knownResult
        let sandbox = known.map { $0 ?? .seccomp } ?? configuration.sandbox
        let worker = try RendererProcess(
            launch: configuration.launch(under: sandbox), cpuSeconds: configuration.limits.cpuSeconds)
        worker.isSandboxTrial = configuration.pendingProbe != nil && known == nil
        return worker
    }

    /// Tells the pending probe what `worker`, a trial of bubblewrap, showed (the first answer
    /// stays), once; true when bubblewrap could not make its sandbox and the answer now is another
    /// sandbox, under which its job is to run again. Nothing to do for any other worker.
    private func learnSandbox(from worker: RendererProcess) -> Bool {
        guard worker.isSandboxTrial, let probe = configuration.pendingProbe else { return false }
        if worker.greeted {
            worker.isSandboxTrial = false
            probe.record(bubblewrapWorks: true)
            return false
        }
        guard worker.bubblewrapFailed else { return false }
        worker.isSandboxTrial = false
        probe.record(bubblewrapWorks: false)
        return probe.knownResult != .some(.bubblewrapAndSeccomp)
    }

    /// Starts this thread's worker and records its process, for `stop()` to kill; `reason` says
    /// why it starts (for the metrics), and is `first` again after.
    private func startWorker(slot: Int, reason: inout String) throws(RendererStartError) -> RendererProcess {
        let started = try startWorker()
        configuration.metrics.rendererStarted(reason: reason)
        reason = "first"
        let cancelled = queue.withLock { queue in
            queue.running[slot] = started.pid
            queue.started += 1
            return queue.cancelled
        }
        if cancelled { started.terminate() }
        return started
    }

    /// Runs `job` on this thread's worker, starting one if there is none. A worker found gone
    /// before it took the job (it died idle, killed from outside, or started ahead and refused
    /// its sandbox) is replaced once: the document never reached it and is not to blame.
    private func run(
        _ job: RenderJob, file: OpenFile, on worker: inout RendererProcess?, slot: Int, startReason: inout String,
        replacing: Bool = true
    ) -> JobResult {
        if worker == nil {
            do {
                worker = try startWorker(slot: slot, reason: &startReason)
            } catch {
                return .crashed(reason: error.reason)
            }
        }
        guard let current = worker else { return .crashed(reason: "no worker") }
        guard current.send(job, file: file) else {
            current.terminate()
            worker = nil
            startReason = "gone"
            let bubblewrapFailed = learnSandbox(from: current)
            if replacing || bubblewrapFailed, !queue.withLock({ $0.cancelled }) {
                return run(job, file: file, on: &worker, slot: slot, startReason: &startReason, replacing: false)
            }
            return .crashed(reason: "renderer exited before taking the job")
        }
        let reply = current.receive(for: job, timeout: configuration.timeoutSeconds)
        let bubblewrapFailed = learnSandbox(from: current)
        switch reply {
        case .outcome(let outcome):
            // A worker that has used a document's worth of CPU time is replaced, so that its
            // lifetime limit (twice that) never cuts the next document short.
            // Something this document left in the renderer (fonts LibreOffice installed, an
            // address space grown past half its limit, a library that would not load) must not
            // meet the next document.
            let cpuLimit = configuration.limits.cpuSeconds
            let spentCPU = cpuLimit > 0 && (outcome.workerCPUMilliseconds ?? 0) >= cpuLimit * 1000
            if let replaced = spentCPU ? "cpu" : outcome.retire.map(Self.startReason) {
                current.terminate()
                worker = nil
                startReason = replaced
            }
            // A library that would not load in that renderer: the document is drawn again in a
            // fresh one, once, so that its result does not depend on what came before.
            if outcome.retire == .libraryUnavailable, outcome.status != .rendered, replacing,
                !queue.withLock({ $0.cancelled })
            {
                return run(job, file: file, on: &worker, slot: slot, startReason: &startReason, replacing: false)
            }
            return .finished(outcome)
        case .timedOut:
            worker = nil
            startReason = "timeout"
            return .timedOut(seconds: configuration.timeoutSeconds, limit: ownLimit(.time))
        case .died(let reason, let limit):
            worker = nil
            startReason = current.greeted ? "crash" : "gone"
            // Dead before its greeting: the job never reached it (bubblewrap could not make the
            // sandbox, say); it goes to a new worker, under the probe's new answer if there is one.
            if bubblewrapFailed || (replacing && !current.greeted), !queue.withLock({ $0.cancelled }) {
                return run(job, file: file, on: &worker, slot: slot, startReason: &startReason, replacing: false)
            }
            return .crashed(reason: reason, limit: limit.map(ownLimit))
        }
    }

    /// The reason the renderer that follows a retired one starts for
    /// (`glance_renderers_started_total{reason}`).
    private static func startReason(_ retirement: RenderOutcome.Retirement) -> String {
        switch retirement {
        case .documentFonts: "fonts"
        case .addressSpace: "memory"
        case .libraryUnavailable: "library"
        }
    }

    /// `limit` as this pool sets it: the office lane's renderers have a time and a memory limit
    /// of their own (`--office-timeout`, `--office-memory-limit`), which a refusal names.
    private func ownLimit(_ limit: RenderLimit) -> RenderLimit {
        guard configuration.officeProgramFolder != nil else { return limit }
        switch limit {
        case .time: return .officeTime
        case .memory: return .officeMemory
        default: return limit
        }
    }
}
