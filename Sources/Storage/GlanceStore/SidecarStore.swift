internal import CStoreFolder
import Foundation
import GRDB
import GlanceCore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The SQLite sidecar: a ``ThumbnailStore`` kept in one WAL-mode database in a cache folder
/// beside the documents (`CONTAINER/.thumbnails/thumbnails.sqlite` by default).
///
/// Several `SidecarStore` instances, in one process or in many, may use the same folder at once:
/// SQLite's file locks serialise the writers, and every method is one transaction. The store is
/// a cache: deleting its folder loses nothing that rendering again cannot rebuild.
///
/// The class holds only immutable references to thread-safe values (GRDB's database connections
/// are `Sendable`), so it is `Sendable` without any unchecked promise.
public final class SidecarStore: ThumbnailStore {
    /// The file name of the database inside the store's folder.
    public static let databaseFileName = "thumbnails.sqlite"

    /// The folder holding the database and its `CACHEDIR.TAG`.
    public let directory: String

    /// The full path of the database file.
    public let databasePath: String

    /// The container key of this instance: which of the database's containers it reads and
    /// writes. The default sidecar, inside its container, holds one container, keyed "".
    public let container: String

    /// The connections: a pool (one writer and several readers, all in WAL mode), or for a store
    /// opened ``init(readingOnly:container:)`` one read-only connection.
    let pool: any DatabaseWriter

    /// The folder, held open: SQLite opens every connection's files through it (``StoreFolder``).
    private let folder: StoreFolder?

    /// The folder a container's store lives in when no `--store` is given: `CONTAINER/.thumbnails`.
    public static func defaultDirectory(forContainer container: String) -> String {
        let trimmed = container.count > 1 && container.hasSuffix("/") ? String(container.dropLast()) : container
        return trimmed + "/.thumbnails"
    }

    /// Opens the store in `directory`, creating the folder (mode 0700), its `CACHEDIR.TAG` and the
    /// database (mode 0600) as needed, and brings the database's schema up to date. A folder or
    /// file that another user planted (a link, another owner's folder) is refused: see
    /// ``CacheDirectory``.
    ///
    /// - Throws: ``StoreError`` when the folder cannot be made or written, when the database there
    ///   is not a Glance store (or was made by a newer Glance), or when it is corrupt.
    public init(directory: String, container: String = "") throws(StoreError) {
        self.directory = directory
        self.container = container
        self.databasePath = directory + "/" + Self.databaseFileName
        try Self.refuseWhatIsNotOurs(at: databasePath, location: directory)
        let folder = try CacheDirectory.prepare(at: directory, databaseName: Self.databaseFileName)
        self.folder = folder
        pool = try Self.openAndMigrate(
            at: folder.sqliteURI(of: Self.databaseFileName) ?? databasePath, location: directory)
    }

    /// Refuses, before anything is written (no journal mode switched, no tag beside it), a
    /// database file that another program made, a newer Glance migrated further, or that is
    /// corrupt: its bytes are not ours to touch. Read as immutable (no lock, no WAL read). A file
    /// that cannot be read this way (gone meanwhile, unreadable) is left to the opening that
    /// follows, which checks the same through SQLite's locks and the WAL.
    ///
    /// So is a file with a WAL beside it that holds frames: without them the file alone may be
    /// torn, halfway through a checkpoint that a process was copying when it ended (at exit, or
    /// killed) or is copying now, and read as immutable it looked corrupt to a `glance list` run
    /// just after a `glance generate`. (Such a file is already in WAL mode: opening it switches
    /// nothing.) The WAL is looked at again after a refusal, in case it appeared meanwhile.
    private static func refuseWhatIsNotOurs(at path: String, location: String) throws(StoreError) {
        var info = stat()
        // A link or another kind of file is refused by the preparation that follows, unread.
        guard lstat(path, &info) == 0, info.st_mode & S_IFMT == S_IFREG, info.st_size > 0,
            !walHoldsFrames(besides: path)
        else { return }
        var configuration = Configuration()
        configuration.label = "GlanceStore (check)"
        configuration.readonly = true
        do {
            let queue = try DatabaseQueue(path: immutableURI(path), configuration: configuration)
            try SidecarMigrations.checkIsGlanceStore(queue, location: location)
        } catch let error as StoreError {
            if walHoldsFrames(besides: path) { return }
            throw error
        } catch let error as DatabaseError
            where error.resultCode == .SQLITE_CORRUPT || error.resultCode == .SQLITE_NOTADB
        {
            if walHoldsFrames(besides: path) { return }
            throw StoreError(error, location: location)
        } catch {
            return
        }
    }

