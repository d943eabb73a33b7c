import Foundation
import GlanceContainer
import GlanceCore
import Synchronization

/// Batch work: one scan, a plan, and every document that is not fresh rendered in the pool's
/// normal lane, behind whatever on-save work arrives meanwhile.
extension Indexer {
    /// Scans the container and decides what to do with each document.
    public func plan(force: Bool = false, retryFailed: Bool = false) async throws(StoreError) -> GenerationPlan {
        let policy = FreshnessPolicy(
            generatorVersion: options.generatorVersion, force: force, retryFailed: retryFailed, sizes: options.sizes)
        let scan = scanner.scanReporting()
        var plan = try await GenerationPlan.make(documents: scan.documents, store: store, policy: policy) { relative in
            guard let file = try? self.scanner.open(relative) else { return nil }
            return ContentDigest.sha256(of: file)
        }
        plan.policy = policy
        plan.skipped = scan.skipped
        plan.unreadableFolders = scan.unreadableFolders
        return plan
    }

    /// How long a batch waits between looks at documents that another batch has claimed.
    static let claimPollInterval: Duration = .milliseconds(200)

    /// Carries out `plan`, reporting progress through `progress`.
    ///
    /// Documents are claimed under a lease that a heartbeat renews while the batch runs, so that
    /// two batches (on one machine or several) split the work. Documents that another batch has
    /// claimed are waited for, not counted as done: when that batch saves them they are fresh
    /// (and left alone), and when it dies its claims are abandoned and this batch takes them over.
    /// So a batch that reports success has seen every document of its plan end.
    public func catchUp(_ plan: GenerationPlan, progress: @escaping @Sendable (GenerationEvent) -> Void = { _ in })
        async throws(StoreError) -> GenerationSummary
    {
        let start = ContinuousClock.now
        for move in plan.moves {
            try await store.moveDocument(from: move.from, to: move.to, identity: move.identity)
            publish(.moved(from: move.from, to: move.to))
        }
        try await store.releaseAbandonedClaims()
        let lease = Lease.forThisProcess(seconds: options.leaseSeconds)
        let heartbeat = Task {
            while !Task.isCancelled {
                try? await Task.sleep(for: .seconds(lease.seconds / 3))
                try? await store.renew(lease)
            }
        }
        defer { heartbeat.cancel() }
        let tally = TallyBox(total: plan.toRender.count)
        progress(.planned(total: plan.toRender.count))
        var renderedElsewhere = 0
        do throws(StoreError) {
            renderedElsewhere = try await renderAll(plan, lease: lease, tally: tally, progress: progress)
        } catch {
            try? await store.release(lease, paths: nil)
            throw error
        }
        try? await store.release(lease, paths: nil)
        let result = tally.state.withLock { $0 }
        if let error = result.storeError { throw error }
        var summary = GenerationSummary()
        summary.rendered = result.rendered
        summary.thumbnailBytesBySize = result.bytesBySize
        summary.moved = plan.moves.count
        summary.renderedElsewhere = renderedElsewhere
        summary.fresh = plan.kept[.fresh]?.count ?? 0
        summary.unsupported = result.unsupported + (plan.kept[.unsupported]?.count ?? 0)
        var failures = result.failures
        for path in plan.kept[.failed] ?? [] {
            failures.append(.init(path: path, error: plan.records[PathKey(path)]?.record.error ?? "failed"))
        }
        summary.failures = failures.sorted { $0.path < $1.path }
        summary.failed = summary.failures.count
        summary.skipped = plan.skipped
        summary.unreadableFolders = plan.unreadableFolders.map { .init(path: $0.path, error: $0.reason) }
        let elapsed = ContinuousClock.now - start
        summary.seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        summary.documentsPerSecond = summary.seconds > 0 ? Double(summary.rendered) / summary.seconds : 0
        return summary
    }

