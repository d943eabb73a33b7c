import Foundation
import GlanceContainer
import GlanceCore
import Synchronization

/// The one engine behind every use of Glance: it keeps a container's store up to date with a
/// worker pool it is given (and may share with other containers' indexers).
///
/// Front doors ask it for work in two lanes: ``refresh(_:)`` and ``render(_:)`` for on-save and
/// interactive requests (the pool's interactive lane, no container scan), ``catchUp(_:progress:)``
/// for batch work (the normal lane). Concurrent ``render(_:)`` calls for one document share one
/// render. Subscribers of ``events()`` hear of every document refreshed, failed, moved or removed.
public final class Indexer: Sendable {
    /// How the indexer renders.
    public struct Options: Sendable {
        /// The Glance version written into each record.
        public var generatorVersion: String
        /// The box thumbnails fit.
        public var maxSide = ThumbnailLimits.defaultMaxSide
        /// The pixel limit.
        public var maxPixels = ThumbnailLimits.defaultMaxPixels
        /// The largest image or PDF read, in bytes (`--max-file-size`).
        public var maxFileBytes = ThumbnailLimits.defaultMaxFileBytes
        /// How long a batch's claims last without a heartbeat.
        public var leaseSeconds = 60.0
        /// The smaller sizes each record holds besides the standard one (the store's setting).
        public var sizes = ThumbnailSizes.standard
        /// A second home for thumbnails (the desktop's cache, `--xdg`), told of every record saved.
        public var mirror: (any ThumbnailMirror)?
        #if DEBUG
            /// Test hook: right after opening a document whose path matches `pattern`, replace it
            /// by a symlink to `target` (an attacker's swap at the worst moment). It deletes a file
            /// and plants a link, so it exists in debug builds only.
            public var debugSwap: (pattern: String, target: String)?
        #endif
        /// Told of what a worker noticed while rendering a document (its warnings, the colour
        /// conversion it made), for `-v`: the path, then the finished job.
        public var onRendered: (@Sendable (String, RenderOutcome) -> Void)?

        /// How the front door that made this indexer names the setting of each limit, in the
        /// reasons it records (`--max-pixels` for the command line).
        public var limitNames = LimitNames.none

        public init(generatorVersion: String) {
            self.generatorVersion = generatorVersion
        }
    }

    /// A document whose file changed while it was being rendered is tried this often.
    static let attemptsPerDocument = 3

    public let scanner: ContainerScanner
    public let store: any ThumbnailStore
    public let pool: RendererPool
    public let options: Options
    /// Renders in flight for interactive callers, by path: the "waiting room" that makes ten
    /// requests for one document cost one render.
    private let inFlight = Mutex<[PathKey: Task<DocumentOutcome, Never>]>([:])
    private let subscribers = Mutex<Subscribers>(Subscribers())
    /// How many renders each path had (for tests and the benchmark: one render per request).
    let renderCount = Atomic<Int>(0)
    /// How many events have been published (see ``changeCount``).
    private let changes = Atomic<Int>(0)

    /// How many changes (documents rendered, failed, moved, removed) this indexer has told of so
    /// far: a cache of the container's contents is out of date when this moved on.
    public var changeCount: Int { changes.load(ordering: .acquiring) }

    private struct Subscribers {
        var next = 0
        var continuations: [Int: AsyncStream<IndexerEvent>.Continuation] = [:]
    }

    public init(scanner: ContainerScanner, store: any ThumbnailStore, pool: RendererPool, options: Options) {
        self.scanner = scanner
        self.store = store
        self.pool = pool
        self.options = options
    }

    /// The freshness rule this indexer applies.
    public var policy: FreshnessPolicy {
        FreshnessPolicy(generatorVersion: options.generatorVersion, sizes: options.sizes)
    }

    /// Renders started so far (each attempt counts).
    public var rendersStarted: Int { renderCount.load(ordering: .relaxed) }

    // MARK: - Events

    /// A stream of what happens to documents from now on; it ends when the caller stops
    /// iterating. Slow subscribers lose the oldest events beyond 1,000 rather than hold the
    /// indexer up.
    public func events() -> AsyncStream<IndexerEvent> {
        let (stream, continuation) = AsyncStream<IndexerEvent>.makeStream(bufferingPolicy: .bufferingNewest(1000))
        let id = subscribers.withLock { subscribers in
            let id = subscribers.next
            subscribers.next += 1
            subscribers.continuations[id] = continuation
            return id
        }
        continuation.onTermination = { [weak self] _ in
            _ = self?.subscribers.withLock { $0.continuations.removeValue(forKey: id) }
        }
        return stream
    }

