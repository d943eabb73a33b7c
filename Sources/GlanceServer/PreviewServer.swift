import Foundation
import GlanceContainer
import GlanceCore
import GlanceListing
import GlancePipeline
import HTTPTypes
import Hummingbird

/// The HTTP side of the preview listing, for one container: the listing and one document's
/// attributes as JSON, the stored thumbnails (made on demand, ahead of batch work, when missing or
/// stale), and the originals with `Range` support. Only `GET` and `HEAD`; every path is resolved
/// inside the container, and anything else answers 404.
public struct PreviewServer: Sendable {
    /// The container's indexer: its store, its scanner, and the pool that renders on demand.
    public let indexer: Indexer
    /// How long a request waits for an on-demand render before it answers 503.
    public var renderTimeout: Duration

    public init(indexer: Indexer, renderTimeout: Duration = .seconds(30)) {
        self.indexer = indexer
        self.renderTimeout = renderTimeout
    }

    /// The routes.
    public func router() -> Router<BasicRequestContext> {
        let router = Router()
        router.add(middleware: MethodFilter())
        router.get("/api/items") { request, _ in try await self.items(request) }
        router.get("/api/items/**") { _, context in try await self.item(context.parameters.getCatchAll()) }
        for method in [HTTPRequest.Method.get, .head] {
            router.on("/thumbnails/**", method: method) { request, context in
                try await self.thumbnail(context.parameters.getCatchAll(), request: request)
            }
            router.on("/documents/**", method: method) { request, context in
                try await self.document(context.parameters.getCatchAll(), request: request)
            }
        }
        return router
    }

    // MARK: - API

    /// `GET /api/items`: the listing as `glance list --json` writes it, with its filters and sort
    /// as query parameters (`pattern`, `type`, `status`, `sort`, `reverse`) and paging (`offset`,
    /// `limit`); the number of matches before paging is in `X-Total-Count`.
    func items(_ request: Request) async throws -> Response {
        let parameters = request.uri.queryParameters
        var query = ListingQuery()
        query.pattern = parameters["pattern"].map(String.init)
        if let type = parameters["type"] {
            guard let parsed = ContentType(rawValue: String(type)) else { throw ServerError.badQuery("type") }
            query.contentType = parsed
        }
        if let status = parameters["status"] {
            guard let parsed = ThumbnailState(rawValue: String(status)) else { throw ServerError.badQuery("status") }
            query.state = parsed
        }
        if let sort = parameters["sort"] {
            guard let parsed = ListingQuery.Order(rawValue: String(sort)) else { throw ServerError.badQuery("sort") }
            query.order = parsed
        }
        query.reversed = parameters["reverse"].map { $0 == "1" || $0 == "true" } ?? false
        let all = try await listing.items(matching: query)
        let offset = parameters["offset"].flatMap { Int($0) } ?? 0
        let limit = parameters["limit"].flatMap { Int($0) } ?? all.count
        guard offset >= 0, limit >= 0 else { throw ServerError.badQuery("offset") }
        let page = all.dropFirst(offset).prefix(limit)
        var headers: HTTPFields = [.contentType: "application/json; charset=utf-8"]
        headers[HTTPField.Name("X-Total-Count")!] = String(all.count)
        let json = ListingJSONWriter.array(page.map(ListingFormatter.Row.init))
        return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(string: json)))
    }

    /// `GET /api/items/PATH`: one document's attributes, as `glance show --json` writes them.
    func item(_ components: [Substring]) async throws -> Response {
        let path = try resolve(components)
        guard let item = try await listing.attributes(forPaths: [path]).first ?? nil else { throw ServerError.notFound }
        let json = ListingFormatter.json(ListingFormatter.Row(item))
        return Response(
            status: .ok, headers: [.contentType: "application/json; charset=utf-8"],
            body: ResponseBody(byteBuffer: ByteBuffer(string: json)))
    }

    var listing: PreviewListing {
        PreviewListing(scanner: indexer.scanner, store: indexer.store, policy: indexer.policy)
    }

    /// The document path for URL components, if it names a regular file inside the container.
    func resolve(_ components: [Substring]) throws(ServerError) -> String {
        guard let path = DocumentPath.from(components: components), indexer.scanner.identity(of: path) != nil else {
            throw .notFound
        }
        return path
    }
}

/// Answers 405 to every method but `GET` and `HEAD`: the server only reads.
struct MethodFilter: RouterMiddleware {
    typealias Context = BasicRequestContext

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response)
        async throws -> Response
    {
        guard request.method == .get || request.method == .head else {
            return Response(status: .methodNotAllowed, headers: [.allow: "GET, HEAD"])
        }
        return try await next(request, context)
    }
}
