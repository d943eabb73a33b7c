import GlancePipeline
import Logging
import ServiceLifecycle

/// How `glance serve`, `watch` and `worker` live, one way for the three: their parts are
/// services of one ServiceGroup, which SIGTERM or SIGINT shuts down gracefully, in the reverse of
/// the order they were added (so the part added last, typically the renderer pool's stop, goes
/// first). The main part (the server, the watcher, the queue worker) ends the process when it
/// returns; a part that fails ends it with its error.
public struct ProcessLifecycle {
    private var services: [ServiceGroupConfiguration.ServiceConfiguration] = []
    private let logger: Logger

    /// Logs through `logger`, at `info` and above only: ServiceLifecycle's own lines (each
    /// service's start, as a Swift description) say nothing an operator acts on.
    public init(logger: Logger) {
        var logger = logger
        if logger.logLevel < .info { logger.logLevel = .info }
        self.logger = logger
    }

    /// Adds the process's main part: when it returns, the others are shut down and the process ends.
    public mutating func addMain(_ service: any Service) {
        services.append(.init(service: service, successTerminationBehavior: .gracefullyShutdownGroup))
    }

    /// Adds a part that runs until the process is shut down.
    public mutating func add(_ service: any Service) {
        services.append(.init(service: service))
    }

    /// Adds a part that stops `pool` when the shutdown begins: renders under way are killed, so a
    /// stop takes no longer than a signal's round trip, however long a document takes.
    public mutating func stopOnShutdown(_ pool: RendererPool) {
        add(RenderPoolStop(pool: pool))
    }

    /// Runs every part until the main one returns or a stop signal comes; a shutdown that takes
    /// longer than `maximumShutdown` (a client that stops reading its download) is cut short.
    public func run(maximumShutdown: Duration? = nil) async throws {
        var configuration = ServiceGroupConfiguration(
            services: services, gracefulShutdownSignals: [.sigterm, .sigint], logger: logger)
        configuration.maximumGracefulShutdownDuration = maximumShutdown
        try await ServiceGroup(configuration: configuration).run()
    }
}

/// Kills the renders under way when the process is asked to stop (``ProcessLifecycle/stopOnShutdown(_:)``).
struct RenderPoolStop: Service {
    let pool: RendererPool

    func run() async throws {
        // Returns when graceful shutdown starts (throws if the group is cancelled instead).
        try? await gracefulShutdown()
        await pool.stop()
    }
}
