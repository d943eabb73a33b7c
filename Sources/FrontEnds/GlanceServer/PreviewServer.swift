import Foundation
import GlanceAccounts
import GlanceContainer
import GlanceCore
import GlanceListing
import GlanceOperations
import GlancePipeline
import HTTPTypes
import Hummingbird

/// The HTTP side of the preview listing, for one container: the grid and preview pages, the
/// listing and one document's attributes as JSON, the stored thumbnails (made on demand, ahead of
/// batch work, when missing or stale), the originals with `Range` support, and a stream of
/// changes. Only `GET` and `HEAD`; every path is resolved inside the container, and anything else
/// answers 404. ``PreviewSite`` puts one or several of these behind one listener.
public struct PreviewServer: Sendable {
    /// The container's indexer: its store, its scanner, and the pool that renders on demand.
    public let indexer: Indexer
    /// How long a request waits for an on-demand render before it answers 503.
    public var renderTimeout: Duration
    /// The container's name in page titles.
    public var title: String
    /// Whether pages subscribe to `/events` (a watcher keeps the container fresh).
    public var liveUpdates = false
    /// Where this container's routes live: `""`, or `/c/NAME` beside other containers, under the
    /// site's base path.
    var links = PageLinks(prefix: "")
    /// The list of containers, when there are several.
    var siteURL: String?
    /// The path the whole site is served under (`""`, or `/glance` behind a reverse proxy).
    var basePath = ""
    let assets = PageAssets()
    /// Thumbnails in memory, ready to send.
    let cache: ThumbnailCache
    /// Previews (pages drawn larger) in memory, ready to send: their own bound.
    let previewCache: ThumbnailCache
    /// The previews being drawn, by page and size: a second request for one waits for the first.
    let previewsInFlight = PreviewsInFlight()
    /// The previews that failed, for the files they failed on: not drawn again on every request.
    let previewFailures = PreviewFailures()
    /// The previews waiting for the renderers, bounded and in turns between clients.
    let previewQueue: PreviewQueue
    /// The container's documents as walked a moment ago.
    let scans: ScanCache

    /// A server for `indexer`'s container; `memoryCacheBytes` of thumbnails and
    /// `previewCacheBytes` of previews are kept in memory; a
    /// walk of the container serves the pages for up to `walkReuse` while nothing changes
    /// (`ScanCache`).
    public init(
        indexer: Indexer, renderTimeout: Duration = .seconds(30), title: String? = nil,
        memoryCacheBytes: Int = 256 << 20, previewCacheBytes: Int = 128 << 20, walkReuse: Duration = .seconds(2),
        metrics: ProcessMetrics? = nil
    ) {
        self.indexer = indexer
        self.renderTimeout = renderTimeout
        cache = ThumbnailCache(capacityBytes: memoryCacheBytes, onLookup: Self.counter(metrics, cache: "thumbnails"))
        previewCache = ThumbnailCache(
            capacityBytes: previewCacheBytes, onLookup: Self.counter(metrics, cache: "previews"))
        scans = ScanCache(indexer: indexer, maximumAge: walkReuse)
        // As many previews in the pool as it has renderers (its preview lane lets at most half of
        // them draw previews while batch work waits); the others wait here, unopened.
        previewQueue = PreviewQueue(running: max(2, indexer.pool.configuration.renderers))
        self.title = title ?? indexer.scanner.root.split(separator: "/").last.map(String.init) ?? "/"
    }

    /// What counts a cache's lookups into `metrics`, or nil without metrics.
    private static func counter(_ metrics: ProcessMetrics?, cache: String) -> (@Sendable (Bool) -> Void)? {
        guard let metrics else { return nil }
        // The two counters found once, not on every request.
        let (hits, misses) = (metrics.cacheLookups(cache, hit: true), metrics.cacheLookups(cache, hit: false))
        return { hit in (hit ? hits : misses).increment() }
    }

    /// The routes, for this container alone (at the root).
    public func router() -> Router<ServerRequestContext> {
        PreviewSite(containers: [self]).router()
    }

    /// Adds this container's routes to `routes` (the signed-in group of the site, or of this
    /// container's prefix): those about the whole container, which a share link of one document
    /// does not reach (``WholeContainerOnly``), and those about one document, which such a link
    /// reaches for its document only (``SharedDocumentOnly``); anything else under the container
    /// answers 404 once signed in.
    func addRoutes(to routes: SiteRoutes) {
        let whole = routes.group().add(middleware: WholeContainerOnly())
        let oneDocument = routes.group().add(middleware: SharedDocumentOnly())
        whole.on(.items) { request, _ in try await self.items(request) }
        whole.on(.events) { request, context in self.events(request, stillSignedIn: context.stillSignedIn) }
        whole.on(.grid) { request, context in try await self.gridPage(request, signOut: context.signOut) }
        oneDocument.on(.item) { _, context in try await self.item(context.parameters.getCatchAll()) }
        oneDocument.on(.previewPage) { request, context in
            try await self.previewPage(
                context.parameters.getCatchAll(), request: request, signOut: context.signOut,
                alone: context.sharedDocument != nil)
        }
        oneDocument.on(.thumbnails) { request, context in
            try await self.thumbnail(context.parameters.getCatchAll(), request: request)
        }
        oneDocument.on(.text) { request, context in
            try await self.text(context.parameters.getCatchAll(), request: request, requester: Requester(context))
        }
        oneDocument.on(.previews) { request, context in
            try await self.preview(context.parameters.getCatchAll(), request: request, requester: Requester(context))
        }
        oneDocument.on(.documents) { request, context in
            try await self.document(context.parameters.getCatchAll(), request: request, context: context)
        }
    }

