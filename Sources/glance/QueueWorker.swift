import Foundation
import GlanceContainer
import GlanceCore
import GlancePipeline
import GlancePostgresStore
import GlanceStore

/// One host's share of a PostgreSQL job queue: leases jobs, keeps `jobs` of them rendering
/// through the local supervised pool, sends heartbeats while they render, and completes each
/// once its record is saved (saving is idempotent: a job done twice writes the same record).
///
/// A job whose container folder this host cannot open is given back with the reason, for
/// another host to try; a host that dies holds its jobs only until their leases expire.
struct QueueWorker: Sendable {
    /// How the worker runs.
    struct Settings: Sendable {
        /// Jobs rendering at once (the pool's size).
        var jobs: Int
        /// How long a lease lasts without a heartbeat, in seconds.
        var leaseSeconds: Double
        /// Attempts before a job ends `failed`.
        var maxAttempts: Int
        /// Serve only this container key (nil: every container of the database).
        var onlyContainer: String?
        /// Stop when no job is pending or leased, instead of waiting for more.
        var exitWhenIdle: Bool
        /// Print one line per finished job.
        var verbose: Bool
        /// How long the store may stay unreachable (a PostgreSQL restart, a network cut) before
        /// the worker gives up, in seconds.
        var patienceSeconds: Double = 300
    }

    /// What a worker did, for its last line.
    struct Tally: Sendable {
        var done = 0
        var givenBack = 0
    }

    let address: PostgresAddress
    /// The store used for the queue itself.
    let queue: PostgresStore
    let pool: WorkerPool
    let options: Indexer.Options
    let settings: Settings

    /// Runs until the queue is idle (with `exitWhenIdle`) or `stop` fires.
    func run(stop: StopSignals) async throws(StoreError) -> Tally {
        let lease = Lease.forThisProcess(seconds: settings.leaseSeconds)
        let indexers = IndexerCache(address: address, pool: pool, options: options)
        let heartbeat = Task {
            while !Task.isCancelled {
                try? await Task.sleep(for: .seconds(settings.leaseSeconds / 3))
                try? await queue.renewJobs(lease)
            }
        }
        defer { heartbeat.cancel() }
        // A stop kills the renders under way at once: their jobs end cancelled and are given
        // back, rather than finished first (a render may take up to --timeout).
        let stopper = Task {
            await stop.next()
            if !Task.isCancelled { pool.stop() }
        }
        defer { stopper.cancel() }
        var tally = Tally()
        var failure: StoreError?
        await withTaskGroup(of: Bool.self) { group in
            var running = 0
            // Twice the pool's size in hand: while one document's result is saved and its job
            // completed (round trips to the database), the next one is already rendering.
            let inHand = settings.jobs * 2
            while !stop.received, failure == nil {
                if running < inHand {
                    let leased: [QueuedJob]
                    do throws(StoreError) {
                        leased = try await patiently(stop: stop) { () throws(StoreError) in
                            try await queue.lease(
                                limit: inHand - running, under: lease, maxAttempts: settings.maxAttempts,
                                onlyContainer: settings.onlyContainer)
                        }
                    } catch {
                        failure = error
                        break
                    }
                    for job in leased {
                        group.addTask { await self.handle(job, lease: lease, indexers: indexers) }
                        running += 1
                    }
                    if !leased.isEmpty { continue }
                    if running == 0 {
                        if settings.exitWhenIdle, (try? await isIdle()) == true { break }
                        try? await Task.sleep(for: .milliseconds(200))
                        continue
                    }
                }
                if let done = await group.next() {
                    running -= 1
                    if done { tally.done += 1 } else { tally.givenBack += 1 }
                }
            }
            for await done in group {
                if done { tally.done += 1 } else { tally.givenBack += 1 }
            }
        }
        await indexers.close()
        if let failure { throw failure }
        return tally
    }

    /// Whether nothing is pending or leased (in this worker's scope).
    private func isIdle() async throws(StoreError) -> Bool {
        let counts = try await queue.queueCounts(allContainers: settings.onlyContainer == nil)
        return (counts.byState["pending"] ?? 0) + (counts.byState["leased"] ?? 0) == 0
    }

