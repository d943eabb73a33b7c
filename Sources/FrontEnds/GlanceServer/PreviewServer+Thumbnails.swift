import GlanceContainer
import GlanceCore
import GlancePipeline
import HTTPTypes
import Hummingbird
import Synchronization

/// `GET /thumbnails/PATH[?size=SIDE]`: the stored 1024x1024 thumbnail, or one of the store's
/// smaller sizes, made on demand when missing or stale.
extension PreviewServer {
    func thumbnail(_ components: [Substring], request: Request) async throws -> Response {
        let (path, identity) = try resolveWithIdentity(components)
        let query = try PageQuery.parameters(request.uri.query)
        var sizeKey = try requestedSizeKey(query)
        // The smaller sizes are WebP: a client that does not take it gets the standard PNG or JPEG.
        if sizeKey != ThumbnailImage.standardSizeKey, !Self.acceptsWebP(request) {
            sizeKey = ThumbnailImage.standardSizeKey
        }
        // Each size is its own cache entry; the standard one keeps the path as its key.
        let cacheKey = sizeKey == ThumbnailImage.standardSizeKey ? path : path + "\u{0}" + sizeKey
        if let (entry, needsCheck) = cache.entry(for: cacheKey, identity: identity) {
            if !needsCheck { return Self.response(entry, request: request, version: query["v"]) }
            // Trusted a while: ask the store (without the image) whether it still holds this one.
            // This request alone asks (see ThumbnailCache); when the store cannot say, the entry
            // goes, and the next request reads the store again.
            let stored: StoredDocument?
            do {
                stored = try await storeCall { try await indexer.store.document(at: path, includingImageData: false) }
            } catch {
                cache.remove(cacheKey)
                throw error
            }
            if let stored, indexer.policy.state(of: stored, identity: identity) == .fresh,
                Self.entityTag(stored.record, sizeKey: sizeKey) == entry.entityTag
            {
                cache.confirm(cacheKey)
                return Self.response(entry, request: request, version: query["v"])
            }
            cache.remove(cacheKey)
        }
        var stored = try await storeCall { try await indexer.store.document(at: path, bytes: .only(sizeKey)) }
        switch indexer.policy.state(of: stored, identity: identity) {
        case .fresh:
            break
        case .failed, .unsupported:
            throw ServerError.noThumbnail(stored?.record.error ?? "no thumbnail")
        case .missing, .stale:
            // Made now, in the interactive lane; concurrent requests share the render.
            guard let outcome = await withTimeout(renderTimeout, { await self.indexer.render(path) }) else {
                throw ServerError.renderTimedOut
            }
            guard case .recorded(let record) = outcome, record.record.state == .fresh else {
                if case .recorded(let record) = outcome {
                    throw ServerError.noThumbnail(record.record.error ?? "failed")
                }
                throw ServerError.notFound
            }
            stored = try await storeCall { try await indexer.store.document(at: path, bytes: .only(sizeKey)) }
        }
        guard var stored, var image = stored.thumbnail(sizeKey: sizeKey) else { throw ServerError.notFound }
        if image.data == nil, image.sizeKey != sizeKey {
            // A size the standard thumbnail answers for (it fits that box): its bytes.
            let standard = try await storeCall {
                try await indexer.store.document(at: path, bytes: .only(image.sizeKey))
            }
            guard let standard, let found = standard.thumbnail(sizeKey: sizeKey) else { throw ServerError.notFound }
            (stored, image) = (standard, found)
        }
        guard let data = image.data else { throw ServerError.notFound }
        let entry = ThumbnailCache.Entry(
            identity: stored.record.identity, entityTag: Self.entityTag(stored.record, sizeKey: sizeKey),
            version: Self.version(stored.record), contentType: image.format.mimeType, body: ByteBuffer(bytes: data),
            checkedAt: .now)
        // Kept only when made for the file as it is now (not for one that changed meanwhile).
        if entry.identity == identity { cache.insert(entry, for: cacheKey) }
        return Self.response(entry, request: request, version: query["v"])
    }

    /// Whether the client takes WebP: its `Accept` names `image/webp`, `image/*` or `*/*` (every
    /// browser's image requests do), or it sends none (HTTP: anything goes).
    static func acceptsWebP(_ request: Request) -> Bool {
        guard let accept = request.headers[.accept] else { return true }
        return accept.split(separator: ",").contains { part in
            let media = part.split(separator: ";").first.map { $0.trimmingSpaces.lowercased() } ?? ""
            let refused = part.split(separator: ";").dropFirst().contains { $0.filter { $0 != " " } == "q=0" }
            return !refused && ["image/webp", "image/*", "*/*"].contains(media)
        }
    }

