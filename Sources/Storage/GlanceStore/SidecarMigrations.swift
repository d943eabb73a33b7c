import Foundation
import GRDB
import GlanceCore

/// The sidecar's schema, as a list of named migrations.
///
/// Migrations are only ever appended: a migration that has shipped is never edited, because stores
/// made by that version already ran it. A change of schema is a new migration at the end.
enum SidecarMigrations {
    /// Every migration, in order.
    static let migrator: DatabaseMigrator = {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1: documents, thumbnails, claims", migrate: createDocumentsThumbnailsClaims)
        migrator.registerMigration(
            "v2: container key, NOT NULL columns, leased claims", migrate: addContainerKeyAndLeases)
        migrator.registerMigration("v3: thumbnail placeholder colour", migrate: addAverageColour)
        migrator.registerMigration("v4: settings", migrate: addSettings)
        migrator.registerMigration("v5: thumbnail ThumbHash", migrate: addThumbHash)
        migrator.registerMigration("v6: document details", migrate: addDetails)
        return migrator
    }()

    /// Checks that the database is a Glance store this version understands, then runs the
    /// migrations it lacks.
    ///
    /// - Throws: ``StoreError`` when the database is not ours to migrate; GRDB's errors as they
    ///   are otherwise, so that the caller can tell a race with another opener from a failure.
    static func apply(to pool: DatabasePool, location: String) throws {
        if try createIfEmpty(pool) { return }
        try checkIsGlanceStore(pool, location: location)
        try migrator.migrate(pool)
    }

    /// The schema that the migrations add up to, statement by statement as SQLite records it in
    /// `sqlite_master` after them, with GRDB's table of applied migrations first.
    ///
    /// A new store is made from it in one transaction instead of by the three migrations, one of
    /// which rebuilds two tables, and without the check that the database is a Glance store: a
    /// `glance generate` over the bench's small folder took 95.6 ms instead of 99.0. A test
    /// checks that a store made this way and one made by the migrations have the same
    /// `sqlite_master`; a new migration must change both.
    static let currentSchema = [
        "CREATE TABLE grdb_migrations (identifier TEXT NOT NULL PRIMARY KEY)",
        """
        CREATE TABLE "document" ("id" INTEGER PRIMARY KEY, "container" TEXT NOT NULL DEFAULT '', \
        "path" TEXT NOT NULL, "device" INTEGER NOT NULL, "inode" INTEGER NOT NULL, "size" INTEGER NOT NULL, \
        "modifiedNs" INTEGER NOT NULL, "digest" TEXT, "contentType" TEXT, "state" TEXT NOT NULL, "error" TEXT, \
        "generatorVersion" TEXT NOT NULL, "generatedAt" DATETIME NOT NULL, "renderMilliseconds" INTEGER, \
        "details" TEXT, UNIQUE ("container", "path"))
        """,
        """
        CREATE TABLE "thumbnail" ("documentId" INTEGER NOT NULL REFERENCES "document"("id") ON DELETE CASCADE, \
        "sizeKey" TEXT NOT NULL, "format" TEXT NOT NULL, "width" INTEGER NOT NULL, "height" INTEGER NOT NULL, \
        "byteCount" INTEGER NOT NULL, "data" BLOB NOT NULL, "averageColour" TEXT, "thumbHash" TEXT, \
        PRIMARY KEY ("documentId", "sizeKey"))
        """,
        #"CREATE INDEX "document_on_device_inode" ON "document"("container", "device", "inode")"#,
        #"CREATE INDEX "document_on_digest" ON "document"("container", "digest")"#,
        """
        CREATE TABLE "claim" ("container" TEXT NOT NULL, "path" TEXT NOT NULL, "token" TEXT NOT NULL, \
        "host" TEXT NOT NULL, "pid" INTEGER NOT NULL, "expiresAt" DOUBLE NOT NULL, \
        PRIMARY KEY ("container", "path"))
        """,
        #"CREATE INDEX "claim_on_token" ON "claim"("token")"#,
        """
        CREATE TABLE "setting" ("container" TEXT NOT NULL, "name" TEXT NOT NULL, "value" TEXT NOT NULL, \
        PRIMARY KEY ("container", "name"))
        """,
    ]

