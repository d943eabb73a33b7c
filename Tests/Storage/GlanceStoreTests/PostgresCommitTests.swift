import Foundation
import GlanceCore
import GlanceTestSupport
import Testing

@testable import GlancePostgresStore

/// A queue worker's store defers its commits (`synchronous_commit = off` on its connections);
/// every other store's commits wait for the log's flush, and the folder's token always does.
@Suite("PostgreSQL commit durability", .timeLimit(.minutes(10)))
struct PostgresCommitTests {
    @Test("deferred commits are the worker's store's (and its siblings'); flushed is the default; one plan a statement")
    func durability() async throws {
        let address = try await StoreUnderTest.freshDatabase()
        // The tests' server defers every commit for speed; this database flushes them, as a
        // production server does.
        let server = try await PostgresServer.running()
        _ = try await server.psql("ALTER DATABASE \(address.database) SET synchronous_commit = on")
        let flushed = try await PostgresStore.open(address, container: "c")
        let deferred = try await PostgresStore.open(address, container: "c", commits: .deferred)
        #expect(try await flushed.rows("SHOW synchronous_commit").first?.decode(String.self) == "on")
        #expect(try await deferred.rows("SHOW synchronous_commit").first?.decode(String.self) == "off")
        #expect(
            try await deferred.sibling(container: "d").rows("SHOW synchronous_commit").first?.decode(String.self)
                == "off")
        // One plan a prepared statement, from its first run, on every store's connections.
        #expect(try await flushed.rows("SHOW plan_cache_mode").first?.decode(String.self) == "force_generic_plan")
        #expect(try await deferred.rows("SHOW plan_cache_mode").first?.decode(String.self) == "force_generic_plan")
        await flushed.close()
        await deferred.close()
    }
}
