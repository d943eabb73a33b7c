import CoreMetrics
import Foundation
import GlancePipeline
import HTTPTypes
import Hummingbird
import Prometheus

/// The metrics of one `glance serve`, `watch` or `worker`, in Prometheus' text format
/// (`GET /metrics`): what its renderer pool and stores count (``RenderMetrics``) and, for a
/// server, its requests. One registry for the process, made by the command and handed to what
/// counts: no global metrics system.
public final class ServerMetrics: Sendable {
    public let registry: PrometheusCollectorRegistry
    let handles: MetricHandles

    public init() {
        registry = PrometheusCollectorRegistry()
        var factory = PrometheusMetricsFactory(registry: registry)
        // From a cached thumbnail (under a millisecond) to a slow page of a large PDF.
        factory.defaultDurationHistogramBuckets = [
            .microseconds(500), .milliseconds(1), .milliseconds(2.5), .milliseconds(5), .milliseconds(10),
            .milliseconds(25), .milliseconds(50), .milliseconds(100), .milliseconds(250), .milliseconds(500),
            .seconds(1), .seconds(2.5), .seconds(5), .seconds(10), .seconds(30),
        ]
        handles = MetricHandles(factory: factory)
    }

    /// What the renderer pool and the stores count, into this registry.
    public var render: RenderMetrics { RenderMetrics(handles: handles) }

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

    /// The registry in Prometheus' text format.
    public func exposition() -> [UInt8] { registry.emitToBuffer() }

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
    let metrics: ServerMetrics
    let basePath: String

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response)
        async throws -> Response
    {
        let start = ContinuousClock.now
        let route = ServerMetrics.routeClass(of: request.uri.path, basePath: basePath)
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

/// `/healthz`, `/readyz` and `/metrics`: on a server's own listener and on `--metrics-address`.
enum OperatorRoutes {
    /// `GET /healthz`: the process answers.
    static func alive() -> Response {
        text("ok\n", status: .ok)
    }

    /// `GET /readyz`: `200 ready` when the stores and a renderer answer, else `503` and what did not.
    static func ready(_ health: HealthCheck?) async -> Response {
        guard let health else { return text("ready\n", status: .ok) }
        let readiness = await health.readiness()
        if readiness.isReady { return text("ready\n", status: .ok) }
        return text("not ready: " + readiness.problems.joined(separator: "; ") + "\n", status: .serviceUnavailable)
    }

    /// `GET /metrics`: Prometheus' text format.
    static func metrics(_ metrics: ServerMetrics) -> Response {
        let body = metrics.exposition()
        return Response(
            status: .ok,
            headers: [
                .contentType: "text/plain; version=0.0.4; charset=utf-8", .cacheControl: "no-store",
                .contentLength: String(body.count),
            ],
            body: ResponseBody(byteBuffer: ByteBuffer(bytes: body)))
    }

    static func text(_ text: String, status: HTTPResponse.Status) -> Response {
        Response(
            status: status, headers: [.contentType: "text/plain; charset=utf-8", .cacheControl: "no-store"],
            body: ResponseBody(byteBuffer: ByteBuffer(string: text)))
    }

    /// Adds `/healthz` and `/readyz` to `routes` (public: they say nothing of a container).
    static func addHealth(to routes: some RouterMethods<ServerRequestContext>, health: HealthCheck?) {
        for method in [HTTPRequest.Method.get, .head] {
            routes.on("/healthz", method: method) { _, _ in alive() }
            routes.on("/readyz", method: method) { _, _ in await ready(health) }
        }
    }

    /// Adds `/metrics` to `routes`. It counts for the whole server (requests, failed sign-ins,
    /// renders of every container): with `accountsRequired`, only an account that may see every
    /// container reads it (its password, session or token, which a scraper sends as a bearer
    /// token), never a share link (on an operator's listener, with no accounts, anyone who
    /// reaches it does).
    static func addMetrics(
        to routes: some RouterMethods<ServerRequestContext>, metrics: ServerMetrics, accountsRequired: Bool
    ) {
        for method in [HTTPRequest.Method.get, .head] {
            routes.on("/metrics", method: method) { _, context in
                if accountsRequired, !mayReadMetrics(context) {
                    throw ServerError.forbidden(
                        "/metrics counts for every container: it is for accounts that may see them all "
                            + "(or serve it on --metrics-address)")
                }
                return Self.metrics(metrics)
            }
        }
    }

    /// Adds the three routes to `routes` (an operator's listener: no accounts).
    static func add(
        to routes: some RouterMethods<ServerRequestContext>, metrics: ServerMetrics?, health: HealthCheck?
    ) {
        addHealth(to: routes, health: health)
        if let metrics { addMetrics(to: routes, metrics: metrics, accountsRequired: false) }
    }

    /// Whether the request's credential may read the whole server's counts: an account limited
    /// to no container, not a share link (whose account is its one container's).
    static func mayReadMetrics(_ context: ServerRequestContext) -> Bool {
        guard let account = context.account, account.containers == nil else { return false }
        if case .share = context.credential { return false }
        return true
    }
}
