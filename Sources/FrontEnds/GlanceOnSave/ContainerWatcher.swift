import Foundation
import GlanceCore
import GlancePipeline
import Logging
import Synchronization

/// `glance watch`'s engine: keeps a container's thumbnails fresh as documents are saved, renamed
/// and deleted, from inotify, through an ``Indexer``.
///
/// It starts with a catch-up pass (the same plan as `generate`, in the pool's normal lane) while
/// it already watches, so nothing saved meanwhile is missed; saves go to the interactive lane and
/// never wait behind the catch-up. Bursts are debounced per path: an editor's save-by-rename, or a
/// hundred writes of one file in a second, cost one render of the final content. A rename inside
/// the container moves the record without a render; a delete or a move out drops it. When the
/// kernel's queue overflows, events were lost, and another catch-up pass finds what changed.
public final class ContainerWatcher: Sendable {
    /// How the watcher behaves.
    public struct Options: Sendable {
        /// How long a path must stay quiet after a write before it is rendered.
        public var debounce: Duration = .milliseconds(100)
        /// Run a catch-up pass when watching starts.
        public var catchUpFirst = true
        /// When set, documents to render are handed to this instead of rendered here (a job queue
        /// that workers on other hosts drain: `glance watch --enqueue`), with `urgent` true for
        /// saves and false for a catch-up's documents. Moves and deletions are still applied here,
        /// as they need no render. It returns a few words for the log.
        public var handOff: (@Sendable (_ paths: [String], _ urgent: Bool) async throws -> String)?
        /// What the watcher counts: its events, and each save's time to fresh.
        public var metrics: RenderMetrics = .none

        public init() {}
    }

    public let indexer: Indexer
    public let options: Options
    let logger: Logger
    /// Folders (relative to the container) never watched: the store's, when it lies inside.
    let excluded: Set<String>
    private let catchUps = Mutex(CatchUpState())
    private let watchesInPlace = Mutex(false)
    /// Changes seen and not yet acted on: saves waiting for quiet or being rendered, moves and
    /// deletions queued or being applied.
    private let outstanding = Mutex(ChangesOutstanding())

    private struct ChangesOutstanding {
        var waiting = 0
        var rendering = 0
        var applying = 0
    }

    private struct CatchUpState {
        var running = false
        var again = false
        var passes = 0
    }

    public init(
        indexer: Indexer, excludingFolders excluded: Set<String> = [], logger: Logger, options: Options = .init()
    ) {
        self.indexer = indexer
        self.excluded = excluded
        self.logger = logger
        self.options = options
    }

    /// How many catch-up passes have finished (for tests: an overflow must cause one).
    public var catchUpPasses: Int { catchUps.withLock { $0.passes } }

    /// Whether every change read so far has been acted on (no save waits for quiet or is being
    /// rendered, no move or deletion waits to be applied): a status for tests and operators, not a
    /// promise about changes the kernel has not handed over yet.
    public var hasNoChangeOutstanding: Bool {
        outstanding.withLock { $0.waiting == 0 && $0.rendering == 0 && $0.applying == 0 }
    }

    /// Whether ``run()`` has its watches in place: a file saved from now on is seen.
    public var isWatching: Bool { watchesInPlace.withLock { $0 } }

