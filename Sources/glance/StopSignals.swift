import Dispatch
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// SIGINT and SIGTERM as something a task can await (the default action, dying at once, would
/// skip the orderly stop).
final class StopSignals: Sendable {
    private let stream: AsyncStream<Int32>
    /// Kept so that the sources live as long as this object.
    private let sources: Mutex<[any DispatchSourceSignal]>

    init() {
        let (stream, continuation) = AsyncStream<Int32>.makeStream()
        self.stream = stream
        var sources: [any DispatchSourceSignal] = []
        for number in [SIGINT, SIGTERM] {
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler { continuation.yield(number) }
            source.resume()
            sources.append(source)
        }
        self.sources = Mutex(sources)
    }

    /// Whether a signal has arrived.
    var received: Bool { arrived.withLock { $0 } }
    private let arrived = Mutex(false)

    /// Returns when the first signal arrives (or the waiting task is cancelled).
    func next() async {
        for await _ in stream {
            arrived.withLock { $0 = true }
            return
        }
    }
}
