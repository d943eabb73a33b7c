import Synchronization

/// The previews (pages drawn larger, and texts decoded for reading) that wait to be handed to
/// the renderer pool, with bounds, and turns taken fairly between clients.
///
/// Only ``running`` renders are in the pool at once; the others wait here, holding no descriptor
/// of their document (a render opens it when its turn comes). A client (``ClientKey``) may have
/// at most ``perClient`` renders waiting, and all clients together ``capacity``; past that a
/// request is answered `503` with `Retry-After` at once. Turns go round the clients that wait,
/// one render each, so that a client that asked for hundreds of pages delays another's one page
/// by at most one render per client, not by all of its own. A render whose every requester left
/// is cancelled while it waits (``PreviewsInFlight``), and leaves the queue.
final class PreviewQueue: Sendable {
    /// Renders handed to the pool at once.
    let running: Int
    /// Renders one client may have waiting.
    let perClient: Int
    /// Renders all clients together may have waiting.
    let capacity: Int

    private struct Waiter {
        let id: UInt64
        let continuation: CheckedContinuation<Void, any Error>
    }

    private struct State {
        var running = 0
        /// Each client's waiting renders, first come first.
        var waiting: [String: [Waiter]] = [:]
        /// The clients with renders waiting, in the order their turns come.
        var turns: [String] = []
        var waitingCount = 0
        var nextID: UInt64 = 0
    }

    private let state = Mutex(State())

    init(running: Int, perClient: Int = 16, capacity: Int = 256) {
        self.running = max(1, running)
        self.perClient = max(1, perClient)
        self.capacity = max(1, capacity)
    }

    /// Waits for a turn of `client`'s to hand a render to the pool; ``leave()`` must follow once
    /// it ends. Throws ``ServerError/previewQueueFull`` at once when the client's share or the
    /// queue is full, and `CancellationError` when the waiting task is cancelled (it then leaves
    /// the queue, and owes no ``leave()``).
    func enter(client: String) async throws {
        let id = state.withLock { state in
            state.nextID += 1
            return state.nextID
        }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let refusal: (any Error)? = state.withLock { state in
                    if Task.isCancelled { return CancellationError() }
                    if state.running < running && state.waitingCount == 0 {
                        state.running += 1
                        continuation.resume()
                        return nil
                    }
                    guard state.waiting[client, default: []].count < perClient, state.waitingCount < capacity else {
                        return ServerError.previewQueueFull
                    }
                    if state.waiting[client, default: []].isEmpty { state.turns.append(client) }
                    state.waiting[client, default: []].append(Waiter(id: id, continuation: continuation))
                    state.waitingCount += 1
                    return nil
                }
                if let refusal { continuation.resume(throwing: refusal) }
            }
        } onCancel: {
            let removed: Waiter? = state.withLock { state in
                guard var queue = state.waiting[client], let index = queue.firstIndex(where: { $0.id == id }) else {
                    return nil
                }
                let waiter = queue.remove(at: index)
                state.waiting[client] = queue.isEmpty ? nil : queue
                if queue.isEmpty { state.turns.removeAll { $0 == client } }
                state.waitingCount -= 1
                return waiter
            }
            removed?.continuation.resume(throwing: CancellationError())
        }
    }

    /// A render that entered ended: the next client in turn may hand one to the pool.
    func leave() {
        let next: Waiter? = state.withLock { state in
            guard !state.turns.isEmpty else {
                state.running -= 1
                return nil
            }
            let client = state.turns.removeFirst()
            var queue = state.waiting[client] ?? []
            let waiter = queue.removeFirst()
            state.waiting[client] = queue.isEmpty ? nil : queue
            // Its next render waits for the client's next turn, behind the others.
            if !queue.isEmpty { state.turns.append(client) }
            state.waitingCount -= 1
            return waiter
        }
        next?.continuation.resume()
    }

    /// Renders waiting, and handed to the pool (for tests and metrics).
    var depths: (waiting: Int, running: Int) {
        state.withLock { ($0.waitingCount, $0.running) }
    }
}