    /// Renders one job's document and completes the job, or gives it back; true when done.
    private func handle(_ job: QueuedJob, lease: Lease, indexers: IndexerCache) async -> Bool {
        let indexer: Indexer
        do {
            indexer = try await indexers.indexer(container: job.container, root: job.root)
        } catch {
            await giveBack(job, lease: lease, reason: error.message)
            return false
        }
        // A container whose shared storage is not mounted on this host is an empty folder: its
        // documents would look deleted, and their records be dropped. Leave them to other hosts.
        if indexer.scanner.identity(of: job.path) == nil, indexer.scanner.holdsNothing {
            await giveBack(
                job, lease: lease,
                reason: "the container folder \(DisplayText.escaped(job.root)) is empty on this host (is the shared "
                    + "storage mounted?)")
            return false
        }
        // The store went away while the document rendered (a PostgreSQL restart): render again
        // once it is back, rather than leave the job to its lease's expiry.
        let outcome: DocumentOutcome
        do throws(StoreError) {
            outcome = try await patiently { () throws(StoreError) -> DocumentOutcome in
                let outcome = await render(job, with: indexer)
                if case .storeFailed(_, let error) = outcome { throw error }
                return outcome
            }
        } catch {
            await giveBack(job, lease: lease, reason: error.message)
            return false
        }
        switch outcome {
        case .recorded(let stored):
            if settings.verbose {
                let state = stored.record.state.rawValue
                print("\(DisplayText.escaped(job.root))/\(DisplayText.escaped(job.path)) \(state)")
            }
        case .removed:
            if settings.verbose { print("\(DisplayText.escaped(job.root))/\(DisplayText.escaped(job.path)) removed") }
        case .storeFailed(_, let error):
            // Thrown above; kept for the switch to be whole.
            await giveBack(job, lease: lease, reason: error.message)
            return false
        case .cancelled:
            await giveBack(job, lease: lease, reason: "the worker was stopped")
            return false
        }
        do throws(StoreError) {
            _ = try await patiently { () throws(StoreError) in try await queue.complete(job, under: lease) }
        } catch {
            StandardError.write("glance: job \(job.id): \(error.description)")
        }
        return true
    }

    /// Runs `operation`, and again while the store is unreachable or busy (a PostgreSQL restart,
    /// a network cut: the pool reconnects by itself), waiting longer each time, up to the
    /// patience; other errors, and running out of patience, are thrown.
    private func patiently<T: Sendable>(
        stop: StopSignals? = nil, _ operation: () async throws(StoreError) -> T
    ) async throws(StoreError) -> T {
        let deadline = ContinuousClock.now + .seconds(settings.patienceSeconds)
        var pause = Duration.milliseconds(100)
        var said = false
        while true {
            do {
                let result = try await operation()
                if said { StandardError.write("glance: worker: the store is back") }
                return result
            } catch  where error.kind == .unavailable || error.kind == .busy {
                if ContinuousClock.now + pause > deadline || stop?.received == true { throw error }
                if !said {
                    StandardError.write("glance: worker: \(error.description); trying again")
                    said = true
                }
                try? await Task.sleep(for: pause)
                pause = min(pause * 2, .seconds(5))
            }
        }
    }

    /// The job's document brought up to date: rendered when it changed (or always, for a forced
    /// job), its record dropped when it is gone. One read of the record decides.
    private func render(_ job: QueuedJob, with indexer: Indexer) async -> DocumentOutcome {
        await indexer.render(job.path, force: job.force)
    }

    private func giveBack(_ job: QueuedJob, lease: Lease, reason: String) async {
        StandardError.write(
            "glance: \(DisplayText.escaped(job.root))/\(DisplayText.escaped(job.path)): \(reason); given back")
        try? await queue.giveBack(job, under: lease, error: reason, maxAttempts: settings.maxAttempts)
    }
}

/// The indexers of the containers a worker has met, one per container key and folder, each with
/// its store; made on first use.
actor IndexerCache {
    private let address: PostgresAddress
    private let pool: WorkerPool
    private let options: Indexer.Options
    private var indexers: [String: Indexer] = [:]
    private var stores: [PostgresStore] = []

    init(address: PostgresAddress, pool: WorkerPool, options: Indexer.Options) {
        self.address = address
        self.pool = pool
        self.options = options
    }

    /// The indexer of `container` at `root`; an error (`unavailable`) when this host cannot open
    /// the folder (another host may).
    func indexer(container: String, root: String) async throws(StoreError) -> Indexer {
        let key = container + "\u{0}" + root
        if let known = indexers[key] { return known }
        let scanner: ContainerScanner
        do {
            scanner = try ContainerScanner(
                container: root, excluding: [SidecarStore.defaultDirectory(forContainer: root)])
        } catch {
            throw StoreError(
                .unavailable, message: "this host cannot open the container folder \(root): \(error.reason)",
                location: Lease.thisHost)
        }
        let store = try await PostgresStore.open(address, container: container)
        stores.append(store)
        let indexer = Indexer(scanner: scanner, store: store, pool: pool, options: options)
        indexers[key] = indexer
        return indexer
    }

    /// Closes every store opened here.
    func close() async {
        for store in stores { await store.close() }
        stores.removeAll()
    }
}
