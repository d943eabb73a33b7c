import GlanceOnSave
import ServiceLifecycle

/// A container's watcher and hook socket as a service: `glance watch`'s main part, or one beside
/// `glance serve`'s HTTP server; it stops when the process shuts down, and its failure stops it.
struct LiveContainerService: Service {
    let live: LiveContainer

    func run() async throws {
        try await cancelWhenGracefulShutdown { try await live.run() }
    }
}
