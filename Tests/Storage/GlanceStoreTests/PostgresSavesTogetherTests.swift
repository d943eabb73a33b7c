import Foundation
import GlanceCore
import GlancePostgresStore
import GlanceTestSupport
import Testing

/// A worker's saves of batch documents going to the database together: in one statement, never
/// waiting for a save that is not coming, never failing for another document's record.
@Suite("PostgreSQL saves together", .timeLimit(.minutes(10)))
struct PostgresSavesTogetherTests {
    func lease() -> Lease {
        Lease(token: UUID().uuidString, host: "host-\(UUID().uuidString.prefix(4))", pid: 1, seconds: 60)
    }

    /// A store with `paths` queued at `priority` and leased by `holder`, each registered to go
    /// with one other save; the hold limit is far longer than any test waits.
    func registered(
        _ paths: [String], priority: JobPriority = .batch, holder: Lease
    ) async throws -> (PostgresStore, String, [QueuedJob]) {
        let address = try await StoreUnderTest.freshDatabase()
        let store = try await PostgresStore.open(address, container: "c")
        try await store.enqueue(paths, root: "/srv/c", priority: priority)
        let jobs = try await store.lease(limit: paths.count, under: holder, maxAttempts: 3)
        #expect(jobs.map(\.path) == paths)
        for job in jobs {
            #expect(store.completeWithSave(job, under: holder, savesPerCommit: 2, holdLimit: .seconds(120)))
        }
        return (store, address.database, jobs)
    }

    /// The transactions that wrote the documents' rows, one a path.
    func writers(_ database: String) async throws -> [String] {
        let server = try await PostgresServer.running()
        return try await server.psql("SELECT xmin FROM glance.document ORDER BY path", database: database)
            .split(separator: "\n").map(String.init)
    }

