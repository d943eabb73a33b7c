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
        return migrator
    }()

    /// Checks that the database is a Glance store this version understands, then runs the
    /// migrations it lacks.
    ///
    /// - Throws: ``StoreError`` when the database is not ours to migrate; GRDB's errors as they
    ///   are otherwise, so that the caller can tell a race with another opener from a failure.
    static func apply(to pool: DatabasePool, location: String) throws {
        try checkIsGlanceStore(pool, location: location)
        try migrator.migrate(pool)
    }

    /// Refuses a database that some other program made, or that a newer Glance migrated further
    /// than this version knows: writing to either could destroy data that is not ours.
    private static func checkIsGlanceStore(_ pool: DatabasePool, location: String) throws {
        let (applied, tables) = try pool.read { db in
            let applied = try migrator.appliedIdentifiers(db)
            let tables = try String.fetchAll(
                db,
                sql: "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name")
            return (applied, tables.filter { $0 != "grdb_migrations" })
        }
        let known = Set(migrator.migrations)
        // Our first migration made every store; a database with tables but without it (or without
        // any record of migrations) belongs to someone else.
        if !tables.isEmpty, !applied.contains(migrator.migrations[0]) {
            let names = tables.prefix(3).joined(separator: ", ")
            throw StoreError(
                message: "not a Glance thumbnail store (\(SidecarStore.databaseFileName) holds other tables: \(names))",
                location: location)
        }
        if !applied.isSubset(of: known) {
            throw StoreError(
                message: "made by a newer version of Glance; use that version, or another --store",
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
}
