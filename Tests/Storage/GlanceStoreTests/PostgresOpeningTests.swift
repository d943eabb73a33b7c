import Foundation
import GlanceCore
import GlancePostgresStore
import GlanceTestSupport
import Testing

/// Addresses, and opening a PostgreSQL store: what is refused, and in which words.
@Suite("PostgreSQL opening", .timeLimit(.minutes(10)))
struct PostgresOpeningTests {
    @Test("an address gives user, host, port, database, container and TLS; messages never show the password")
    func parsing() throws {
        let address = try PostgresAddress(
            parsing: "postgres://render:s%40cret@db.example:6543/photos?container=archive&sslmode=require",
            environment: [:])
        #expect(address.user == "render")
        #expect(address.password == "s@cret")
        #expect(address.host == "db.example")
        #expect(address.port == 6543)
        #expect(address.database == "photos")
        #expect(address.container == "archive")
        #expect(address.tls == .require)
        #expect(address.description == "postgres://render@db.example:6543/photos?container=archive")

        let local = try PostgresAddress(
            parsing: "postgresql://me@127.0.0.1/db", environment: ["PGPASSWORD": "from-env"])
        #expect(local.port == 5432)
        #expect(local.password == "from-env")
        #expect(local.container == nil)
        #expect(local.tls == .disable, "loopback needs no TLS")
        #expect(try PostgresAddress(parsing: "postgres://me@db.example/db", environment: [:]).tls == .prefer)
        #expect(try PostgresAddress(parsing: "postgres://me@[::1]:7000/db", environment: [:]).host == "::1")
    }

    @Test("a host that is a folder names the server's Unix-domain socket, as PostgreSQL's own tools read it")
    func socketForms() throws {
        let query = try PostgresAddress(
            parsing: "postgres://me@/photos?host=/run/postgresql&port=5433&container=c", environment: [:])
        #expect(query.host == "/run/postgresql")
        #expect(query.socketPath == "/run/postgresql/.s.PGSQL.5433")
        #expect(query.database == "photos")
        #expect(query.container == "c")
        #expect(query.tls == .disable, "a socket is on this machine")
        #expect(query.description == "postgres://me@/photos?host=/run/postgresql&port=5433&container=c")
        #expect(query.serverDescription == "/run/postgresql/.s.PGSQL.5433")

        let encoded = try PostgresAddress(parsing: "postgres://me@%2Fvar%2Frun%2Fpostgresql/db", environment: [:])
        #expect(encoded.socketPath == "/var/run/postgresql/.s.PGSQL.5432")
        let reparsed = try PostgresAddress(parsing: query.description, environment: [:])
        #expect(reparsed == query, "what a message shows can be given back")

        let network = try PostgresAddress(parsing: "postgres://me@db.example:6543/db", environment: [:])
        #expect(network.socketPath == nil)
        #expect(network.serverDescription == "db.example:6543")
    }

    @Test(
        "a malformed address is refused with what is wrong",
        arguments: [
            ("postgres://127.0.0.1/db", "names no user"),
            ("postgres://me@127.0.0.1", "names no database"),
            ("postgres://me@127.0.0.1/db?colour=blue", "unknown parameter 'colour'"),
            ("postgres://me@127.0.0.1/db?sslmode=maybe", "sslmode=maybe"),
            ("postgres://me@127.0.0.1:99999/db", "out of range"),
            ("postgres://me@/db?host=run/postgresql", "absolute path"),
            ("postgres://me@db.example/db?host=/run/postgresql", "both a host and host="),
            ("postgres://me@/db?host=/run/postgresql&port=five", "port=five is not a number"),
            ("postgres://me@127.0.0.1:5433/db?port=5434", "both :PORT and port="),
            ("postgres://me@/db?host=/run/postgresql&sslmode=require", "not encrypted"),
            ("postgres://me@/db", "names no host"),
        ])
    func malformed(address: String, reason: String) {
        let error = #expect(throws: StoreError.self) { try PostgresAddress(parsing: address, environment: [:]) }
        #expect(error?.kind == .invalid)
        #expect(error?.message.contains(reason) == true, "\(error?.message ?? "")")
        #expect(error?.message.contains("postgres://USER@HOST:PORT/DATABASE") == true)
    }

