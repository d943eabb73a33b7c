import GlanceContainer
import GlanceCore
import GlancePipeline
import GlancePostgresStore

/// One host's share of a PostgreSQL job queue: leases jobs, keeps `jobs` of them rendering
/// through the local supervised pool, sends heartbeats while they render, and completes each
/// once its record is saved (saving is idempotent: a job done twice writes the same record).
///
/// A job whose container folder this host cannot open is given back with the reason, for
/// another host to try; a host that dies holds its jobs only until their leases expire. What it
/// does is told as ``Event``s; `glance worker` prints them.
public struct QueueWorker: Sendable {
    /// How the worker runs.
    public struct Settings: Sendable {
        /// Jobs rendering at once (the pool's size).
        var jobs: Int
        /// How long a lease lasts without a heartbeat, in seconds.
        var leaseSeconds: Double
        /// Attempts before a job ends `failed`.
        var maxAttempts: Int
        /// Serve only this container key (nil: every container of the database).
        var onlyContainer: String?
        /// The folders this host renders beneath, as the operator named them: a job's folder
        /// comes from a table that anyone who can write the database fills, so it is rendered
        /// only when it is (or lies inside) one of these.
        var roots: [String]
        /// Stop when no job is pending or leased, instead of waiting for more.
        var exitWhenIdle: Bool
        /// How long the store may stay unreachable (a PostgreSQL restart, a network cut) before
        /// the worker gives up, in seconds.
        var patienceSeconds: Double = 300
        /// How many batch documents' saves go to the database in one statement, at most (see
        /// ``PostgresStore/completeWithSave(_:under:leasingAhead:savesPerCommit:holdLimit:)``): each but
        /// the last waits for the next render. 1: each at once.
        var savesPerCommit: Int = 2

        public init(
            jobs: Int, leaseSeconds: Double, maxAttempts: Int, onlyContainer: String?, roots: [String],
            exitWhenIdle: Bool, patienceSeconds: Double = 300, savesPerCommit: Int = 2
        ) {
            self.savesPerCommit = max(1, savesPerCommit)
            self.jobs = jobs
            self.roots = roots
            self.leaseSeconds = leaseSeconds
            self.maxAttempts = maxAttempts
            self.onlyContainer = onlyContainer
            self.exitWhenIdle = exitWhenIdle
            self.patienceSeconds = patienceSeconds
        }
    }

    /// What a worker did, for its last line.
    public struct Tally: Sendable {
        /// Jobs done, each counted once (a job leased again while it rendered here is not started
        /// again, see `JobsInHand`; counting ids keeps that so).
        public var done: Int { doneJobs.count }
        private var doneJobs: Set<Int64> = []
        public var givenBack = 0
        /// How long each lease round trip took (the statement that took jobs, whether it found any).
        public var leases = LatencyHistogram()

        public init() {}

        /// Counts job `id` done (once, however often it is).
        public mutating func countDone(_ id: Int64) { doneJobs.insert(id) }

        /// The worker's last line after its name: `12 done, 0 given back; 7 lease round trips,
        /// p50 0.9 ms, p90 1.4 ms, p99 3.0 ms`.
        public var description: String {
            var text = "\(done) done, \(givenBack) given back; \(leases.count) lease round trip"
            if leases.count != 1 { text += "s" }
            if let p50 = leases.percentile(0.5), let p90 = leases.percentile(0.9), let p99 = leases.percentile(0.99) {
                text +=
                    ", p50 \(Self.milliseconds(p50)) ms, p90 \(Self.milliseconds(p90)) ms, p99 \(Self.milliseconds(p99)) ms"
            }
            return text
        }

        private static func milliseconds(_ value: Double) -> String {
            let tenths = (value * 10).rounded()
            return "\(Int(tenths) / 10).\(Int(tenths) % 10)"
        }
    }

    let address: PostgresAddress
    /// The store used for the queue itself.
    let queue: PostgresStore
    let pool: RendererPool
    let options: Indexer.Options
    let settings: Settings
    /// Where the worker's events go (called from several tasks).
    let report: @Sendable (Event) -> Void

    /// A worker leasing from `queue` (a store opened on `address`), rendering through `pool`.
    public init(
        address: PostgresAddress, queue: PostgresStore, pool: RendererPool, options: Indexer.Options,
        settings: Settings, report: @escaping @Sendable (Event) -> Void
    ) {
        self.address = address
        self.queue = queue
        self.pool = pool
        self.options = options
        self.settings = settings
        self.report = report
    }

