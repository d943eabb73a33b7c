import GlanceContainer
import GlanceCore
import GlanceOnSave
import GlancePostgresStore
import GlanceStore

#if canImport(Glibc)
    import Glibc
#endif

/// Where a container and its thumbnail store are, and the one set of rules for opening them:
/// where the store lives, under which key it holds the container's records, which folders the
/// scan passes over, and which store folders are refused.
///
/// Every way into a container goes through here: the command line's `--store`, `glance serve`
/// for each container it serves, a queue worker for each container a job names, and a
/// ``Container`` opened by a document store.
public struct ContainerLocation: Sendable {
    /// The container folder, as given.
    public let container: String
    /// The store, as given: a folder for the SQLite sidecar, a `postgres://` address, or nil for
    /// the sidecar inside the container (`CONTAINER/.thumbnails`).
    public let store: String?
    /// The PostgreSQL address when it was given already parsed.
    private let address: PostgresAddress?

    /// Where the store is.
    public enum StoreKind: Sendable {
        /// The SQLite sidecar in this folder.
        case sidecar(directory: String)
        /// A PostgreSQL database.
        case postgres(PostgresAddress)
    }

    /// The container `container` with its store at `store` (nil: the sidecar inside it).
    public init(container: String, store: String? = nil) {
        self.container = container
        self.store = store
        self.address = nil
    }

    /// The container `container` with its records in the PostgreSQL database at `address`.
    public init(container: String, postgres address: PostgresAddress) {
        self.container = container
        self.store = address.description
        self.address = address
    }

    /// The freshness rule of this Glance version for the records of `store` (with the smaller
    /// sizes it keeps), shared by everything that opens a container.
    public func freshness(of store: any ThumbnailStore) async throws(OpeningError) -> FreshnessPolicy {
        FreshnessPolicy(generatorVersion: GlanceVersion.current, sizes: try await Self.sizes(of: store))
    }

    /// The smaller thumbnail sizes `store` keeps (`ThumbnailSizes`).
    public static func sizes(of store: any ThumbnailStore) async throws(OpeningError) -> ThumbnailSizes {
        do {
            return try await store.thumbnailSizes()
        } catch {
            throw .storeContents(error.description)
        }
    }

    /// Where the store is, or why the store address cannot be used.
    public func storeKind() throws(OpeningError) -> StoreKind {
        if let address { return .postgres(address) }
        guard let store, PostgresAddress.isAddress(store) else { return .sidecar(directory: storeDirectory) }
        do {
            return .postgres(try PostgresAddress(parsing: store))
        } catch {
            throw .storeAddress(part: error.location, reason: error.message)
        }
    }

    /// Whether the store is a PostgreSQL database.
    public var isPostgres: Bool {
        if case .postgres = try? storeKind() { return true }
        return false
    }

    /// The container key in the store: "" for the sidecar inside the container (it holds that
    /// container only, wherever the container moves), the container's absolute path for a store
    /// elsewhere (which several containers may share), unless a PostgreSQL address names its
    /// container.
    public func containerKey(_ scanner: ContainerScanner, at kind: StoreKind) -> String {
        guard store != nil else { return "" }
        if case .postgres(let address) = kind, let named = address.container { return named }
        return scanner.root
    }

    /// The folders of the container never to watch or list, relative to it: the store's, when it
    /// lies inside the container (the hook socket is in it too).
    public func excludedFolders(of scanner: ContainerScanner) -> Set<String> {
        guard let store = resolvedStoreDirectory, store.hasPrefix(scanner.root + "/") else { return [] }
        return [String(store.dropFirst(scanner.root.count + 1))]
    }

    /// The store's folder on this machine: the sidecar's, or for a PostgreSQL store the default
    /// sidecar folder, which then holds only the hook socket. The scan never lists it.
    public var storeDirectory: String {
        if address == nil, let store, !PostgresAddress.isAddress(store) { return store }
        return SidecarStore.defaultDirectory(forContainer: container)
    }

    /// Where a watcher listens for hooks for this container, and `glance hook` asks.
    public var hookSocket: String { HookSocket.path(inStore: storeDirectory) }

    /// Makes the hook socket's folder where the store has none of its own (a PostgreSQL store);
    /// when that fails the watcher runs without a socket and says so.
    public func prepareHookFolder() {
        guard isPostgres else { return }
        try? CacheDirectory.prepare(at: storeDirectory)
    }

    /// How to name a document in messages: the container's path joined with the relative path,
    /// so that the user can find the file from where they are.
    public func documentPath(_ relative: String) -> String {
        container.hasSuffix("/") ? container + relative : container + "/" + relative
    }

