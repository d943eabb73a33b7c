import HTTPTypes
import Hummingbird
import Logging
import Synchronization

/// The site's URL map: every route the server answers, its path below its group, its methods,
/// what the metrics count it under and the level its line of the request log is written at. The
/// routes are added with ``SiteRoutes/on(_:handler:)``, and the log and the metrics read the
/// route a request matched (``SiteRouteMap``), so each of these is said here only.
enum SiteRoute: Sendable, CaseIterable {
    /// A container's grid page (`/`, or `/c/NAME/`).
    case grid
    /// The list of containers, with several (`/`).
    case containers
    /// The listing as JSON.
    case items
    /// One document's attributes as JSON.
    case item
    /// The stream of changes.
    case events
    /// One document's preview page.
    case previewPage
    /// A stored thumbnail.
    case thumbnails
    /// A text document's content.
    case text
    /// A page drawn larger.
    case previews
    /// An original, with `Range`.
    case documents
    /// The pages' stylesheet and script.
    case assets
    /// An empty icon.
    case favicon
    /// `/healthz`.
    case alive
    /// `/readyz`.
    case ready
    /// The sign-in form, and its answer.
    case signIn
    /// The sign-out form's answer.
    case signOut
    /// A share link's door.
    case share
    /// The counts.
    case metrics
    /// `/c` alone, with several containers.
    case containerNames
    /// Every other path below a group: 404, after the group's sign-in.
    case nothingElse

    /// The route's path below the group it is added to.
    var path: RouterPath {
        switch self {
        case .grid, .containers: "/"
        case .items: "/api/items"
        case .item: "/api/items/**"
        case .events: "/events"
        case .previewPage: "/preview/**"
        case .thumbnails: "/thumbnails/**"
        case .text: "/text/**"
        case .previews: "/previews/**"
        case .documents: "/documents/**"
        case .assets: "/assets/:name"
        case .favicon: "/favicon.ico"
        case .alive: "/healthz"
        case .ready: "/readyz"
        case .signIn: RouterPath(SignInPage.path)
        case .signOut: RouterPath(SignInPage.signOutPath)
        case .share: RouterPath(SharePage.pathPrefix + ":token")
        case .metrics: "/metrics"
        case .containerNames: ""
        case .nothingElse: "/**"
        }
    }

    /// The methods the route answers: `GET` and `HEAD` (a `HEAD` gets the `GET`'s status and
    /// headers, without the body), and `POST` for the forms.
    var methods: [HTTPRequest.Method] {
        switch self {
        case .signIn, .nothingElse: [.get, .head, .post]
        case .signOut: [.post]
        default: [.get, .head]
        }
    }

    /// What the metrics count the route's requests under (`route="…"`; never the path itself).
    var metricsLabel: String {
        switch self {
        case .grid, .containers, .previewPage: "page"
        case .items, .item: "api"
        case .events: "events"
        case .thumbnails: "thumbnails"
        case .text: "text"
        case .previews: "previews"
        case .documents: "documents"
        case .assets: "assets"
        case .signIn, .signOut: "sign-in"
        case .share: "share"
        case .alive, .ready: "health"
        case .metrics: "metrics"
        case .favicon, .containerNames, .nothingElse: "other"
        }
    }

    /// The level of the route's lines in the request log: `debug` for thumbnails and assets,
    /// which a grid asks for by the hundred; `info` for the rest.
    var logLevel: Logger.Level {
        switch self {
        case .thumbnails, .assets: .debug
        default: .info
        }
    }
}

/// The routes the site has added, by the path Hummingbird reports a request matched
/// (`RequestContext.endpointPath`): how the log and the metrics know a request's route, whether
/// a handler answered it or a middleware before it (sign-in) did. Written while the router is
/// built, read for every request.
final class SiteRouteMap: Sendable {
    private let routes = Mutex<[String: SiteRoute]>([:])

    /// Records that `path`, a full route path, is `route`.
    func record(_ route: SiteRoute, at path: RouterPath) {
        routes.withLock { $0[path.description] = route }
    }

    /// The route of a request that matched `endpointPath`, or nil (it matched none).
    func route(matched endpointPath: String?) -> SiteRoute? {
        guard let endpointPath else { return nil }
        return routes.withLock { $0[endpointPath] }
    }

    /// What the metrics count a request under: its route's label, `other` when it matched none.
    func metricsLabel(matched endpointPath: String?) -> String {
        route(matched: endpointPath)?.metricsLabel ?? "other"
    }

    /// The level of a request's log line: its route's, `info` when it matched none.
    func logLevel(matched endpointPath: String?) -> Logger.Level {
        route(matched: endpointPath)?.logLevel ?? .info
    }
}

/// A group of the site's routes: a Hummingbird group with the full path it adds, so that each
/// route added through it is recorded in the ``SiteRouteMap`` under the path a request reports.
struct SiteRoutes {
    /// The Hummingbird group (routes added to it directly are answered, but the log and the
    /// metrics count them as `other`).
    let routerGroup: RouterGroup<ServerRequestContext>
    /// The full path of the group, from the router's root.
    let path: RouterPath
    let map: SiteRouteMap

    /// The root group of `router`, below `basePath` (`""` or `/glance`).
    init(router: Router<ServerRequestContext>, basePath: String, map: SiteRouteMap) {
        let path = RouterPath(basePath)
        self.init(routerGroup: router.group(path), path: path, map: map)
    }

    private init(routerGroup: RouterGroup<ServerRequestContext>, path: RouterPath, map: SiteRouteMap) {
        self.routerGroup = routerGroup
        self.path = path
        self.map = map
    }

    /// A group below this one, at `subpath`; it has this group's middleware and whatever is
    /// added to it.
    func group(_ subpath: String = "") -> SiteRoutes {
        SiteRoutes(
            routerGroup: routerGroup.group(RouterPath(subpath)), path: path.appendingPath(RouterPath(subpath)),
            map: map)
    }

    /// This group, with `middleware` run for the routes added to it from now on.
    @discardableResult
    func add(middleware: any MiddlewareProtocol<Request, Response, ServerRequestContext>) -> SiteRoutes {
        routerGroup.add(middleware: middleware)
        return self
    }

    /// Adds `route` with `handler` for each of its methods; a `HEAD` gets the handler's status
    /// and headers, and no body.
    func on(
        _ route: SiteRoute,
        handler: @escaping @Sendable (Request, ServerRequestContext) async throws -> Response
    ) {
        map.record(route, at: path.appendingPath(route.path))
        for method in route.methods {
            routerGroup.on(route.path, method: method) { request, context in
                let response = try await handler(request, context)
                return request.method == .head ? response.withoutBody : response
            }
        }
    }
}

extension Response {
    /// The response as `HEAD` wants it: the same status and headers, the length the body would
    /// have had, no body.
    var withoutBody: Response {
        var headers = headers
        if headers[.contentLength] == nil, let length = body.contentLength, length > 0 {
            headers[.contentLength] = String(length)
        }
        return Response(status: status, headers: headers)
    }
}

extension ResponseBody {
    /// The same body, calling `done` once it has been written to the connection (`true`) or its
    /// writing failed (`false`, the client left): when the log and the metrics stop the clock.
    func whenWritten(_ done: @escaping @Sendable (_ sent: Bool) async -> Void) -> ResponseBody {
        let body = self
        return ResponseBody(contentLength: contentLength) { writer in
            do {
                try await body.write(writer)
            } catch {
                await done(false)
                throw error
            }
            await done(true)
        }
    }
}