    /// Runs until the queue is idle (with `exitWhenIdle`) or `stop` is requested; a stop kills
    /// the renders under way and gives their jobs back.
    public func run(stop: some StopRequest) async throws(StoreError) -> Tally {
        let lease = Lease.forThisProcess(seconds: settings.leaseSeconds)
        let indexers = IndexerCache(
            address: address, queue: queue, pool: pool, options: options, roots: settings.roots)
        let inHand = JobsInHand()
        // A heartbeat that failed (the database away) is tried again within a second, not a
        // third of a lease later: leases that ran out meanwhile are ours again before another
        // host, or this one's next lease, takes them.
        let heartbeat = Task {
            var pause = settings.leaseSeconds / 3
            while !Task.isCancelled {
                try? await Task.sleep(for: .seconds(pause))
                do throws(StoreError) {
                    try await queue.renewJobs(lease, holding: inHand.held)
                    pause = settings.leaseSeconds / 3
                } catch {
                    pause = min(1, settings.leaseSeconds / 3)
                }
            }
        }
        defer { heartbeat.cancel() }
        // An idle worker waits for the database's word that jobs were queued, looking at the
        // queue less and less often meanwhile (see idleLooks).
        let bell = JobsBell()
        let listener = Task { await queue.listenForJobs { bell.ring() } }
        defer { listener.cancel() }
        // A stop kills the renders under way at once: their jobs end cancelled and are given
        // back, rather than finished first (a render may take up to --timeout).
        let stopper = Task {
            await stop.wait()
            bell.ring()
            if !Task.isCancelled { await pool.stop() }
        }
        defer { stopper.cancel() }
        var tally = Tally()
        var failure: StoreError?
        await withTaskGroup(of: (Int64, Bool).self) { group in
            var running = 0
            // Looks at the queue that found nothing, since the last that found a job.
            var idleLooks = 0
            // When the loop last asked for jobs.
            var lastLook = ContinuousClock.now
            // Twice the pool's size in hand: while one document's result is saved and its job
            // completed (round trips to the database), the next one is already rendering. Not
            // more for saves held to go together: with one more, a host ends a batch with a
            // render more than the others (eight hosts at 0.15 core took 10.4 s against 8.9 s
            // on 96 documents in bench/scaleout.py), and the renderer idles only for the pair's
            // round trip.
            let most = settings.jobs * 2
            while !stop.isRequested, failure == nil {
                if running < most {
                    let leased: [QueuedJob]
                    lastLook = ContinuousClock.now
                    do throws(StoreError) {
                        leased = try await patiently(stop: stop) { () throws(StoreError) in
                            let started = ContinuousClock.now
                            let jobs = try await queue.lease(
                                limit: most - running, under: lease, maxAttempts: settings.maxAttempts,
                                onlyContainer: settings.onlyContainer, holding: inHand.held)
                            tally.leases.add(ContinuousClock.now - started)
                            return jobs
                        }
                    } catch {
                        failure = error
                        break
                    }
                    // A job whose lease ran out while it rendered here (see JobsInHand) is not
                    // rendered a second time.
                    for job in inHand.take(leased) {
                        group.addTask {
                            (job.id, await self.handle(job, lease: lease, indexers: indexers, inHand: inHand))
                        }
                        running += 1
                    }
                    if !leased.isEmpty {
                        idleLooks = 0
                        continue
                    }
                    if running == 0 {
                        if settings.exitWhenIdle, (try? await isIdle()) == true { break }
                        // A worker that ends with the queue looks often: it is idle only while the
                        // last jobs render elsewhere, and each later look would end it later.
                        await bell.wait(upTo: Self.idlePause(after: settings.exitWhenIdle ? 0 : idleLooks))
                        idleLooks += 1
                        // Anyone who may connect to the database may notify the channel: a
                        // flood of notifications gets no more looks than the shortest pause.
                        let shortest = Self.idlePause(after: 0)
                        let since = ContinuousClock.now - lastLook
                        if since < shortest { try? await Task.sleep(for: shortest - since) }
                        continue
                    }
                }
                if let (job, done) = await group.next() {
                    running -= 1
                    inHand.finish(job)
                    if done { tally.countDone(job) } else { tally.givenBack += 1 }
                    // A job given back because its thumbnails could not be written (the folder
                    // unmounted or read-only) stops the worker: every other job would fail too.
                    if !done, let folder = queue.thumbnailFolder {
                        do throws(StoreError) {
                            try folder.checkUsable(location: queue.location)
                        } catch {
                            failure = error
                        }
                    }
                }
            }
            for await (job, done) in group {
                inHand.finish(job)
                if done { tally.countDone(job) } else { tally.givenBack += 1 }
            }
        }
        // Jobs a save leased ahead that the loop never started: back as they were, for any host.
        try? await queue.returnUnstarted(queue.takeJobsLeasedAhead(), under: lease)
        await indexers.close()
        if let failure { throw failure }
        return tally
    }

