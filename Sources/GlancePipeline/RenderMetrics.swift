import CoreMetrics
import GlanceCore

/// What the renderer pool, the indexer and the store count for an operator (`GET /metrics`),
/// through swift-metrics with the factory the program chose (swift-prometheus's in `glance
/// serve`, `watch` and `worker`; none elsewhere). No global metrics system: each pool and store
/// is handed its own. Names and labels follow Prometheus' conventions, with few label values (a
/// document's kind, never its path).
public struct RenderMetrics: Sendable {
    let factory: any MetricsFactory
    /// Whether anything is counted (false for ``none``): a store is wrapped for its metrics
    /// only then.
    public let isCounting: Bool

    public init(factory: any MetricsFactory) {
        self.factory = factory
        isCounting = !(factory is NOOPMetricsHandler)
    }

    /// Counts nothing.
    public static let none = RenderMetrics(factory: NOOPMetricsHandler.instance)

    /// The kinds a label may name: a document's content type, else `unknown`.
    static func kind(_ type: ContentType?) -> String { type?.rawValue ?? "unknown" }

    /// One job ended: `glance_renders_total{kind,outcome}`, its wall time
    /// (`glance_render_duration_seconds{kind}`), and the bytes it read and made.
    func rendered(kind: String, outcome: String, duration: Duration, bytesIn: Int, bytesOut: Int) {
        Counter(label: "glance_renders_total", dimensions: [("kind", kind), ("outcome", outcome)], factory: factory)
            .increment()
        Timer(label: "glance_render_duration_seconds", dimensions: [("kind", kind)], factory: factory)
            .recordNanoseconds(duration.nanoseconds)
        if bytesIn > 0 {
            Counter(label: "glance_render_input_bytes_total", dimensions: [("kind", kind)], factory: factory)
                .increment(by: bytesIn)
        }
        if bytesOut > 0 {
            Counter(label: "glance_render_output_bytes_total", dimensions: [("kind", kind)], factory: factory)
                .increment(by: bytesOut)
        }
    }

    /// A renderer process started: `glance_renderers_started_total{reason}`, where the reason is
    /// `first` (the worker's first), `crash`, `timeout`, `cpu` (used its share of CPU time) or
    /// `gone` (found dead before it took a job).
    func rendererStarted(reason: String) {
        Counter(label: "glance_renderers_started_total", dimensions: [("reason", reason)], factory: factory)
            .increment()
    }

    /// The jobs waiting in each lane: `glance_lane_depth{lane}`.
    func laneDepths(interactive: Int, preview: Int, batch: Int) {
        for (lane, depth) in [("interactive", interactive), ("preview", preview), ("batch", batch)] {
            Gauge(label: "glance_lane_depth", dimensions: [("lane", lane)], factory: factory).record(depth)
        }
    }

    /// How long a job waited in its lane before a renderer took it: `glance_lane_wait_seconds{lane}`.
    func laneWait(_ lane: RendererPool.Priority, _ wait: Duration) {
        Timer(label: "glance_lane_wait_seconds", dimensions: [("lane", lane.label)], factory: factory)
            .recordNanoseconds(wait.nanoseconds)
    }

    /// One call to the store: `glance_store_call_duration_seconds{call}`, and
    /// `glance_store_errors_total{call}` when it failed.
    public func storeCall(_ call: String, duration: Duration, failed: Bool) {
        Timer(label: "glance_store_call_duration_seconds", dimensions: [("call", call)], factory: factory)
            .recordNanoseconds(duration.nanoseconds)
        if failed {
            Counter(label: "glance_store_errors_total", dimensions: [("call", call)], factory: factory).increment()
        }
    }

    /// A change the watcher saw: `glance_watcher_events_total{event}` (`saved`, `moved`,
    /// `removed`, `overflow`).
    public func watcherEvent(_ event: String) {
        Counter(label: "glance_watcher_events_total", dimensions: [("event", event)], factory: factory).increment()
    }

    /// From a save seen by the watcher to its fresh thumbnail: `glance_save_to_fresh_seconds`.
    public func saveToFresh(_ duration: Duration) {
        Timer(label: "glance_save_to_fresh_seconds", factory: factory).recordNanoseconds(duration.nanoseconds)
    }
}

extension Duration {
    /// Whole nanoseconds, for swift-metrics' timers.
    var nanoseconds: Int64 {
        let (seconds, attoseconds) = components
        return seconds * 1_000_000_000 + attoseconds / 1_000_000_000
    }
}

extension RendererPool.Priority {
    /// The lane's name in a metric's label.
    var label: String {
        switch self {
        case .interactive: "interactive"
        case .preview: "preview"
        case .normal: "batch"
        }
    }
}

extension JobResult {
    /// The outcome's word in `glance_renders_total`: `rendered`, `failed`, `unsupported`,
    /// `timeout`, `crash` or `cancelled`.
    var metricOutcome: String {
        switch self {
        case .finished(let outcome):
            switch outcome.status {
            case .rendered: "rendered"
            case .failed: "failed"
            case .unsupported: "unsupported"
            }
        case .timedOut: "timeout"
        case .crashed: "crash"
        case .cancelled: "cancelled"
        }
    }
}
