import GlancePostgresStore
import Synchronization

/// The jobs a worker is rendering: what its heartbeat renews, and what a lease that hands one of
/// them back is not started for again.
///
/// A job's lease can run out while its document still renders here: the database was away for
/// longer than the lease, and no heartbeat reached it. The next lease statement may then hand
/// the same job to this host again (same token, one more attempt). It is the job in hand, not a
/// new one: the render under way completes it under the token both share.
final class JobsInHand: Sendable {
    private let ids = Mutex(Set<Int64>())

    /// The jobs of `leased` that are not in hand, now in hand; the others are left out.
    func take(_ leased: [QueuedJob]) -> [QueuedJob] {
        ids.withLock { held in leased.filter { held.insert($0.id).inserted } }
    }

    /// Job `id` is no longer in hand (done, given back or cancelled).
    func finish(_ id: Int64) {
        _ = ids.withLock { held in held.remove(id) }
    }

    /// The ids in hand, in order.
    var held: [Int64] { ids.withLock { held in held.sorted() } }
}
