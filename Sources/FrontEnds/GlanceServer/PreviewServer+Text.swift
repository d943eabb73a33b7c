import GlanceCore
import GlancePipeline
import HTTPTypes
import Hummingbird
import NIOCore

/// `GET /text/PATH`: a text document's content, decoded by the sandboxed renderer from the
/// encoding it detected, as `text/plain; charset=utf-8`; capped (the first 1 MiB, at most 20,000
/// lines), and the headers say so.
extension PreviewServer {
    /// The header naming the encoding the text was decoded from.
    static let textEncodingHeader = HTTPField.Name("X-Glance-Text-Encoding")!
    /// The header giving the lines sent.
    static let textLinesHeader = HTTPField.Name("X-Glance-Text-Lines")!
    /// The header present when the document goes on past what was sent.
    static let textTruncatedHeader = HTTPField.Name("X-Glance-Text-Truncated")!

    /// Why a document has no text to read.
    static let notText = "not a text document"

    func text(_ components: [Substring], request: Request, requester: Requester = .local) async throws -> Response {
        let (path, identity) = try resolveWithIdentity(components)
        if let (entry, _) = previewCache.entry(for: Self.textKey(path), identity: identity) {
            return Self.textResponse(entry, request: request)
        }
        let stored = try await storeCall { try await indexer.store.document(at: path, includingImageData: false) }
        if let record = stored?.record, FreshnessPolicy.describes(record, identity), let type = record.contentType,
            type != .text
        {
            throw ServerError.noPreview(Self.notText)
        }
        return Self.textResponse(
            try await textEntry(path: path, identity: identity, requester: requester), request: request)
    }

    /// The cache's key for the text of `path`.
    static func textKey(_ path: String) -> String { "\(path)\u{0}text" }

    /// The text of `path` as served: from the cache, from the render under way, or decoded now.
    func textEntry(path: String, identity: FileIdentity, requester: Requester = .local) async throws
        -> ThumbnailCache.Entry
    {
        try await sharedEntry(key: Self.textKey(path), identity: identity, requester: requester) {
            () async throws(ServerError) in
            let text = try Self.served(await indexer.text(path))
            let tag = "\(previewTag(text.identity, page: 1, side: 0))-text"
            var entry = ThumbnailCache.Entry(
                identity: text.identity, entityTag: "\"\(tag)\"", version: tag,
                contentType: "text/plain; charset=utf-8", body: ByteBuffer(string: text.text), checkedAt: .now)
            entry.headers[Self.textEncodingHeader] = text.encoding
            entry.headers[Self.textLinesHeader] = String(text.summary.lineCount)
            if !text.summary.isComplete {
                entry.headers[Self.textTruncatedHeader] =
                    "the first \(TextLimits.maximumBytes) bytes, at most \(TextLimits.maximumLines) lines"
            }
            return entry
        }
    }

    /// The answer for a text: the image answer's caching and headers, without `Vary: Accept`.
    static func textResponse(_ entry: ThumbnailCache.Entry, request: Request) -> Response {
        var response = response(entry, request: request, version: (try? request.queryParameter("v")) ?? nil)
        response.headers[.vary] = nil
        return response
    }
}
