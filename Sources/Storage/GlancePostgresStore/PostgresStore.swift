import Foundation
import GlanceCore
import Logging
import NIOCore
import NIOSSL
import PostgresNIO
import Synchronization

/// Whether a PostgreSQL store's commits wait for the database's write-ahead log to reach its disk.
public enum CommitDurability: Sendable, Equatable {
    /// Each commit returns once its log is flushed (PostgreSQL's default): what every store does
    /// but a queue worker's.
    case flushed
    /// Commits return before their log is flushed (`synchronous_commit = off`). A crash of the
    /// database server loses the last fraction of a second of commits (three times
    /// `wal_writer_delay`, 0.6 s by default), never its consistency. For a queue worker, whose
    /// every write is redone when lost: a lost lease leaves its job pending, a lost save or
    /// completion leaves the job leased until its lease expires and another host renders it
    /// again; the thumbnail files a lost save wrote are swept. Measured with `bench/scaleout.py`,
    /// it spares the server the flush each lease and save paid (see docs/scale-out.md).
    case deferred
}

/// A ``ThumbnailStore`` in a PostgreSQL database, for a collection that outgrows one machine:
/// many hosts render into one database, and one database holds many containers.
///
/// The same records and thumbnail dictionaries as the SQLite sidecar, in the `glance` schema
/// (so that the database may hold other data too), brought up to date by
/// ``PostgresMigrations`` when a store is opened. Every method is one transaction. Claims expire
/// by the server's clock, which every host shares.
///
/// The store owns a connection pool (postgres-nio's `PostgresClient`), which runs in a task of
/// its own from ``open(_:container:)`` until ``close()``; a store dropped without closing
/// cancels that task. A ``sibling(container:)`` serves another container over the same pool (a
/// queue worker's containers: one database, one pool, fewer connections for the server).
public final class PostgresStore: ThumbnailStore {
    /// Where the database is (the password is never shown).
    public let address: PostgresAddress
    /// The container key of this instance: which of the database's containers it reads and writes.
    public let container: String
    /// How messages name the store: the address without its password, and the container.
    public let location: String

    /// The connection pool.
    let client: PostgresClient
    /// The pool's own task (`PostgresClient.run()`); nil for a sibling, whose pool is its opener's.
    private let running: Task<Void, Never>?
    /// Jobs of the queue to mark done with their document's next save (see
    /// ``completeWithSave(_:under:leasingAhead:savesPerCommit:holdLimit:)``), and the saves held to go together.
    let jobSaves = Mutex(JobSaves())
    /// Jobs saves leased ahead, shared with the siblings.
    let leasedAhead: JobsLeasedAhead
    /// Saves since the planner's statistics were last compared with the tables (see
    /// ``checkStatisticsAfterSave()``).
    let savesSinceStatisticsCheck = Mutex(0)
    /// postgres-nio's log, silenced: failures reach the user as ``StoreError``s instead.
    let logger: Logger
    /// The folder of the thumbnails' files (`thumbnails=` on the address), once attached; nil
    /// when their bytes are kept in the rows.
    private let folderSlot: Mutex<ThumbnailFolder?>
    /// Where lines about what the store met and dealt with go (a damaged thumbnail file).
    private let warnings: @Sendable (String) -> Void

