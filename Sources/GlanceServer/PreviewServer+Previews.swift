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

    func preview(_ components: [Substring], request: Request) async throws -> Response {
        let (path, identity) = try resolveWithIdentity(components)
        let page = try Self.positiveInteger(request, "page") ?? 1
        let side = try Self.previewSide(request)
        let key = "\(path)\u{0}\(page)\u{0}\(side)"
        // A page in the cache was drawn for this very file: no need to ask the store about it.
        if let (entry, _) = previewCache.entry(for: key, identity: identity) {
            return Self.response(entry, request: request)
        }
        let stored = try await storeCall { try await indexer.store.document(at: path, includingImageData: false) }
        let known = stored.flatMap { FreshnessPolicy.describes($0.record, identity) ? $0.record : nil }
        if let type = known?.contentType, type == .text { throw ServerError.noPreview(Self.textHasNoPagePreview) }
        if let count = known?.details?.pageCount ?? (known?.contentType.map { $0 == .pdf } == false ? 1 : nil),
            page > count
        {
            throw ServerError.noSuchPage(pageCount: count)
        }
        let entry = try await sharedEntry(key: key, identity: identity) { () async throws(ServerError) in
            let preview = try Self.served(await indexer.preview(path, page: page, side: side))
            if preview.contentType == .text { throw .noPreview(Self.textHasNoPagePreview) }
            let tag = previewTag(preview.identity, page: page, side: side)
            return ThumbnailCache.Entry(
                identity: preview.identity, entityTag: "\"\(tag)\"", version: tag,
                contentType: preview.format.mimeType, body: ByteBuffer(bytes: preview.data), checkedAt: .now)
        }
        return Self.response(entry, request: request)
    }

    /// The cache's entry for `key` (made for the file `identity`): from the cache, from the
    /// request already making it, or made now by `make` (then kept in the cache); past the
    /// render time limit, `503`. One place for previews and texts.
    func sharedEntry(
        key: String, identity: FileIdentity,
        make: @escaping @Sendable () async throws(ServerError) -> ThumbnailCache.Entry
    ) async throws -> ThumbnailCache.Entry {
        if let (entry, _) = previewCache.entry(for: key, identity: identity) { return entry }
        let task = previewsInFlight.task(for: key) {
            // A render that ended since this request looked in the cache has put its entry there
            // (before it left the renders under way).
            if let (entry, _) = previewCache.entry(for: key, identity: identity) { return Task { .success(entry) } }
            return Task { () -> Result<ThumbnailCache.Entry, ServerError> in
                defer { previewsInFlight.finished(key) }
                do throws(ServerError) {
                    let entry = try await make()
                    previewCache.insert(entry, for: key)
                    return .success(entry)
                } catch {
                    return .failure(error)
                }
            }
        }
        guard let result = await withTimeout(renderTimeout, { await task.value }) else {
            throw ServerError.renderTimedOut
        }
        return try result.get()
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
    /// then the page and the size (`1f0c9a...-p2-1024`). Short, as a 10,000-page PDF's preview
    /// page carries two of these for every page.
    func previewTag(_ identity: FileIdentity, page: Int, side: Int) -> String {
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
    static func previewSide(_ request: Request) throws(ServerError) -> Int {
        guard let side = try positiveInteger(request, "size") else { return defaultPreviewSide }
        guard side <= largestPreviewSide else { throw .badQuery("size") }
        return max(256, (side + 255) / 256 * 256)
    }

    /// The query parameter `name` as a whole number from 1, nil when absent; anything else `400`.
    static func positiveInteger(_ request: Request, _ name: String) throws(ServerError) -> Int? {
        guard let value = request.uri.queryParameters[Substring(name)] else { return nil }
        guard let number = Int(String(value)), number >= 1, number <= 10_000_000 else { throw .badQuery(name) }
        return number
    }
}

/// The previews being drawn, by page and size: a request for one that is being drawn waits for
/// that render instead of starting another.
final class PreviewsInFlight: Sendable {
    typealias Render = Task<Result<ThumbnailCache.Entry, ServerError>, Never>
    private let running = Mutex<[String: Render]>([:])

    /// The render under way for `key`, or the one `start` begins.
    func task(for key: String, start: () -> Render) -> Render {
        running.withLock { running in
            if let task = running[key] { return task }
            let task = start()
            running[key] = task
            return task
        }
    }

    /// Forgets the render for `key` (it ended; the cache holds what it made).
    func finished(_ key: String) {
        _ = running.withLock { $0.removeValue(forKey: key) }
    }
}
