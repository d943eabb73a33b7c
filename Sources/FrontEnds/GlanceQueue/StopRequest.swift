/// What tells a long-running loop of this module to stop (SIGINT and SIGTERM, for the command
/// line): polled between steps, and awaited so that work under way can be cut short at once.
public protocol StopRequest: Sendable {
    /// Whether the stop has been asked for.
    var isRequested: Bool { get }
    /// Returns once the stop is asked for (at once if it has been), or when the waiting task is
    /// cancelled.
    func wait() async
}
