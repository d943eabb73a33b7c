import Synchronization

/// A flag raised once and read from any task or thread: an event stream whose credential ended,
/// a connection whose client sent its end.
final class Flag: Sendable {
    private let raised = Atomic<Bool>(false)

    /// Raises the flag (for good).
    func raise() { raised.store(true, ordering: .releasing) }

    /// Whether the flag was raised.
    var isRaised: Bool { raised.load(ordering: .acquiring) }
}
