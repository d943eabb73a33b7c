import ArgumentParser
import GlanceContainer
import GlanceCore
import GlanceOnSave
import GlancePipeline
import GlancePostgresStore
import GlanceStore

#if canImport(Glibc)
    import Glibc
#endif

/// The options every container command shares.
struct ContainerOptions: ParsableArguments {
    @Argument(help: "The container: a folder of documents.")
    var container: String

    @Option(
        help: ArgumentHelp(
            "Where the thumbnail store lives: a folder for the SQLite sidecar (default: CONTAINER/.thumbnails), "
                + "or a PostgreSQL database shared by many hosts, "
                + "postgres://USER[:PASSWORD]@HOST[:PORT]/DATABASE[?container=NAME] (the password may come from "
                + "PGPASSWORD; NAME defaults to the container's absolute path; a server on this machine may be "
                + "reached through its socket folder: postgres://USER@/DATABASE?host=/run/postgresql).",
            valueName: "DIR|URL"))
    var store: String?

    /// Where the store is, as `--store` says.
    enum StoreLocation {
        /// The SQLite sidecar in this folder.
        case sidecar(directory: String)
        /// A PostgreSQL database.
        case postgres(PostgresAddress)
    }

    /// The freshness rule of this Glance version, shared by every command.
    var freshness: FreshnessPolicy { FreshnessPolicy(generatorVersion: GlanceVersion.current) }

    /// Where the store is, or why `--store` cannot be used (exit 2).
    func storeLocation() throws -> StoreLocation {
        guard let store, PostgresAddress.isAddress(store) else { return .sidecar(directory: storeDirectory) }
        do {
            return .postgres(try PostgresAddress(parsing: store))
        } catch {
            throw CommandFailure.unusable("--store \(error.location): \(error.message)")
        }
    }

    /// The container key in the store: "" for the sidecar inside the container (it holds that
    /// container only, wherever the container moves), the container's absolute path for a
    /// `--store` elsewhere (which several containers may share), unless a PostgreSQL address
    /// names its container.
    func containerKey(_ scanner: ContainerScanner, at location: StoreLocation) -> String {
        guard store != nil else { return "" }
        if case .postgres(let address) = location, let named = address.container { return named }
        return scanner.root
    }

    /// The folders of the container never to watch or list, relative to it: the store's, when
    /// `--store` puts it inside the container, and the hook socket's.
    func excludedFolders(of scanner: ContainerScanner) -> Set<String> {
        guard let resolved = FileName.withCString(storeDirectory, { realpath($0, nil) }) else { return [] }
        let store = FileName.decode(cString: resolved)
        free(resolved)
        guard store.hasPrefix(scanner.root + "/") else { return [] }
        return [String(store.dropFirst(scanner.root.count + 1))]
    }

    /// The store's folder on this machine: the sidecar's, or for a PostgreSQL store the default
    /// sidecar folder, which then holds only the hook socket. The scan never lists it.
    var storeDirectory: String {
        if let store, !PostgresAddress.isAddress(store) { return store }
        return SidecarStore.defaultDirectory(forContainer: container)
    }

    /// Where `glance watch` listens for hooks and `glance hook` asks, for this container.
    var hookSocket: String { HookSocket.path(inStore: storeDirectory) }

    /// Makes the hook socket's folder where the store has none of its own (a PostgreSQL store);
    /// when that fails the watcher runs without a socket and says so.
    func prepareHookFolder() {
        guard case .postgres = try? storeLocation() else { return }
        try? CacheDirectory.prepare(at: storeDirectory)
    }

    /// How to name a document in messages: the container's path joined with the relative path,
    /// so that the user can find the file from where they ran the command.
    func documentPath(_ relative: String) -> String {
        container.hasSuffix("/") ? container + relative : container + "/" + relative
    }

    /// True when the store is a sidecar that does not exist yet: the run that makes it renders
    /// every document it finds.
    var sidecarIsNew: Bool {
        guard case .sidecar = try? storeLocation() else { return false }
        return FileName.withCString(sidecarDatabase, { access($0, F_OK) }) != 0 && errno == ENOENT
    }

    /// The sidecar's database file (whether or not there is one).
    private var sidecarDatabase: String { storeDirectory + "/" + SidecarStore.databaseFileName }