    /// Connects to the database at `address`, brings its schema up to date, and returns the store
    /// of container `container` in it.
    ///
    /// - Throws: ``StoreError``: `unavailable` when the server cannot be reached or refuses the
    ///   user, `notAStore` when the database's `glance` schema holds something else, `newerSchema`
    ///   when a newer Glance migrated it.
    ///   A folder for the thumbnails' files (`thumbnails=`) that cannot be used is `io` (see
    ///   ``ThumbnailFolder``).
    ///
    /// `warnings` takes each line about something the store met and dealt with (a damaged
    /// thumbnail file, dropped to be drawn again); standard error by default.
    ///
    /// `commits`: whether each commit waits for the database's log to reach its disk (see
    /// ``CommitDurability``).
    public static func open(
        _ address: PostgresAddress, container: String, commits: CommitDurability = .flushed,
        warnings: @escaping @Sendable (String) -> Void = PostgresStore.standardErrorLine
    ) async throws(StoreError) -> PostgresStore {
        // Before any pool exists: nothing to stop when the server is not there.
        try await probe(address, location: locationText(address, container: container))
        let store = PostgresStore(address: address, container: container, commits: commits, warnings: warnings)
        do {
            try await PostgresMigrations.apply(to: store)
            if let path = address.thumbnailFolder {
                let folder = try await store.attachFolder(path)
                store.folderSlot.withLock { $0 = folder }
            }
        } catch {
            await store.close()
            throw error
        }
        return store
    }

    /// Writes `line` to standard error, with `glance: warning: ` before it.
    public static let standardErrorLine: @Sendable (String) -> Void = { line in
        FileHandle.standardError.write(Data(("glance: warning: " + line + "\n").utf8))
    }

    /// The folder of the thumbnails' files, or nil when their bytes are kept in the rows.
    public var thumbnailFolder: ThumbnailFolder? { folderSlot.withLock { $0 } }

    /// Passes `line` to the store's warnings.
    func report(_ line: String) { warnings(line) }

    private init(
        address: PostgresAddress, container: String, commits: CommitDurability,
        warnings: @escaping @Sendable (String) -> Void
    ) {
        self.address = address
        self.container = container
        location = Self.locationText(address, container: container)
        logger = Self.silent
        folderSlot = Mutex(nil)
        self.warnings = warnings
        leasedAhead = JobsLeasedAhead()
        var configuration =
            if let socketPath = address.socketPath {
                PostgresClient.Configuration(
                    unixSocketPath: socketPath, username: address.user, password: address.password,
                    database: address.database)
            } else {
                PostgresClient.Configuration(
                    host: address.host, port: address.port, username: address.user, password: address.password,
                    database: address.database, tls: Self.tls(address).forClient)
            }
        configuration.options.connectTimeout = .seconds(10)
        configuration.options.maximumConnections = 8
        configuration.options.keepAliveBehavior = nil
        // Every statement a store prepares looks rows up by key or range: the plan is the same
        // whatever the values. PostgreSQL plans a prepared statement for its values five times
        // before it settles on one plan; a worker's connections made for a batch paid that on
        // each (measured with bench/scaleout.py: the server's CPU a document, eight hosts, 1.32
        // against 0.96 ms with one plan from the start).
        var parameters = [("plan_cache_mode", "force_generic_plan")]
        if commits == .deferred { parameters.append(("synchronous_commit", "off")) }
        configuration.options.additionalStartupParameters = parameters
        let client = PostgresClient(configuration: configuration, backgroundLogger: logger)
        self.client = client
        running = Task { await client.run() }
    }

    /// postgres-nio's log, silenced.
    private static let silent = Logger(label: "glance.postgres", factory: { _ in SwiftLogNoOpLogHandler() })

    /// How messages name the store at `address` for `container`.
    private static func locationText(_ address: PostgresAddress, container: String) -> String {
        var shown = address
        shown.container = nil
        shown.thumbnailFolder = nil
        return "\(shown.description) (container \(container))"
    }

    /// The store of container `container` in the same database, over this store's pool (no
    /// connection of its own, no migration: this store did both). It must not be used after this
    /// store is closed; closing it does nothing.
    public func sibling(container: String) -> PostgresStore {
        PostgresStore(sharing: self, container: container)
    }

    private init(sharing owner: PostgresStore, container: String) {
        address = owner.address
        self.container = container
        location = Self.locationText(owner.address, container: container)
        logger = owner.logger
        client = owner.client
        running = nil
        folderSlot = Mutex(owner.thumbnailFolder)
        warnings = owner.warnings
        leasedAhead = owner.leasedAhead
    }

    deinit {
        running?.cancel()
    }

