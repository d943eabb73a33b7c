import GlanceCore
import PostgresNIO

/// The PostgreSQL store's schema, as a list of named migrations in the `glance` schema.
///
/// Like the sidecar's: migrations are only ever appended, never edited once shipped. Each opener
/// first reads which migrations the database has; only when some are missing does it take a
/// transaction-scoped advisory lock (so that hosts starting together migrate once) and apply them.
enum PostgresMigrations {
    /// One migration: its name, as recorded in `glance.migration`, and its statements.
    struct Migration {
        let name: String
        let statements: [PostgresQuery]
    }

    /// The key of the advisory lock migrations hold ("glance" in ASCII, padded).
    static let lockKey: Int64 = 0x676c_616e_6365_0001

    /// Every migration, in order.
    static let all: [Migration] = [
        Migration(
            name: "v1: documents, thumbnails, claims",
            statements: [
                // Paths sort bytewise (COLLATE "C"), as in the sidecar, so that a listing pages
                // through the same order whatever the database's locale.
                """
                CREATE TABLE glance.document (
                    id bigserial PRIMARY KEY,
                    container text NOT NULL,
                    path text COLLATE "C" NOT NULL,
                    device bigint NOT NULL,
                    inode bigint NOT NULL,
                    size bigint NOT NULL,
                    modified_ns bigint NOT NULL,
                    digest text,
                    content_type text,
                    state text NOT NULL,
                    error text,
                    generator_version text NOT NULL,
                    generated_at timestamptz NOT NULL,
                    render_milliseconds integer,
                    UNIQUE (container, path)
                )
                """,
                // A renamed file keeps its device and inode; a copied one keeps its digest.
                "CREATE INDEX document_on_identity ON glance.document (container, device, inode)",
                "CREATE INDEX document_on_digest ON glance.document (container, digest)",
                """
                CREATE TABLE glance.thumbnail (
                    document_id bigint NOT NULL REFERENCES glance.document (id) ON DELETE CASCADE,
                    size_key text NOT NULL,
                    format text NOT NULL,
                    width integer NOT NULL,
                    height integer NOT NULL,
                    byte_count integer NOT NULL,
                    average_colour text,
                    data bytea NOT NULL,
                    PRIMARY KEY (document_id, size_key)
                )
                """,
                """
                CREATE TABLE glance.claim (
                    container text NOT NULL,
                    path text COLLATE "C" NOT NULL,
                    token text NOT NULL,
                    host text NOT NULL,
                    pid integer NOT NULL,
                    expires_at timestamptz NOT NULL,
                    PRIMARY KEY (container, path)
                )
                """,
                "CREATE INDEX claim_on_token ON glance.claim (token)",
            ]),
        Migration(
            name: "v2: job queue",
            statements: [
                // One row per document to render: pending, leased to a host until lease_expires,
                // done, or failed after too many attempts. `root` is the container's folder as
                // every host mounts it.
                """
                CREATE TABLE glance.job (
                    id bigserial PRIMARY KEY,
                    container text NOT NULL,
                    root text NOT NULL,
                    path text COLLATE "C" NOT NULL,
                    priority smallint NOT NULL,
                    force boolean NOT NULL DEFAULT false,
                    state text NOT NULL DEFAULT 'pending',
                    attempts integer NOT NULL DEFAULT 0,
                    lease_token text,
                    lease_host text,
                    lease_expires timestamptz,
                    enqueued_at timestamptz NOT NULL DEFAULT now(),
                    finished_at timestamptz,
                    finished_by text,
                    error text
                )
                """,
                // At most one waiting job per document: enqueueing it again only raises its priority.
                """
                CREATE UNIQUE INDEX job_waiting_once ON glance.job (container, path) WHERE state = 'pending'
                """,
                // What a worker takes next: the most urgent, then the oldest.
                "CREATE INDEX job_next ON glance.job (priority, id) WHERE state IN ('pending', 'leased')",
                "CREATE INDEX job_by_lease ON glance.job (lease_token) WHERE state = 'leased'",
                "CREATE INDEX job_by_container ON glance.job (container, state)",
            ]),
        Migration(
            name: "v3: thumbnail bytes stored without compression",
            statements: [
                // A thumbnail is a JPEG or PNG already: PostgreSQL's own compression (pglz) finds
                // nothing to take out and was a quarter of the server's time per saved document.
                // EXTERNAL keeps large values out of line, as before, without trying.
                "ALTER TABLE glance.thumbnail ALTER COLUMN data SET STORAGE EXTERNAL"
            ]),
        Migration(
            name: "v4: a job given back waits before its host tries it again",
            statements: [
                // The host that gave the job back, and until when it leaves the job to others.
                "ALTER TABLE glance.job ADD COLUMN refused_by text, ADD COLUMN retry_after timestamptz"
            ]),
        Migration(
            name: "v5: settings",
            statements: [
                // A container's settings, such as the smaller thumbnail sizes it keeps.
                """
                CREATE TABLE glance.setting (
                    container text NOT NULL,
                    name text NOT NULL,
                    value text NOT NULL,
                    PRIMARY KEY (container, name)
                )
                """
            ]),
        Migration(
            name: "v6: thumbnail ThumbHash",
            statements: [
                // The blurred placeholder pages draw until the thumbnail arrives.
                "ALTER TABLE glance.thumbnail ADD COLUMN thumb_hash text"
            ]),
        Migration(
            name: "v7: document details",
            statements: [
                // What a render learned besides the thumbnails (a PDF's pages, a text's encoding), as JSON.
                "ALTER TABLE glance.document ADD COLUMN details text"
            ]),
        Migration(
            name: "v8: the job table vacuumed as it churns",
            statements: [
                // Every job's row is rewritten when it is leased and when it is done, each time in
                // every index that names its state: a batch of millions leaves millions of dead
                // rows, and the lease's index scan walks them until a vacuum. PostgreSQL's default
                // waits for a fifth of the table to be dead; the queue's table is vacuumed after 2%
                // (and at least 1,000 rows). Room left in each page lets a heartbeat (which changes
                // no indexed column) rewrite its row in place.
                """
                ALTER TABLE glance.job SET (autovacuum_vacuum_scale_factor = 0.02,
                    autovacuum_vacuum_threshold = 1000, autovacuum_analyze_scale_factor = 0.02, fillfactor = 90)
                """
            ]),
        Migration(
            name: "v9: thumbnail bytes in files beside the database",
            statements: [
                // A thumbnail's bytes are in its row (data) or in the thumbnail folder's file named
                // by their SHA-256 (file_digest): one or the other.
                """
                ALTER TABLE glance.thumbnail ALTER COLUMN data DROP NOT NULL, ADD COLUMN file_digest bytea,
                    ADD CONSTRAINT thumbnail_bytes_in_one_place CHECK ((data IS NULL) <> (file_digest IS NULL))
                """,
                // The sweep asks which of a folder's files rows name.
                """
                CREATE INDEX thumbnail_on_file_digest ON glance.thumbnail (file_digest)
                WHERE file_digest IS NOT NULL
                """,
                // The token of the database's thumbnail folder (one row at most), which the folder's
                // marker file holds too: an empty mount point or another database's folder has none
                // or another.
                """
                CREATE TABLE glance.thumbnail_folder (
                    only_one boolean PRIMARY KEY DEFAULT true CHECK (only_one),
                    token text NOT NULL,
                    created_at timestamptz NOT NULL DEFAULT now()
                )
                """,
            ]),
        Migration(
            name: "v10: thumbnails deleted with their document by a trigger, not checked by a foreign key",
            statements: [
                // The foreign key checked each thumbnail row a save wrote against its document: three
                // lookups a save, about a sixth of the database's CPU for it (measured with a libpq
                // loop of the save statement: 0.74 against 0.60 ms a save, median of three runs).
                // A thumbnail row is only ever written by the statement that writes its document's
                // row (which holds that row's lock), so the check found nothing; what the key did
                // besides, deleting a document's thumbnails with it, this trigger does, for every
                // DELETE, the store's and anyone else's.
                """
                CREATE FUNCTION glance.delete_thumbnails_of_deleted_documents() RETURNS trigger
                LANGUAGE plpgsql AS $$
                BEGIN
                    DELETE FROM glance.thumbnail t USING deleted d WHERE t.document_id = d.id;
                    RETURN NULL;
                END
                $$
                """,
                """
                CREATE TRIGGER thumbnails_deleted_with_document AFTER DELETE ON glance.document
                REFERENCING OLD TABLE AS deleted FOR EACH STATEMENT
                EXECUTE FUNCTION glance.delete_thumbnails_of_deleted_documents()
                """,
                "ALTER TABLE glance.thumbnail DROP CONSTRAINT thumbnail_document_id_fkey",
            ]),
    ]

