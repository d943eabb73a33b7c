import GlancePostgresStore
import Testing

@testable import GlanceQueue

/// What a worker holds: a job leased again while it renders here is not started twice.
@Suite("Jobs in hand")
struct JobsInHandTests {
    private func job(_ id: Int64, attempts: Int = 1) -> QueuedJob {
        QueuedJob(id: id, container: "c", root: "/srv/c", path: "doc-\(id).pdf", force: false, attempts: attempts)
    }

    @Test("a lease that hands back a job in hand (its lease ran out while it rendered) starts only the new ones")
    func leasedAgain() {
        let hand = JobsInHand()
        #expect(hand.take([job(7), job(3)]).map(\.id) == [7, 3])
        #expect(hand.held == [3, 7])
        // The database was away longer than the lease: job 7 comes back with one more attempt.
        #expect(hand.take([job(7, attempts: 2), job(9)]).map(\.id) == [9])
        #expect(hand.held == [3, 7, 9])
        // Once finished it is not in hand: a later lease of it (another try) starts it.
        hand.finish(7)
        #expect(hand.held == [3, 9])
        #expect(hand.take([job(7, attempts: 3)]).map(\.id) == [7])
    }
}
