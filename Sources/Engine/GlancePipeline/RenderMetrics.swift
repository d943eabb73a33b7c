import CoreMetrics
import GlanceCore
import Synchronization

/// What the renderer pool, the indexer and the store count for an operator (`GET /metrics`),
/// through swift-metrics with the factory the program chose (swift-prometheus's in `glance
/// serve`, `watch` and `worker`; none elsewhere). No global metrics system: each pool and store
/// is handed its own. Names and labels follow Prometheus' conventions, with few label values (a
/// document's kind, never its path).
public struct RenderMetrics: Sendable {
    let handles: MetricHandles
    /// Whether anything is counted (false for ``none``): a store is wrapped for its metrics
    /// only then.
    public let isCounting: Bool
    /// Whether these count the office lane's pool (``OfficeLane``): its renderers' starts and its
    /// queue go under names of their own (`glance_office_renderers_started_total{reason}`,
    /// `glance_office_queue_depth`, `glance_office_queue_wait_seconds`), so that the ordinary
    /// lanes' gauges are not overwritten by the office pool's; its renders are counted as every
    /// render is, by kind.
    var forOfficeLane = false

    public init(factory: any MetricsFactory) {
        self.init(handles: MetricHandles(factory: factory))
    }

    public init(handles: MetricHandles) {
        self.handles = handles
        isCounting = !(handles.factory is NOOPMetricsHandler)
    }

    /// Counts nothing.
    public static let none = RenderMetrics(factory: NOOPMetricsHandler.instance)

    /// The kinds a label may name: a document's content type, else `unknown`.
    static func kind(_ type: ContentType?) -> String { type?.rawValue ?? "unknown" }

    /// One job ended: `glance_renders_total{kind,outcome}`, its wall time
    /// (`glance_render_duration_seconds{kind}`), and the bytes it read and made.
    func rendered(kind: String, outcome: String, duration: Duration, bytesIn: Int, bytesOut: Int) {
        guard isCounting else { return }
        handles.counter("glance_renders_total", [("kind", kind), ("outcome", outcome)])
            .increment()
        handles.record(duration, in: "glance_render_duration_seconds", [("kind", kind)])
        if bytesIn > 0 {
            handles.counter("glance_render_input_bytes_total", [("kind", kind)])
                .increment(by: bytesIn)
        }
        if bytesOut > 0 {
            handles.counter("glance_render_output_bytes_total", [("kind", kind)])
                .increment(by: bytesOut)
        }
    }

    /// A renderer process started: `glance_renderers_started_total{reason}`, where the reason is
    /// `first` (the worker's first), `crash`, `timeout`, `cpu` (used its share of CPU time) or
    /// `gone` (found dead before it took a job).
    func rendererStarted(reason: String) {
        guard isCounting else { return }
        let name = forOfficeLane ? "glance_office_renderers_started_total" : "glance_renderers_started_total"
        handles.counter(name, [("reason", reason)])
            .increment()
    }

    /// The jobs waiting in each lane: `glance_lane_depth{lane}`.
    func laneDepths(interactive: Int, preview: Int, batch: Int) {
        guard isCounting else { return }
        if forOfficeLane {
            handles.gauge("glance_office_queue_depth", []).record(interactive + preview + batch)
            return
        }
        for (lane, depth) in [("interactive", interactive), ("preview", preview), ("batch", batch)] {
            handles.gauge("glance_lane_depth", [("lane", lane)]).record(depth)
        }
    }

    /// How long a job waited in its lane before a renderer took it: `glance_lane_wait_seconds{lane}`.
    func laneWait(_ lane: Lane, _ wait: Duration) {
        guard isCounting else { return }
        if forOfficeLane {
            handles.record(wait, in: "glance_office_queue_wait_seconds", [])
            return
        }
        handles.record(wait, in: "glance_lane_wait_seconds", [("lane", lane.label)])
    }