    func publish(_ event: IndexerEvent) {
        changes.add(1, ordering: .releasing)
        let continuations = subscribers.withLock { Array($0.continuations.values) }
        for continuation in continuations { continuation.yield(event) }
    }

    // MARK: - On-save and interactive work

    /// Brings the records of `paths` (relative to the container) up to date now, ahead of any
    /// batch work and without scanning the container: each is rendered when it changed, its
    /// record dropped when its file is gone. Results come in the order of `paths`.
    ///
    /// At most ``maximumConcurrentRefreshes`` documents are looked at at once, so that a long
    /// list costs memory for that many, not for every path it names.
    public func refresh(_ paths: [String]) async -> [DocumentOutcome] {
        await withTaskGroup(of: (Int, DocumentOutcome).self) { group in
            var outcomes = [DocumentOutcome?](repeating: nil, count: paths.count)
            var waiting = paths.enumerated().makeIterator()
            for _ in 0..<Self.maximumConcurrentRefreshes {
                guard let (index, path) = waiting.next() else { break }
                group.addTask { (index, await self.refresh(path)) }
            }
            while let (index, outcome) = await group.next() {
                outcomes[index] = outcome
                if let (next, path) = waiting.next() { group.addTask { (next, await self.refresh(path)) } }
            }
            return outcomes.map { $0! }
        }
    }

    /// How many documents one ``refresh(_:)`` looks at at once (more wait their turn: the pool
    /// renders only so many anyway).
    public static let maximumConcurrentRefreshes = 64

    /// One document of ``refresh(_:)``: fresh records are kept after one `stat`.
    func refresh(_ path: String) async -> DocumentOutcome {
        guard let identity = scanner.identity(of: path) else { return await render(path) }
        do {
            let stored = try await store.document(at: path, includingImageData: false)
            if case .keep = policy.decide(stored, identity: identity), let stored { return .recorded(stored) }
        } catch {
            return .storeFailed(path: path, error: error)
        }
        return await render(path)
    }

    /// Renders the document at `path` in the interactive lane and records the result; callers
    /// asking for the same document while it renders share this one render, and get a result
    /// that describes the file as it is when they asked.
    ///
    /// A record already current for the file is kept without rendering, unless `force` (a
    /// `--force` or `--retry-failed` job): then the document is rendered again, after any render
    /// of it already under way.
    public func render(_ path: String, force: Bool = false) async -> DocumentOutcome {
        while true {
            let (task, joined) = inFlight.withLock { inFlight -> (Task<DocumentOutcome, Never>, Bool) in
                if let running = inFlight[PathKey(path)] { return (running, true) }
                let task = Task {
                    // A render that ended between the caller's look at the store and now (its
                    // entry gone from the waiting room) may have made the record current already.
                    if !force, let current = await self.currentRecord(path) {
                        return DocumentOutcome.recorded(current)
                    }
                    return await self.renderNow(path, lane: .interactive)
                }
                inFlight[PathKey(path)] = task
                return (task, false)
            }
            let outcome = await task.value
            if !joined {
                inFlight.withLock { inFlight in
                    if inFlight[PathKey(path)] == task { inFlight[PathKey(path)] = nil }
                }
                return outcome
            }
            // Someone else's render, which may have kept the record as it was: render anew.
            if force {
                await Task.yield()
                continue
            }
            // A render that began before this call may have read an older file: use it only if
            // it still describes the file now.
            if case .recorded(let stored) = outcome, let now = scanner.identity(of: path),
                FreshnessPolicy.describes(stored.record, now)
            {
                return outcome
            }
            if case .removed = outcome, scanner.identity(of: path) == nil { return outcome }
            await Task.yield()
        }
    }

    /// The record of `path` if it is current for the file as it is now (nothing to render).
    private func currentRecord(_ path: String) async -> StoredDocument? {
        guard let identity = scanner.identity(of: path),
            let stored = try? await store.document(at: path, includingImageData: false),
            case .keep = policy.decide(stored, identity: identity)
        else { return nil }
        return stored
    }

