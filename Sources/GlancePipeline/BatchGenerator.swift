import Foundation
import GlanceContainer
import GlanceCore
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// Fills a container's store: plans from one scan, then renders what is not fresh in a pool of
/// supervised worker processes, saving each result as it arrives (one transaction each, so a
/// `kill -9` loses at most the documents in flight).
public final class BatchGenerator: Sendable {
    /// How a batch runs.
    public struct Options: Sendable {
        public var generatorVersion: String
        public var jobs: Int
        public var timeoutSeconds: Double
        public var force = false
        public var retryFailed = false
        public var maxSide = ThumbnailLimits.defaultMaxSide
        public var maxPixels = ThumbnailLimits.defaultMaxPixels
        /// The `glance` executable and the arguments that start a worker.
        public var workerExecutable: String
        public var workerArguments: [String]
        /// Test hook: right after opening a document whose path matches `pattern`, replace it by
        /// a symlink to `target` (an attacker's swap at the worst moment).
        public var debugSwap: (pattern: String, target: String)?

        public init(
            generatorVersion: String, jobs: Int, timeoutSeconds: Double, workerExecutable: String,
            workerArguments: [String]
        ) {
            self.generatorVersion = generatorVersion
            self.jobs = jobs
            self.timeoutSeconds = timeoutSeconds
            self.workerExecutable = workerExecutable
            self.workerArguments = workerArguments
        }
    }

    /// A document whose file changed while it was being rendered is tried this often.
    static let attemptsPerDocument = 3

    public let scanner: ContainerScanner
    public let store: any ThumbnailStore
    public let options: Options

    public init(scanner: ContainerScanner, store: any ThumbnailStore, options: Options) {
        self.scanner = scanner
        self.store = store
        self.options = options
    }

    /// Scans the container and decides what to do with each document.
    public func plan() throws(StoreError) -> GenerationPlan {
        let policy = FreshnessPolicy(
            generatorVersion: options.generatorVersion, force: options.force, retryFailed: options.retryFailed)
        let scan = scanner.scanReporting()
        var plan = try GenerationPlan.make(documents: scan.documents, store: store, policy: policy) { relative in
            guard let file = try? self.scanner.open(relative) else { return nil }
            return ContentDigest.sha256(of: file)
        }
        plan.skipped = scan.skipped
        plan.unreadableFolders = scan.unreadableFolders
        return plan
    }

    /// How long a batch waits between looks at documents that another batch has claimed.
    static let claimPollInterval: useconds_t = 200_000

