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