    /// Opens, renders and records one document, trying again when it changes while read.
    func renderNow(_ path: String, lane: Lane, attempt: Int = 1) async -> DocumentOutcome {
        let file: OpenFile
        let opened: FileIdentity
        do throws(FileAccessError) {
            (file, opened) = try scanner.openWithIdentity(path)
        } catch {
            if case .system(let code) = error, code == ENOENT { return await forget(path) }
            let record = DocumentRecord(
                path: path,
                identity: scanner.identity(of: path)
                    ?? FileIdentity(device: 0, inode: 0, size: -1, modifiedNanoseconds: -1),
                contentType: nil, state: .failed,
                error: ThumbnailError.unreadable(reason: error.description).description,
                generatorVersion: options.generatorVersion)
            return await save(record, thumbnails: [])
        }
        #if DEBUG
            if let swap = options.debugSwap, fnmatch(swap.pattern, path, 0) == 0, attempt == 1 {
                // Test hook: an attacker replaces the document by a symlink right after it was opened.
                let absolute = scanner.absolutePath(of: path)
                _ = FileName.withCString(absolute) { unlink($0) }
                _ = FileName.withCString(absolute) { link in swap.target.withCString { symlink($0, link) } }
            }
        #endif
        let id = renderCount.add(1, ordering: .relaxed).newValue
        var job = RenderJob(
            id: id, name: path, maxSide: options.maxSide, maxPixels: options.maxPixels,
            maxFileBytes: options.maxFileBytes,
            renditions: options.mirror?.renditionSides ?? [])
        job.sizes = options.sizes.sides.filter { $0 < options.maxSide }
        let result = await pool.run(job, file: file, lane: lane)
        if case .cancelled = result { return .cancelled(path: path) }
        // Never keep a render of a half-written or replaced file: if the open file changed while
        // the worker read it, or the path now leads to another file, throw the result away and
        // render what is there now (opened beneath the container again, so a path swapped for a
        // link that leads out is refused, not followed).
        let changed = file.identity() != opened || scanner.identity(of: path) != opened
        if changed && attempt < Self.attemptsPerDocument {
            return await renderNow(path, lane: lane, attempt: attempt + 1)
        }
        let (record, thumbnails) = Self.record(
            for: ScannedDocument(path: path, identity: opened), result: result, changedDuringRender: changed,
            generatorVersion: options.generatorVersion, limitNames: options.limitNames)
        let outcome = await save(record, thumbnails: thumbnails)
        if let onRendered = options.onRendered, case .finished(let finished) = result {
            onRendered(path, finished)
        }
        if let mirror = options.mirror, case .recorded = outcome {
            if case .finished(let finished) = result, record.state == .fresh {
                let size = PixelSize(width: finished.sourceWidth, height: finished.sourceHeight)
                mirror.update(record, renditions: finished.renditions, sourceSize: size)
            } else {
                mirror.update(record, renditions: [], sourceSize: nil)
            }
        }
        return outcome
    }

    /// Saves a record and tells subscribers.
    private func save(_ record: DocumentRecord, thumbnails: [ThumbnailImage]) async -> DocumentOutcome {
        do {
            try await store.save(record, thumbnails: thumbnails)
        } catch {
            return .storeFailed(path: record.path, error: error)
        }
        let stored = StoredDocument(
            record: record,
            thumbnails: thumbnails.map {
                ThumbnailImage(
                    sizeKey: $0.sizeKey, format: $0.format, width: $0.width, height: $0.height, byteCount: $0.byteCount,
                    averageColour: $0.averageColour, thumbHash: $0.thumbHash)
            })
        publish(record.state == .failed ? .failed(stored) : .refreshed(stored))
        return .recorded(stored)
    }

    /// Drops the records of every document under `folder` (a folder deleted or moved out).
    public func forgetFolder(_ folder: String) async -> [DocumentOutcome] {
        let prefix = folder.hasSuffix("/") ? folder : folder + "/"
        var paths: [String] = []
        var after: String? = prefix
        do {
            while true {
                let page = try await store.documents(after: after, limit: 500)
                let inside = page.map(\.record.path).prefix { $0.hasPrefix(prefix) }
                paths += inside
                guard inside.count == page.count, let last = page.last else { break }
                after = last.record.path
            }
        } catch {
            return [.storeFailed(path: folder, error: error)]
        }
        var outcomes: [DocumentOutcome] = []
        for path in paths where scanner.identity(of: path) == nil { outcomes.append(await forget(path)) }
        return outcomes
    }

    /// Drops the record of a document whose file is gone.
    public func forget(_ path: String) async -> DocumentOutcome {
        do {
            _ = try await store.removeDocuments(at: [path])
        } catch {
            return .storeFailed(path: path, error: error)
        }
        publish(.removed(path: path))
        return .removed(path: path)
    }

