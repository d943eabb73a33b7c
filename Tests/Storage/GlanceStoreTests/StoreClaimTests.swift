import Foundation
import GlanceCore
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// Claims under leases: two batches on one container, on one machine or several, must not render
/// the same document twice, and a dead batch's claims must not linger. Run against every store.
@Suite("Store claims", .timeLimit(.minutes(10)))
struct StoreClaimTests {
    /// A lease held by this test process (alive while the test runs).
    let mine = Lease(token: "mine-" + UUID().uuidString, host: Lease.thisHost, pid: getpid(), seconds: 3600)
    /// Another batch that is alive too: the process that started this one.
    let other = Lease(token: "other-" + UUID().uuidString, host: Lease.thisHost, pid: getppid(), seconds: 3600)

    @Test("unclaimed paths are granted; another live lease's claims are not", arguments: StoreKind.allCases)
    func grantedAndRefused(kind: StoreKind) async throws {
        let subject = try await StoreUnderTest(kind)
        let store = subject.store
        #expect(try await store.claim(paths: ["a", "b", "a"], under: mine) == ["a", "b"])
        #expect(try await store.claim(paths: ["b", "c"], under: other) == ["c"])
        // The holder may claim its own paths again (a refresh of their expiry).
        #expect(try await store.claim(paths: ["a", "b", "c"], under: mine) == ["a", "b"])
    }

    @Test("an expired lease is taken over; a renewed one is not", arguments: StoreKind.allCases)
    func expiry(kind: StoreKind) async throws {
        let subject = try await StoreUnderTest(kind)
        let store = subject.store
        // Another machine's leases: their processes cannot be checked, only their expiry. A
        // negative duration makes a claim that has expired the moment it is made.
        let live = Lease(token: "remote", host: "elsewhere.example", pid: 1, seconds: 3600)
        var lapsed = Lease(token: "lapsed", host: "elsewhere.example", pid: 1, seconds: -1)
        #expect(try await store.claim(paths: ["busy.pdf"], under: live) == ["busy.pdf"])
        #expect(try await store.claim(paths: ["slow.pdf"], under: lapsed) == ["slow.pdf"])
        #expect(try await store.claim(paths: ["busy.pdf", "slow.pdf"], under: mine) == ["slow.pdf"])
        // A heartbeat moves the expiry: the lapsed lease, renewed with a real duration, holds.
        #expect(try await store.claim(paths: ["kept.pdf"], under: lapsed) == ["kept.pdf"])
        lapsed.seconds = 3600
        try await store.renew(lapsed)
        #expect(try await store.claim(paths: ["kept.pdf"], under: mine).isEmpty)
    }

    @Test(
        "a claim by a process of this host that is gone is taken over at once, and swept", arguments: StoreKind.allCases
    )
    func deadHolder(kind: StoreKind) async throws {
        let subject = try await StoreUnderTest(kind)
        let store = subject.store
        let dead = await Lease(token: "dead", host: Lease.thisHost, pid: try Fixtures.deadProcessID(), seconds: 3600)
        #expect(try await store.claim(paths: ["x.png", "y.png"], under: dead) == ["x.png", "y.png"])
        #expect(try await store.claim(paths: ["x.png"], under: mine) == ["x.png"])
        try await store.releaseAbandonedClaims()
        // y.png's claim is gone: anyone may take it, the dead lease included.
        #expect(try await store.claim(paths: ["y.png"], under: other) == ["y.png"])
    }

    @Test("saving a document releases its claim; release drops the rest of a lease's", arguments: StoreKind.allCases)
    func release(kind: StoreKind) async throws {
        let subject = try await StoreUnderTest(kind)
        let store = subject.store
        #expect(try await store.claim(paths: ["p", "q", "r"], under: mine) == ["p", "q", "r"])
        try await store.save(Fixtures.record("p"), thumbnails: [Fixtures.image()])
        #expect(try await store.claim(paths: ["p", "q"], under: other) == ["p"])
        try await store.release(mine, paths: ["q"])
        #expect(try await store.claim(paths: ["q", "r"], under: other) == ["q"])
        try await store.release(mine, paths: nil)
        #expect(try await store.claim(paths: ["r"], under: other) == ["r"])
        // Releasing another lease's claims leaves these alone.
        try await store.release(mine, paths: nil)
        #expect(try await store.claim(paths: ["r"], under: mine).isEmpty)
    }

    @Test(
        "claims are seen by every store on the same folder or database, per container key",
        arguments: StoreKind.allCases)
    func sharedBetweenStores(kind: StoreKind) async throws {
        let subject = try await StoreUnderTest(kind)
        let first = subject.store
        let second = try await subject.another()
        let otherContainer = try await subject.another(container: "/srv/other")
        #expect(try await first.claim(paths: ["shared.pdf"], under: mine) == ["shared.pdf"])
        #expect(try await second.claim(paths: ["shared.pdf"], under: other).isEmpty)
        #expect(try await otherContainer.claim(paths: ["shared.pdf"], under: other) == ["shared.pdf"])
    }
}