    /// Makes the current schema, and records every migration as applied, in a database that has
    /// no schema at all yet; false (and nothing done) for any other. A database with a schema (every
    /// opening but the first) is only read, without taking the write lock. The schema is made in one
    /// write transaction that looks again first, so that of two processes opening the same new
    /// store at once, the second finds the first's schema and goes on as for any existing store.
    static func createIfEmpty(_ writer: any DatabaseWriter) throws -> Bool {
        func isEmpty(_ db: Database) throws -> Bool {
            try Int.fetchOne(db, sql: "SELECT count(*) FROM sqlite_master") == 0
        }
        return try writer.writeWithoutTransaction { db in
            guard try isEmpty(db) else { return false }
            var created = false
            try db.inTransaction(.immediate) {
                guard try isEmpty(db) else { return .commit }
                for statement in currentSchema {
                    try db.execute(sql: statement)
                }
                for migration in migrator.migrations {
                    try db.execute(sql: "INSERT INTO grdb_migrations (identifier) VALUES (?)", arguments: [migration])
                }
                created = true
                return .commit
            }
            return created
        }
    }

    /// Checks that a database opened only for reading is a Glance store with every migration
    /// this version knows applied (none can be applied without writing).
    static func checkReadable(_ database: any DatabaseReader, location: String) throws {
        try checkIsGlanceStore(database, location: location)
        if try !database.read({ db in try migrator.hasCompletedMigrations(db) }) {
            throw StoreError(
                .invalid,
                message: "made by an older Glance and cannot be upgraded without write access; run 'glance generate' "
                    + "as a user who may write it",
                location: location)
        }
    }

    /// Refuses a database that some other program made, or that a newer Glance migrated further
    /// than this version knows: writing to either could destroy data that is not ours.
    static func checkIsGlanceStore(_ pool: any DatabaseReader, location: String) throws {
        let (applied, tables) = try pool.read { db -> (Set<String>, [String]) in
            let applied = try migrator.appliedIdentifiers(db)
            let tables = try String.fetchAll(
                db,
                sql: "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name")
            return (applied, tables.filter { $0 != "grdb_migrations" })
        }
        // Our first migration made every store; a database with tables but without it (or without
        // any record of migrations) belongs to someone else.
        if !tables.isEmpty, !applied.contains(migrator.migrations[0]) {
            let names = tables.prefix(3).joined(separator: ", ")
            throw StoreError(
                .notAStore,
                message: "not a Glance thumbnail store (\(SidecarStore.databaseFileName) holds other tables: \(names))",
                location: location)
        }
        if try pool.read({ db in try migrator.hasBeenSuperseded(db) }) {
            throw StoreError(
                .newerSchema, message: "made by a newer version of Glance; use that version, or another --store",
                location: location)
        }
    }

    /// v1: one row per document, its thumbnail dictionary, and the claims of running batches.
    private static func createDocumentsThumbnailsClaims(_ db: Database) throws {
        try db.create(table: "document") { table in
            // INTEGER PRIMARY KEY is the rowid: ids stay put when a record is updated or moved,
            // which is what the thumbnails refer to.
            table.column("id", .integer).primaryKey()
            table.column("path", .text).notNull().unique()
            table.column("device", .integer)
            table.column("inode", .integer)
            table.column("size", .integer)
            table.column("modifiedNs", .integer)
            table.column("digest", .text)
            table.column("contentType", .text)
            table.column("state", .text).notNull()
            table.column("error", .text)
            table.column("generatorVersion", .text).notNull()
            table.column("generatedAt", .datetime)
            table.column("renderMilliseconds", .integer)
        }
        // A renamed file keeps its device and inode; a copied one keeps its digest. These two
        // indexes let the pipeline find a moved document's old record without rendering again.
        try db.create(index: "document_on_device_inode", on: "document", columns: ["device", "inode"])
        try db.create(index: "document_on_digest", on: "document", columns: ["digest"])

        // A rowid table, not WITHOUT ROWID: SQLite advises against WITHOUT ROWID for rows as
        // large as an encoded image.
        try db.create(table: "thumbnail") { table in
            table.column("documentId", .integer).notNull().references("document", onDelete: .cascade)
            table.column("sizeKey", .text).notNull()
            table.column("format", .text).notNull()
            table.column("width", .integer)
            table.column("height", .integer)
            table.column("byteCount", .integer)
            table.column("data", .blob).notNull()
            // documentId first: the primary key's index also serves the foreign key's cascade.
            table.primaryKey(["documentId", "sizeKey"])
        }

        try db.create(table: "claim") { table in
            table.column("path", .text).primaryKey()
            table.column("pid", .integer).notNull()
            table.column("claimedAt", .double).notNull()
        }
    }

