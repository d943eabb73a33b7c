import GlanceCore
import Synchronization

/// The previews that failed, remembered for the file they were asked of, so that a document
/// that cannot be drawn is not handed to a renderer again at every request: a client asking for
/// a broken document's pages at size after size (each a new key of the preview cache) would
/// otherwise keep every renderer busy, and other clients' thumbnails would wait for none.
///
/// A failure stands for its document's page at every size, for as long as the document is the
/// file that failed (its ``FileIdentity``); a changed file is drawn again. At most ``capacity``
/// failures are kept, the oldest forgotten first.
final class PreviewFailures: Sendable {
    /// The failures kept at most.
    let capacity: Int

    private struct Failure {
        let identity: FileIdentity
        let reason: String
    }

    private struct State {
        var failures: [PathKey: Failure] = [:]
        /// The keys in the order they were remembered, oldest first.
        var order: [PathKey] = []
    }

    private let state = Mutex(State())

    init(capacity: Int = 4096) { self.capacity = max(1, capacity) }

    /// The key of page `page` of the document at `path`.
    static func key(path: String, page: Int) -> String { "\(path)\u{0}\(page)" }

    /// Why `key`'s page failed when drawn from the file `identity`, if it did.
    func reason(for key: String, identity: FileIdentity) -> String? {
        state.withLock { state in
            guard let failure = state.failures[PathKey(key)], failure.identity == identity else { return nil }
            return failure.reason
        }
    }

    /// Remembers that `key`'s page failed, drawn from the file `identity`, for `reason`.
    func remember(_ reason: String, for key: String, identity: FileIdentity) {
        state.withLock { state in
            if state.failures.updateValue(Failure(identity: identity, reason: reason), forKey: PathKey(key)) == nil {
                state.order.append(PathKey(key))
            }
            while state.order.count > capacity {
                state.failures[state.order.removeFirst()] = nil
            }
        }
    }
}
