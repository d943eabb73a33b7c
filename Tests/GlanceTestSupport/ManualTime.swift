import GlanceCore
import Synchronization

/// A time a test moves by hand: it starts at the continuous clock's now and stands still until
/// ``advance(by:)`` moves it, so that a test steps past an interval instead of sleeping through it.
public final class ManualTime: Sendable {
    private let instant = Mutex(ContinuousClock.now)

    public init() {}

    /// Moves the time on by `duration`.
    public func advance(by duration: Duration) {
        instant.withLock { $0 += duration }
    }

    /// The source a component reads this time from.
    public var source: TimeSource {
        TimeSource { [self] in self.instant.withLock { $0 } }
    }
}
