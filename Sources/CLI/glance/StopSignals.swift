import Dispatch
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// SIGINT and SIGTERM as something a task can await or poll (the default action, dying at once,
/// would skip the orderly stop).
final class StopSignals: Sendable {
    /// Set by the signal's handler, so that ``received`` is true from the moment a signal comes,
    /// whether or not a task awaits ``next()``.
    private final class Arrival: Sendable {
        let flag = Atomic<Bool>(false)
    }

    private let stream: AsyncStream<Int32>
    private let arrival = Arrival()
    /// Kept so that the sources live as long as this object.
    private let sources: Mutex<[any DispatchSourceSignal]>

    init() {
        let (stream, continuation) = AsyncStream<Int32>.makeStream()
        self.stream = stream
        let arrival = self.arrival
        var sources: [any DispatchSourceSignal] = []
        for number in [SIGINT, SIGTERM] {
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler {
                arrival.flag.store(true, ordering: .sequentiallyConsistent)
                continuation.yield(number)
            }
            source.resume()
            sources.append(source)
        }
        self.sources = Mutex(sources)
    }

    /// Whether a signal has arrived.
    var received: Bool { arrival.flag.load(ordering: .sequentiallyConsistent) }

    /// Returns when the first signal arrives (at once if one has), or when the waiting task is
    /// cancelled.
    func next() async {
        if received { return }
        for await _ in stream { return }
    }
}
