import Foundation
import GlanceStore
import Testing

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Claims: two batches on one container must not render the same document twice.
@Suite("Sidecar claims")
struct SidecarClaimTests {
    /// This test process: alive for as long as the test runs.
    let livePID = getpid()
    /// Another batch that is alive too: the process that started this one.
    let otherPID = getppid()

    @Test("unclaimed paths are granted; another live process's fresh claims are not")
    func grantedAndRefused() throws {
        #expect(otherPID != livePID)
        let folder = try TemporaryFolder()
        let store = try SidecarStore(directory: folder.path)
        #expect(try store.claim(paths: ["a", "b", "a"], pid: livePID, staleAfterSeconds: 3600) == ["a", "b"])
        #expect(try store.claim(paths: ["b", "c"], pid: otherPID, staleAfterSeconds: 3600) == ["c"])
        // The claimant may claim its own paths again (a refresh).
        #expect(try store.claim(paths: ["a", "b", "c"], pid: livePID, staleAfterSeconds: 3600) == ["a", "b"])
    }

    @Test("a claim older than the limit is taken over")
    func staleByAge() throws {
        let folder = try TemporaryFolder()
        let store = try SidecarStore(directory: folder.path)
        #expect(try store.claim(paths: ["slow.pdf"], pid: livePID, staleAfterSeconds: 3600) == ["slow.pdf"])
        Thread.sleep(forTimeInterval: 0.05)
        #expect(try store.claim(paths: ["slow.pdf"], pid: otherPID, staleAfterSeconds: 3600).isEmpty)
        #expect(try store.claim(paths: ["slow.pdf"], pid: otherPID, staleAfterSeconds: 0.01) == ["slow.pdf"])
        // Now the other process holds it, freshly.
        #expect(try store.claim(paths: ["slow.pdf"], pid: livePID, staleAfterSeconds: 3600).isEmpty)
    }

    @Test("a claim by a process that is gone is taken over at once")
    func staleByDeadProcess() throws {
        let folder = try TemporaryFolder()
        let store = try SidecarStore(directory: folder.path)
        let deadPID = try Fixtures.deadProcessID()
        #expect(
            try store.claim(paths: ["x.png", "y.png"], pid: deadPID, staleAfterSeconds: 3600) == ["x.png", "y.png"])
        #expect(
            try store.claim(paths: ["x.png", "y.png"], pid: livePID, staleAfterSeconds: 3600) == ["x.png", "y.png"])
        #expect(try store.claim(paths: ["x.png"], pid: deadPID, staleAfterSeconds: 3600).isEmpty)
    }

    @Test("saving a document releases its claim; releaseClaims drops the rest of a batch's")
    func release() throws {
        let folder = try TemporaryFolder()
        let store = try SidecarStore(directory: folder.path)
        #expect(try store.claim(paths: ["p", "q", "r"], pid: livePID, staleAfterSeconds: 3600) == ["p", "q", "r"])
        try store.save(Fixtures.record("p"), thumbnails: [Fixtures.image()])
        #expect(try store.claim(paths: ["p", "q"], pid: otherPID, staleAfterSeconds: 3600) == ["p"])

        try store.releaseClaims(pid: livePID)
        #expect(try store.claim(paths: ["q", "r"], pid: otherPID, staleAfterSeconds: 3600) == ["q", "r"])
        // Releasing another batch's claims leaves these alone.
        try store.releaseClaims(pid: livePID)
        #expect(try store.claim(paths: ["q"], pid: livePID, staleAfterSeconds: 3600).isEmpty)
    }

    @Test("claims are seen by every store on the same folder")
    func sharedBetweenStores() throws {
        let folder = try TemporaryFolder()
        let first = try SidecarStore(directory: folder.path)
        let second = try SidecarStore(directory: folder.path)
        #expect(try first.claim(paths: ["shared.pdf"], pid: livePID, staleAfterSeconds: 3600) == ["shared.pdf"])
        #expect(try second.claim(paths: ["shared.pdf"], pid: otherPID, staleAfterSeconds: 3600).isEmpty)
    }
}