    /// How long an idle worker waits before its next look at the queue, after `looks` that found
    /// nothing: 0.2 s, doubled each time, up to 10 s. A job queued meanwhile wakes it at once
    /// (``PostgresStore/listenForJobs(_:)``); the looks are for a notification lost with its
    /// connection, and for leases of dead hosts that expire. Each look is a lease statement: at
    /// five a second, a hundred idle hosts kept the database busy doing nothing. A worker that
    /// exits when the queue is idle keeps looking every 0.2 s.
    static func idlePause(after looks: Int) -> Duration {
        min(Duration.milliseconds(200 * (1 << min(max(looks, 0), 6))), .seconds(10))
    }

    /// Whether nothing is pending or leased (in this worker's scope).
    private func isIdle() async throws(StoreError) -> Bool {
        let counts = try await queue.queueCounts(allContainers: settings.onlyContainer == nil)
        return (counts.byState[.pending] ?? 0) + (counts.byState[.leased] ?? 0) == 0
    }

    /// Renders one job's document and completes the job, or gives it back; true when done.
    private func handle(_ job: QueuedJob, lease: Lease, indexers: IndexerCache, inHand: JobsInHand) async -> Bool {
        // A path no document can have (absolute, `..`, hidden, NUL) ends the job at once: no
        // host would render it, and nothing is recorded under it.
        guard FileName.isDocumentPath(job.path) else {
            await giveBack(
                job, lease: lease,
                reason: "refused: not a document path of a container (absolute, '..', hidden or NUL)",
                final: true)
            return false
        }
        let entry: IndexerCache.Entry
        do {
            entry = try await indexers.indexer(container: job.container, root: job.root)
        } catch {
            await giveBack(job, lease: lease, reason: error.message)
            return false
        }
        // A container whose shared storage is not mounted on this host is an empty folder: its
        // documents would look deleted, and their records be dropped. Leave them to other hosts.
        let indexer = entry.indexer
        if indexer.scanner.identity(of: job.path) == nil, indexer.scanner.holdsNothing {
            await giveBack(
                job, lease: lease,
                reason: "the container folder \(job.root) is empty on this host (is the shared storage mounted?)")
            return false
        }
        // The job ends with its document's save when it is saved: one transaction, one round
        // trip. Whatever the render's outcome, the registration ends here.
        // The save also leases this worker's next job: the loop's next lease needs no round trip.
        // It spares the jobs in hand when it is sent, as the loop's leases do.
        let riding = entry.store.completeWithSave(
            job, under: lease,
            leasingAhead: LeaseAhead(
                limit: 1, maxAttempts: settings.maxAttempts, onlyContainer: settings.onlyContainer,
                holding: { inHand.held }),
            savesPerCommit: settings.savesPerCommit)
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
            _ = riding && entry.store.takeCompletion(of: job)
            await giveBack(job, lease: lease, reason: error.message)
            return false
        }
        let completedBySave = riding && entry.store.takeCompletion(of: job)
        switch outcome {
        case .recorded(let stored):
            report(.finished(root: job.root, path: job.path, state: stored.record.state))
        case .removed:
            report(.removed(root: job.root, path: job.path))
        case .storeFailed(_, let error):
            // Thrown above; kept for the switch to be whole.
            await giveBack(job, lease: lease, reason: error.message)
            return false
        case .cancelled:
            await giveBack(job, lease: lease, reason: "the worker was stopped")
            return false
        }
        // Found fresh or removed (nothing saved), or its lease lost meanwhile: completed on its own
        // (for a lost lease, the statement leaves the job to the host that holds it now).
        if completedBySave { return true }
        do throws(StoreError) {
            _ = try await patiently { () throws(StoreError) in try await queue.complete(job, under: lease) }
        } catch {
            report(.notCompleted(jobID: job.id, reason: error.description))
        }
        return true
    }

    /// Runs `operation`, and again while the store is unreachable or busy (a PostgreSQL restart,
    /// a network cut: the pool reconnects by itself), waiting longer each time, up to the
    /// patience; other errors, and running out of patience, are thrown.
    private func patiently<T: Sendable>(
        stop: (any StopRequest)? = nil, _ operation: () async throws(StoreError) -> T
    ) async throws(StoreError) -> T {
        let deadline = ContinuousClock.now + .seconds(settings.patienceSeconds)
        var pause = Duration.milliseconds(100)
        var said = false
        while true {
            do {
                let result = try await operation()
                if said { report(.storeBack) }
                return result
            } catch  where error.kind == .unavailable || error.kind == .busy {
                if ContinuousClock.now + pause > deadline || stop?.isRequested == true { throw error }
                if !said {
                    report(.storeUnavailable(reason: error.description))
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

    /// Gives `job` back for another try (by any host), or with `final` ends it failed.
    private func giveBack(_ job: QueuedJob, lease: Lease, reason: String, final: Bool = false) async {
        report(.givenBack(root: job.root, path: job.path, reason: reason))
        try? await queue.giveBack(job, under: lease, error: reason, maxAttempts: final ? 0 : settings.maxAttempts)
    }
}