    /// Whether the database at `path` has a write-ahead log with frames in it (more than its
    /// 32-byte header): changes the file alone may not show yet.
    static func walHoldsFrames(besides path: String) -> Bool {
        var info = stat()
        return stat(path + "-wal", &info) == 0 && info.st_size > 32
    }

    /// Opens an existing store only to read it, for a store its user may not write (a read-only
    /// folder or file, another user's store): no folder, tag or migration is made, and every
    /// write fails with ``StoreError/Kind/io``. WAL mode needs a shared-memory file beside the
    /// database; where none exists and none can be made, the file is read as immutable, which
    /// is exact as long as nobody writes it meanwhile (nobody can, where nobody may).
    ///
    /// - Throws: ``StoreError`` when there is no database, it is not a Glance store, or it needs
    ///   a migration.
    public init(readingOnly directory: String, container: String = "") throws(StoreError) {
        self.directory = directory
        self.container = container
        self.databasePath = directory + "/" + Self.databaseFileName
        var configuration = Configuration()
        configuration.label = "GlanceStore (read-only)"
        configuration.readonly = true
        configuration.busyMode = .timeout(30)
        var opened: DatabaseQueue?
        var lastError: any Error = StoreError(.unavailable, message: "cannot open the database", location: directory)
        // Through the folder held open, as a writable store is (another user's folder is read, not checked).
        let descriptor = FileName.withCString(directory) { glance_store_folder_open_path($0) }
        let folder = descriptor >= 0 ? StoreFolder(descriptor: descriptor) : nil
        self.folder = folder
        let name = Self.databaseFileName
        let paths =
            folder.flatMap { folder in
                folder.sqliteURI(of: name).flatMap { uri in
                    folder.sqliteURI(of: name, immutable: true).map { [uri, $0] }
                }
            } ?? [databasePath, Self.immutableURI(databasePath)]
        for path in paths {
            do {
                let queue = try DatabaseQueue(path: path, configuration: configuration)
                try SidecarMigrations.checkReadable(queue, location: directory)
                opened = queue
                break
            } catch let error as StoreError {
                throw error
            } catch {
                lastError = error
            }
        }
        guard let opened else { throw StoreError(lastError, location: directory) }
        pool = opened
    }

    /// A `file:` URI for `path` that opens it immutable (SQLite reads no WAL, takes no lock).
    private static func immutableURI(_ path: String) -> String {
        var escaped: [UInt8] = []
        for byte in path.utf8 {
            switch byte {
            case UInt8(ascii: "?"), UInt8(ascii: "#"), UInt8(ascii: "%"):
                escaped += Array(String(format: "%%%02X", byte).utf8)
            default: escaped.append(byte)
            }
        }
        return "file:\(String(decoding: escaped, as: UTF8.self))?immutable=1"
    }

    /// Bytes the store occupies on disk: the database and its `-wal` and `-shm` files.
    public func sizeOnDisk() -> Int64 {
        [databasePath, databasePath + "-wal", databasePath + "-shm"].reduce(into: Int64(0)) { total, path in
            var info = stat()
            if stat(path, &info) == 0 {
                total += Int64(info.st_size)
            }
        }
    }

    /// Runs `PRAGMA integrity_check`; true when SQLite answers with the single row `ok`.
    public func checkIntegrity() async throws(StoreError) -> Bool {
        let rows = try await read { db in try String.fetchAll(db, sql: "PRAGMA integrity_check") }
        return rows == ["ok"]
    }

    // MARK: - Opening