    /// The size key `?size=SIDE` of a request's `query` asks for: one of the store's smaller
    /// sizes, or the standard one without it; any other value is `400`.
    func requestedSizeKey(_ query: [String: String]) throws(ServerError) -> String {
        guard let value = query["size"] else { return ThumbnailImage.standardSizeKey }
        guard let side = Int(value),
            side == ThumbnailLimits.defaultMaxSide || indexer.options.sizes.sides.contains(side)
        else { throw .badQuery("size") }
        return side == ThumbnailLimits.defaultMaxSide
            ? ThumbnailImage.standardSizeKey : ThumbnailSizes.sizeKey(side: side)
    }

    /// The response for a thumbnail: `304` when the client has it, else the bytes (shared with
    /// the cache, not copied). A URL with `?v=` the digest never changes, so browsers keep it for
    /// a year without asking again; any other URL (or an outdated `?v=`) is checked on every use.
    /// `version` is the request's `?v=`, read with its other parameters.
    static func response(_ entry: ThumbnailCache.Entry, request: Request, version: String?) -> Response {
        // The answer for a smaller size depends on whether the client takes WebP.
        var headers: HTTPFields = [.eTag: entry.entityTag, .vary: "Accept"]
        headers.append(contentsOf: entry.headers)
        let versioned = entry.version != nil && version == entry.version
        headers[.cacheControl] = versioned ? "public, max-age=31536000, immutable" : "no-cache"
        // If-None-Match compares weakly (RFC 9110 13.1.2): `W/"tag"` matches `"tag"`.
        if let match = request.headers[.ifNoneMatch],
            match.split(separator: ",").contains(where: {
                let tag = $0.trimmingSpaces
                let strong = tag.hasPrefix("W/") ? tag.dropFirst(2) : Substring(tag)
                return strong == entry.entityTag || tag == "*"
            })
        {
            return Response(status: .notModified, headers: headers)
        }
        headers[.contentType] = entry.contentType
        headers[.contentLength] = String(entry.body.readableBytes)
        return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: entry.body))
    }

    /// The version part of a thumbnail URL: the document's digest (without its `sha256:`).
    static func version(_ record: DocumentRecord) -> String? {
        record.digest.map { String($0.split(separator: ":").last ?? Substring($0)) }
    }

    /// A strong entity tag: the digest of the document, the Glance version that drew it, and the
    /// size (for all but the standard one).
    static func entityTag(_ record: DocumentRecord, sizeKey: String = ThumbnailImage.standardSizeKey) -> String {
        let content = version(record) ?? "\(record.identity.size)-\(record.identity.modifiedNanoseconds)"
        let size = sizeKey == ThumbnailImage.standardSizeKey ? "" : "-" + sizeKey
        return "\"\(content)-\(record.generatorVersion)\(size)\""
    }
}

extension Substring {
    /// Without the spaces around it.
    var trimmingSpaces: Substring {
        let start = firstIndex { $0 != " " } ?? endIndex
        let end = lastIndex { $0 != " " }.map(index(after:)) ?? start
        return self[start..<Swift.max(start, end)]
    }
}

/// The value of `body`, or nil when it takes longer than `limit`; then the work goes on,
/// unawaited (a render past a request's limit is recorded for the next request).
///
/// Not a task group: a group waits for all its children, so the answer waited for the render
/// whatever the limit (a 503 came when the worker was killed, not at `--timeout`).
func withTimeout<Value: Sendable>(_ limit: Duration, _ body: @escaping @Sendable () async -> Value) async -> Value? {
    let answer = FirstAnswer<Value?>()
    return await withCheckedContinuation { continuation in
        answer.wait(with: continuation)
        Task { answer.give(await body()) }
        Task {
            try? await Task.sleep(for: limit)
            answer.give(nil)
        }
    }
}

/// A continuation resumed once, by whichever of several tasks answers first (an answer given
/// before the continuation is set is kept for it).
final class FirstAnswer<Value: Sendable>: Sendable {
    private enum State {
        case empty
        case waiting(CheckedContinuation<Value, Never>)
        case answered(Value)
        case done
    }

    private let state = Mutex<State>(.empty)

    /// Sets the continuation to resume (at once, when an answer came already).
    func wait(with continuation: CheckedContinuation<Value, Never>) {
        let early: Value? = state.withLock { state in
            guard case .answered(let value) = state else {
                state = .waiting(continuation)
                return nil
            }
            state = .done
            return value
        }
        if let early { continuation.resume(returning: early) }
    }

    /// Gives the answer; only the first one counts.
    func give(_ value: Value) {
        let continuation: CheckedContinuation<Value, Never>? = state.withLock { state in
            switch state {
            case .empty:
                state = .answered(value)
                return nil
            case .waiting(let continuation):
                state = .done
                return continuation
            case .answered, .done:
                return nil
            }
        }
        continuation?.resume(returning: value)
    }
}