    /// v2: a container key (one database may hold several containers), NOT NULL wherever the
    /// record types are not optional, and claims held under leases with an expiry instead of by
    /// process id. SQLite cannot add NOT NULL to a column, so `document` and `thumbnail` are
    /// rebuilt and copied; claims are transient and start empty.
    private static func addContainerKeyAndLeases(_ db: Database) throws {
        try db.create(table: "document_v2") { table in
            table.column("id", .integer).primaryKey()
            table.column("container", .text).notNull().defaults(to: "")
            table.column("path", .text).notNull()
            table.column("device", .integer).notNull()
            table.column("inode", .integer).notNull()
            table.column("size", .integer).notNull()
            table.column("modifiedNs", .integer).notNull()
            table.column("digest", .text)
            table.column("contentType", .text)
            table.column("state", .text).notNull()
            table.column("error", .text)
            table.column("generatorVersion", .text).notNull()
            table.column("generatedAt", .datetime).notNull()
            table.column("renderMilliseconds", .integer)
            table.uniqueKey(["container", "path"])
        }
        try db.execute(
            sql: """
                INSERT INTO document_v2 (id, container, path, device, inode, size, modifiedNs, digest, contentType,
                    state, error, generatorVersion, generatedAt, renderMilliseconds)
                SELECT id, '', path, IFNULL(device, 0), IFNULL(inode, 0), IFNULL(size, -1), IFNULL(modifiedNs, -1),
                    digest, contentType, state, error, generatorVersion, IFNULL(generatedAt, '1970-01-01 00:00:00.000'),
                    renderMilliseconds
                FROM document
                """)
        try db.create(table: "thumbnail_v2") { table in
            table.column("documentId", .integer).notNull().references("document", onDelete: .cascade)
            table.column("sizeKey", .text).notNull()
            table.column("format", .text).notNull()
            table.column("width", .integer).notNull()
            table.column("height", .integer).notNull()
            table.column("byteCount", .integer).notNull()
            table.column("data", .blob).notNull()
            table.primaryKey(["documentId", "sizeKey"])
        }
        try db.execute(
            sql: """
                INSERT INTO thumbnail_v2 SELECT documentId, sizeKey, format, IFNULL(width, 0), IFNULL(height, 0),
                    IFNULL(byteCount, length(data)), data
                FROM thumbnail
                """)
        // The new thumbnail table's foreign key names "document", which becomes document_v2
        // once renamed; drop the old tables first (children before parents).
        try db.drop(table: "thumbnail")
        try db.drop(table: "claim")
        try db.drop(table: "document")
        try db.rename(table: "document_v2", to: "document")
        try db.rename(table: "thumbnail_v2", to: "thumbnail")
        try db.create(index: "document_on_device_inode", on: "document", columns: ["container", "device", "inode"])
        try db.create(index: "document_on_digest", on: "document", columns: ["container", "digest"])
        try db.create(table: "claim") { table in
            table.column("container", .text).notNull()
            table.column("path", .text).notNull()
            table.column("token", .text).notNull()
            table.column("host", .text).notNull()
            table.column("pid", .integer).notNull()
            table.column("expiresAt", .double).notNull()
            table.primaryKey(["container", "path"])
        }
        try db.create(index: "claim_on_token", on: "claim", columns: ["token"])
    }

    /// v3: each thumbnail's average colour, the placeholder a page shows until the image loads.
    /// Thumbnails made before have none (pages fall back to a neutral colour).
    private static func addAverageColour(_ db: Database) throws {
        try db.alter(table: "thumbnail") { table in table.add(column: "averageColour", .text) }
    }

    /// v5: a thumbnail's ThumbHash, the blurred placeholder pages draw until it arrives.
    private static func addThumbHash(_ db: Database) throws {
        try db.alter(table: "thumbnail") { table in table.add(column: "thumbHash", .text) }
    }

    /// v6: what a render learned besides the thumbnails (a PDF's pages and their sizes, a
    /// text's encoding), as JSON. Records made before have none until they are made again.
    private static func addDetails(_ db: Database) throws {
        try db.alter(table: "document") { table in table.add(column: "details", .text) }
    }

    /// v4: a container's settings, such as the smaller thumbnail sizes it keeps.
    private static func addSettings(_ db: Database) throws {
        try db.create(table: "setting") { table in
            table.column("container", .text).notNull()
            table.column("name", .text).notNull()
            table.column("value", .text).notNull()
            table.primaryKey(["container", "name"])
        }
    }
}