    /// One call to the store: `glance_store_call_duration_seconds{call}`, and
    /// `glance_store_errors_total{call}` when it failed.
    public func storeCall(_ call: String, duration: Duration, failed: Bool) {
        guard isCounting else { return }
        handles.record(duration, in: "glance_store_call_duration_seconds", [("call", call)])
        if failed {
            handles.counter("glance_store_errors_total", [("call", call)]).increment()
        }
    }

    /// A change the watcher saw: `glance_watcher_events_total{event}` (`saved`, `moved`,
    /// `removed`, `overflow`).
    public func watcherEvent(_ event: String) {
        guard isCounting else { return }
        handles.counter("glance_watcher_events_total", [("event", event)]).increment()
    }

    /// From a save seen by the watcher to its fresh thumbnail: `glance_save_to_fresh_seconds`.
    public func saveToFresh(_ duration: Duration) {
        guard isCounting else { return }
        handles.record(duration, in: "glance_save_to_fresh_seconds", [])
    }
}

/// The metric objects of one factory, made once for each name and set of labels and kept: a
/// request counted makes no new object, and asks the factory (which checks and sorts names and
/// labels under its lock) nothing. Measured on thumbnail GETs (bench/metrics.py): making them
/// anew for each request cost 2.4% of the rate.
public final class MetricHandles: Sendable {
    let factory: any MetricsFactory
    private let counters = Mutex<[String: Counter]>([:])
    private let timers = Mutex<[String: Timer]>([:])
    private let gauges = Mutex<[String: Gauge]>([:])

    public init(factory: any MetricsFactory) { self.factory = factory }

    /// The handles' key: built in place, once a request on a server's busiest path.
    private static func key(_ label: String, _ dimensions: [(String, String)]) -> String {
        var key = label
        key.reserveCapacity(dimensions.reduce(label.utf8.count) { $0 + $1.0.utf8.count + $1.1.utf8.count + 2 })
        for (name, value) in dimensions {
            key.append("\u{1}")
            key.append(name)
            key.append("\u{2}")
            key.append(value)
        }
        return key
    }

    /// The counter `label` with `dimensions`.
    public func counter(_ label: String, _ dimensions: [(String, String)]) -> Counter {
        let key = Self.key(label, dimensions)
        if let made = counters.withLock({ $0[key] }) { return made }
        let made = Counter(label: label, dimensions: dimensions, factory: factory)
        return counters.withLock { counters in
            if let other = counters[key] { return other }
            counters[key] = made
            return made
        }
    }

    /// The timer `label` with `dimensions`.
    public func timer(_ label: String, _ dimensions: [(String, String)]) -> Timer {
        let key = Self.key(label, dimensions)
        if let made = timers.withLock({ $0[key] }) { return made }
        let made = Timer(label: label, dimensions: dimensions, factory: factory)
        return timers.withLock { timers in
            if let other = timers[key] { return other }
            timers[key] = made
            return made
        }
    }

    /// Records `duration` in the timer `label` with `dimensions`.
    public func record(_ duration: Duration, in label: String, _ dimensions: [(String, String)]) {
        timer(label, dimensions).recordNanoseconds(duration.nanoseconds)
    }

    /// The gauge `label` with `dimensions`.
    public func gauge(_ label: String, _ dimensions: [(String, String)]) -> Gauge {
        let key = Self.key(label, dimensions)
        if let made = gauges.withLock({ $0[key] }) { return made }
        let made = Gauge(label: label, dimensions: dimensions, factory: factory)
        return gauges.withLock { gauges in
            if let other = gauges[key] { return other }
            gauges[key] = made
            return made
        }
    }
}

extension Duration {
    /// Whole nanoseconds, for swift-metrics' timers.
    var nanoseconds: Int64 {
        let (seconds, attoseconds) = components
        return seconds * 1_000_000_000 + attoseconds / 1_000_000_000
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
