import Foundation
import GlanceCore
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// How a job ended, as the pool reports it.
public enum JobResult: Sendable {
    /// The worker answered (rendered, unsupported, or failed with a reason).
    case finished(RenderOutcome)
    /// No answer within the time limit (`limit`: an ordinary renderer's, or an office
    /// renderer's): the worker was killed and replaced.
    case timedOut(seconds: Double, limit: RenderLimit = .time)
    /// The worker died on this job (a crash in a C library, or a limit) and was replaced; `limit`
    /// is the limit that ended it, when one did.
    case crashed(reason: String, limit: RenderLimit? = nil)
    /// The pool was stopped before the job ended: nothing is known about the document.
    case cancelled

    /// Why the job gave no thumbnail, in the words every caller shows and records (a record's
    /// `error`, a command's `FILE: reason` line, the desktop cache's failure entry), a limit that
    /// refused it named as `names` name it; nil when it rendered one.
    public func failureReason(naming names: LimitNames) -> String? {
        switch self {
        case .finished(let outcome) where outcome.status == .rendered: nil
        case .finished(let outcome): names.hinted(outcome.error ?? "the renderer gave no reason", outcome.limit)
        case .timedOut(let seconds, let limit):
            names.hinted(ThumbnailError.timedOut(seconds: seconds).description, limit)
        case .crashed(let reason, let limit): names.hinted(reason, limit)
        case .cancelled: "the render was cancelled"
        }
    }
}

/// A pool of long-lived, supervised renderer processes.
///
/// `workers` threads each own one `glance worker` process and feed it jobs from a shared queue:
/// a priority lane first (an on-save request from `hook` or `watch` goes ahead of a running
/// batch), then the normal lane. A worker that crashes, hangs past the time limit or is killed
/// by its memory limit costs its current job only: the job is reported and a new worker starts.
public final class RendererPool: Sendable {
    /// How to start workers and how long to wait for them.
    public struct Configuration: Sendable {
        /// The `glance-renderer` executable, and arguments of its own (test hooks) besides the limits.
        public var executable: String
        public var arguments: [String]
        /// How many ordinary renderers run at once.
        public var renderers: Int
        /// Time, CPU and memory each worker and document get.
        public var limits: RendererLimits
        /// How workers are confined (``RendererLaunch/strongestSandbox(executable:)`` finds the
        /// best one the machine allows).
        public var sandbox: RendererSandbox
        /// A probe that does not know yet whether bubblewrap works here: then `sandbox` is
        /// bubblewrap's, tentatively, and the first workers are the trial. A worker that greets
        /// shows that bubblewrap works; one whose bubblewrap exits with its failure status before
        /// the greeting shows that it does not, and its job goes to a worker under seccomp alone
        /// (the job never reached the first). A worker never runs with less confinement than the
        /// answer, and no document is read before its worker has confined itself.
        public var pendingProbe: SandboxProbe?
        /// Arguments added to bubblewrap's (for tests; see ``RendererLaunch``).
        var bubblewrapExtraArguments: [String] = []
        /// How many workers start when the pool is made rather than on their first job (the
        /// first ones; the rest still start on demand), so that a caller sure to render overlaps
        /// their start (bubblewrap, the process, its libraries: 15-20 ms) with its own work
        /// before the first job (opening its store, planning). A worker that cannot start then
        /// is started again on its first job, which reports the failure.
        public var renderersStartedAhead = 0
        /// What the pool counts for an operator (renders, renderers started, lanes): nothing
        /// unless the program asks.
        public var metrics: RenderMetrics = .none
        /// The office lane: renderers running LibreOffice, in a pool of their own with limits of
        /// their own, which office documents are handed on to (``RenderOutcome/handOff``); nil
        /// when LibreOffice is not installed (office documents are then drawn from the thumbnail
        /// they carry, or unsupported).
        public var office: OfficeLane?
        /// Set for the office lane's own pool: its renderers start LibreOffice from this folder,
        /// and outside bubblewrap write in a folder made in `officeWorkspaceParent`.
        var officeProgramFolder: String?
        var officeWorkspaceParent: String?

        public var timeoutSeconds: Double { limits.timeoutSeconds }

