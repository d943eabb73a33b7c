import CoreMetrics
import GlancePipeline
import Prometheus

/// The metrics of one `glance serve`, `watch` or `worker`, in Prometheus' text format
/// (`GET /metrics`): what its renderer pool and stores count (``RenderMetrics``) and, for a
/// server, its requests. One registry for the process, made by the command and handed to what
/// counts: no global metrics system.
public final class ProcessMetrics: Sendable {
    public let registry: PrometheusCollectorRegistry
    /// Where every count goes: the pool's, the stores', and what a server adds.
    public let handles: MetricHandles

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

    /// The registry in Prometheus' text format.
    public func exposition() -> [UInt8] { registry.emitToBuffer() }
}
