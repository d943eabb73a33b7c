import GlanceCore
import GlancePipeline
import HTTPTypes
import Hummingbird
import NIOCore
import Synchronization

/// `GET /previews/PATH?page=N&size=S`: page N of a PDF (or the image itself, page 1 of an image)
/// drawn to fit S pixels, larger than the thumbnail, by the sandboxed renderer on demand.
///
/// Drawn in the pool's preview lane (ahead of batch work, but never on more than half the
/// renderers while a batch waits, so that scrolling a long PDF cannot stop it; thumbnails the
/// pages ask for go first); requests for the same page and size while
/// it is drawn share the one render; kept in a cache of ``previewCache``'s bytes, least recently
/// used first out, for as long as the document is the file it was drawn from. The entity tag
/// names the file, the page, the size and the Glance version; a URL with `?v=` that tag's
/// version never changes (the pages link to such URLs).
extension PreviewServer {
    /// The default box of a preview: about a 4K screen's height.
    public static let defaultPreviewSide = 2048
    /// The sizes a preview may ask for: whole multiples of 256 up to this (a request in between
    /// is drawn at the next one up, so that the cache holds few sizes of a page).
    public static let largestPreviewSide = 4096

    func preview(_ components: [Substring], request: Request, requester: Requester = .local) async throws -> Response {
        let (path, identity) = try resolveWithIdentity(components)
        let query = try PageQuery.parameters(request.uri.query)
        let page = try Self.positiveInteger(query, "page") ?? 1
        let side = try Self.previewSide(query)
        let key = "\(path)\u{0}\(page)\u{0}\(side)"
        // A page in the cache was drawn for this very file: no need to ask the store about it.
        if let (entry, _) = previewCache.entry(for: key, identity: identity) {
            return Self.response(entry, request: request, version: query["v"])
        }
        let failureKey = PreviewFailures.key(path: path, page: page)
        if let reason = previewFailures.reason(for: failureKey, identity: identity) {
            throw ServerError.noPreview(reason)
        }
        let stored = try await storeCall { try await indexer.store.document(at: path, includingImageData: false) }
        let known = stored.flatMap { FreshnessPolicy.describes($0.record, identity) ? $0.record : nil }
        // A document that failed as it is now fails its previews too, without a renderer.
        if indexer.policy.state(of: stored, identity: identity) == .failed {
            throw ServerError.noPreview(stored?.record.error ?? "it could not be drawn")
        }
        if let type = known?.contentType, type == .text { throw ServerError.noPreview(Self.textHasNoPagePreview) }
        let frames = known?.details?.media?.hasFrames == true ? MediaDetails.stripLength : nil
        if let count = known?.details?.pageCount ?? frames
            ?? (known?.contentType.map { $0 == .pdf } == false ? 1 : nil),
            page > count
        {
            throw ServerError.noSuchPage(pageCount: count)
        }
        let entry = try await sharedEntry(key: key, identity: identity, requester: requester) {
            () async throws(ServerError) in
            let result = await indexer.preview(path, page: page, side: side)
            if case .failure(.failed(let reason)) = result {
                previewFailures.remember(reason, for: failureKey, identity: identity)
            }
            let preview = try Self.served(result)
            if preview.contentType == .text { throw .noPreview(Self.textHasNoPagePreview) }
            let tag = previewTag(preview.identity, page: page, side: side)
            return ThumbnailCache.Entry(
                identity: preview.identity, entityTag: "\"\(tag)\"", version: tag,
                contentType: preview.format.mimeType, body: ByteBuffer(bytes: preview.data), checkedAt: .now)
        }
        return Self.response(entry, request: request, version: query["v"])
    }