    /// Checks that the database can hold a Glance store and brings it up to date.
    static func apply(to store: PostgresStore) async throws(StoreError) {
        let location = store.location
        let logger = store.logger
        if try await pending(in: store).isEmpty { return }
        try await store.transaction { connection in
            _ = try await connection.rows("SELECT pg_advisory_xact_lock(\(lockKey))", logger: logger)
            _ = try await connection.rows("CREATE SCHEMA IF NOT EXISTS glance", logger: logger)
            let tables = try await connection.rows(
                "SELECT table_name::text FROM information_schema.tables WHERE table_schema = 'glance' ORDER BY 1",
                logger: logger
            ).map { try $0.decode(String.self) }
            if !tables.isEmpty, !tables.contains("migration") {
                throw StoreError(
                    .notAStore,
                    message: "schema glance holds tables that are not a Glance store's ("
                        + tables.prefix(3).joined(separator: ", ") + "); use another database",
                    location: location)
            }
            _ = try await connection.rows(
                """
                CREATE TABLE IF NOT EXISTS glance.migration (
                    name text PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())
                """, logger: logger)
            let applied = Set(
                try await connection.rows("SELECT name FROM glance.migration", logger: logger).map {
                    try $0.decode(String.self)
                })
            try checkNotNewer(applied, location: location)
            for migration in all where !applied.contains(migration.name) {
                for statement in migration.statements { _ = try await connection.rows(statement, logger: logger) }
                _ = try await connection.rows(
                    "INSERT INTO glance.migration (name) VALUES (\(migration.name))", logger: logger)
            }
        }
    }