    /// Moves a record with its renamed document, without rendering.
    ///
    /// Renames are applied in the order they happened, and the file may have moved on again by
    /// the time one is applied (a file renamed into a folder that is then renamed): the record
    /// then moves anyway, keeping the identity it had, and the next rename carries it further.
    public func move(from oldPath: String, to newPath: String) async -> DocumentOutcome {
        do {
            let existing = try await store.document(at: oldPath, includingImageData: false)
            let now = scanner.identity(of: newPath)
            guard let identity = now ?? existing?.record.identity else { return .removed(path: oldPath) }
            if existing != nil {
                try await store.moveDocument(from: oldPath, to: newPath, identity: identity)
                publish(.moved(from: oldPath, to: newPath))
            }
            guard now != nil else {
                let moved = try await store.document(at: newPath, includingImageData: false)
                return moved.map(DocumentOutcome.recorded) ?? .removed(path: oldPath)
            }
            if let stored = try await store.document(at: newPath, includingImageData: false),
                case .keep = policy.decide(stored, identity: identity)
            {
                return .recorded(stored)
            }
        } catch {
            return .storeFailed(path: newPath, error: error)
        }
        return await render(newPath)
    }

    /// The record (and thumbnail dictionary) a job's result leads to.
    static func record(
        for document: ScannedDocument, result: JobResult, changedDuringRender: Bool, generatorVersion: String,
        limitNames: LimitNames
    ) -> (DocumentRecord, [ThumbnailImage]) {
        var record = DocumentRecord(
            path: document.path, identity: document.identity, contentType: nil, state: .failed,
            generatorVersion: generatorVersion)
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
                record.details = outcome.details?.checked
                // A colour is only kept in the one form a page may put in a style attribute.
                let colour = outcome.averageColour.flatMap { HexColour.isValid($0) ? $0 : nil }
                let hash = outcome.thumbHash.flatMap { ThumbHashText.isValid($0) ? $0 : nil }
                let image = ThumbnailImage(
                    format: format, width: outcome.width, height: outcome.height, data: outcome.data,
                    averageColour: colour, thumbHash: hash)
                let smaller = outcome.sizes.map {
                    ThumbnailImage(
                        sizeKey: ThumbnailSizes.sizeKey(side: $0.side), format: $0.format, width: $0.width,
                        height: $0.height, data: $0.data, averageColour: colour, thumbHash: hash)
                }
                return (record, smaller + [image])
            case .unsupported:
                record.state = .unsupported
                // A sound file without a cover picture is known all the same: its length.
                record.details = outcome.details?.checked
            case .failed:
                break
            }
        case .timedOut, .crashed, .cancelled:
            break
        }
        record.error = result.failureReason(naming: limitNames)
        return (record, [])
    }
}

/// What became of one document an indexer was asked about.
public enum DocumentOutcome: Sendable, Equatable {
    /// Its record, as saved (fresh, failed with a reason, or unsupported); thumbnails without bytes.
    case recorded(StoredDocument)
    /// Its file is gone; its record was dropped.
    case removed(path: String)
    /// The store refused the result.
    case storeFailed(path: String, error: StoreError)
    /// The pool was stopped before the document was rendered; nothing was recorded.
    case cancelled(path: String)

    /// The document's path.
    public var path: String {
        switch self {
        case .recorded(let stored): stored.record.path
        case .removed(let path), .storeFailed(let path, _), .cancelled(let path): path
        }
    }

    public static func == (left: DocumentOutcome, right: DocumentOutcome) -> Bool {
        switch (left, right) {
        case (.recorded(let a), .recorded(let b)): a == b
        case (.removed(let a), .removed(let b)): a == b
        case (.cancelled(let a), .cancelled(let b)): a == b
        case (.storeFailed(let a, let x), .storeFailed(let b, let y)): a == b && x.description == y.description
        default: false
        }
    }
}

/// What an indexer tells its subscribers (a watcher's log, a server's live page).
public enum IndexerEvent: Sendable, Equatable {
    /// A document has a fresh thumbnail (or is recorded as unsupported).
    case refreshed(StoredDocument)
    /// Rendering a document failed; the record says why.
    case failed(StoredDocument)
    /// A record moved with its renamed document.
    case moved(from: String, to: String)
    /// A document is gone and its record dropped.
    case removed(path: String)
}
