import Dispatch
import Synchronization

/// How a task stops one of the watcher's own threads (the inotify reader, the hook listener):
/// a flag the thread polls between waits, and the signal it gives when it has ended.
final class ThreadStop: Sendable {
    /// Set to ask the thread to end.
    let stopping = Atomic<Bool>(false)
    /// Signalled by the thread as it ends.
    let finished = DispatchSemaphore(value: 0)
}
