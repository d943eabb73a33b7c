import GlanceContainer
import GlanceCore
import GlancePipeline
import GlancePostgresStore
import GlanceStore

/// The indexers of the containers a worker has met, one per container key and folder, each with
/// its store; made on first use.
actor IndexerCache {
    private let address: PostgresAddress
    private let pool: WorkerPool
    private let options: Indexer.Options
    private var indexers: [String: Indexer] = [:]
    private var stores: [PostgresStore] = []
    /// The folders this host renders beneath (see ``QueueWorker/Settings/roots``), resolved.
    private let roots: [String]

    init(address: PostgresAddress, pool: WorkerPool, options: Indexer.Options, roots: [String]) {
        self.address = address
        self.pool = pool
        self.options = options
        self.roots = roots
    }

    /// The indexer of `container` at `root`; an error (`unavailable`) when this host cannot open
    /// the folder (another host may), or may not: a folder that is not one of this host's roots
    /// or inside one, or that is not the folder a container key names (a key that is a path is
    /// the container's folder).
    func indexer(container: String, root: String) async throws(StoreError) -> Indexer {
        let key = container + "\u{0}" + root
        if let known = indexers[key] { return known }
        if container.hasPrefix("/"), container != root {
            throw StoreError(
                .unavailable, message: "refused: the job's folder \(root) is not its container's (\(container))",
                location: Lease.thisHost)
        }
        let scanner: ContainerScanner
        do {
            scanner = try ContainerScanner(
                container: root, excluding: [SidecarStore.defaultDirectory(forContainer: root)])
        } catch {
            throw StoreError(
                .unavailable, message: "this host cannot open the container folder \(root): \(error.reason)",
                location: Lease.thisHost)
        }
        // Judged on the folder as opened (its links resolved), not on the row's spelling.
        guard roots.contains(where: { scanner.root == $0 || scanner.root.hasPrefix($0 == "/" ? "/" : $0 + "/") }) else {
            throw StoreError(
                .unavailable,
                message: "refused: the container folder \(root) is not inside this worker's --root folders",
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
