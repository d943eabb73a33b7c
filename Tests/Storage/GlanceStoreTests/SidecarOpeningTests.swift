import Foundation
import GRDB
import GlanceCore
import Testing

@testable import GlanceStore

/// Opening a store: the folder, its cache tag, the database, and the folders that are not stores.
@Suite("Sidecar opening", .timeLimit(.minutes(10)))
struct SidecarOpeningTests {
    @Test("a new store makes its folder, a CACHEDIR.TAG with the signature line, and the database")
    func createsFolderAndTag() async throws {
        let folder = try TemporaryFolder()
        let directory = folder.file("container/.thumbnails")
        let store = try SidecarStore(directory: directory)
        #expect(store.databasePath == directory + "/thumbnails.sqlite")

        let tag = try String(contentsOfFile: directory + "/CACHEDIR.TAG", encoding: .utf8)
        #expect(tag.hasPrefix("Signature: 8a477f597d28d172789f06886806bc55\n"))
        #expect(tag.contains("# This file marks a cache directory created by Glance"))
        let attributes = try FileManager.default.attributesOfItem(atPath: directory)
        #expect((attributes[.posixPermissions] as? Int).map { $0 & 0o700 } == 0o700)
        #expect(FileManager.default.fileExists(atPath: store.databasePath))
        #expect(store.sizeOnDisk() > 0)
        #expect(try await store.checkIntegrity())
        // Version control leaves the whole folder out.
        let ignore = try String(contentsOfFile: directory + "/.gitignore", encoding: .utf8)
        #expect(ignore.split(separator: "\n").contains("*"))
    }

    @Test("the database is opened through the folder that was checked: a folder swapped in later is not written")
    func openedThroughTheCheckedFolder() async throws {
        let folder = try TemporaryFolder()
        let directory = folder.file("container/.thumbnails")
        let store = try SidecarStore(directory: directory)
        // After the checks and the opening, the folder moves away and another stands at its path,
        // as one planted by someone who may write the container would.
        let moved = folder.file("container/.moved")
        try FileManager.default.moveItem(atPath: directory, toPath: moved)
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: false)