        public init(
            executable: String, arguments: [String] = [], renderers: Int, limits: RendererLimits,
            sandbox: RendererSandbox = .seccomp
        ) {
            self.executable = executable
            self.arguments = arguments
            self.renderers = max(1, renderers)
            self.limits = limits
            self.sandbox = sandbox
        }

        /// The default memory and CPU limits with this wall-clock time limit, under seccomp.
        public init(executable: String, arguments: [String], renderers: Int, timeoutSeconds: Double) {
            self.init(
                executable: executable, arguments: arguments, renderers: renderers,
                limits: RendererLimits(timeoutSeconds: timeoutSeconds))
        }

        /// The earlier spelling of ``init(executable:arguments:renderers:limits:sandbox:)``, kept
        /// for one release.
        @available(*, deprecated, renamed: "init(executable:arguments:renderers:limits:sandbox:)")
        public init(
            executable: String, arguments: [String] = [], workers: Int, limits: RendererLimits,
            sandbox: RendererSandbox = .seccomp
        ) {
            self.init(
                executable: executable, arguments: arguments, renderers: workers, limits: limits, sandbox: sandbox)
        }

        /// The earlier spelling of ``init(executable:arguments:renderers:timeoutSeconds:)``, kept
        /// for one release.
        @available(*, deprecated, renamed: "init(executable:arguments:renderers:timeoutSeconds:)")
        public init(executable: String, arguments: [String], workers: Int, timeoutSeconds: Double) {
            self.init(executable: executable, arguments: arguments, renderers: workers, timeoutSeconds: timeoutSeconds)
        }

        /// The earlier name of ``renderers``, kept for one release.
        @available(*, deprecated, renamed: "renderers")
        public var workers: Int {
            get { renderers }
            set { renderers = newValue }
        }

        /// The earlier name of ``renderersStartedAhead``, kept for one release.
        @available(*, deprecated, renamed: "renderersStartedAhead")
        public var workersStartedAhead: Int {
            get { renderersStartedAhead }
            set { renderersStartedAhead = newValue }
        }

        /// How each worker is started: the limits first, so that `arguments` may override them.
        var launch: RendererLaunch { launch(under: sandbox) }

        func launch(under sandbox: RendererSandbox) -> RendererLaunch {
            let limitArguments = ["--memory-limit", String(limits.memoryMiB), "--cpu-limit", String(limits.cpuSeconds)]
            var launch = RendererLaunch(executable: executable, arguments: limitArguments + arguments, sandbox: sandbox)
            launch.bubblewrapExtraArguments = bubblewrapExtraArguments
            launch.officeProgramFolder = officeProgramFolder
            launch.officeWorkspaceParent = officeWorkspaceParent
            launch.officeTemporaryBytes = Bubblewrap.officeTemporaryBytes(memoryMiB: limits.memoryMiB)
            return launch
        }
    }

    /// The earlier name of ``Lane``, kept for one release.
    @available(*, deprecated, renamed: "Lane")
    public typealias Priority = Lane

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

    public let configuration: Configuration
    private let queue: Mutex<Queue>
    /// The office lane's pool, made when the first office document is handed on, ended by the
    /// first stop or shutdown (``SecondPoolState``).
    private let officePool = Mutex(SecondPoolState<RendererPool>())

    /// The sandbox workers run in: the configuration's, or the pending probe's answer (trying
    /// bubblewrap if no worker has shown it yet). nil only when seccomp is unavailable too, which
    /// commands refuse before making a pool.
    public var sandbox: RendererSandbox? {
        guard let probe = configuration.pendingProbe else { return configuration.sandbox }
        return probe.result()
    }
    private let available = DispatchSemaphore(value: 0)
    private let stopped = DispatchGroup()