    /// The migrations the database lacks, read without locking or writing anything; refuses a
    /// database a newer Glance migrated, and one whose text is not UTF-8.
    private static func pending(in store: PostgresStore) async throws(StoreError) -> [Migration] {
        let rows = try await store.rows(
            """
            SELECT current_setting('server_encoding'), to_regclass('glance.migration') IS NOT NULL
            """)
        guard let first = rows.first else { return all }
        let (encoding, hasMigrations): (String, Bool)
        do {
            (encoding, hasMigrations) = try first.decode((String, Bool).self)
        } catch {
            throw StoreError(postgres: error, location: store.location, address: store.address)
        }
        if encoding != "UTF8" {
            throw StoreError(
                .invalid,
                message: "database \(store.address.database) stores text as \(encoding); Glance needs UTF8 "
                    + "(createdb --encoding=UTF8 --template=template0)",
                location: store.location)
        }
        if !hasMigrations { return all }
        let names = try await store.rows("SELECT name FROM glance.migration")
        var applied: Set<String> = []
        for row in names {
            do { applied.insert(try row.decode(String.self)) } catch {
                throw StoreError(postgres: error, location: store.location, address: store.address)
            }
        }
        try checkNotNewer(applied, location: store.location)
        return all.filter { !applied.contains($0.name) }
    }

    /// Refuses a database with migrations this version does not know: a newer Glance's.
    private static func checkNotNewer(_ applied: Set<String>, location: String) throws(StoreError) {
        let known = Set(all.map(\.name))
        if !applied.isSubset(of: known) {
            throw StoreError(
                .newerSchema, message: "made by a newer version of Glance; use that version, or another --store",
                location: location)
        }
    }
}