        // Connections opened from now on (the readers, opened on first use) still reach the
        // database that was checked, and nothing is made in the planted folder.
        try await store.save(Fixtures.record("a.pdf"), thumbnails: [Fixtures.image()])
        let found = try await store.document(at: "a.pdf", includingImageData: true)
        #expect(found?.record.path == "a.pdf")
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory).isEmpty)
        #expect(FileManager.default.fileExists(atPath: moved + "/thumbnails.sqlite-wal"))
        // A store opened by path after the swap sees the planted folder, not the document.
        let other = try SidecarStore(directory: directory)
        #expect(try await other.document(at: "a.pdf", includingImageData: false) == nil)
    }

    @Test(".gitignore: only in a folder the store made or one holding a store; a link there is not followed")
    func ignoreFile() throws {
        let folder = try TemporaryFolder()
        // A folder of the user's, named as --store: no .gitignore that would hide it from git.
        let existing = folder.file("existing")
        try FileManager.default.createDirectory(atPath: existing, withIntermediateDirectories: true)
        _ = try SidecarStore(directory: existing)
        #expect(!FileManager.default.fileExists(atPath: existing + "/.gitignore"))
        // Once it holds the store's database it is the store's: an older store gets one.
        _ = try SidecarStore(directory: existing)
        #expect(FileManager.default.fileExists(atPath: existing + "/.gitignore"))
        // A link planted under the name is never written through.
        let made = folder.file("made")
        _ = try SidecarStore(directory: made)
        try FileManager.default.removeItem(atPath: made + "/.gitignore")
        let target = folder.file("target.txt")
        try FileManager.default.createSymbolicLink(atPath: made + "/.gitignore", withDestinationPath: target)
        _ = try SidecarStore(directory: made)
        #expect(!FileManager.default.fileExists(atPath: target))
    }

    @Test("an existing tag is left as it is, and reopening keeps the records")
    func reopen() async throws {
        let folder = try TemporaryFolder()
        let tagPath = folder.file("CACHEDIR.TAG")
        let custom = "Signature: 8a477f597d28d172789f06886806bc55\n# kept by the user\n"
        try custom.write(toFile: tagPath, atomically: false, encoding: .utf8)
        do {
            let store = try SidecarStore(directory: folder.path)
            try await store.save(Fixtures.record("kept.pdf"), thumbnails: [Fixtures.image()])
        }
        let reopened = try SidecarStore(directory: folder.path)
        #expect(try await reopened.document(at: "kept.pdf", includingImageData: true)?.thumbnails == [Fixtures.image()])
        #expect(try String(contentsOfFile: tagPath, encoding: .utf8) == custom)
    }

    @Test("a new store is made in one step with exactly the schema the migrations make, all recorded as applied")
    func oneStepSchemaMatchesMigrations() async throws {
        let folder = try TemporaryFolder()
        let store = try SidecarStore(directory: folder.file("new"))
        let migrated = try DatabaseQueue(path: folder.file("migrated.sqlite"))
        try SidecarMigrations.migrator.migrate(migrated)

        let made = try DatabaseQueue(path: store.databasePath)
        let schema = "SELECT type, name, tbl_name, sql FROM sqlite_master ORDER BY name"
        let madeSchema = try made.read { db in try Row.fetchAll(db, sql: schema) }
        let migratedSchema = try migrated.read { db in try Row.fetchAll(db, sql: schema) }
        #expect(madeSchema.count == 13)
        #expect(madeSchema == migratedSchema)
        let applied = try await made.read { db in try SidecarMigrations.migrator.appliedMigrations(db) }
        #expect(applied == SidecarMigrations.migrator.migrations)
        #expect(try await made.read { db in try SidecarMigrations.migrator.hasCompletedMigrations(db) })

        // Only an empty database is made this way: a store that has its schema is left to the
        // migrator, which finds nothing to do.
        #expect(try !SidecarMigrations.createIfEmpty(made))
        let reopened = try SidecarStore(directory: folder.file("new"))
        try await reopened.save(Fixtures.record("a.pdf"), thumbnails: [Fixtures.image()])
        #expect(try await reopened.document(at: "a.pdf", includingImageData: true)?.thumbnails == [Fixtures.image()])
        #expect(try await reopened.checkIntegrity())
    }

    @Test("the default folder is .thumbnails inside the container")
    func defaultDirectory() {
        #expect(SidecarStore.defaultDirectory(forContainer: "/srv/docs") == "/srv/docs/.thumbnails")
        #expect(SidecarStore.defaultDirectory(forContainer: "/srv/docs/") == "/srv/docs/.thumbnails")
        #expect(SidecarStore.databaseFileName == "thumbnails.sqlite")
    }

    @Test("a plain file where the folder should be is a StoreError, not a crash")
    func folderIsAFile() async throws {
        let folder = try TemporaryFolder()
        let path = folder.file("store")
        try "not a folder".write(toFile: path, atomically: false, encoding: .utf8)
        let error = #expect(throws: StoreError.self) { try SidecarStore(directory: path) }
        #expect(error?.message.contains("not a folder") == true)
        #expect(error?.location == path)

        let below = #expect(throws: StoreError.self) { try SidecarStore(directory: path + "/inner") }
        #expect(below?.message.contains("cannot create the folder") == true)
    }

    @Test("a thumbnails.sqlite that is not a database is refused with a reason")
    func notADatabase() async throws {
        let folder = try TemporaryFolder()
        let junk = String(repeating: "this is not SQLite. ", count: 500)
        try junk.write(toFile: folder.file("thumbnails.sqlite"), atomically: false, encoding: .utf8)
        let error = #expect(throws: StoreError.self) { try SidecarStore(directory: folder.path) }
        #expect(error?.message.contains("not a Glance thumbnail store") == true)
    }

    @Test("another program's SQLite database is refused, and left untouched")
    func foreignDatabase() async throws {
        let folder = try TemporaryFolder()
        let path = folder.file("thumbnails.sqlite")
        do {
            let queue = try DatabaseQueue(path: path)
            try await queue.write { db in
                try db.execute(sql: "CREATE TABLE photos (id INTEGER PRIMARY KEY, name TEXT)")
            }
        }
        let before = try Data(contentsOf: URL(fileURLWithPath: path))
        let error = #expect(throws: StoreError.self) { try SidecarStore(directory: folder.path) }
        #expect(error?.message.contains("not a Glance thumbnail store") == true)
        #expect(error?.message.contains("photos") == true)
        // Refused before anything is written: not a byte of it (its journal mode included), no
        // tag beside it.
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == before)
        #expect(!FileManager.default.fileExists(atPath: folder.file("CACHEDIR.TAG")))
        let tables = try await DatabaseQueue(path: path).read { db in
            try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'table'")
        }
        #expect(tables == ["photos"])
    }

    @Test("a store migrated by a newer Glance is refused")
    func newerStore() async throws {
        let folder = try TemporaryFolder()
        do {
            _ = try SidecarStore(directory: folder.path)
        }
        let queue = try DatabaseQueue(path: folder.file("thumbnails.sqlite"))
        try await queue.write { db in
            try db.execute(sql: "INSERT INTO grdb_migrations (identifier) VALUES ('v99: from the future')")
        }
        let error = #expect(throws: StoreError.self) { try SidecarStore(directory: folder.path) }
        #expect(error?.message.contains("newer version of Glance") == true)
    }

    @Test("a damaged database is reported, never trusted")
    func damagedDatabase() async throws {
        let folder = try TemporaryFolder()
        do {
            let store = try SidecarStore(directory: folder.path)
            for index in 0..<40 {
                try await store.save(Fixtures.record("d\(index).pdf"), thumbnails: [Fixtures.image(byteCount: 3000)])
            }
            #expect(try await store.checkIntegrity())
        }
        // Overwrite everything after the first page (the header and schema stay readable).
        let handle = try #require(FileHandle(forWritingAtPath: folder.file("thumbnails.sqlite")))
        let length = try handle.seekToEnd()
        #expect(length > 16384)
        try handle.seek(toOffset: 4096)
        try handle.write(contentsOf: Data(repeating: 0xA5, count: Int(length) - 4096))
        try handle.close()

        let damaged = try Data(contentsOf: URL(fileURLWithPath: folder.file("thumbnails.sqlite")))
        do {
            let store = try SidecarStore(directory: folder.path)
            let healthy = try? await store.checkIntegrity()
            #expect(healthy != true)
        } catch {
            #expect(!error.message.isEmpty)
            // Refused: then left as it was, for whoever wants to look at it.
            #expect(try Data(contentsOf: URL(fileURLWithPath: folder.file("thumbnails.sqlite"))) == damaged)
        }
    }
}

