import CoreMetrics
import Foundation
import GlanceOperations
import GlancePipeline
import HTTPTypes
import Hummingbird
import Prometheus

/// The earlier name of ``ProcessMetrics`` (now in GlanceOperations, which `watch` and `worker`
/// share with the server), kept for one release.
@available(*, deprecated, renamed: "ProcessMetrics")
public typealias ServerMetrics = ProcessMetrics

/// What a server counts besides the renders: its requests, its caches, its failed sign-ins.
extension ProcessMetrics {
    /// One answered request: `glance_http_requests_total{route,status}`,
    /// `glance_http_request_duration_seconds{route}` and, when its length is known,
    /// `glance_http_response_bytes_total{route}`.
    func request(route: String, status: Int, duration: Duration, bytes: Int?) {
        handles.counter("glance_http_requests_total", [("route", route), ("status", String(status))]).increment()
        handles.record(duration, in: "glance_http_request_duration_seconds", [("route", route)])
        if let bytes, bytes > 0 {
            handles.counter("glance_http_response_bytes_total", [("route", route)]).increment(by: bytes)
        }
    }

    /// A lookup in a memory cache (`thumbnails` or `previews`):
    /// `glance_cache_requests_total{cache,result}`.
    func cacheLookup(_ cache: String, hit: Bool) {
        handles.counter("glance_cache_requests_total", [("cache", cache), ("result", hit ? "hit" : "miss")])
            .increment()
    }

    /// A failed sign-in (a wrong password or token, or a share link that did not open):
    /// `glance_signin_failures_total`.
    func signInFailed() {
        handles.counter("glance_signin_failures_total", []).increment()
    }

    /// The route class a request's path is counted under (never the path itself): `page`,
    /// `api`, `thumbnails`, `previews`, `text`, `documents`, `events`, `assets`, `sign-in`,
    /// `share`, `metrics`, `health` or `other`.
    static func routeClass(of path: String, basePath: String) -> String {
        var parts = path.dropFirst(basePath.count).split(separator: "/", omittingEmptySubsequences: true)[...]
        if parts.first == "c", parts.count >= 2 { parts = parts.dropFirst(2) }
        guard let first = parts.first else { return "page" }
        switch first {
        case "preview": return "page"
        case "api", "thumbnails", "previews", "text", "documents", "events", "assets", "share", "metrics":
            return String(first)
        case "sign-in", "sign-out": return "sign-in"
        case "healthz", "readyz": return "health"
        default: return "other"
        }
    }
}

/// Counts every request for the metrics, answered or refused (outermost, beside the log).
struct RequestMetrics: RouterMiddleware {
    typealias Context = ServerRequestContext
    let metrics: ProcessMetrics
    let basePath: String

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response)
        async throws -> Response
    {
        let start = ContinuousClock.now
        let route = ProcessMetrics.routeClass(of: request.uri.path, basePath: basePath)
        do {
            let response = try await next(request, context)
            metrics.request(
                route: route, status: response.status.code, duration: ContinuousClock.now - start,
                bytes: response.body.contentLength)
            return response
        } catch let error as HTTPResponseError {
            metrics.request(route: route, status: error.status.code, duration: ContinuousClock.now - start, bytes: nil)
            throw error
        }
    }
}

/// `/healthz`, `/readyz` and `/metrics` on a server's own listener (the answers are
/// ``OperatorResponses``', as on `--metrics-address`).
enum OperatorRoutes {
    /// Adds `/healthz` and `/readyz` to `routes` (public: they say nothing of a container).
    static func addHealth(to routes: some RouterMethods<ServerRequestContext>, health: HealthCheck?) {
        for method in [HTTPRequest.Method.get, .head] {
            routes.on("/healthz", method: method) { _, _ in OperatorResponses.alive() }
            routes.on("/readyz", method: method) { _, _ in await OperatorResponses.ready(health) }
        }
    }

    /// Adds `/metrics` to `routes`. It counts for the whole server (requests, failed sign-ins,
    /// renders of every container): with `accountsRequired`, only an account that may see every
    /// container reads it (its password, session or token, which a scraper sends as a bearer
    /// token), never a share link (on an operator's listener, with no accounts, anyone who
    /// reaches it does).
    static func addMetrics(
        to routes: some RouterMethods<ServerRequestContext>, metrics: ProcessMetrics, accountsRequired: Bool
    ) {
        for method in [HTTPRequest.Method.get, .head] {
            routes.on("/metrics", method: method) { _, context in
                if accountsRequired, !mayReadMetrics(context) {
                    throw ServerError.forbidden(
                        "/metrics counts for every container: it is for accounts that may see them all "
                            + "(or serve it on --metrics-address)")
                }
                return OperatorResponses.metrics(metrics)
            }
        }
    }

    /// Whether the request's credential may read the whole server's counts: an account limited
    /// to no container, not a share link (whose account is its one container's).
    static func mayReadMetrics(_ context: ServerRequestContext) -> Bool {
        guard let account = context.account, account.containers == nil else { return false }
        if case .share = context.credential { return false }
        return true
    }
}
