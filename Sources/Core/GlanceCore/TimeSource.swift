/// Where a component reads the time: the continuous clock, or one a test moves by hand (in the
/// manner of Hummingbird's tests' `MockClock`), so that a test steps time instead of sleeping
/// through it.
public struct TimeSource: Sendable {
    /// The instant now, as this source says it.
    public let now: @Sendable () -> ContinuousClock.Instant

    /// A source that says `now()`.
    public init(now: @escaping @Sendable () -> ContinuousClock.Instant) {
        self.now = now
    }

    /// The continuous clock: the time that passes.
    public static let continuous = TimeSource { ContinuousClock.now }
}
