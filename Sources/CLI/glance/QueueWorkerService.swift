import GlanceQueue
import ServiceLifecycle
import Synchronization

/// `glance worker`'s main part as a service: the queue worker runs until it is idle (with
/// `--exit-when-idle`) or the process shuts down, which it hears as its ``StopRequest`` (it then
/// gives back what it has not finished). Keeps the worker's tally for the command to print.
final class QueueWorkerService: Service, Sendable {
    private let worker: QueueWorker
    private let stop = ShutdownRequest()
    private let result = Mutex<QueueWorker.Tally?>(nil)

    init(worker: QueueWorker) {
        self.worker = worker
    }

    /// What the worker did, once it has returned.
    var tally: QueueWorker.Tally? { result.withLock { $0 } }

    func run() async throws {
        let stop = stop
        try await withGracefulShutdownHandler {
            let tally = try await worker.run(stop: stop)
            result.withLock { $0 = tally }
        } onGracefulShutdown: {
            stop.flag.store(true, ordering: .sequentiallyConsistent)
        }
    }
}

/// The process's graceful shutdown as the queue worker's ``StopRequest``.
final class ShutdownRequest: StopRequest {
    let flag = Atomic<Bool>(false)

    var isRequested: Bool { flag.load(ordering: .sequentiallyConsistent) }

    /// Returns when the shutdown begins (or the waiting task is cancelled): the service's task
    /// and the tasks it starts hear it through ServiceLifecycle's task-local shutdown.
    func wait() async {
        try? await gracefulShutdown()
    }
}
