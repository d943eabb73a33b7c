import GlanceCore
import HTTPTypes
import Hummingbird
import NIOCore
import Synchronization

/// Encoded thumbnails kept in memory, ready to send, so that a warm request costs one `stat` of
/// the document and no store read.
///
/// An entry holds for as long as the document's identity (device, inode, size, modification
/// time) is what it was when the thumbnail was read; an entry older than ``revalidateAfter`` is
/// checked against the store's record once more (cheaply, without the image), which catches a
/// thumbnail made again by another process. One request makes that check: the lookup that finds
/// the entry due starts its next period, so the requests that come while it reads the store are
/// answered from the entry as before, rather than each reading the store (every entry fell due
/// at once under load, and the reads queued: glance's p99 ran 5-7 ms over the bare server's).
/// The least recently used entries go when the bytes held pass the capacity.
final class ThumbnailCache: Sendable {
    /// A thumbnail as served: its bytes (shared by every response, never copied) and headers.
    struct Entry: Sendable {
        let identity: FileIdentity
        let entityTag: String
        /// The `?v=` that makes the URL immutable (the content's digest), if known.
        let version: String?
        let contentType: String
        let body: ByteBuffer
        /// Headers of its own, sent with it (a text's encoding and line count).
        var headers: HTTPFields = [:]
        var checkedAt: ContinuousClock.Instant
        var lastUse: UInt64 = 0
    }

    private struct State {
        var entries: [PathKey: Entry] = [:]
        var bytes = 0
        var clock: UInt64 = 0
    }

    /// How many bytes of thumbnails the cache may hold.
    let capacityBytes: Int
    /// How long an entry is trusted before its record is read again.
    let revalidateAfter: Duration
    private let state = Mutex(State())

    /// Told of each lookup, whether it found an entry (the metrics' count), or nil.
    let onLookup: (@Sendable (Bool) -> Void)?

    init(capacityBytes: Int, revalidateAfter: Duration = .seconds(10), onLookup: (@Sendable (Bool) -> Void)? = nil) {
        self.capacityBytes = capacityBytes
        self.revalidateAfter = revalidateAfter
        self.onLookup = onLookup
    }

    /// The entry for `path` if it was made for a document with `identity`; `needsCheck` is set
    /// when it is due to be compared with the store again, for this lookup only (the caller
    /// checks it, then ``confirm(_:)`` or ``remove(_:)``).
    func entry(for path: String, identity: FileIdentity) -> (entry: Entry, needsCheck: Bool)? {
        let found = lookUp(path, identity: identity)
        onLookup?(found != nil)
        return found
    }

    private func lookUp(_ path: String, identity: FileIdentity) -> (entry: Entry, needsCheck: Bool)? {
        state.withLock { state in
            guard var entry = state.entries[PathKey(path)] else { return nil }
            guard entry.identity == identity else {
                state.bytes -= entry.body.readableBytes
                state.entries[PathKey(path)] = nil
                return nil
            }
            state.clock += 1
            entry.lastUse = state.clock
            let now = ContinuousClock.now
            let due = now - entry.checkedAt > revalidateAfter
            if due { entry.checkedAt = now }
            state.entries[PathKey(path)] = entry
            return (entry, due)
        }
    }

    /// Marks the entry of `path` as checked against the store now.
    func confirm(_ path: String) {
        state.withLock { $0.entries[PathKey(path)]?.checkedAt = .now }
    }

    /// Keeps `entry` for `path` (replacing any other), dropping the least recently used entries
    /// beyond the capacity. An image larger than a quarter of the capacity is not kept.
    func insert(_ entry: Entry, for path: String) {
        guard entry.body.readableBytes <= capacityBytes / 4 else { return }
        state.withLock { state in
            if let old = state.entries[PathKey(path)] { state.bytes -= old.body.readableBytes }
            var entry = entry
            state.clock += 1
            entry.lastUse = state.clock
            state.entries[PathKey(path)] = entry
            state.bytes += entry.body.readableBytes
            guard state.bytes > capacityBytes else { return }
            // Evict a batch at once (oldest first) so that a full cache does not sort per insert.
            let victims = state.entries.sorted { $0.value.lastUse < $1.value.lastUse }
            for (victim, old) in victims where state.bytes > capacityBytes * 3 / 4 {
                state.entries[victim] = nil
                state.bytes -= old.body.readableBytes
            }
        }
    }

    /// Forgets the entry of `path`.
    func remove(_ path: String) {
        state.withLock { state in
            if let old = state.entries.removeValue(forKey: PathKey(path)) { state.bytes -= old.body.readableBytes }
        }
    }

    /// Bytes held now.
    var byteCount: Int { state.withLock { $0.bytes } }
}