    @Test("a password in a malformed address is not repeated in the error")
    func redacted() {
        let error = #expect(throws: StoreError.self) {
            try PostgresAddress(parsing: "postgres://me:hunter2@127.0.0.1", environment: [:])
        }
        #expect(error?.description.contains("hunter2") == false)
        #expect(error?.description.contains("me:***@127.0.0.1") == true)
        // Given without escapes, a password may hold '@', ':' and '/': none of it is shown.
        let unescaped = #expect(throws: StoreError.self) {
            try PostgresAddress(parsing: "postgres://odd:p@ss:w/rd%25?#x@127.0.0.1:5432/db", environment: [:])
        }
        #expect(unescaped?.description.contains("ss:w") == false, "\(unescaped?.description ?? "")")
        #expect(unescaped?.description.contains("odd:***@127.0.0.1:5432/db") == true)
    }

    @Test("a password is %-decoded once: %25 is a '%', and a stray % is kept, not the password lost")
    func passwordDecodedOnce() throws {
        let once = try PostgresAddress(parsing: "postgres://me:a%2541b@127.0.0.1/db", environment: [:])
        #expect(once.password == "a%41b")
        let percent = try PostgresAddress(parsing: "postgres://me:100%25@127.0.0.1/db", environment: [:])
        #expect(percent.password == "100%")
        // A % that starts no escape is taken as it stands (it was dropped, and PGPASSWORD used).
        let stray = try PostgresAddress(
            parsing: "postgres://me:S3cret%zzPw@127.0.0.1/db", environment: ["PGPASSWORD": "x"])
        #expect(stray.password == "S3cret%zzPw")
    }

    @Test("no server at the address: unavailable, naming host and port")
    func noServer() async throws {
        // A port the kernel just called free: nothing listens there.
        let port = PostgresServer.freePort()
        let address = try PostgresAddress(parsing: "postgres://glance@127.0.0.1:\(port)/postgres", environment: [:])
        // It fails rather than retrying for ever (the pool would; opening probes one connection).
        let error = await #expect(throws: StoreError.self) { try await PostgresStore.open(address, container: "c") }
        #expect(error?.kind == .unavailable)
        #expect(error?.message.contains("127.0.0.1:\(port)") == true, "\(error?.message ?? "")")
    }

    @Test("a database that does not exist: unavailable, with how to create it")
    func noDatabase() async throws {
        let server = try await PostgresServer.running()
        let address = try PostgresAddress(
            parsing: "postgres://glance@127.0.0.1:\(server.port)/no_such_db", environment: [:])
        let error = await #expect(throws: StoreError.self) { try await PostgresStore.open(address, container: "c") }
        #expect(error?.kind == .unavailable)
        #expect(error?.message.contains("createdb no_such_db") == true, "\(error?.message ?? "")")
    }

    @Test("a schema glance holding another program's tables is refused, and left untouched")
    func notAStore() async throws {
        let server = try await PostgresServer.running()
        let address = try await StoreUnderTest.freshDatabase()
        try await server.psql(
            "CREATE SCHEMA glance; CREATE TABLE glance.orders (id int); INSERT INTO glance.orders VALUES (7)",
            database: address.database)
        let error = await #expect(throws: StoreError.self) { try await PostgresStore.open(address, container: "c") }
        #expect(error?.kind == .notAStore)
        #expect(error?.message.contains("orders") == true)
        await #expect(
            try server.psql(
                "SELECT string_agg(table_name, ',') FROM information_schema.tables WHERE table_schema = 'glance'",
                database: address.database) == "orders")
    }

    @Test("a store migrated by a newer Glance is refused")
    func newerSchema() async throws {
        let server = try await PostgresServer.running()
        let address = try await StoreUnderTest.freshDatabase()
        _ = try await PostgresStore.open(address, container: "c")
        try await server.psql(
            "INSERT INTO glance.migration (name) VALUES ('v99: from the future')", database: address.database)
        let error = await #expect(throws: StoreError.self) { try await PostgresStore.open(address, container: "c") }
        #expect(error?.kind == .newerSchema)
    }

    @Test("a store opened through the server's socket holds the same records as one opened over TCP")
    func throughTheSocket() async throws {
        let server = try await PostgresServer.running()
        let overTCP = try await StoreUnderTest.freshDatabase()
        let throughSocket = try PostgresAddress(
            parsing: "postgres://\(server.user)@/\(overTCP.database)?host=\(server.folder)&port=\(server.port)",
            environment: [:])
        #expect(throughSocket.socketPath != nil)
        let local = try await PostgresStore.open(throughSocket, container: "c")
        try await local.save(Fixtures.record("a.pdf"), thumbnails: [Fixtures.image(byteCount: 12)])
        let remote = try await PostgresStore.open(overTCP, container: "c")
        #expect(try await remote.totals() == StoreTotals(documents: [.fresh: 1], thumbnailBytes: 12))
        await local.close()
        await remote.close()

        let missing = try PostgresAddress(
            parsing: "postgres://\(server.user)@/\(overTCP.database)?host=\(server.folder)/nowhere", environment: [:])
        let error = await #expect(throws: StoreError.self) { try await PostgresStore.open(missing, container: "c") }
        #expect(error?.kind == .unavailable)
        #expect(error?.message.contains("\(server.folder)/nowhere/.s.PGSQL.5432") == true, "\(error?.message ?? "")")
    }

    @Test("thumbnail bytes are stored as they are: PostgreSQL does not spend time compressing them again")
    func thumbnailsNotRecompressed() async throws {
        let server = try await PostgresServer.running()
        let address = try await StoreUnderTest.freshDatabase()
        let store = try await PostgresStore.open(address, container: "c")
        // A repeating pattern that pglz would shrink to almost nothing, were it asked to.
        try await store.save(Fixtures.record("a.png"), thumbnails: [Fixtures.image(byteCount: 100_000)])
        await store.close()
        let stored = try await server.psql(
            "SELECT pg_column_size(data), byte_count FROM glance.thumbnail", database: address.database)
        #expect(stored == "100000|100000", "\(stored)")
        await #expect(
            try server.psql("SELECT count(*) FROM glance.migration WHERE name LIKE 'v3:%'", database: address.database)
                == "1")
    }

    @Test("a deleted document takes its thumbnails' rows with it, whoever deletes it; the others' stay")
    func thumbnailsGoWithTheirDocument() async throws {
        let server = try await PostgresServer.running()
        let address = try await StoreUnderTest.freshDatabase()
        let store = try await PostgresStore.open(address, container: "c")
        for (index, name) in ["a.pdf", "b.pdf", "c.pdf", "d.pdf"].enumerated() {
            try await store.save(
                Fixtures.record(name),
                thumbnails: [
                    Fixtures.image(byteCount: 10 + index, seed: UInt8(index)),
                    Fixtures.image(sizeKey: "256x256", byteCount: 5, seed: UInt8(index)),
                ])
        }
        let thumbnailsOf = { (path: String) in
            try await server.psql(
                """
                SELECT count(*) FROM glance.thumbnail t JOIN glance.document d ON d.id = t.document_id
                WHERE d.path = '\(path)'
                """, database: address.database)
        }
        #expect(try await thumbnailsOf("a.pdf") == "2")
        #expect(try await store.removeDocuments(at: ["a.pdf"]).documents == 1)
        // Another client's DELETE of two rows in one statement.
        _ = try await server.psql(
            "DELETE FROM glance.document WHERE path IN ('b.pdf', 'c.pdf')", database: address.database)
        let left = try await server.psql(
            "SELECT count(*), count(DISTINCT document_id) FROM glance.thumbnail", database: address.database)
        #expect(left == "2|1", "\(left)")
        #expect(try await thumbnailsOf("d.pdf") == "2")
        #expect(try await store.totals() == StoreTotals(documents: [.fresh: 1], thumbnailBytes: 18))
        await store.close()
    }

    @Test(
        "statistics far behind the documents' table are brought up to date by the saves, so that no plan is made for an empty table"
    )
    func statisticsKeptUp() async throws {
        let server = try await PostgresServer.running()
        let address = try await StoreUnderTest.freshDatabase()
        let store = try await PostgresStore.open(address, container: "c")
        // Autovacuum off for these tables: only the store may analyze them here.
        _ = try await server.psql(
            """
            ALTER TABLE glance.document SET (autovacuum_enabled = false);
            ALTER TABLE glance.thumbnail SET (autovacuum_enabled = false);
            ANALYZE glance.document, glance.thumbnail
            """, database: address.database)
        let planned = {
            try await server.psql(
                "SELECT reltuples FROM pg_class WHERE oid = 'glance.document'::regclass", database: address.database)
        }
        #expect(try await planned() == "0")
        // The check after the 1,000th save finds the statistics' 0 rows not yet that far behind (the
        // server's count lags its inserts by up to a second); the one after the 2,000th analyzes.
        let count = PostgresStore.statisticsCheckInterval * 5 / 2
        for index in 0..<count {
            try await store.save(Fixtures.record("doc-\(index).pdf"), thumbnails: [Fixtures.image(byteCount: 20)])
        }
        let after = Double(try await planned()) ?? 0
        #expect(after >= Double(count) * 0.6, "reltuples \(after) after \(count) saves")
        #expect(try await store.statisticsBehind().behind == false)
        await store.close()
    }

    @Test("one database holds many containers, each seeing only its own documents")
    func containersApart() async throws {
        let address = try await StoreUnderTest.freshDatabase()
        let photos = try await PostgresStore.open(address, container: "photos")
        let scans = try await PostgresStore.open(address, container: "scans")
        try await photos.save(Fixtures.record("a.pdf"), thumbnails: [Fixtures.image(byteCount: 10)])
        try await scans.save(Fixtures.record("a.pdf", size: 5), thumbnails: [Fixtures.image(byteCount: 30)])
        try await scans.save(Fixtures.record("b.pdf"), thumbnails: [])
        #expect(try await photos.allDocuments().map(\.record.path) == ["a.pdf"])
        #expect(try await photos.totals() == StoreTotals(documents: [.fresh: 1], thumbnailBytes: 10))
        #expect(try await scans.totals() == StoreTotals(documents: [.fresh: 2], thumbnailBytes: 30))
        #expect(
            try await photos.removeDocuments(at: ["a.pdf", "b.pdf"]) == RemovalReport(documents: 1, thumbnailBytes: 10))
        #expect(try await scans.document(at: "a.pdf", includingImageData: false)?.record.identity.size == 5)
        await photos.close()
        await scans.close()
    }
}
