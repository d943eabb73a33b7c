import Glance
import GlanceContainer
import GlanceCore
import GlancePipeline
import GlancePostgresStore

/// The indexers of the containers a worker has met, one per container key and folder, each with
/// its store; made on first use. Every container's store shares the queue's connection pool.
actor IndexerCache {
    /// An indexer, and the PostgreSQL store it saves through (for jobs completed with a save).
    struct Entry: Sendable {
        let indexer: Indexer
        let store: PostgresStore
    }

    private let address: PostgresAddress
    /// The queue's store, whose pool every container's store shares.
    private let queue: PostgresStore
    private let pool: RendererPool
    private let options: Indexer.Options
    private var indexers: [String: Entry] = [:]
    private var containers: [Container] = []
    /// The folders this host renders beneath (see ``QueueWorker/Settings/roots``), resolved.
    private let roots: [String]

    init(address: PostgresAddress, queue: PostgresStore, pool: RendererPool, options: Indexer.Options, roots: [String])
    {
        self.address = address
        self.queue = queue
        self.pool = pool
        self.options = options
        self.roots = roots
    }

    /// The indexer of `container` at `root`; an error (`unavailable`) when this host cannot open
    /// the folder (another host may), or may not: a folder that is not one of this host's roots
    /// or inside one, or that is not the folder a container key names (a key that is a path is
    /// the container's folder).
    func indexer(container: String, root: String) async throws(StoreError) -> Entry {
        let key = container + "\u{0}" + root
        if let known = indexers[key] { return known }
        if container.hasPrefix("/"), container != root {
            throw StoreError(
                .unavailable, message: "refused: the job's folder \(root) is not its container's (\(container))",
                location: Lease.thisHost)
        }
        // The container and its store are opened by the library's one rule (the folder's own
        // sidecar folder passed over), under the job's container key.
        var keyed = address
        keyed.container = container
        let location = ContainerLocation(container: root, postgres: keyed)
        let scanner: ContainerScanner
        do {
            scanner = try location.openScanner()
        } catch {
            throw StoreError(
                .unavailable, message: "this host cannot open the container folder: \(error)", location: Lease.thisHost)
        }
        // Judged on the folder as opened (its links resolved), not on the row's spelling.
        guard roots.contains(where: { scanner.root == $0 || scanner.root.hasPrefix($0 == "/" ? "/" : $0 + "/") }) else {
            throw StoreError(
                .unavailable,
                message: "refused: the container folder \(root) is not inside this worker's --root folders",
                location: Lease.thisHost)
        }
        let opened: Container
        let store = queue.sibling(container: container)
        do {
            opened = try await Container.open(
                location, scanner: scanner, store: store, pool: pool, options: options)
        } catch {
            throw StoreError(.unavailable, message: error.description, location: Lease.thisHost)
        }
        containers.append(opened)
        let entry = Entry(indexer: opened.indexer, store: store)
        indexers[key] = entry
        return entry
    }

    /// Closes every store opened here.
    func close() async {
        for container in containers { await container.close() }
        containers.removeAll()
    }
}