    @Test("two batch documents' saves commit in one transaction, and both their jobs are done")
    func twoInOneTransaction() async throws {
        let holder = lease()
        let (store, database, jobs) = try await registered(["a.pdf", "b.pdf"], holder: holder)
        let first = Task { try await store.save(Fixtures.record("a.pdf"), thumbnails: [Fixtures.image(seed: 1)]) }
        try await store.save(
            Fixtures.record("b.pdf", inode: 43),
            thumbnails: [Fixtures.image(seed: 2), Fixtures.image(sizeKey: "256x256", byteCount: 90)])
        try await first.value
        let transactions = try await writers(database)
        #expect(transactions.count == 2 && Set(transactions).count == 1, "one transaction: \(transactions)")
        #expect(jobs.allSatisfy { store.takeCompletion(of: $0) }, "each save marked its own job done")
        #expect(try await store.queueCounts().byState == [.done: 2])
        // Each document has its own thumbnails, as saved alone.
        #expect(
            try await store.document(at: "a.pdf", includingImageData: true)?.thumbnails == [Fixtures.image(seed: 1)])
        let sizes = try await store.document(at: "b.pdf", includingImageData: true)?.thumbnails.map(\.sizeKey)
        #expect(Set(sizes ?? []) == ["256x256", ThumbnailImage.standardSizeKey])
        await store.close()
    }

    @Test("a held save goes as soon as the other registered job ends without a save")
    func heldUntilTheOtherEnds() async throws {
        let holder = lease()
        let (store, database, jobs) = try await registered(["a.pdf", "b.pdf"], holder: holder)
        let first = Task { try await store.save(Fixtures.record("a.pdf"), thumbnails: [Fixtures.image()]) }
        // Held: b.pdf's render might still save.
        try await Task.sleep(for: .milliseconds(500))
        #expect(try await writers(database).isEmpty, "a.pdf waited for b.pdf's save")
        // b.pdf was found fresh (no save): a.pdf goes now, not after the hold limit.
        let ended = ContinuousClock.now
        #expect(store.takeCompletion(of: jobs[1]) == false)
        try await first.value
        #expect(ContinuousClock.now - ended < .seconds(30))
        #expect(try await writers(database).count == 1)
        #expect(store.takeCompletion(of: jobs[0]))
        await store.close()
    }

    @Test("a held save goes alone once its hold limit passes")
    func heldUpToItsLimit() async throws {
        let address = try await StoreUnderTest.freshDatabase()
        let store = try await PostgresStore.open(address, container: "c")
        try await store.enqueue(["a.pdf", "b.pdf"], root: "/srv/c", priority: .batch)
        let holder = lease()
        let jobs = try await store.lease(limit: 2, under: holder, maxAttempts: 3)
        for job in jobs {
            #expect(store.completeWithSave(job, under: holder, savesPerCommit: 2, holdLimit: .seconds(1)))
        }
        let started = ContinuousClock.now
        try await store.save(Fixtures.record("a.pdf"), thumbnails: [Fixtures.image()])
        #expect(ContinuousClock.now - started >= .seconds(1), "it waited for b.pdf's save")
        #expect(store.takeCompletion(of: jobs[0]))
        #expect(try await writers(address.database).count == 1)
        await store.close()
    }

    @Test("an on-save document's save never waits for a batch document's")
    func onSaveGoesAtOnce() async throws {
        let holder = lease()
        let (store, database, jobs) = try await registered(["a.pdf"], priority: .onSave, holder: holder)
        try await store.enqueue(["b.pdf"], root: "/srv/c", priority: .batch)
        let batch = try #require(try await store.lease(limit: 1, under: holder, maxAttempts: 3).first)
        #expect(store.completeWithSave(batch, under: holder, savesPerCommit: 2, holdLimit: .seconds(120)))
        // b.pdf is registered and not saved; a.pdf goes all the same (the test's time limit
        // would end a wait of the hold limit's two minutes... so would this one's).
        let started = ContinuousClock.now
        try await store.save(Fixtures.record("a.pdf"), thumbnails: [Fixtures.image()])
        #expect(ContinuousClock.now - started < .seconds(30))
        #expect(store.takeCompletion(of: jobs[0]))
        #expect(try await writers(database).count == 1)
        _ = store.takeCompletion(of: batch)
        await store.close()
    }

    @Test("a record the database refuses fails its own save; the one held with it is saved")
    func refusedRecordFailsAlone() async throws {
        let holder = lease()
        let (store, database, jobs) = try await registered(["a.pdf", "b.pdf"], holder: holder)
        // PostgreSQL's text takes no NUL character.
        let bad = Task {
            try await store.save(Fixtures.record("a.pdf", error: "cut\u{0}here"), thumbnails: [Fixtures.image()])
        }
        try await store.save(Fixtures.record("b.pdf", inode: 43), thumbnails: [Fixtures.image()])
        await #expect(throws: StoreError.self) { try await bad.value }
        #expect(try await writers(database).count == 1)
        #expect(try await store.document(at: "b.pdf", includingImageData: true)?.record.identity.inode == 43)
        #expect(store.takeCompletion(of: jobs[1]), "b.pdf's job is done")
        #expect(store.takeCompletion(of: jobs[0]) == false, "a.pdf's is left to its worker")
        #expect(try await store.queueCounts().byState == [.done: 1, .leased: 1])
        await store.close()
    }

    @Test("a save leases ahead as many jobs as its worker asked for, less those waiting when it is sent")
    func leasesAheadWhatIsMissingWhenSent() async throws {
        let address = try await StoreUnderTest.freshDatabase()
        let store = try await PostgresStore.open(address, container: "c")
        try await store.enqueue(["a.pdf", "b.pdf", "c.pdf", "d.pdf", "e.pdf"], root: "/srv/c", priority: .batch)
        let holder = lease()
        let jobs = try await store.lease(limit: 2, under: holder, maxAttempts: 3)
        let one = LeaseAhead(limit: 1, maxAttempts: 3, onlyContainer: nil)
        #expect(store.completeWithSave(jobs[0], under: holder, leasingAhead: one))
        try await store.save(Fixtures.record("a.pdf"), thumbnails: [Fixtures.image()])
        _ = store.takeCompletion(of: jobs[0])
        // b.pdf is registered while c.pdf waits, leased ahead by a.pdf's save; c.pdf is taken
        // before b.pdf's save is sent, so that save leases d.pdf.
        #expect(store.completeWithSave(jobs[1], under: holder, leasingAhead: one))
        #expect(try await store.lease(limit: 1, under: holder, maxAttempts: 3).map(\.path) == ["c.pdf"])
        try await store.save(Fixtures.record("b.pdf", inode: 43), thumbnails: [Fixtures.image()])
        _ = store.takeCompletion(of: jobs[1])
        let server = try await PostgresServer.running()
        let leased = try await server.psql(
            "SELECT string_agg(path, ' ' ORDER BY path) FROM glance.job WHERE state = 'leased'",
            database: address.database)
        #expect(leased == "c.pdf d.pdf")
        await store.close()
    }
}