    /// The cache's entry for `key` (made for the file `identity`): from the cache, from the
    /// request already making it, or made now by `make` (then kept in the cache), in a turn of
    /// ``previewQueue``'s; past the render time limit, `503`. One place for previews and texts.
    ///
    /// `requester` is the request waiting (its client, and its connection: when the connection
    /// closes the request stops waiting at once). A render whose every requester stopped waiting
    /// before its turn came is cancelled and leaves the queue.
    func sharedEntry(
        key: String, identity: FileIdentity, requester: Requester = .local,
        make: @escaping @Sendable () async throws(ServerError) -> ThumbnailCache.Entry
    ) async throws -> ThumbnailCache.Entry {
        if let (entry, _) = previewCache.entry(for: key, identity: identity) { return entry }
        let queue = previewQueue
        let task = previewsInFlight.join(key) { generation in
            // A render that ended since this request looked in the cache has put its entry there
            // (before it left the renders under way).
            if let (entry, _) = previewCache.entry(for: key, identity: identity) { return Task { .success(entry) } }
            return Task { () -> Result<ThumbnailCache.Entry, ServerError> in
                defer { previewsInFlight.finished(key, generation: generation) }
                do {
                    try await queue.enter(client: requester.client)
                } catch let error as ServerError {
                    return .failure(error)
                } catch {
                    return .failure(.renderTimedOut)
                }
                defer { queue.leave() }
                do throws(ServerError) {
                    let entry = try await make()
                    previewCache.insert(entry, for: key)
                    return .success(entry)
                } catch {
                    return .failure(error)
                }
            }
        }
        let outcome = await requester.wait(for: task, atMost: renderTimeout)
        previewsInFlight.leave(key, task: task)
        switch outcome {
        case .answered(let result): return try result.get()
        case .timedOut: throw ServerError.renderTimedOut
        case .gone: throw ServerError.clientGone
        }
    }

    /// What an on-demand render gave, or its failure as the answer to send.
    static func served<Value>(_ result: Result<Value, PreviewFailure>) throws(ServerError) -> Value {
        switch result {
        case .success(let value): return value
        case .failure(.notFound): throw .notFound
        case .failure(.noSuchPage(let count)): throw .noSuchPage(pageCount: count)
        case .failure(.notText): throw .noPreview(notText)
        case .failure(.failed(let reason)): throw .noPreview(reason)
        case .failure(.cancelled): throw .renderTimedOut
        }
    }

    /// Why a text has no page preview.
    static let textHasNoPagePreview = "a text's preview is its text (/text/PATH)"

    /// A preview's version: a hash of the file it was drawn from and the Glance that drew it,
    /// then the page and the size (`1f0c9a...-p2-1024`).
    func previewTag(_ identity: FileIdentity, page: Int, side: Int) -> String {
        previewTag(identity, page: String(page), side: side)
    }

    /// ``previewTag(_:page:side:)`` with `page` as text: a number, or the placeholder of the URL
    /// template the preview's script fills (``PreviewPage/MorePages``).
    func previewTag(_ identity: FileIdentity, page: String, side: Int) -> String {
        let file = "\(identity.device)-\(identity.inode)-\(identity.size)-\(identity.modifiedNanoseconds)"
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in (file + "-" + indexer.options.generatorVersion).utf8 {
            hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3
        }
        let hex = String(hash, radix: 16)
        return String(repeating: "0", count: 16 - hex.count) + hex + "-p\(page)-\(side)"
    }

    /// `?size=`: 256 to ``largestPreviewSide``, rounded up to a multiple of 256; the default
    /// without it.
    static func previewSide(_ query: [String: String]) throws(ServerError) -> Int {
        guard let side = try positiveInteger(query, "size") else { return defaultPreviewSide }
        guard side <= largestPreviewSide else { throw .badQuery("size") }
        return max(256, (side + 255) / 256 * 256)
    }

    /// The query parameter `name` as a whole number from 1, nil when absent; anything else `400`.
    static func positiveInteger(_ query: [String: String], _ name: String) throws(ServerError) -> Int? {
        guard let value = query[name] else { return nil }
        guard let number = Int(value), number >= 1, number <= 10_000_000 else { throw .badQuery(name) }
        return number
    }
}

/// The previews being drawn, by page and size: a request for one that is being drawn waits for
/// that render instead of starting another. Each render counts the requests waiting for it; when
/// the last one stops waiting (it timed out, or its client left) before the render ended, the
/// render is cancelled: while it waits for its turn, that takes it out of the queue.
final class PreviewsInFlight: Sendable {
    typealias Render = Task<Result<ThumbnailCache.Entry, ServerError>, Never>