    /// True when the store is a sidecar that does not exist yet: the run that makes it renders
    /// every document it finds.
    public var sidecarIsNew: Bool {
        guard case .sidecar = try? storeKind() else { return false }
        return FileName.withCString(sidecarDatabase, { access($0, F_OK) }) != 0 && errno == ENOENT
    }

    /// The sidecar's database file (whether or not there is one).
    private var sidecarDatabase: String { storeDirectory + "/" + SidecarStore.databaseFileName }

    /// The sidecar's folder with every link resolved (`realpath`), or nil when there is none.
    public var resolvedStoreDirectory: String? {
        guard let resolved = FileName.withCString(storeDirectory, { realpath($0, nil) }) else { return nil }
        defer { free(resolved) }
        return FileName.decode(cString: resolved)
    }
}

extension ContainerLocation {
    /// Opens the container and its store for reading: a container that has no sidecar yet reads
    /// as one whose documents are all `missing`, and nothing is created; a sidecar this user may
    /// not write (a read-only folder or file) is opened read-only.
    public func openForReading() async throws(OpeningError) -> (scanner: ContainerScanner, store: any ThumbnailStore) {
        guard case .sidecar = try storeKind() else { return try await open() }
        if FileName.withCString(sidecarDatabase, { access($0, F_OK) }) != 0 {
            let scanner = try openScanner()
            try checkStoreLocation(scanner: scanner)
            return (scanner, EmptyStore())
        }
        return try await open(readOnlyIfNeeded: true)
    }

    /// Opens the container and its store, creating the sidecar (or the PostgreSQL schema) if
    /// needed.
    public func open(readOnlyIfNeeded: Bool = false) async throws(OpeningError) -> (
        scanner: ContainerScanner, store: any ThumbnailStore
    ) {
        let kind = try storeKind()
        let scanner = try openScanner()
        let key = containerKey(scanner, at: kind)
        guard case .sidecar(let directory) = kind else {
            guard case .postgres(let address) = kind else { preconditionFailure("two kinds of store") }
            do {
                return (scanner, try await PostgresStore.open(address, container: key))
            } catch {
                throw .postgres(error.description)
            }
        }
        try checkStoreLocation(scanner: scanner)
        let store: SidecarStore
        do {
            store = try SidecarStore(directory: directory, container: key)
        } catch  where error.kind == .io && readOnlyIfNeeded {
            do {
                return (scanner, try SidecarStore(readingOnly: directory, container: key))
            } catch {
                throw .sidecar(directory: directory, reason: error.message)
            }
        } catch {
            throw .sidecar(directory: directory, reason: error.message)
        }
        // The scanner leaves the store's folder out by its inode, so it is opened again when the
        // store has just made that folder (a store inside the container: its database was
        // listed, served and rendered as a document).
        return (scanner.excludes(folder: directory) ? scanner : try openScanner(), store)
    }

    /// The container, opened for scanning (the local store folder left out).
    public func openScanner() throws(OpeningError) -> ContainerScanner {
        do {
            return try ContainerScanner(container: container, excluding: [storeDirectory])
        } catch {
            throw .container(path: container, reason: error.reason)
        }
    }

    /// Refuses a store folder that is the container or a folder holding it: the store's
    /// `CACHEDIR.TAG` would then mark the documents themselves as a cache for backup tools to
    /// skip, and the store's files would be listed as documents. (A store inside the container
    /// is fine: the scan passes over its folder.)
    ///
    /// Refuses, too, a default sidecar (`CONTAINER/.thumbnails`) that is a symbolic link: the
    /// sidecar holds the records of the container it is in, under no container key, so a link
    /// to another container's sidecar would make this container's `gc` drop the other's
    /// records and its `generate` take them over. A store kept elsewhere is named as such,
    /// under this container's key.
    public func checkStoreLocation(scanner: ContainerScanner) throws(OpeningError) {
        guard case .sidecar = try storeKind() else { return }
        var status = stat()
        if store == nil, FileName.withCString(storeDirectory, { lstat($0, &status) }) == 0,
            status.st_mode & S_IFMT == S_IFLNK
        {
            throw .sidecarIsLink(directory: storeDirectory)
        }
        guard let store = resolvedStoreDirectory else { return }
        if store == scanner.root || scanner.root.hasPrefix(store.hasSuffix("/") ? store : store + "/") {
            throw .storeHoldsContainer(directory: storeDirectory)
        }
    }
}