    /// How many times opening is tried when it races with another process; see `openAndMigrate`.
    private static let openingAttempts = 20

    /// Opens the database and brings its schema up to date, retrying when another process is
    /// opening the same new store at the same moment.
    ///
    /// Two races are possible, and both leave the file as it was: SQLite answers SQLITE_BUSY at
    /// once, without waiting for the busy timeout, while another connection switches a new file
    /// to WAL mode; and GRDB reads the applied migrations outside the transaction that applies
    /// one, so the slower opener may try to apply a migration again ("already exists", "no such
    /// table", or a duplicate row in grdb_migrations), and its transaction rolls back. The next attempt finds the work done. What is not a race (a
    /// file that is not a database, a corrupt one, no permission) fails at once.
    private static func openAndMigrate(at path: String, location: String) throws(StoreError) -> DatabasePool {
        var attempt = 1
        while true {
            let began = ContinuousClock.now
            var migrating = false
            do {
                let pool = try openPool(at: path)
                migrating = true
                try SidecarMigrations.apply(to: pool, location: location)
                return pool
            } catch let error as DatabaseError
                where attempt < openingAttempts
                && isRace(error, migrating: migrating, after: ContinuousClock.now - began)
            {
                // A short pause, longer at each attempt, jittered so that openers spread out.
                usleep(UInt32(min(attempt, 10) * 10_000 + Int.random(in: 0..<10_000)))
                attempt += 1
            } catch {
                throw StoreError(error, location: location)
            }
        }
    }

    /// Whether an error met while opening is one of the races `openAndMigrate` describes.
    ///
    /// A busy error that took long is the 30-second busy timeout running out: another process
    /// holds the lock for real, and trying again would only make the user wait longer.
    private static func isRace(_ error: DatabaseError, migrating: Bool, after elapsed: Duration) -> Bool {
        switch error.resultCode {
        case .SQLITE_BUSY, .SQLITE_LOCKED: elapsed < .seconds(1)
        // "already exists", "no such table", or a migration recorded twice (UNIQUE on
        // grdb_migrations): another opener applied the same migration first.
        case .SQLITE_ERROR, .SQLITE_CONSTRAINT: migrating
        default: false
        }
    }

    private static func openPool(at path: String) throws -> DatabasePool {
        var configuration = Configuration()
        configuration.label = "GlanceStore"
        configuration.foreignKeysEnabled = true
        // Other processes (a batch, a watcher, a server) write to the same file. A writer waits up
        // to 30 s for the lock instead of failing at once; GRDB opens write transactions as
        // IMMEDIATE, so waiting here is enough to avoid SQLITE_BUSY on lock upgrades.
        configuration.busyMode = .timeout(30)
        configuration.prepareDatabase { db in
            // WAL with synchronous = NORMAL never corrupts the database and survives a process
            // crash or `kill -9` with every committed transaction intact; only a power loss or an
            // OS crash may drop the last few commits. The sidecar is a rebuildable cache, so that
            // is a fair price for not syncing the disk on every commit. (GRDB picks the same for
            // WAL; saying it here keeps the decision visible.)
            try db.execute(sql: "PRAGMA synchronous = NORMAL")
        }
        // DatabasePool always puts the database in WAL mode, which lets readers (a listing, a
        // server) go on while a batch writes.
        return try DatabasePool(path: path, configuration: configuration)
    }

    // MARK: - Transactions with typed errors

    /// Runs `body` in one read transaction (a consistent snapshot of the database), off the
    /// caller's thread: GRDB's async access suspends instead of blocking a task's thread.
    func read<T: Sendable>(_ body: @escaping @Sendable (Database) throws -> T) async throws(StoreError) -> T {
        do {
            return try await pool.read(body)
        } catch {
            throw StoreError(error, location: directory)
        }
    }

    /// Runs `body` in one IMMEDIATE write transaction, committed when `body` returns.
    func write<T: Sendable>(_ body: @escaping @Sendable (Database) throws -> T) async throws(StoreError) -> T {
        do {
            return try await pool.write(body)
        } catch {
            throw StoreError(error, location: directory)
        }
    }
}