    /// A render under way, the requests waiting for it, and which of the renders of its key it
    /// is (an abandoned render that ends later must not forget the one started after it).
    private struct Running {
        let task: Render
        let generation: UInt64
        var waiting: Int
    }

    private let running = Mutex<(renders: [PathKey: Running], generations: UInt64)>(([:], 0))

    /// The render under way for `key`, or the one `start` begins (given its generation, for
    /// ``finished(_:generation:)``), counting one more request waiting for it;
    /// ``leave(_:task:)`` must follow.
    func join(_ key: String, start: (UInt64) -> Render) -> Render {
        running.withLock { running in
            if var render = running.renders[PathKey(key)] {
                render.waiting += 1
                running.renders[PathKey(key)] = render
                return render.task
            }
            running.generations += 1
            let task = start(running.generations)
            running.renders[PathKey(key)] = Running(task: task, generation: running.generations, waiting: 1)
            return task
        }
    }

    /// A request stopped waiting for `task`, the render of `key`; the last one cancels it.
    func leave(_ key: String, task: Render) {
        let abandoned = running.withLock { running -> Render? in
            guard var render = running.renders[PathKey(key)], render.task == task else { return nil }
            guard render.waiting <= 1 else {
                render.waiting -= 1
                running.renders[PathKey(key)] = render
                return nil
            }
            running.renders.removeValue(forKey: PathKey(key))
            return render.task
        }
        abandoned?.cancel()
    }

    /// Forgets the render `generation` of `key` (it ended; the cache holds what it made), if it
    /// is still the one under way.
    func finished(_ key: String, generation: UInt64) {
        running.withLock { running in
            if running.renders[PathKey(key)]?.generation == generation {
                running.renders.removeValue(forKey: PathKey(key))
            }
        }
    }
}

/// A request waiting for a render: its client (for its share of the preview queue) and its
/// connection, whose closing ends the wait.
struct Requester: Sendable {
    /// The client, as ``ClientKey`` counts it.
    let client: String
    /// The connection (or HTTP/2 stream) the request came on, or nil.
    let channel: (any Channel)?

    /// A request of this process's own (a page that shows a text): no client, no connection.
    static let local = Requester(client: "local", channel: nil)

    /// The request of `context`.
    init(_ context: ServerRequestContext) {
        client = context.client
        channel = context.channel
    }

    init(client: String, channel: (any Channel)?) {
        self.client = client
        self.channel = channel
    }

    /// How a wait ended.
    enum Outcome: Sendable {
        case answered(Result<ThumbnailCache.Entry, ServerError>)
        case timedOut
        /// The connection closed: nobody is left to answer.
        case gone
    }

    /// Waits for `task` at most `limit`, and no longer than the client is there: the connection
    /// (or HTTP/2 stream) open, and over HTTP/1 its input not ended (a client that closed its
    /// socket only shows as an end of input to a server that allows half-closed connections, as
    /// Hummingbird does). Looked at every tenth of a second: a callback on the connection's end
    /// would stay registered for as long as a kept-alive connection lasts, one per request.
    func wait(for task: PreviewsInFlight.Render, atMost limit: Duration) async -> Outcome {
        let answer = FirstAnswer<Outcome>()
        let channel = channel
        let timer = Task {
            try? await Task.sleep(for: limit)
            answer.give(.timedOut)
        }
        let watcher = Task {
            // A channel that is not open to begin with is no client's connection (a test's).
            guard let channel, channel.isActive else { return }
            let inputEnded = try? await channel.eventLoop.submit {
                try channel.pipeline.syncOperations.handler(type: StalledClientHandler.self).inputEnded
            }.get()
            while !Task.isCancelled {
                try? await Task.sleep(for: .milliseconds(100))
                if !channel.isActive || inputEnded?.isRaised == true {
                    answer.give(.gone)
                    return
                }
            }
        }
        let outcome = await withCheckedContinuation { continuation in
            answer.wait(with: continuation)
            Task { answer.give(.answered(await task.value)) }
        }
        timer.cancel()
        watcher.cancel()
        return outcome
    }
}