    /// Starts the pool's threads; workers start on their first job, the first
    /// ``Configuration/renderersStartedAhead`` at once.
    public init(configuration: Configuration) {
        self.configuration = configuration
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
    public func submit(
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
    public func run(_ job: RenderJob, file: OpenFile, lane: Lane = .batch, counted: Bool = true) async
        -> JobResult
    {
        await withCheckedContinuation { continuation in
            submit(job, file: file, lane: lane, counted: counted) { continuation.resume(returning: $0) }
        }
    }

    /// Lets the queued jobs finish, then stops the threads and their workers; returns when
    /// every thread is done, without holding a thread of Swift's cooperative pool meanwhile.
    public func shutdown() async {
        close()
        await threadsEnded()
        await officePool.withLock { $0.end() }?.shutdown()
    }

    /// ``shutdown()`` for code that cannot await (a `defer` at the end of a command): the calling
    /// thread waits.
    public func shutdownBlocking() {
        close()
        stopped.wait()
        officePool.withLock { $0.end() }?.shutdownBlocking()
    }

    /// Stops at once (SIGINT, SIGTERM): queued jobs end `cancelled` without running, running
    /// workers are killed and their jobs end `cancelled` too; returns when every thread is done,
    /// without holding a thread of Swift's cooperative pool meanwhile.
    public func stop() async {
        cancel()
        // Once ended, no hand-off makes the office pool: the one there is now, if any, is the
        // only one to stop.
        await officePool.withLock { $0.end() }?.stop()
        await threadsEnded()
    }

    /// ``stop()`` for code that cannot await (a `defer`, a signal's thread): the calling thread
    /// waits.
    public func stopBlocking() {
        cancel()
        officePool.withLock { $0.end() }?.stopBlocking()
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
            var job = entry.job
            job.officeLane = configuration.office != nil
            let result = run(job, file: entry.file, on: &worker, slot: slot, startReason: &startReason)
            let cancelled = queue.withLock { queue in
                if isPreview { queue.lanes.finishedPreview() }
                return queue.cancelled
            }
            if !cancelled, case .finished(let outcome) = result, outcome.handOff == .office,
                configuration.office != nil
            {
                guard let office = officeLane() else {
                    // The pool was stopped meanwhile: no office pool is made after a stop.
                    entry.completion(.cancelled)
                    continue
                }
                // The office lane's pool counts the render and calls the completion.
                office.submit(
                    entry.job, file: entry.file, lane: entry.lane, counted: entry.counted, completion: entry.completion)
                continue
            }
            if entry.counted { Self.record(result, of: entry, since: start, in: metrics) }
            entry.completion(cancelled ? .cancelled : result)
        }
        worker?.terminate()
    }

    /// The office lane's pool, made on first use from ``Configuration/office``, under the sandbox
    /// the ordinary renderers found; nil when there is none, or when this pool was stopped or
    /// shut down (``SecondPoolState``: a pool made just before a stop is the one the stop stops,
    /// and none is made after it).
    private func officeLane() -> RendererPool? {
        guard let lane = configuration.office else { return nil }
        return officePool.withLock { state in
            state.poolForHandOff {
                var office = Configuration(
                    executable: configuration.executable, arguments: lane.arguments, renderers: lane.renderers,
                    limits: lane.limits, sandbox: sandbox ?? configuration.sandbox)
                office.bubblewrapExtraArguments = configuration.bubblewrapExtraArguments
                office.metrics = configuration.metrics
                office.metrics.forOfficeLane = true
                office.officeProgramFolder = lane.programFolder
                office.officeWorkspaceParent = lane.workspaceParent
                return RendererPool(configuration: office)
            }
        }
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
    public var queuedJobs: (interactive: Int, preview: Int, batch: Int) {
        let depths = queue.withLock { $0.lanes.depths }
        return (depths.interactive, depths.preview, depths.batch)
    }

    /// The processes of the workers started so far, one for each pool thread (for tests).
    var rendererProcesses: [pid_t] { queue.withLock { Array($0.running.values) } }

    /// How many renderer processes the pool has started: one a worker at first, and one for each
    /// that replaced a worker that died, timed out or used up its share of CPU time. Far more
    /// than the worker count over a batch of sound documents means renderers are dying between
    /// documents, each document then paying a renderer's start (`generate --json` reports it).
    public var startedRenderers: Int { queue.withLock { $0.started } }

    /// How many office renderers the office lane has started (0 until an office document came).
    public var startedOfficeRenderers: Int { officePool.withLock { $0.madePool }?.startedRenderers ?? 0 }

    /// The earlier name of ``startedRenderers``, kept for one release.
    @available(*, deprecated, renamed: "startedRenderers")
    public var startedWorkers: Int { startedRenderers }

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