    /// Claims, renders and records the plan's documents, keeping the pool fed but not flooded;
    /// returns how many another batch finished meanwhile.
    private func renderAll(
        _ plan: GenerationPlan, lease: Lease, tally: TallyBox, progress: @escaping @Sendable (GenerationEvent) -> Void
    ) async throws(StoreError) -> Int {
        var pending = plan.toRender
        var renderedElsewhere = 0
        // Enough queued to keep every worker busy; more would only hold open files.
        let window = pool.configuration.renderers * 2
        var firstPass = true
        while !pending.isEmpty && !Task.isCancelled {
            if !firstPass { try? await Task.sleep(for: Self.claimPollInterval) }
            firstPass = false
            var granted = Set<PathKey>()
            for chunk in stride(from: 0, to: pending.count, by: 1000) {
                let paths = pending[chunk..<min(chunk + 1000, pending.count)].map(\.path)
                granted.formUnion(try await store.claim(paths: paths, under: lease).map { PathKey($0) })
            }
            var waiting: [ScannedDocument] = []
            var mine: [ScannedDocument] = []
            // Another batch may have finished some since the plan was made (its claim ends when
            // its result is saved): look again, so that each document is rendered once. One read
            // for all of them: a read each was 18 round trips to the store before the first job.
            let grantedPaths = pending.map(\.path).filter { granted.contains(PathKey($0)) }
            let recorded = grantedPaths.isEmpty ? [:] : try await store.documents(at: grantedPaths)
            for document in pending {
                guard granted.contains(PathKey(document.path)) else {
                    waiting.append(document)
                    continue
                }
                let current = recorded[PathKey(document.path)]
                if let current, current.record.generatedAt > plan.madeAt,
                    case .keep = plan.policy.decide(current, identity: document.identity)
                {
                    try await store.release(lease, paths: [document.path])
                    if current.record.state == .fresh {
                        renderedElsewhere += 1
                        Self.count(DocumentOutcome?.none, path: document.path, tally: tally, progress: progress)
                    } else {
                        // Failed or unsupported in the other batch: this run says so, as it
                        // would had it rendered the document itself (a failure is exit 1).
                        Self.count(.recorded(current), path: document.path, tally: tally, progress: progress)
                    }
                    continue
                }
                mine.append(document)
            }
            mine = Self.renderOrder(mine)
            await withTaskGroup(of: (String, DocumentOutcome).self) { group in
                var next = 0
                func startNext() {
                    guard next < mine.count, !Task.isCancelled else { return }
                    let document = mine[next]
                    next += 1
                    progress(.started(path: document.path))
                    group.addTask { (document.path, await self.renderNow(document.path, lane: .batch)) }
                }
                for _ in 0..<window { startNext() }
                for await (path, outcome) in group {
                    Self.count(outcome, path: path, tally: tally, progress: progress)
                    startNext()
                }
            }
            pending = waiting
        }
        return renderedElsewhere
    }

    /// The order a batch hands its documents to the pool, or to the queue's hosts
    /// (`generate --enqueue`): largest file first (then by path).
    ///
    /// A batch ends when its slowest worker does. In the order of the folder, a 24-megapixel photo
    /// met last keeps one worker busy while the others have nothing left to do; largest first,
    /// what is left at the end are the small documents, and the workers finish close together.
    /// A file's size stands in for its cost: near enough for photos, where the cost lies. The
    /// same holds for hosts draining a queue (measured by `bench/scaleout.py`: in folder order,
    /// four hosts ended up to a second apart, a large photo last).
    public static func renderOrder(_ documents: [ScannedDocument]) -> [ScannedDocument] {
        return documents.sorted {
            $0.identity.size != $1.identity.size ? $0.identity.size > $1.identity.size : $0.path < $1.path
        }
    }

    /// Counts one finished document (nil: nothing to count, such as one rendered elsewhere).
    private static func count(
        _ outcome: DocumentOutcome?, path: String, tally: TallyBox, progress: @Sendable (GenerationEvent) -> Void
    ) {
        let (done, total) = tally.state.withLock { tally in
            switch outcome {
            case .recorded(let stored):
                switch stored.record.state {
                case .fresh:
                    tally.rendered += 1
                    for image in stored.thumbnails {
                        tally.bytesBySize[image.sizeKey, default: 0] += Int64(image.byteCount)
                    }
                case .unsupported: tally.unsupported += 1
                case .failed:
                    tally.failures.append(
                        GenerationSummary.Failure(path: stored.record.path, error: stored.record.error ?? "failed"))
                }
            case .storeFailed(_, let error):
                tally.storeError = tally.storeError ?? error
            case .removed, .cancelled, nil:
                break
            }
            tally.done += 1
            return (tally.done, tally.total)
        }
        progress(.finished(path: path, done: done, total: total))
    }

    /// The counts of one batch, shared by its renders (a class: many tasks hold it).
    final class TallyBox: Sendable {
        let state: Mutex<Tally>
        init(total: Int) { state = Mutex(Tally(total: total)) }
    }

    /// Counts of one batch.
    struct Tally: Sendable {
        let total: Int
        var done = 0
        var rendered = 0
        var unsupported = 0
        var bytesBySize: [String: Int64] = [:]
        var failures: [GenerationSummary.Failure] = []
        var storeError: StoreError?
    }
}
