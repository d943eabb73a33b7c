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

/// The renderers of a program: a group of ordinary renderers (``RendererGroup``), and beside it
/// the office lane's group, made when the first office document is handed on.
///
/// Every job goes to the ordinary renderers, which sniff it; one whose family is drawn by the
/// office pool (``RenderOutcome/handOff``, from the family's descriptor) is routed here to the
/// office group, which draws it and reports it. Each group has its own threads, queue and limits;
/// the pool decides only where a job goes, and ends both groups together.
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

    public let configuration: Configuration
    /// The ordinary renderers.
    private let ordinary: RendererGroup
    /// Where office documents go: the office lane's group, made on the first hand-off; nil
    /// without an office lane.
    private let officeRoute: OfficeRoute?

    /// Starts the ordinary renderers' threads; renderers start on their first job, the first
    /// ``Configuration/renderersStartedAhead`` at once.
    public init(configuration: Configuration) {
        self.configuration = configuration
        let route = configuration.office.map { OfficeRoute(lane: $0, ordinary: configuration) }
        officeRoute = route
        ordinary = RendererGroup(configuration: configuration) { result, entry in
            route?.takes(result, of: entry) ?? false
        }
    }

    /// The sandbox renderers run in: the configuration's, or the pending probe's answer (trying
    /// bubblewrap if no renderer has shown it yet). nil only when seccomp is unavailable too,
    /// which commands refuse before making a pool.
    public var sandbox: RendererSandbox? { ordinary.sandbox }

    /// Queues `job` on the document open at `file` (held open until the job ends); `completion`
    /// runs on a pool thread when it ends. On a pool that is stopped or shut down, `completion`
    /// runs at once, here, with ``JobResult/cancelled``: its threads may be gone, and a job left
    /// in the queue would never end (a task awaiting it would wait forever).
    /// `counted`: whether the job counts among the renders in the metrics.
    public func submit(
        _ job: RenderJob, file: OpenFile, lane: Lane = .batch, counted: Bool = true,
        completion: @escaping @Sendable (JobResult) -> Void
    ) {
        var job = job
        job.officeLane = officeRoute != nil
        ordinary.submit(job, file: file, lane: lane, counted: counted, completion: completion)
    }

    /// Runs `job` on the document open at `file` and waits for its result without blocking a
    /// thread.
    public func run(_ job: RenderJob, file: OpenFile, lane: Lane = .batch, counted: Bool = true) async
        -> JobResult
    {
        await withCheckedContinuation { continuation in
            submit(job, file: file, lane: lane, counted: counted) { continuation.resume(returning: $0) }
        }
    }

    /// Lets the queued jobs finish, then stops the threads and their renderers (the ordinary
    /// ones first: what they hand on reaches the office group before it closes); returns when
    /// every thread is done, without holding a thread of Swift's cooperative pool meanwhile.
    public func shutdown() async {
        await ordinary.shutdown()
        await officeRoute?.end()?.shutdown()
    }

    /// ``shutdown()`` for code that cannot await (a `defer` at the end of a command): the calling
    /// thread waits.
    public func shutdownBlocking() {
        ordinary.shutdownBlocking()
        officeRoute?.end()?.shutdownBlocking()
    }

    /// Stops at once (SIGINT, SIGTERM): queued jobs end `cancelled` without running, running
    /// renderers are killed and their jobs end `cancelled` too; returns when every thread is
    /// done, without holding a thread of Swift's cooperative pool meanwhile. Once it has begun, no
    /// hand-off makes the office group: the one there is now, if any, is the only one to stop.
    public func stop() async {
        let office = officeRoute?.end()
        await withDiscardingTaskGroup { group in
            group.addTask { await office?.stop() }
            await ordinary.stop()
        }
    }

    /// ``stop()`` for code that cannot await (a `defer`, a signal's thread): the calling thread
    /// waits.
    public func stopBlocking() {
        let office = officeRoute?.end()
        ordinary.stopBlocking()
        office?.stopBlocking()
    }

    /// The jobs waiting for an ordinary renderer now, by lane (`glance status`).
    public var queuedJobs: (interactive: Int, preview: Int, batch: Int) { ordinary.queuedJobs }

    /// The processes of the ordinary renderers started so far, one for each thread (for tests).
    var rendererProcesses: [pid_t] { ordinary.rendererProcesses }

    /// How many ordinary renderer processes the pool has started: one a thread at first, and one
    /// for each that replaced a renderer that died, timed out or used up its share of CPU time.
    /// Far more than the renderer count over a batch of sound documents means renderers are
    /// dying between documents, each document then paying a renderer's start (`generate --json`
    /// reports it).
    public var startedRenderers: Int { ordinary.startedRenderers }

    /// How many office renderers the office lane has started (0 until an office document came).
    public var startedOfficeRenderers: Int { officeRoute?.madeGroup?.startedRenderers ?? 0 }

    /// The earlier name of ``startedRenderers``, kept for one release.
    @available(*, deprecated, renamed: "startedRenderers")
    public var startedWorkers: Int { startedRenderers }
}

/// The way from the ordinary renderers to the office lane's group: the group made on the first
/// hand-off, under the sandbox the ordinary renderers found, and its life
/// (``SecondPoolState``: a group made just before a stop is the one the stop stops, and none is
/// made after it).
private final class OfficeRoute: Sendable {
    let lane: OfficeLane
    let ordinary: RendererPool.Configuration
    private let state = Mutex(SecondPoolState<RendererGroup>())

    init(lane: OfficeLane, ordinary: RendererPool.Configuration) {
        self.lane = lane
        self.ordinary = ordinary
    }

    /// Whether it takes `entry` on, after the ordinary renderers' `result`: an office document
    /// handed on goes to the office group, which counts the render and reports it; after a stop,
    /// it ends cancelled.
    func takes(_ result: JobResult, of entry: RendererGroup.Entry) -> Bool {
        guard case .finished(let outcome) = result, outcome.handOff == .office else { return false }
        guard let group = state.withLock({ $0.poolForHandOff(make: makeGroup) }) else {
            entry.completion(.cancelled)
            return true
        }
        group.submit(
            entry.job, file: entry.file, lane: entry.lane, counted: entry.counted, completion: entry.completion)
        return true
    }

    /// Ends the route (a stop or a shutdown): the group to stop or shut down, if one was made and
    /// this is the first end.
    func end() -> RendererGroup? { state.withLock { $0.end() } }

    /// The group made, if one was, kept after it ended: its counts stay readable after a stop.
    var madeGroup: RendererGroup? { state.withLock { $0.madePool } }

    private func makeGroup() -> RendererGroup {
        var office = RendererPool.Configuration(
            executable: ordinary.executable, arguments: lane.arguments, renderers: lane.renderers, limits: lane.limits,
            sandbox: ordinary.pendingProbe?.result() ?? ordinary.sandbox)
        office.bubblewrapExtraArguments = ordinary.bubblewrapExtraArguments
        office.metrics = ordinary.metrics
        office.metrics.forOfficeLane = true
        office.officeProgramFolder = lane.programFolder
        office.officeWorkspaceParent = lane.workspaceParent
        return RendererGroup(configuration: office)
    }
}