    /// Carries out `plan`, reporting progress through `events`.
    ///
    /// Documents that another batch on the same store has claimed are waited for, not counted
    /// as done: when that batch saves them they are fresh (and left alone), and when it dies
    /// its claims go stale and this batch takes them over and renders them. So a batch that
    /// reports success has seen every document of its plan end.
    public func run(_ plan: GenerationPlan, events: @escaping @Sendable (GenerationEvent) -> Void = { _ in })
        throws(StoreError) -> GenerationSummary
    {
        let start = DispatchTime.now()
        let pid = getpid()
        for move in plan.moves {
            try store.moveDocument(from: move.from, to: move.to, identity: move.identity)
        }
        try store.releaseClaimsOfEndedProcesses()
        let policy = FreshnessPolicy(
            generatorVersion: options.generatorVersion, force: options.force, retryFailed: options.retryFailed)
        let tally = TallyBox(total: plan.toRender.count)
        events(.planned(total: plan.toRender.count))
        let pool = WorkerPool(
            configuration: .init(
                executable: options.workerExecutable, arguments: options.workerArguments, workers: options.jobs,
                timeoutSeconds: options.timeoutSeconds))
        let group = DispatchGroup()
        var pending = plan.toRender
        var nextId = 0
        var renderedElsewhere = 0
        var firstPass = true
        do throws(StoreError) {
            while !pending.isEmpty {
                if !firstPass { usleep(Self.claimPollInterval) }
                // Claims keep two batches on one container from rendering the same documents.
                var granted = Set<String>()
                for chunk in stride(from: 0, to: pending.count, by: 1000) {
                    let paths = pending[chunk..<min(chunk + 1000, pending.count)].map(\.path)
                    granted.formUnion(try store.claim(paths: paths, pid: pid, staleAfterSeconds: 3600))
                }
                var waiting: [ScannedDocument] = []
                for document in pending {
                    guard granted.contains(document.path) else {
                        waiting.append(document)
                        continue
                    }
                    // Another batch may have finished it since the plan was made (its claim is
                    // released when its result is saved): look again, so each is rendered once.
                    let current = try store.document(at: document.path, includingImageData: false)
                    if current?.record.generatedAt ?? .distantPast > plan.madeAt,
                        case .keep = policy.decide(current, identity: document.identity)
                    {
                        renderedElsewhere += 1
                        try store.releaseClaims(paths: [document.path], pid: pid)
                        finish(document.path, tally: tally, events: events) { _ in }
                        continue
                    }
                    group.enter()
                    submit(document, id: nextId, attempt: 1, pool: pool, group: group, tally: tally, events: events)
                    nextId += 1
                }
                pending = waiting
                firstPass = false
            }
        } catch {
            group.wait()
            pool.shutdown()
            try? store.releaseClaims(pid: pid)
            throw error
        }
        group.wait()
        pool.shutdown()
        try? store.releaseClaims(pid: pid)

        let result = tally.state.withLock { $0 }
        if let error = result.storeError { throw error }
        var summary = GenerationSummary()
        summary.rendered = result.rendered
        summary.moved = plan.moves.count
        summary.renderedElsewhere = renderedElsewhere
        summary.fresh = plan.kept[.fresh]?.count ?? 0
        summary.unsupported = result.unsupported + (plan.kept[.unsupported]?.count ?? 0)
        var failures = result.failures
        for path in plan.kept[.failed] ?? [] {
            failures.append(.init(path: path, error: plan.records[path]?.record.error ?? "failed"))
        }
        summary.failures = failures.sorted { $0.path < $1.path }
        summary.failed = summary.failures.count
        summary.skipped = plan.skipped
        summary.unreadableFolders = plan.unreadableFolders.map { .init(path: $0.path, error: $0.reason) }
        summary.seconds = Double(DispatchTime.now().uptimeNanoseconds - start.uptimeNanoseconds) / 1e9
        summary.documentsPerSecond = summary.seconds > 0 ? Double(summary.rendered) / summary.seconds : 0
        summary.sidecarBytes = store.sizeOnDisk()
        return summary
    }

    /// Counts shared by the pool threads (a class: the closures of many jobs hold it).
    private final class TallyBox: Sendable {
        let state: Mutex<Tally>
        init(total: Int) { state = Mutex(Tally(total: total)) }
    }

    private struct Tally {
        let total: Int
        var done = 0
        var rendered = 0
        var unsupported = 0
        var failures: [GenerationSummary.Failure] = []
        var storeError: StoreError?
    }

