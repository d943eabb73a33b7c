import GlancePipeline
import ServiceLifecycle

/// systemd's side of `glance serve` (`Type=notify`): `READY=1` once `isReady` says so (the
/// listener is up and, with `--watch`, the watches are in place), `WATCHDOG=1` while running,
/// `STOPPING=1` when the graceful shutdown begins. Does nothing outside systemd.
public struct SystemdNotifyService: Service {
    let notifier: ServiceNotifier
    let status: String
    let isReady: @Sendable () -> Bool

    public init(notifier: ServiceNotifier, status: String, isReady: @escaping @Sendable () -> Bool) {
        self.notifier = notifier
        self.status = status
        self.isReady = isReady
    }

    public func run() async throws {
        guard notifier.isActive else {
            try? await gracefulShutdown()
            return
        }
        let notifier = notifier
        let status = status
        let isReady = isReady
        await withGracefulShutdownHandler {
            _ = await cancelWhenGracefulShutdown {
                while !isReady(), !Task.isCancelled { try? await Task.sleep(for: .milliseconds(10)) }
                guard !Task.isCancelled else { return }
                notifier.ready(status)
                await notifier.keepWatchdog()
                while !Task.isCancelled { try? await Task.sleep(for: .seconds(3600)) }
            }
        } onGracefulShutdown: {
            notifier.stopping()
        }
    }
}
