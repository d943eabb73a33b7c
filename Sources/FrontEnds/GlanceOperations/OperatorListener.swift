import GlancePipeline
import HTTPTypes
import Hummingbird
import Logging

/// `--metrics-address HOST:PORT`: a listener of its own for operators, with `/metrics`,
/// `/healthz` and `/readyz` and nothing else (no documents, no sign-in), for `glance watch` and
/// `glance worker`, and for a `glance serve` whose main listener is behind sign-in or TLS.
public enum OperatorListener {
    /// The address of `text` (`HOST:PORT`, `[::1]:PORT`), or nil when it is not one.
    public static func address(_ text: String) -> (host: String, port: Int)? {
        var host: Substring
        let portText: Substring
        if text.hasPrefix("[") {
            guard let close = text.firstIndex(of: "]"), text[text.index(after: close)...].hasPrefix(":") else {
                return nil
            }
            host = text[text.index(after: text.startIndex)..<close]
            portText = text[text.index(close, offsetBy: 2)...]
        } else {
            guard let colon = text.lastIndex(of: ":"), !text[..<colon].contains(":") else { return nil }
            host = text[..<colon]
            portText = text[text.index(after: colon)...]
        }
        guard !host.isEmpty, let port = Int(portText), (0...65535).contains(port) else { return nil }
        if host == "localhost" { host = "127.0.0.1" }
        return (String(host), port)
    }

    /// The application listening on `host:port` (port 0 picks a free one); `ready` is given the
    /// URL it listens at.
    public static func application(
        host: String, port: Int, metrics: ProcessMetrics, health: HealthCheck?, logger: Logger,
        ready: @escaping @Sendable (String) async -> Void = { _ in }
    ) -> some ApplicationProtocol {
        let router = Router(context: BasicRequestContext.self)
        router.add(middleware: SecurityHeaders())
        router.add(middleware: HostFilter(check: HostCheck(boundHost: host, serverNames: [])))
        for method in [HTTPRequest.Method.get, .head] {
            router.on("/healthz", method: method) { _, _ in OperatorResponses.alive() }
            router.on("/readyz", method: method) { _, _ in await OperatorResponses.ready(health) }
            router.on("/metrics", method: method) { _, _ in OperatorResponses.metrics(metrics) }
        }
        return Application(
            router: router,
            configuration: .init(address: .hostname(host, port: port), serverName: "glance"),
            onServerRunning: { channel in
                let bound = channel.localAddress?.port ?? port
                await ready("http://\(host.contains(":") ? "[\(host)]" : host):\(bound)/")
            },
            logger: logger)
    }
}