    /// Closes the connections and ends the pool's task (a sibling's: nothing). The store cannot
    /// be used afterwards.
    public func close() async {
        guard let running else { return }
        running.cancel()
        await running.value
    }

    /// Opens one connection and closes it again: a server that is not there, a database that
    /// does not exist or a user refused fails here at once, where the pool would keep retrying
    /// (as it should once running: a server restarted mid-batch is reconnected to).
    private static func probe(_ address: PostgresAddress, location: String) async throws(StoreError) {
        do {
            let tls: PostgresConnection.Configuration.TLS
            switch Self.tls(address) {
            case .disable: tls = .disable
            case .prefer(let configuration): tls = .prefer(try NIOSSLContext(configuration: configuration))
            case .require(let configuration): tls = .require(try NIOSSLContext(configuration: configuration))
            }
            var configuration =
                if let socketPath = address.socketPath {
                    PostgresConnection.Configuration(
                        unixSocketPath: socketPath, username: address.user, password: address.password,
                        database: address.database)
                } else {
                    PostgresConnection.Configuration(
                        host: address.host, port: address.port, username: address.user, password: address.password,
                        database: address.database, tls: tls)
                }
            configuration.options.connectTimeout = .seconds(10)
            let connection = try await PostgresConnection.connect(configuration: configuration, id: 0, logger: silent)
            try await connection.close()
        } catch {
            throw StoreError(postgres: error, location: location, address: address)
        }
    }

    /// Whether and how a connection to `address` is encrypted, and what of the server's
    /// certificate is checked: `sslmode` as PostgreSQL's own clients read it (see
    /// ``PostgresAddress``).
    static func tls(_ address: PostgresAddress) -> Encryption {
        var configuration = TLSConfiguration.makeClientConfiguration()
        if let file = address.rootCertificateFile { configuration.trustRoots = .file(file) }
        let checkedAgainstRoot: CertificateVerification =
            address.rootCertificateFile == nil ? .none : .noHostnameVerification
        switch address.tls {
        case .disable:
            return .disable
        case .prefer:
            configuration.certificateVerification = checkedAgainstRoot
            return .prefer(configuration)
        case .require:
            configuration.certificateVerification = checkedAgainstRoot
            return .require(configuration)
        case .verifyCA:
            configuration.certificateVerification = .noHostnameVerification
            return .require(configuration)
        case .verifyFull:
            configuration.certificateVerification = .fullVerification
            return .require(configuration)
        }
    }

    /// Whether a connection is encrypted, with what TLS settings.
    enum Encryption {
        case disable
        case prefer(TLSConfiguration)
        case require(TLSConfiguration)

        /// The pool's form of it.
        var forClient: PostgresClient.Configuration.TLS {
            switch self {
            case .disable: .disable
            case .prefer(let configuration): .prefer(configuration)
            case .require(let configuration): .require(configuration)
            }
        }
    }

    // MARK: - Queries with typed errors

    /// Runs `body` in one transaction, committed when it returns and rolled back when it throws.
    func transaction<T: Sendable>(_ body: (PostgresConnection) async throws -> T) async throws(StoreError) -> T {
        do {
            return try await client.withTransaction(logger: logger) { connection in try await body(connection) }
        } catch {
            throw StoreError(postgres: error, location: location, address: address)
        }
    }

    /// Runs one statement on its own (autocommit) and collects its rows.
    func rows(_ query: PostgresQuery) async throws(StoreError) -> [PostgresRow] {
        do {
            var rows: [PostgresRow] = []
            for try await row in try await client.query(query, logger: logger) { rows.append(row) }
            return rows
        } catch {
            throw StoreError(postgres: error, location: location, address: address)
        }
    }
}

extension PostgresConnection {
    /// Runs one statement on this connection and collects its rows.
    func rows(_ query: PostgresQuery, logger: Logger) async throws -> [PostgresRow] {
        var rows: [PostgresRow] = []
        for try await row in try await self.query(query, logger: logger) { rows.append(row) }
        return rows
    }
}
