import GlanceContainer
@_exported import GlanceCore
@_exported import GlanceListing
import GlancePipeline
import GlancePostgresStore

/// A container of documents opened with its thumbnail store and its renderers: the front door
/// for a program that keeps documents (a document store, a sync daemon, a web app) and wants
/// their thumbnails kept with them.
///
/// Open one with ``open(_:renderers:limits:)``, tell it what you saved, moved and removed
/// (``saved(_:)``, ``moved(from:to:)``, ``removed(_:)``), read the promised-item attributes
/// (``attributes(of:)``, ``listing(matching:)``) and the thumbnails (``thumbnail(of:sizeKey:)``),
/// follow changes (``events()``), and ``close()`` it when done. Your saves go ahead of any batch
/// work, and each returns once the document's thumbnail is fresh.
///
/// Documents are named by their paths relative to the container (`reports/q3.pdf`); a path
/// that is absolute, climbs out with `..`, or has a hidden component is refused
/// (``ContainerError/invalidPath(_:)``). Every document is decoded in a sandboxed
/// `glance-renderer` process, never in yours.
public final class Container: Sendable {
    /// Where the container and its store are.
    public let location: ContainerLocation
    /// The indexer that renders and records; shared with the command line's services.
    public let indexer: Indexer
    /// Whether ``close()`` stops the renderers (the container made them).
    private let ownsRenderers: Bool

    /// Opens the container at `location` with a pool of renderers made from `renderers`, creating
    /// its store when there is none. `limits` bounds what one document may be (its pixels, its
    /// bytes) and how large its thumbnail is.
    public static func open(
        _ location: ContainerLocation, renderers: RendererSettings = RendererSettings(),
        limits: DocumentLimits = DocumentLimits()
    ) async throws(OpeningError) -> Container {
        let pool = RendererPool(configuration: try renderers.poolConfiguration())
        do {
            let (scanner, store) = try await location.open()
            var options = limits.indexerOptions()
            options.sizes = try await ContainerLocation.sizes(of: store)
            return Container(
                location: location, indexer: Indexer(scanner: scanner, store: store, pool: pool, options: options),
                ownsRenderers: true)
        } catch {
            await pool.stop()
            throw error
        }
    }

    /// The container at `location`, rendering with `pool` (which the caller stops): how a server
    /// of several containers shares one pool. When the pool counts metrics, the store's calls
    /// are counted too (`MeteredStore`).
    public static func open(
        _ location: ContainerLocation, pool: RendererPool, options: Indexer.Options
    ) async throws(OpeningError) -> Container {
        let (scanner, opened) = try await location.open()
        return try await open(location, scanner: scanner, store: opened, pool: pool, options: options)
    }

    /// The container at `location`, its folder opened by the caller as `scanner` (the folder the
    /// caller checked), with a store the caller opened, rendering with `pool`: how a queue worker
    /// serves every container of a database over one connection pool (its stores are siblings,
    /// which ``close()`` closes without closing the pool).
    public static func open(
        _ location: ContainerLocation, scanner: ContainerScanner, store opened: any ThumbnailStore,
        pool: RendererPool, options: Indexer.Options
    ) async throws(OpeningError) -> Container {
        let metrics = pool.configuration.metrics
        let store: any ThumbnailStore = metrics.isCounting ? MeteredStore(opened, metrics: metrics) : opened
        var options = options
        options.sizes = try await ContainerLocation.sizes(of: store)
        return Container(
            location: location, indexer: Indexer(scanner: scanner, store: store, pool: pool, options: options),
            ownsRenderers: false)
    }

    private init(location: ContainerLocation, indexer: Indexer, ownsRenderers: Bool) {
        self.location = location
        self.indexer = indexer
        self.ownsRenderers = ownsRenderers
    }

    /// The documents' promised-item attributes, as the store and the folder have them now.
    private var listing: PreviewListing {
        PreviewListing(scanner: indexer.scanner, store: indexer.store, policy: indexer.policy)
    }

    // MARK: - The on-save hook

    /// Tells Glance that the documents at `paths` were written: each is rendered now (ahead of
    /// batch work, sharing a render already under way) unless its record is current, or its
    /// record dropped if the file is gone. Returns when every one is recorded, their attributes
    /// in the order of `paths` (nil for a document that is gone).
    ///
    /// A document that cannot be rendered is not an error here: its attributes say `failed`
    /// and why, as a listing would.
    @discardableResult
    public func saved(_ paths: [String]) async throws(ContainerError) -> [PromisedItemAttributes?] {
        let checked = try paths.map { path throws(ContainerError) in try Self.checked(path) }
        for outcome in await indexer.refresh(checked) {
            try Self.check(outcome)
        }
        return try await attributes(ofChecked: checked)
    }

    /// Tells Glance that the document at `from` was renamed to `to`: its record and thumbnails
    /// move with it, without rendering again (unless its content changed too).
    @discardableResult
    public func moved(from: String, to: String) async throws(ContainerError) -> PromisedItemAttributes? {
        let source = try Self.checked(from)
        let target = try Self.checked(to)
        try Self.check(await indexer.move(from: source, to: target))
        return try await attributes(ofChecked: [target])[0]
    }

