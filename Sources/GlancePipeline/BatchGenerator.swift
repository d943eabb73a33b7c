import Foundation
import GlanceRender
import GlanceStore
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
        public var maxSide = ThumbnailGeometry.defaultMaxSide
        public var maxPixels = RenderRequest.defaultMaxPixels
        /// The `glance` executable and the arguments that start a worker.
        public var workerExecutable: String
        public var workerArguments: [String]

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
        return try GenerationPlan.make(documents: scanner.scan(), store: store, policy: policy) { relative in
            ContentDigest.fingerprint(ofFileAt: self.scanner.absolutePath(of: relative))
        }
    }

    /// Carries out `plan`, reporting progress through `events`.
    public func run(_ plan: GenerationPlan, events: @escaping @Sendable (GenerationEvent) -> Void = { _ in })
        throws(StoreError) -> GenerationSummary
    {
        let start = DispatchTime.now()
        let pid = getpid()
        for move in plan.moves {
            try store.moveDocument(from: move.from, to: move.to, identity: move.identity)
        }
        // Claims keep two batches on one container from rendering the same documents.
        var granted = Set<String>()
        var paths = plan.toRender.map(\.path)[...]
        while !paths.isEmpty {
            let chunk = Array(paths.prefix(1000))
            paths = paths.dropFirst(chunk.count)
            granted.formUnion(try store.claim(paths: chunk, pid: pid, staleAfterSeconds: 3600))
        }
        // Another batch may have finished some of these since the plan was made (its claim is
        // released when its result is saved): look again, so each document is rendered once.
        let policy = FreshnessPolicy(
            generatorVersion: options.generatorVersion, force: options.force, retryFailed: options.retryFailed)
        var doneElsewhere = 0
        var work: [ScannedDocument] = []
        for document in plan.toRender where granted.contains(document.path) {
            let current = try store.document(at: document.path, includingImageData: false)
            if current?.record.generatedAt ?? .distantPast > plan.madeAt,
                case .keep = policy.decide(current, identity: document.identity)
            {
                doneElsewhere += 1
                continue
            }
            work.append(document)
        }
        let tally = TallyBox(total: work.count)
        events(.planned(total: work.count))

        let pool = WorkerPool(
            configuration: .init(
                executable: options.workerExecutable, arguments: options.workerArguments, workers: options.jobs,
                timeoutSeconds: options.timeoutSeconds))
        let group = DispatchGroup()
        for (index, document) in work.enumerated() {
            group.enter()
            submit(document, id: index, attempt: 1, pool: pool, group: group, tally: tally, events: events)
        }
        group.wait()
        pool.shutdown()
        try? store.releaseClaims(pid: pid)

        let result = tally.state.withLock { $0 }
        if let error = result.storeError { throw error }
        var summary = GenerationSummary()
        summary.rendered = result.rendered
        summary.moved = plan.moves.count
        summary.renderedElsewhere = plan.toRender.count - work.count
        summary.fresh = plan.kept[.fresh]?.count ?? 0
        summary.unsupported = result.unsupported + (plan.kept[.unsupported]?.count ?? 0)
        var failures = result.failures
        for path in plan.kept[.failed] ?? [] {
            failures.append(.init(path: path, error: plan.records[path]?.record.error ?? "failed"))
        }
        summary.failures = failures.sorted { $0.path < $1.path }
        summary.failed = summary.failures.count
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

    private func submit(
        _ document: ScannedDocument, id: Int, attempt: Int, pool: WorkerPool, group: DispatchGroup,
        tally: TallyBox, events: @escaping @Sendable (GenerationEvent) -> Void
    ) {
        let absolute = scanner.absolutePath(of: document.path)
        let job = RenderJob(id: id, path: absolute, maxSide: options.maxSide, maxPixels: options.maxPixels)
        events(.started(path: document.path))
        pool.submit(job) { [self] result in
            defer { group.leave() }
            // Never keep a render of a half-written file: if the file changed while the worker
            // read it, throw the result away and render the new content.
            guard let after = FileStatus.identity(ofFileAt: absolute) else {
                self.finish(document.path, tally: tally, events: events) { _ in }
                return
            }
            if after != document.identity && attempt < Self.attemptsPerDocument {
                group.enter()
                let changed = ScannedDocument(path: document.path, identity: after)
                self.submit(
                    changed, id: id, attempt: attempt + 1, pool: pool, group: group, tally: tally, events: events)
                return
            }
            let (record, thumbnails) = self.record(
                for: document, result: result, changedDuringRender: after != document.identity)
            do throws(StoreError) {
                try self.store.save(record, thumbnails: thumbnails)
            } catch {
                tally.state.withLock { $0.storeError = $0.storeError ?? error }
            }
            self.finish(document.path, tally: tally, events: events) { tally in
                switch record.state {
                case .fresh: tally.rendered += 1
                case .unsupported: tally.unsupported += 1
                case .failed: tally.failures.append(.init(path: record.path, error: record.error ?? "failed"))
                }
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