    /// Opens `document` beneath the container and hands the open file to the pool; when the
    /// job ends, checks that the file did not change or get swapped meanwhile before saving.
    private func submit(
        _ document: ScannedDocument, id: Int, attempt: Int, pool: WorkerPool, group: DispatchGroup,
        tally: TallyBox, events: @escaping @Sendable (GenerationEvent) -> Void
    ) {
        let file: OpenFile
        let opened: FileIdentity
        do throws(FileAccessError) {
            file = try scanner.open(document.path)
            guard let identity = file.identity() else { throw FileAccessError(errno: errno) }
            opened = identity
        } catch {
            if case .system(let code) = error, code == ENOENT {
                // Deleted since the scan: nothing to render, and `gc` drops its record.
                finish(document.path, tally: tally, events: events) { _ in }
            } else {
                let record = DocumentRecord(
                    path: document.path, identity: document.identity, contentType: nil, state: .failed,
                    error: ThumbnailError.unreadable(reason: error.description).description,
                    generatorVersion: options.generatorVersion)
                save(record, thumbnails: [], tally: tally, events: events)
            }
            group.leave()
            return
        }
        if let swap = options.debugSwap, fnmatch(swap.pattern, document.path, 0) == 0, attempt == 1 {
            // Test hook: an attacker replaces the document by a symlink right after it was opened.
            let absolute = scanner.absolutePath(of: document.path)
            unlink(absolute)
            symlink(swap.target, absolute)
        }
        let job = RenderJob(id: id, name: document.path, maxSide: options.maxSide, maxPixels: options.maxPixels)
        events(.started(path: document.path))
        pool.submit(job, file: file) { [self] result in
            defer { group.leave() }
            // Never keep a render of a half-written or replaced file: if the open file changed
            // while the worker read it, or the path now leads to another file, throw the result
            // away and render what is there now (opened beneath the container again, so a path
            // swapped for a link that leads out is refused, not followed).
            let changed = file.identity() != opened || self.scanner.identity(of: document.path) != opened
            if changed && attempt < Self.attemptsPerDocument {
                group.enter()
                self.submit(
                    document, id: id, attempt: attempt + 1, pool: pool, group: group, tally: tally, events: events)
                return
            }
            let scanned = ScannedDocument(path: document.path, identity: opened)
            let (record, thumbnails) = self.record(for: scanned, result: result, changedDuringRender: changed)
            self.save(record, thumbnails: thumbnails, tally: tally, events: events)
        }
    }

    /// Saves a job's record and counts it.
    private func save(
        _ record: DocumentRecord, thumbnails: [ThumbnailImage], tally: TallyBox,
        events: @Sendable (GenerationEvent) -> Void
    ) {
        do throws(StoreError) {
            try store.save(record, thumbnails: thumbnails)
        } catch {
            tally.state.withLock { $0.storeError = $0.storeError ?? error }
        }
        finish(record.path, tally: tally, events: events) { tally in
            switch record.state {
            case .fresh: tally.rendered += 1
            case .unsupported: tally.unsupported += 1
            case .failed: tally.failures.append(.init(path: record.path, error: record.error ?? "failed"))
            }
        }
    }

    private func finish(
        _ path: String, tally: TallyBox, events: @Sendable (GenerationEvent) -> Void,
        update: (inout Tally) -> Void
    ) {
        let (done, total) = tally.state.withLock { tally in
            update(&tally)
            tally.done += 1
            return (tally.done, tally.total)
        }
        events(.finished(path: path, done: done, total: total))
    }

    /// The record (and thumbnail dictionary) a job's result leads to.
    func record(for document: ScannedDocument, result: JobResult, changedDuringRender: Bool)
        -> (DocumentRecord, [ThumbnailImage])
    {
        var record = DocumentRecord(
            path: document.path, identity: document.identity, contentType: nil, state: .failed,
            generatorVersion: options.generatorVersion)
        switch result {
        case .finished(let outcome):
            record.contentType = outcome.contentType
            record.renderMilliseconds = outcome.milliseconds
            record.digest = outcome.digest
            switch outcome.status {
            case .rendered:
                guard let format = outcome.format, !changedDuringRender else {
                    record.error = "the document kept changing while it was being read"
                    return (record, [])
                }
                record.state = .fresh
                let image = ThumbnailImage(
                    format: format, width: outcome.width, height: outcome.height, data: outcome.data)
                return (record, [image])
            case .unsupported:
                record.state = .unsupported
                record.error = outcome.error
            case .failed:
                record.error = outcome.error
            }
        case .timedOut(let seconds):
            record.error = ThumbnailError.timedOut(seconds: seconds).description
        case .crashed(let reason):
            record.error = reason
        }
        return (record, [])
    }
}