    /// Watches until the calling task is cancelled; throws if the container cannot be watched at
    /// all. Work in flight when it is cancelled ends with the pool (see `RendererPool.stop()`).
    public func run() async throws(WatchError) {
        let (stream, continuation) = AsyncStream<[ContainerChange]>.makeStream()
        let reader = try ChangeReader(root: indexer.scanner.root, excluding: excluded, changes: continuation)
        defer { reader.stop() }
        watchesInPlace.withLock { $0 = true }
        defer { watchesInPlace.withLock { $0 = false } }
        logger.info("watching", metadata: ["container": "\(indexer.scanner.root)"])
        // Moves and deletions are applied one after another, in the order they happened: a file
        // renamed into a folder that is then renamed must move twice, in that order.
        let (structural, structuralQueue) = AsyncStream<ContainerChange>.makeStream()
        var gone = false
        await withDiscardingTaskGroup { group in
            if options.catchUpFirst { requestCatchUp(in: &group) }
            group.addTask {
                for await change in structural {
                    await self.apply(change)
                    self.outstanding.withLock { $0.applying -= 1 }
                }
            }
            var pending: [String: ContinuousClock.Instant] = [:]
            for await batch in stream {
                let now = ContinuousClock.now
                for change in batch {
                    if case .containerGone = change { gone = true }
                    handle(change, pending: &pending, now: now, structural: structuralQueue)
                }
                for (path, last) in pending where now - last >= options.debounce {
                    pending[path] = nil
                    outstanding.withLock { $0.rendering += 1 }
                    group.addTask {
                        await self.refresh(path, savedAt: last)
                        self.outstanding.withLock { $0.rendering -= 1 }
                    }
                }
                outstanding.withLock { [waiting = pending.count] in $0.waiting = waiting }
                if catchUps.withLock({ !$0.running && $0.again }) { requestCatchUp(in: &group) }
                if Task.isCancelled || gone { break }
            }
            structuralQueue.finish()
            reader.stop()
        }
        logger.info("stopped watching", metadata: ["container": "\(indexer.scanner.root)"])
        // A service that watched nothing would look healthy: stop, so that it is seen (exit 2).
        if gone {
            throw WatchError(
                folder: indexer.scanner.root, message: "the container folder is gone (deleted or unmounted)")
        }
    }

    /// Acts on one change: writes wait for quiet, moves and deletions go to the structural queue.
    private func handle(
        _ change: ContainerChange, pending: inout [String: ContinuousClock.Instant], now: ContinuousClock.Instant,
        structural: AsyncStream<ContainerChange>.Continuation
    ) {
        if let event = change.metricEvent { options.metrics.watcherEvent(event) }
        switch change {
        case .written(let path):
            pending[path] = now
        case .moved(let from, let to):
            if pending.removeValue(forKey: from) != nil {
                // Written, then renamed before it was rendered: render it under its new name.
                pending[to] = now
            } else {
                queue(change, on: structural)
            }
        case .deleted(let path):
            pending[path] = nil
            queue(change, on: structural)
        case .folderAppeared(_, let files):
            for file in files { pending[file] = now }
        case .folderMoved(let from, let to, _):
            // Writes pending under the old folder are rendered under the new one.
            for (path, last) in pending where path.hasPrefix(from + "/") {
                pending[path] = nil
                pending[to + path.dropFirst(from.count)] = last
            }
            queue(change, on: structural)
        case .folderDeleted(let folder):
            for path in pending.keys where path.hasPrefix(folder + "/") { pending[path] = nil }
            queue(change, on: structural)
        case .overflow:
            logger.warning("inotify queue overflowed: events were lost; running a catch-up pass")
            catchUps.withLock { $0.again = true }
        case .watchFailed(let error):
            logger.error("\(error.description)")
        case .containerGone:
            logger.error("the container folder is gone (deleted or unmounted)")
        }
    }

    /// Queues a move or a deletion for the structural queue, counted until it is applied.
    private func queue(_ change: ContainerChange, on structural: AsyncStream<ContainerChange>.Continuation) {
        outstanding.withLock { $0.applying += 1 }
        structural.yield(change)
    }

    /// Applies a move or a deletion (one at a time, in order).
    private func apply(_ change: ContainerChange) async {
        let started = ContinuousClock.now
        switch change {
        case .moved(let from, let to):
            await move(from: from, to: to)
        case .deleted(let path):
            log(await indexer.forget(path), change: "deleted", since: started)
        case .folderMoved(let from, let to, let files):
            for file in files { await move(from: from + file.dropFirst(to.count), to: file) }
        case .folderDeleted(let folder):
            for outcome in await indexer.forgetFolder(folder) { log(outcome, change: "deleted", since: started) }
        default:
            break
        }
    }

