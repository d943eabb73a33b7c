import Foundation
import GlanceCore
import GlancePostgresStore
import GlanceTestSupport
import Testing

/// Addresses, and opening a PostgreSQL store: what is refused, and in which words.
@Suite("PostgreSQL opening")
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

    @Test(
        "a malformed address is refused with what is wrong",
        arguments: [
            ("postgres://127.0.0.1/db", "names no user"),
            ("postgres://me@127.0.0.1", "names no database"),
            ("postgres://me@127.0.0.1/db?colour=blue", "unknown parameter 'colour'"),
            ("postgres://me@127.0.0.1/db?sslmode=maybe", "sslmode=maybe"),
            ("postgres://me@127.0.0.1:99999/db", "out of range"),
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
        let server = try PostgresServer.running()
        let address = try PostgresAddress(
            parsing: "postgres://glance@127.0.0.1:\(server.port)/no_such_db", environment: [:])
        let error = await #expect(throws: StoreError.self) { try await PostgresStore.open(address, container: "c") }
        #expect(error?.kind == .unavailable)
        #expect(error?.message.contains("createdb no_such_db") == true, "\(error?.message ?? "")")
    }

    @Test("a schema glance holding another program's tables is refused, and left untouched")
    func notAStore() async throws {
        let server = try PostgresServer.running()
        let address = try StoreUnderTest.freshDatabase()
        try server.psql(
            "CREATE SCHEMA glance; CREATE TABLE glance.orders (id int); INSERT INTO glance.orders VALUES (7)",
            database: address.database)
        let error = await #expect(throws: StoreError.self) { try await PostgresStore.open(address, container: "c") }
        #expect(error?.kind == .notAStore)
        #expect(error?.message.contains("orders") == true)
        #expect(
            try server.psql(
                "SELECT string_agg(table_name, ',') FROM information_schema.tables WHERE table_schema = 'glance'",
                database: address.database) == "orders")
    }

    @Test("a store migrated by a newer Glance is refused")
    func newerSchema() async throws {
        let server = try PostgresServer.running()
        let address = try StoreUnderTest.freshDatabase()
        _ = try await PostgresStore.open(address, container: "c")
        try server.psql(
            "INSERT INTO glance.migration (name) VALUES ('v99: from the future')", database: address.database)
        let error = await #expect(throws: StoreError.self) { try await PostgresStore.open(address, container: "c") }
        #expect(error?.kind == .newerSchema)
    }

    @Test("one database holds many containers, each seeing only its own documents")
    func containersApart() async throws {
        let address = try StoreUnderTest.freshDatabase()
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