    /// Tells Glance that the documents at `paths` were deleted: their records go (a document
    /// whose file is still there is kept).
    public func removed(_ paths: [String]) async throws(ContainerError) {
        for path in paths {
            try Self.check(await indexer.forget(try Self.checked(path)))
        }
    }

    // MARK: - Reading

    /// The promised-item attributes of the document at `path` (its kind, size, dates, state,
    /// thumbnail sizes), or nil when there is no such document. Nothing is rendered.
    public func attributes(of path: String) async throws(ContainerError) -> PromisedItemAttributes? {
        try await attributes(ofChecked: [try Self.checked(path)])[0]
    }

    /// Every document matching `query`, with its attributes, from one walk of the folder and
    /// one read of the store; no document is opened.
    public func listing(matching query: ListingQuery = ListingQuery()) async throws(ContainerError)
        -> [PromisedItemAttributes]
    {
        do {
            return try await listing.items(matching: query)
        } catch {
            throw .store(error)
        }
    }

    /// The thumbnail of the document at `path` for `sizeKey`: the stored one when it is fresh,
    /// else made now (in the interactive lane) and stored. An error says why there is none:
    /// no such document, a failed or unsupported one, or no thumbnail of that size.
    public func thumbnail(of path: String, sizeKey: String = ThumbnailImage.standardSizeKey)
        async throws(ContainerError)
        -> Thumbnail
    {
        let path = try Self.checked(path)
        guard let identity = indexer.scanner.identity(of: path) else { throw .noSuchDocument(path) }
        var stored = try await document(at: path)
        let state = indexer.policy.state(of: stored, identity: identity)
        if state == .missing || state == .stale {
            let outcome = await indexer.render(path)
            try Self.check(outcome)
            guard case .recorded = outcome else { throw .noSuchDocument(path) }
            stored = try await document(at: path)
        }
        guard let stored else { throw .noSuchDocument(path) }
        guard stored.record.state == .fresh else {
            throw .noThumbnail(path, reason: stored.record.error ?? stored.record.state.rawValue)
        }
        guard let image = stored.thumbnail(sizeKey: sizeKey), let data = image.data else {
            throw .noThumbnail(path, reason: "no thumbnail of size \(sizeKey)")
        }
        return Thumbnail(bytes: data, format: image.format, width: image.width, height: image.height)
    }

    /// What happens to the container's documents from now on, as it happens: renders, failures,
    /// moves and removals, whoever asked for them (a save, a server's on-demand render, a
    /// watcher). Each call is a stream of its own; it ends with ``close()``.
    public func events() -> AsyncStream<IndexerEvent> { indexer.events() }

    /// Stops the renderers this container started (renders in flight end as cancelled) and
    /// closes the store.
    public func close() async {
        if ownsRenderers { await indexer.pool.stop() }
        if let postgres = indexer.store as? PostgresStore { await postgres.close() }
    }

    // MARK: - Helpers

    private func attributes(ofChecked paths: [String]) async throws(ContainerError) -> [PromisedItemAttributes?] {
        do {
            return try await listing.attributes(forPaths: paths)
        } catch {
            throw .store(error)
        }
    }

    private func document(at path: String) async throws(ContainerError) -> StoredDocument? {
        do {
            return try await indexer.store.document(at: path, includingImageData: true)
        } catch {
            throw .store(error)
        }
    }

    /// `path` as a document path of the container, or why it is not one.
    static func checked(_ path: String) throws(ContainerError) -> String {
        do {
            return try DocumentPath(path).relative
        } catch {
            throw .invalidPath(error)
        }
    }

    /// Turns an outcome the caller cannot go on from into an error.
    static func check(_ outcome: DocumentOutcome) throws(ContainerError) {
        switch outcome {
        case .storeFailed(_, let error): throw .store(error)
        case .cancelled(let path): throw .closed(path)
        case .recorded, .removed: break
        }
    }
}

/// A thumbnail's bytes, as stored: an encoded image (``format``) of ``width`` × ``height``.
public struct Thumbnail: Sendable, Equatable {
    /// The encoded image (PNG or JPEG).
    public let bytes: [UInt8]
    public let format: ImageFormat
    public let width: Int
    public let height: Int
}

/// Why a ``Container`` call failed.
public enum ContainerError: Error, Sendable, CustomStringConvertible {
    /// The path cannot name a document of the container.
    case invalidPath(DocumentPathError)
    /// No document at this path.
    case noSuchDocument(String)
    /// The document has no thumbnail (it failed, is unsupported, or has none of that size).
    case noThumbnail(String, reason: String)
    /// The store failed.
    case store(StoreError)
    /// The container was closed before the document was rendered.
    case closed(String)

    public var description: String {
        switch self {
        case .invalidPath(let error): error.description
        case .noSuchDocument(let path): "\(path): no such document"
        case .noThumbnail(let path, let reason): "\(path): no thumbnail: \(reason)"
        case .store(let error): error.description
        case .closed(let path): "\(path): the container was closed before it was rendered"
        }
    }
}
