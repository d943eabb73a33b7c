import GlanceContainer
import GlanceCore
import GlancePipeline
import Hummingbird

/// `GET /thumbnails/PATH`: the stored 1024x1024 thumbnail, made on demand when missing or stale.
extension PreviewServer {
    func thumbnail(_ components: [Substring], request: Request) async throws -> Response {
        let path = try resolve(components)
        guard let identity = indexer.scanner.identity(of: path) else { throw ServerError.notFound }
        var stored = try await indexer.store.document(at: path, includingImageData: true)
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
            stored = try await indexer.store.document(at: path, includingImageData: true)
        }
        guard let stored, let image = stored.thumbnails.first(where: { $0.sizeKey == ThumbnailImage.standardSizeKey }),
            let data = image.data
        else { throw ServerError.notFound }
        let tag = Self.entityTag(stored.record)
        var headers: HTTPFields = [.contentType: image.format.mimeType, .eTag: tag]
        // A URL that names the content (`?v=` the digest) never changes: browsers keep it for a
        // year without asking again. Any other URL is checked on every use.
        let versioned =
            stored.record.digest != nil
            && request.uri.queryParameters["v"].map(String.init) == Self.version(stored.record)
        headers[.cacheControl] = versioned ? "public, max-age=31536000, immutable" : "no-cache"
        if let match = request.headers[.ifNoneMatch],
            match.split(separator: ",").contains(where: {
                $0.trimmingSpaces == tag || $0.trimmingSpaces == "*"
            })
        {
            return Response(status: .notModified, headers: headers)
        }
        headers[.contentLength] = String(data.count)
        if request.method == .head { return Response(status: .ok, headers: headers) }
        return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(bytes: data)))
    }

    /// The version part of a thumbnail URL: the document's digest (without its `sha256:`).
    static func version(_ record: DocumentRecord) -> String? {
        record.digest.map { String($0.split(separator: ":").last ?? Substring($0)) }
    }

    /// A strong entity tag: the digest of the document and the Glance version that drew it.
    static func entityTag(_ record: DocumentRecord) -> String {
        let content = version(record) ?? "\(record.identity.size)-\(record.identity.modifiedNanoseconds)"
        return "\"\(content)-\(record.generatorVersion)\""
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

/// The value of `body`, or nil when it takes longer than `limit` (the work goes on, unawaited).
func withTimeout<Value: Sendable>(_ limit: Duration, _ body: @escaping @Sendable () async -> Value) async -> Value? {
    await withTaskGroup(of: Value?.self) { group in
        group.addTask { await body() }
        group.addTask {
            try? await Task.sleep(for: limit)
            return nil
        }
        let first = await group.next() ?? nil
        group.cancelAll()
        return first
    }
}
