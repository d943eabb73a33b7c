import Synchronization

/// What an idle worker waits on between looks at the queue: rung when jobs are queued (the
/// database's notification), when the worker is told to stop, or when the wait's time is up.
/// A ring with no one waiting is kept for the next wait.
final class JobsBell: Sendable {
    private struct State {
        var rung = false
        var waiter: CheckedContinuation<Void, Never>?
    }

    private let state = Mutex(State())

    /// Wakes the waiter, or the next one.
    func ring() {
        let waiter = state.withLock { state -> CheckedContinuation<Void, Never>? in
            guard let waiter = state.waiter else {
                state.rung = true
                return nil
            }
            state.waiter = nil
            return waiter
        }
        waiter?.resume()
    }

    /// Returns once the bell rings (at once if it rang since the last wait), or after `limit`.
    func wait(upTo limit: Duration) async {
        let timer = Task {
            try? await Task.sleep(for: limit)
            if !Task.isCancelled { self.ring() }
        }
        await withCheckedContinuation { (waiter: CheckedContinuation<Void, Never>) in
            let now = state.withLock { state -> Bool in
                if state.rung {
                    state.rung = false
                    return true
                }
                state.waiter = waiter
                return false
            }
            if now { waiter.resume() }
        }
        timer.cancel()
    }
}