    // MARK: - API

    /// `GET /api/items`: the listing as `glance list --json` writes it, with its filters and sort
    /// as query parameters (`pattern`, `type`, `status`, `sort`, `reverse`) and paging (`offset`,
    /// `limit`, at most 1,000; everything without one); the number of matches before paging is in
    /// `X-Total-Count`.
    func items(_ request: Request) async throws -> Response {
        let query = try PageQuery(query: request.uri.query)
        var listingQuery = query.listingQuery
        listingQuery.offset = query.offset
        listingQuery.limit = query.limit
        let page = try await storeCall { try await listing.page(matching: listingQuery) }
        var headers: HTTPFields = [.contentType: "application/json; charset=utf-8"]
        headers[HTTPField.Name("X-Total-Count")!] = String(page.totalCount)
        let json = ListingJSONWriter.array(page.items.map(ListingFormatter.Row.init))
        return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(string: json)))
    }

    /// `GET /api/items/PATH`: one document's attributes, as `glance show --json` writes them.
    func item(_ components: [Substring]) async throws -> Response {
        let path = try resolve(components)
        guard let item = try await storeCall({ try await listing.attributes(forPaths: [path]).first ?? nil }) else {
            throw ServerError.notFound
        }
        let json = ListingFormatter.json(ListingFormatter.Row(item))
        return Response(
            status: .ok, headers: [.contentType: "application/json; charset=utf-8"],
            body: ResponseBody(byteBuffer: ByteBuffer(string: json)))
    }

    var listing: PreviewListing {
        let scans = scans
        return PreviewListing(
            scanner: indexer.scanner, store: indexer.store, policy: indexer.policy,
            documentsInNameOrder: { scans.documents() })
    }

    /// The value of a store read; a store that cannot be read is a 503 that says why.
    func storeCall<Value>(_ body: () async throws -> Value) async throws(ServerError) -> Value {
        do {
            return try await body()
        } catch let error as StoreError {
            throw .storeUnavailable(error.description)
        } catch {
            throw .storeUnavailable(String(describing: error))
        }
    }

    /// The document path for URL components, if it names a regular file inside the container.
    func resolve(_ components: [Substring]) throws(ServerError) -> String {
        try resolveWithIdentity(components).path
    }

    /// The document path for URL components and the document's `stat` identity, as ``resolve(_:)``.
    func resolveWithIdentity(_ components: [Substring]) throws(ServerError) -> (path: String, identity: FileIdentity) {
        guard let path = DocumentURL.from(components: components), let identity = indexer.scanner.identity(of: path)
        else { throw .notFound }
        return (path, identity)
    }
}

/// Answers 405 to every method but `GET` and `HEAD` (the server only reads; the sign-in and
/// sign-out forms are the only `POST`s), and 404 to a path with an empty component.
struct RequestFilter: RouterMiddleware {
    typealias Context = ServerRequestContext
    /// The site's base path (`""`, or `/glance`).
    var basePath = ""
    /// The paths that take a form (`POST`): the sign-in and sign-out pages, with accounts.
    var formPaths: Set<String> = []

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response)
        async throws -> Response
    {
        let isForm = request.method == .post && formPaths.contains(request.uri.path)
        guard request.method == .get || request.method == .head || isForm else {
            return Response(
                status: .methodNotAllowed,
                headers: [
                    .allow: formPaths.contains(request.uri.path) ? "GET, HEAD, POST" : "GET, HEAD",
                    .contentType: "text/plain; charset=utf-8",
                ],
                body: ResponseBody(byteBuffer: ByteBuffer(string: "only GET and HEAD are answered here\n")))
        }
        // The router reads `a//b` as `a/b`; a path with an empty component names nothing here
        // (one document, one URL: no aliases for caches and logs to tell apart).
        if Self.hasEmptyComponent(request.uri.path) || Self.hasStrayTrailingSlash(request.uri.path, basePath: basePath)
        {
            throw ServerError.notFound
        }
        do {
            return try await next(request, context)
        } catch let error as HTTPError where error.status == .notFound {
            // A path no route takes: the router's bare 404, in the words every error has.
            throw ServerError.notFound
        }
    }
}

extension RequestFilter {
    /// Whether `path` holds `//` (on the bytes: Foundation's `contains` of a string goes
    /// through Core Foundation, on every request).
    static func hasEmptyComponent(_ path: String) -> Bool {
        var previous: UInt8 = 0
        for byte in path.utf8 {
            if byte == UInt8(ascii: "/") && previous == UInt8(ascii: "/") { return true }
            previous = byte
        }
        return false
    }

    /// Whether `path` ends with a `/` that names nothing: only `/` and a container's grid
    /// (`/c/NAME/`), under the base path, end with one; `/documents/photo.jpg/` is not another
    /// name for the document.
    static func hasStrayTrailingSlash(_ path: String, basePath: String = "") -> Bool {
        let path = !basePath.isEmpty && path.hasPrefix(basePath + "/") ? String(path.dropFirst(basePath.count)) : path
        guard path.count > 1, path.hasSuffix("/") else { return false }
        let parts = path.split(separator: "/", omittingEmptySubsequences: false)
        // "/c/NAME/" splits into "", "c", "NAME", "".
        return !(parts.count == 4 && parts[1] == "c" && !parts[2].isEmpty)
    }
}
