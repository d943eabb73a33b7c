import Foundation
import GlanceOperations
import HTTPTypes
import Hummingbird
import Logging

/// What is kept of every request, answered or refused, once its answer is sent (outermost but for
/// the security headers): a log line (method, path, status, milliseconds) at the level of the
/// route it matched (``SiteRoute/logLevel``), and the metrics' count and duration under the
/// route's label (``SiteRoute/metricsLabel``). An error that is no HTTP answer (a 500) is logged
/// at `error`, with what it was. A share link's token is a credential: its path is logged without
/// it (``redacted(_:)``).
///
/// One middleware, one wrapper of the answer's body, for both: the log and the metrics were two,
/// each wrapping the body to learn when it was sent, on the path every thumbnail GET takes.
struct RequestRecorder: RouterMiddleware {
    typealias Context = ServerRequestContext
    /// The site's routes, to find the level and the label of the one a request matched.
    let routes: SiteRouteMap
    /// The counts, when the server keeps them.
    let metrics: ProcessMetrics?

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response)
        async throws -> Response
    {
        let start = ContinuousClock.now
        do {
            var response = try await next(request, context)
            let status = response.status.code
            let level = routes.logLevel(matched: context.endpointPath)
            let logger = context.logger
            let logs = logger.logLevel <= level
            guard logs || metrics != nil else { return response }
            let counted = metrics.map { ($0, routes.metricsLabel(matched: context.endpointPath)) }
            let bytes = response.body.contentLength
            response.body = response.body.whenWritten { sent in
                let elapsed = ContinuousClock.now - start
                if logs { Self.log(request, status: status, took: elapsed, level: level, logger: logger, sent: sent) }
                if let (metrics, route) = counted {
                    metrics.request(route: route, status: status, duration: elapsed, bytes: bytes)
                }
            }
            return response
        } catch {
            let elapsed = ContinuousClock.now - start
            let answer = error as? any HTTPResponseError
            let status = answer?.status.code ?? 500
            let level: Logger.Level = answer == nil ? .error : routes.logLevel(matched: context.endpointPath)
            Self.log(
                request, status: status, took: elapsed, level: level, logger: context.logger,
                cause: answer == nil ? String(describing: error) : nil)
            metrics?.request(
                route: routes.metricsLabel(matched: context.endpointPath), status: status, duration: elapsed,
                bytes: nil)
            throw error
        }
    }

    private static func log(
        _ request: Request, status: Int, took elapsed: Duration, level: Logger.Level, logger: Logger,
        sent: Bool = true, cause: String? = nil
    ) {
        guard logger.logLevel <= level else { return }
        let milliseconds = Double(elapsed.components.attoseconds) / 1e15 + Double(elapsed.components.seconds) * 1000
        let path = redacted(request.uri.path)
        var line = "\(request.method) \(path) \(status) \(String(format: "%.1f", milliseconds)) ms"
        if !sent { line += " (the client left before the whole answer was sent)" }
        if let cause { line += ": " + cause }
        logger.log(level: level, "\(line)")
    }

    /// `path` as the log may show it: whatever follows a `/share/` anywhere in it (a share link's
    /// token, under the base path or not, mistyped or not) is `…`. A document or folder named
    /// `share` loses the rest of its path in the log, a small price for never logging a token.
    static func redacted(_ path: String) -> String {
        guard let marker = path.range(of: SharePage.pathPrefix) else { return path }
        return String(path[..<marker.upperBound]) + "…"
    }
}