    /// Renders (or keeps) one saved document and logs how long the save took to become fresh.
    private func refresh(_ path: String, savedAt: ContinuousClock.Instant) async {
        if let handOff = options.handOff {
            do {
                let said = try await handOff([path], true)
                logger.info("handed off", metadata: ["path": "\(path)", "outcome": "\(said)"])
            } catch {
                logger.error(
                    "hand-off failed", metadata: ["path": "\(path)", "error": "\(error)"])
            }
            return
        }
        let outcome = await indexer.refresh([path])[0]
        options.metrics.saveToFresh(ContinuousClock.now - savedAt)
        log(outcome, change: "saved", since: savedAt)
    }

    /// Moves a record with its renamed document.
    private func move(from: String, to: String) async {
        let started = ContinuousClock.now
        let outcome = await indexer.move(from: from, to: to)
        log(outcome, change: "moved from \(from)", since: started)
    }

    /// Starts a catch-up pass unless one runs; an overflow during a pass asks for another.
    private func requestCatchUp(in group: inout DiscardingTaskGroup) {
        let start = catchUps.withLock { state -> Bool in
            if state.running {
                state.again = true
                return false
            }
            state.running = true
            state.again = false
            return true
        }
        guard start else { return }
        group.addTask {
            await self.catchUp()
            self.catchUps.withLock { state in
                state.running = false
                state.passes += 1
            }
        }
    }

    private func catchUp() async {
        do {
            let plan = try await indexer.plan()
            logger.info("catch-up", metadata: ["toRender": "\(plan.toRender.count)", "moves": "\(plan.moves.count)"])
            if let handOff = options.handOff {
                for move in plan.moves {
                    try await indexer.store.moveDocument(from: move.from, to: move.to, identity: move.identity)
                }
                let said = try await handOff(plan.toRender.map(\.path), false)
                logger.info("catch-up handed off", metadata: ["outcome": "\(said)"])
                return
            }
            let summary = try await indexer.catchUp(plan)
            logger.info(
                "catch-up done",
                metadata: [
                    "rendered": "\(summary.rendered)", "fresh": "\(summary.fresh)", "failed": "\(summary.failed)",
                    "seconds": "\(String(format: "%.2f", summary.seconds))",
                ])
        } catch {
            // Stopped (the watcher or the server is shutting down): not the store's fault.
            if Task.isCancelled {
                logger.info("catch-up stopped")
                return
            }
            logger.error("catch-up failed: \(String(describing: error))")
        }
    }

    /// One log line per document: path, what happened, outcome, and the latency.
    private func log(_ outcome: DocumentOutcome, change: String, since start: ContinuousClock.Instant) {
        let elapsed = ContinuousClock.now - start
        let milliseconds = Double(elapsed.components.seconds) * 1000 + Double(elapsed.components.attoseconds) / 1e15
        var metadata: Logger.Metadata = [
            "path": "\(outcome.path)", "change": "\(change)",
            "latencyMs": .stringConvertible(Int(milliseconds.rounded())),
        ]
        switch outcome {
        case .recorded(let stored):
            metadata["outcome"] = "\(HookAnswer(stored).summary)"
            if stored.record.state == .failed {
                logger.warning("refreshed", metadata: metadata)
            } else {
                logger.info("refreshed", metadata: metadata)
            }
        case .removed:
            metadata["outcome"] = "removed"
            logger.info("refreshed", metadata: metadata)
        case .cancelled:
            metadata["outcome"] = "cancelled"
            logger.debug("refreshed", metadata: metadata)
        case .storeFailed(_, let error):
            metadata["outcome"] = "store error: \(error.message)"
            logger.error("refreshed", metadata: metadata)
        }
    }
}

extension ContainerChange {
    /// The event's word in `glance_watcher_events_total`, or nil for what is not one.
    var metricEvent: String? {
        switch self {
        case .written, .folderAppeared: "saved"
        case .moved, .folderMoved: "moved"
        case .deleted, .folderDeleted: "removed"
        case .overflow: "overflow"
        case .watchFailed, .containerGone: "failure"
        }
    }
}
