import GlancePipeline
import ServiceLifecycle

/// systemd's side of a long-running command (`Type=notify`): `READY=1` once `isReady` says so
/// (`serve`: the listener is up and, with `--watch`, the watches are in place; `watch`: every
/// watch is in place; `worker`: at once), `WATCHDOG=1` while `isHealthy` says so, `STOPPING=1`
/// when the graceful shutdown begins. Does nothing outside systemd.
public struct SystemdNotifyService: Service {
    let notifier: ServiceNotifier
    let status: String
    let isReady: @Sendable () -> Bool
    let isHealthy: @Sendable () -> Bool

    public init(
        notifier: ServiceNotifier = ServiceNotifier(), status: String,
        isReady: @escaping @Sendable () -> Bool = { true }, isHealthy: @escaping @Sendable () -> Bool = { true }
    ) {
        self.notifier = notifier
        self.status = status
        self.isReady = isReady
        self.isHealthy = isHealthy
    }

    public func run() async throws {
        guard notifier.isActive else {
            try? await gracefulShutdown()
            return
        }
        let notifier = notifier
        let status = status
        let isReady = isReady
        let isHealthy = isHealthy
        await withGracefulShutdownHandler {
            _ = await cancelWhenGracefulShutdown {
                while !isReady(), !Task.isCancelled { try? await Task.sleep(for: .milliseconds(10)) }
                guard !Task.isCancelled else { return }
                notifier.ready(status)
                await notifier.keepWatchdog { isHealthy() }
                while !Task.isCancelled { try? await Task.sleep(for: .seconds(3600)) }
            }
        } onGracefulShutdown: {
            notifier.stopping()
        }
    }
}