    /// Opens the container and its store for reading: a container that has no sidecar yet reads
    /// as one whose documents are all `missing`, and nothing is created; a sidecar this user may
    /// not write (a read-only folder or file) is opened read-only.
    func openForReading() async throws -> (scanner: ContainerScanner, store: any ThumbnailStore) {
        guard case .sidecar = try storeLocation() else { return try await open() }
        if FileName.withCString(sidecarDatabase, { access($0, F_OK) }) != 0 {
            let scanner = try openScanner()
            try checkStoreLocation(scanner: scanner)
            return (scanner, EmptyStore())
        }
        return try await open(readOnlyIfNeeded: true)
    }

    /// Opens the container and its store (creating the sidecar, or the PostgreSQL schema, if
    /// needed), or says why not (exit 2).
    func open(readOnlyIfNeeded: Bool = false) async throws -> (scanner: ContainerScanner, store: any ThumbnailStore) {
        let location = try storeLocation()
        let scanner = try openScanner()
        let key = containerKey(scanner, at: location)
        guard case .sidecar(let directory) = location else {
            guard case .postgres(let address) = location else { preconditionFailure("two kinds of store") }
            do {
                return (scanner, try await PostgresStore.open(address, container: key))
            } catch {
                throw CommandFailure.unusable(error.description)
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
                throw CommandFailure.unusable("\(directory): \(error.message)")
            }
        } catch {
            throw CommandFailure.unusable("\(directory): \(error.message)")
        }
        // The scanner leaves the store's folder out by its inode, so it is opened again when the
        // store has just made that folder (a --store inside the container: its database was
        // listed, served and rendered as a document).
        return (scanner.excludes(folder: directory) ? scanner : try openScanner(), store)
    }

    /// The container, opened for scanning (the local store folder left out), or why not (exit 2).
    func openScanner() throws -> ContainerScanner {
        do {
            return try ContainerScanner(container: container, excluding: [storeDirectory])
        } catch {
            throw CommandFailure.unusable("\(container): \(error.reason)")
        }
    }
}

extension ContainerOptions {
    /// Refuses a `--store` that is the container or a folder holding it: the store's
    /// `CACHEDIR.TAG` would then mark the documents themselves as a cache for backup tools to
    /// skip, and the store's files would be listed as documents. (A store inside the container
    /// is fine: the scan passes over its folder.)
    ///
    /// Refuses, too, a default sidecar (`CONTAINER/.thumbnails`) that is a symbolic link: the
    /// sidecar holds the records of the container it is in, under no container key, so a link
    /// to another container's sidecar would make this container's `gc` drop the other's
    /// records and its `generate` take them over. A store kept elsewhere is named with
    /// `--store`, under this container's key.
    func checkStoreLocation(scanner: ContainerScanner) throws {
        guard case .sidecar = try storeLocation() else { return }
        var status = stat()
        if store == nil, FileName.withCString(storeDirectory, { lstat($0, &status) }) == 0,
            status.st_mode & S_IFMT == S_IFLNK
        {
            throw CommandFailure.unusable(
                "\(storeDirectory) is a symbolic link: the sidecar must be the container's own folder (a link to "
                    + "another container's would mix their records); remove the link, or name the store's folder "
                    + "with --store")
        }
        guard let store = resolvedStoreDirectory else { return }
        if store == scanner.root || scanner.root.hasPrefix(store.hasSuffix("/") ? store : store + "/") {
            throw CommandFailure.unusable(
                "\(storeDirectory): the store cannot be the container or a folder that holds it; "
                    + "choose a folder outside the container (or leave out --store for CONTAINER/.thumbnails)")
        }
    }
}

extension ContainerOptions {
    /// The sidecar's folder with every link resolved (`realpath`), or nil when there is none.
    var resolvedStoreDirectory: String? {
        guard let resolved = FileName.withCString(storeDirectory, { realpath($0, nil) }) else { return nil }
        defer { free(resolved) }
        return FileName.decode(cString: resolved)
    }
}

/// How a command ends badly: the CLI's only mapping from errors to exit codes.
enum CommandFailure: Error {
    /// Bad usage or an unusable container or store: exit 2 after `glance: message`.
    case unusable(String)
    /// Some documents failed, each already named with its reason: exit 1.
    case documentsFailed
}
