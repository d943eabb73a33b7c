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

    /// The counter of the lookups in a memory cache (`thumbnails` or `previews`) that found an
    /// entry (`hit`) or none: `glance_cache_requests_total{cache,result}`.
    func cacheLookups(_ cache: String, hit: Bool) -> CoreMetrics.Counter {
        handles.counter("glance_cache_requests_total", [("cache", cache), ("result", hit ? "hit" : "miss")])
    }

    /// A failed sign-in (a wrong password or token, or a share link that did not open):
    /// `glance_signin_failures_total`.
    func signInFailed() {
        handles.counter("glance_signin_failures_total", []).increment()
    }
}

/// `/healthz`, `/readyz` and `/metrics` on a server's own listener (the answers are
/// ``OperatorResponses``', as on `--metrics-address`).
enum OperatorRoutes {
    /// Adds `/healthz` and `/readyz` to `routes` (public: they say nothing of a container).
    static func addHealth(to routes: SiteRoutes, health: HealthCheck?) {
        routes.on(.alive) { _, _ in OperatorResponses.alive() }
        routes.on(.ready) { _, _ in await OperatorResponses.ready(health) }
    }

    /// Adds `/metrics` to `routes`. It counts for the whole server (requests, failed sign-ins,
    /// renders of every container): with `accountsRequired`, only an account that may see every
    /// container reads it (its password, session or token, which a scraper sends as a bearer
    /// token), never a share link (on an operator's listener, with no accounts, anyone who
    /// reaches it does).
    static func addMetrics(
        to routes: SiteRoutes, metrics: ProcessMetrics, accountsRequired: Bool
    ) {
        routes.on(.metrics) { _, context in
            if accountsRequired, !mayReadMetrics(context) {
                throw ServerError.forbidden(
                    "/metrics counts for every container: it is for accounts that may see them all "
                        + "(or serve it on --metrics-address)")
            }
            return OperatorResponses.metrics(metrics)
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
