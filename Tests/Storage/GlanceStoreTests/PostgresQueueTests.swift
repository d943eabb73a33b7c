import Foundation
import GlanceCore
import GlancePostgresStore
import GlanceTestSupport
import Synchronization
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// The job queue in PostgreSQL: priorities, leases, expiry, attempts.
@Suite("PostgreSQL job queue", .timeLimit(.minutes(10)))
struct PostgresQueueTests {
    func lease(_ seconds: Double) -> Lease {
        Lease(token: UUID().uuidString, host: "host-\(UUID().uuidString.prefix(4))", pid: 1, seconds: seconds)
    }

    @Test("on-save jobs go first, then batch jobs oldest first; two leases never share a job")
    func priorities() async throws {
        let store = try await PostgresStore.open(try StoreUnderTest.freshDatabase(), container: "c")
        #expect(try await store.enqueue(["b1", "b2", "b3"], root: "/srv/c", priority: .batch) == 3)
        #expect(try await store.enqueue(["saved"], root: "/srv/c", priority: .onSave) == 1)
        // Saved again while waiting: still one job, now urgent.
        #expect(try await store.enqueue(["b3", "b3"], root: "/srv/c", priority: .onSave) == 0)
        let first = lease(60)
        let second = lease(60)
        let taken = try await store.lease(limit: 2, under: first, maxAttempts: 3)
        #expect(Set(taken.map(\.path)) == ["saved", "b3"])
        let rest = try await store.lease(limit: 5, under: second, maxAttempts: 3)
        #expect(rest.map(\.path) == ["b1", "b2"])
        #expect(try await store.lease(limit: 5, under: second, maxAttempts: 3).isEmpty)
        #expect(taken.allSatisfy { $0.root == "/srv/c" && $0.attempts == 1 })
        for job in taken { #expect(try await store.complete(job, under: first)) }
        // A lease that no longer holds a job cannot complete it.
        #expect(try await store.complete(rest[0], under: first) == false)
        let counts = try await store.queueCounts()
        #expect(counts.byState == [.done: 2, .leased: 2])
        #expect(counts.lastMinuteByHost == [first.host: 2])
        await store.close()
    }

    @Test("the lease reads each job's record: the worker's first look at it is answered from the lease, once")
    func leaseCarriesTheRecord() async throws {
        let address = try await StoreUnderTest.freshDatabase()
        let store = try await PostgresStore.open(address, container: "c")
        let record = Fixtures.record("known.pdf")
        let images = [Fixtures.image(byteCount: 500, seed: 4), Fixtures.image(sizeKey: "256x256", byteCount: 90)]
        try await store.save(record, thumbnails: images)
        try await store.enqueue(["known.pdf", "new.pdf"], root: "/srv/c", priority: .batch)
        let holder = lease(60)
        let jobs = try await store.lease(limit: 2, under: holder, maxAttempts: 3)
        #expect(jobs.map(\.path) == ["known.pdf", "new.pdf"])
        // The record changes after the lease read it (another host's save, say).
        let server = try await PostgresServer.running()
        _ = try await server.psql(
            "UPDATE glance.document SET error = 'changed since' WHERE path = 'known.pdf'", database: address.database)
        let worker = store.sibling(container: "c")
        for job in jobs { #expect(worker.completeWithSave(job, under: holder)) }
        let first = try await worker.document(at: "known.pdf", includingImageData: false)
        #expect(first == StoredDocument(record: record, thumbnails: images.map(Fixtures.withoutData)))
        #expect(try await worker.document(at: "new.pdf", includingImageData: false) == nil)
        // Once only; reads with bytes always ask the database.
        #expect(try await worker.document(at: "known.pdf", includingImageData: false)?.record.error == "changed since")
        #expect(try await worker.document(at: "known.pdf", includingImageData: true)?.thumbnails == images)
        await store.close()
    }

    @Test(
        "a save that completes a job leases the worker's next one; the next lease takes it; unstarted ones go back as they were"
    )
    func saveLeasesAhead() async throws {
        let address = try await StoreUnderTest.freshDatabase()
        let store = try await PostgresStore.open(address, container: "c")
        try await store.save(Fixtures.record("b.pdf"), thumbnails: [Fixtures.image()])
        try await store.enqueue(["a.pdf", "b.pdf", "c.pdf"], root: "/srv/c", priority: .batch)
        let holder = lease(60)
        let first = try #require(try await store.lease(limit: 1, under: holder, maxAttempts: 3).first)
        #expect(first.path == "a.pdf")
        let worker = store.sibling(container: "c")
        let ahead = LeaseAhead(limit: 1, maxAttempts: 3, onlyContainer: nil)
        #expect(worker.completeWithSave(first, under: holder, leasingAhead: ahead))
        try await worker.save(Fixtures.record("a.pdf"), thumbnails: [Fixtures.image(seed: 2)])
        #expect(worker.takeCompletion(of: first))
        let server = try await PostgresServer.running()
        let states = { () async throws -> String in
            try await server.psql(
                "SELECT string_agg(path || ':' || state || ':' || attempts, ' ' ORDER BY path) FROM glance.job",
                database: address.database)
        }
        #expect(try await states() == "a.pdf:done:1 b.pdf:leased:1 c.pdf:pending:0", "the save leased b.pdf")
        // A heartbeat renews the job leased ahead, though the worker does not hold it yet.
        _ = try await server.psql(
            "UPDATE glance.job SET lease_expires = now() - interval '1 second' WHERE path = 'b.pdf'",
            database: address.database)
        try await store.renewJobs(holder, holding: [])
        await #expect(
            try server.psql(
                "SELECT lease_expires > now() FROM glance.job WHERE path = 'b.pdf'", database: address.database) == "t")
        // The next lease takes it without asking the database, with its record read by the save.
        let second = try #require(try await store.lease(limit: 5, under: holder, maxAttempts: 3).first)
        #expect(second.path == "b.pdf")
        #expect(worker.completeWithSave(second, under: holder, leasingAhead: ahead))
        #expect(try await worker.document(at: "b.pdf", includingImageData: false)?.thumbnails.count == 1)
        // Found fresh, not saved: completed on its own; then a save leases c.pdf, never started.
        #expect(worker.takeCompletion(of: second) == false)
        #expect(try await store.complete(second, under: holder))
        try await store.enqueue(["d.pdf"], root: "/srv/c", priority: .batch)
        let third = try #require(try await store.lease(limit: 1, under: holder, maxAttempts: 3).first)
        #expect(worker.completeWithSave(third, under: holder, leasingAhead: ahead))
        try await worker.save(Fixtures.record(third.path), thumbnails: [Fixtures.image(seed: 3)])
        _ = worker.takeCompletion(of: third)
        #expect(try await states() == "a.pdf:done:1 b.pdf:done:1 c.pdf:done:1 d.pdf:leased:1")
        try await store.returnUnstarted(store.takeJobsLeasedAhead(), under: holder)
        #expect(try await states() == "a.pdf:done:1 b.pdf:done:1 c.pdf:done:1 d.pdf:pending:0")
        #expect(try await store.lease(limit: 5, under: holder, maxAttempts: 3).map(\.path) == ["d.pdf"])
        await store.close()
    }

    @Test("an expired lease is taken over; a heartbeat keeps the jobs it names; a job ends failed after its attempts")
    func expiryAndAttempts() async throws {
        let store = try await PostgresStore.open(try StoreUnderTest.freshDatabase(), container: "c")
        try await store.enqueue(["one", "two"], root: "/srv/c", priority: .batch)
        var holder = lease(-1)  // expired the moment it is taken
        let jobs = try await store.lease(limit: 2, under: holder, maxAttempts: 2)
        #expect(jobs.count == 2)
        // A heartbeat with a real duration moves the expiry of the jobs the host says it holds:
        // another lease finds only the one it did not name.
        holder.seconds = 3600
        try await store.renewJobs(holder, holding: [jobs[0].id])
        #expect(try await store.lease(limit: 5, under: lease(60), maxAttempts: 2).map(\.path) == ["two"])
        #expect(try await store.lease(limit: 5, under: lease(60), maxAttempts: 2).isEmpty)

        // Lapsing leases: the second expiry of a job with two attempts allowed fails it.
        let again = try await PostgresStore.open(try StoreUnderTest.freshDatabase(), container: "c")
        try await again.enqueue(["doomed"], root: "/srv/c", priority: .batch)
        #expect(try await again.lease(limit: 1, under: lease(-1), maxAttempts: 2).map(\.attempts) == [1])
        #expect(try await again.lease(limit: 1, under: lease(-1), maxAttempts: 2).map(\.attempts) == [2])
        #expect(try await again.lease(limit: 1, under: lease(60), maxAttempts: 2).isEmpty)
        #expect(try await again.queueCounts().byState == [.failed: 1])
        await store.close()
        await again.close()
    }

    @Test("a job whose lease ran out while its host still holds it is neither failed nor leased again by that host")
    func heldJobsAreSpared() async throws {
        let store = try await PostgresStore.open(try StoreUnderTest.freshDatabase(), container: "c")
        try await store.enqueue(["held", "dropped"], root: "/srv/c", priority: .batch)
        // Both on their last attempt, their leases run out at once (the database away).
        let holder = lease(-1)
        let jobs = try await store.lease(limit: 2, under: holder, maxAttempts: 1)
        #expect(jobs.map(\.path) == ["held", "dropped"])
        // The host still renders "held": its next lease spares it; "dropped" ends failed.
        #expect(try await store.lease(limit: 5, under: holder, maxAttempts: 1, holding: [jobs[0].id]).isEmpty)
        let states = try await PostgresServer.running().psql(
            "SELECT string_agg(path || ':' || state, ' ' ORDER BY path) FROM glance.job",
            database: store.address.database)
        #expect(states == "dropped:failed held:leased")
        await store.close()
    }

    @Test("a save's lease ahead spares the other jobs its host holds, asked when the save is sent")
    func saveLeaseSparesHeldJobs() async throws {
        let address = try await StoreUnderTest.freshDatabase()
        let store = try await PostgresStore.open(address, container: "c")
        try await store.enqueue(["saved", "held", "dropped", "next"], root: "/srv/c", priority: .batch)
        // Three on their last attempt, their leases run out at once (the database away).
        let holder = lease(-1)
        let jobs = try await store.lease(limit: 3, under: holder, maxAttempts: 1)
        #expect(jobs.map(\.path) == ["saved", "held", "dropped"])
        let worker = store.sibling(container: "c")
        let inHand = Mutex<[Int64]>([])
        let ahead = LeaseAhead(limit: 1, maxAttempts: 1, onlyContainer: nil, holding: { inHand.withLock { $0 } })
        #expect(worker.completeWithSave(jobs[0], under: holder, leasingAhead: ahead))
        // The host takes "held" after registering the save: the set is read when it is sent.
        inHand.withLock { $0 = [jobs[0].id, jobs[1].id] }
        try await worker.save(Fixtures.record("saved"), thumbnails: [Fixtures.image()])
        #expect(worker.takeCompletion(of: jobs[0]))
        let states = try await PostgresServer.running().psql(
            "SELECT string_agg(path || ':' || state, ' ' ORDER BY path) FROM glance.job", database: address.database)
        #expect(states == "dropped:failed held:leased next:leased saved:done")
        #expect(try await store.takeJobsLeasedAhead().map(\.path) == ["next"])
        await store.close()
    }

    @Test("a job given back returns to the queue with the reason, and fails after its attempts")
    func givenBack() async throws {
        let store = try await PostgresStore.open(try StoreUnderTest.freshDatabase(), container: "c")
        try await store.enqueue(["unreadable"], root: "/mnt/missing", priority: .batch)
        let first = lease(60)
        let job = try #require(try await store.lease(limit: 1, under: first, maxAttempts: 2).first)
        try await store.giveBack(job, under: first, error: "cannot open the folder", maxAttempts: 2)
        #expect(try await store.queueCounts().byState == [.pending: 1])
        // The host that gave it back leaves it to others for a lease's length.
        var sameHost = lease(60)
        sameHost.host = first.host
        #expect(try await store.lease(limit: 1, under: sameHost, maxAttempts: 2).isEmpty)
        let second = lease(60)
        let retried = try #require(try await store.lease(limit: 1, under: second, maxAttempts: 2).first)
        #expect(retried.attempts == 2)
        try await store.giveBack(retried, under: second, error: "cannot open the folder", maxAttempts: 2)
        #expect(try await store.queueCounts().byState == [.failed: 1])
        await store.close()
    }

    @Test("a host that gave a job back takes it again once its lease's length has passed")
    func givenBackRetriedLater() async throws {
        let store = try await PostgresStore.open(try StoreUnderTest.freshDatabase(), container: "c")
        try await store.enqueue(["flaky"], root: "/mnt/flaky", priority: .batch)
        let only = lease(1)
        let job = try #require(try await store.lease(limit: 1, under: only, maxAttempts: 3).first)
        try await store.giveBack(job, under: only, error: "the mount was not there", maxAttempts: 3)
        #expect(try await store.lease(limit: 1, under: only, maxAttempts: 3).isEmpty)
        // Taken again once it may be (not before: above); the limit is a hang guard.
        var taken: QueuedJob?
        try await eventually(
            "the job given back leased again", within: .seconds(30), pollEvery: .milliseconds(50)
        ) {
            taken = try await store.lease(limit: 1, under: only, maxAttempts: 3).first
            return taken != nil
        }
        let again = try #require(taken)
        #expect(again.id == job.id && again.attempts == 2)
        await store.close()
    }

    @Test("a job registered with its document's save is done by that save; a sibling store shares the pool")
    func completedWithSave() async throws {
        let queue = try await PostgresStore.open(try StoreUnderTest.freshDatabase(), container: "")
        let store = queue.sibling(container: "c")
        try await store.enqueue(["a.pdf", "b.pdf"], root: "/srv/c", priority: .batch)
        let holder = lease(60)
        let jobs = try await queue.lease(limit: 2, under: holder, maxAttempts: 3)
        #expect(jobs.map(\.path) == ["a.pdf", "b.pdf"])
        let (a, b) = (jobs[0], jobs[1])
        #expect(store.completeWithSave(a, under: holder))
        // One registration a path: a second job of the same document is completed on its own.
        #expect(store.completeWithSave(a, under: holder) == false)
        try await store.save(Fixtures.record("a.pdf"), thumbnails: [Fixtures.image()])
        #expect(store.takeCompletion(of: a), "the save marked the job done")
        #expect(try await queue.queueCounts(allContainers: true).byState == [.done: 1, .leased: 1])
        #expect(try await store.document(at: "a.pdf", includingImageData: true)?.thumbnails.first?.data?.count == 300)

        // A save under a lease that no longer holds the job records the document, not the job.
        #expect(store.completeWithSave(b, under: lease(60)))
        try await store.save(Fixtures.record("b.pdf"), thumbnails: [Fixtures.image()])
        #expect(store.takeCompletion(of: b) == false)
        #expect(try await queue.queueCounts(allContainers: true).byState == [.done: 1, .leased: 1])
        #expect(try await store.complete(b, under: holder))
        // Registered but never saved: nothing was done by a save.
        #expect(store.completeWithSave(b, under: holder))
        #expect(store.takeCompletion(of: b) == false)
        // The sibling's close leaves the pool to its opener.
        await store.close()
        #expect(try await queue.queueCounts(allContainers: true).byState == [.done: 2])
        await queue.close()
    }
}
