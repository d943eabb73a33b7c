import ArgumentParser
import GlanceCore
import GlanceOperations
import GlancePipeline
import Hummingbird
import Logging
import ServiceLifecycle

/// `--metrics-address HOST:PORT`: where `glance serve`, `watch` and `worker` answer `/metrics`,
/// `/healthz` and `/readyz` for operators, apart from anything else.
struct MetricsOptions: ParsableArguments {
    @Option(
        help: ArgumentHelp(
            """
            Also answer /metrics (Prometheus), /healthz and /readyz on this address, and nothing else \
            there (127.0.0.1:9464; port 0 picks a free one; no sign-in: keep it on loopback or a private network).
            """, valueName: "HOST:PORT"))
    var metricsAddress: String?

    func validate() throws {
        if let metricsAddress, OperatorListener.address(metricsAddress) == nil {
            throw ValidationError("--metrics-address must be HOST:PORT (127.0.0.1:9464, [::1]:9464)")
        }
    }

    /// The listener of `--metrics-address`, or nil without it; it prints its URL when it listens.
    func listener(metrics: ProcessMetrics, health: HealthCheck?, logger: Logger) -> (any Service)? {
        guard let metricsAddress, let (host, port) = OperatorListener.address(metricsAddress) else { return nil }
        return OperatorListener.application(host: host, port: port, metrics: metrics, health: health, logger: logger) {
            url in DescriptorWriter.writeAll(Array("metrics at \(url)metrics\n".utf8), to: 1)
        }
    }
}