/// A store whose file alone is torn but whose WAL holds the newer pages: what a process leaves
/// when it ends in the middle of a checkpoint. SQLite reads it whole through the WAL; the check
/// made before opening (which reads the file alone) must not call it corrupt.
@Suite("Sidecar opening beside a WAL", .timeLimit(.minutes(10)))
struct SidecarWALOpeningTests {
    @Test("pages torn in the file but whole in the WAL: the store opens and reads the newest records")
    func tornFileWholeWAL() async throws {
        let folder = try TemporaryFolder()
        let database = folder.file("thumbnails.sqlite")
        let writer = try SidecarStore(directory: folder.path)
        for index in 0..<20 {
            try await writer.save(Fixtures.record("d\(index).pdf"), thumbnails: [Fixtures.image(byteCount: 3000)])
        }
        // Everything into the file, then changes that stay in the WAL while `writer` is open.
        try await writer.pool.writeWithoutTransaction { db in _ = try db.checkpoint(.truncate) }
        // Larger images: the file grows, so its first page (the size in its header, the schema)
        // is among the pages the WAL holds anew.
        for index in 0..<20 {
            var record = Fixtures.record("d\(index).pdf")
            record.generatorVersion = "9.9.\(index)"
            try await writer.save(record, thumbnails: [Fixtures.image(byteCount: 9000)])
        }
        #expect(SidecarStore.walHoldsFrames(besides: database))
        // The pages the WAL holds newer versions of are overwritten in the file: the file alone
        // is now as torn as a checkpoint cut short leaves it.
        let wal = try Data(contentsOf: URL(fileURLWithPath: database + "-wal"))
        let pageSize = Int(wal[8]) << 24 | Int(wal[9]) << 16 | Int(wal[10]) << 8 | Int(wal[11])
        var pages = Set<Int>()
        var frame = 32
        while frame + 24 + pageSize <= wal.count {
            let number = wal[frame..<(frame + 4)].reduce(0) { $0 << 8 | Int($1) }
            pages.insert(number)
            frame += 24 + pageSize
        }
        #expect(pages.contains(1) && pages.count >= 3, "pages in the WAL: \(pages.sorted())")
        let handle = try #require(FileHandle(forWritingAtPath: database))
        for page in pages {
            // Of the first page, the 100-byte file header stays: SQLite reads it from the file
            // (page size, WAL mode) before it looks at the WAL; the schema after it is torn.
            let start = page == 1 ? 100 : 0
            try handle.seek(toOffset: UInt64((page - 1) * pageSize + start))
            try handle.write(contentsOf: Data(repeating: 0xA5, count: pageSize - start))
        }
        try handle.close()
        // Read alone, the file is corrupt; through the WAL, whole.
        var configuration = Configuration()
        configuration.readonly = true
        #expect(throws: (any Error).self) {
            let alone = try DatabaseQueue(path: "file:\(database)?immutable=1", configuration: configuration)
            _ = try alone.read { db in try Row.fetchAll(db, sql: "SELECT * FROM sqlite_master") }
        }
        let reader = try SidecarStore(directory: folder.path)
        let stored = try await reader.document(at: "d7.pdf", includingImageData: true)
        #expect(stored?.record.generatorVersion == "9.9.7")
        #expect(try await reader.checkIntegrity())
        _ = writer
    }
}
