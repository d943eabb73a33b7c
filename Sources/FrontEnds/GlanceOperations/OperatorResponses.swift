import GlancePipeline
import HTTPTypes
import Hummingbird

/// The answers of `/healthz`, `/readyz` and `/metrics`, whichever listener serves them (a site's,
/// behind its sign-in rules, or an operator's, ``OperatorListener``).
public enum OperatorResponses {
    /// `GET /healthz`: the process answers.
    public static func alive() -> Response {
        text("ok\n", status: .ok)
    }

    /// `GET /readyz`: `200 ready` when the stores and a renderer answer, else `503` and what did not.
    public static func ready(_ health: HealthCheck?) async -> Response {
        guard let health else { return text("ready\n", status: .ok) }
        let readiness = await health.readiness()
        if readiness.isReady { return text("ready\n", status: .ok) }
        return text("not ready: " + readiness.problems.joined(separator: "; ") + "\n", status: .serviceUnavailable)
    }

    /// `GET /metrics`: Prometheus' text format.
    public static func metrics(_ metrics: ProcessMetrics) -> Response {
        let body = metrics.exposition()
        return Response(
            status: .ok,
            headers: [
                .contentType: "text/plain; version=0.0.4; charset=utf-8", .cacheControl: "no-store",
                .contentLength: String(body.count),
            ],
            body: ResponseBody(byteBuffer: ByteBuffer(bytes: body)))
    }

    /// A plain-text answer that no cache keeps.
    public static func text(_ text: String, status: HTTPResponse.Status) -> Response {
        Response(
            status: status, headers: [.contentType: "text/plain; charset=utf-8", .cacheControl: "no-store"],
            body: ResponseBody(byteBuffer: ByteBuffer(string: text)))
    }
}
