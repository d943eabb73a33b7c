import Foundation
import GlancePipeline
import Logging

/// A container kept fresh while it is in use: the inotify watcher and the `glance hook` socket,
/// run together. `glance watch` runs one; `glance serve --watch` runs one per container, beside
/// the HTTP server, with the same code.
public struct LiveContainer: Sendable {
    public let watcher: ContainerWatcher
    /// Nil when the socket could not be made (the watcher still works; `glance hook` then
    /// renders by itself).
    public let hooks: HookServer?
    /// Whether its store and a renderer answer (what `glance status` and `/readyz` ask).
    public let health: HealthCheck

    /// A watcher for `indexer`'s container and a hook socket at `hookSocket`; `command` names
    /// what runs it, for `glance status`.
    ///
    /// - Throws: ``HookError`` when another watcher answers on that socket already: two watchers
    ///   on one container would race. Any other trouble with the socket is logged, not thrown.
    public init(
        indexer: Indexer, excludingFolders: Set<String>, hookSocket: String, logger: Logger,
        options: ContainerWatcher.Options = .init(), command: String = "glance watch"
    ) throws(HookError) {
        let watcher = ContainerWatcher(
            indexer: indexer, excludingFolders: excludingFolders, logger: logger, options: options)
        self.watcher = watcher
        let health = HealthCheck(pool: indexer.pool, stores: [indexer.store])
        self.health = health
        let started = ContinuousClock.now
        do {
            hooks = try HookServer(path: hookSocket, indexer: indexer, logger: logger) {
                let readiness = await health.readiness()
                let queued = indexer.pool.queuedJobs
                return HookStatus(
                    command: command, pid: getpid(),
                    uptimeSeconds: Int((ContinuousClock.now - started).components.seconds),
                    ready: readiness.isReady, problems: readiness.problems, watching: watcher.isWatching,
                    catchUpPasses: watcher.catchUpPasses, queuedInteractive: queued.interactive,
                    queuedPreviews: queued.preview, queuedBatch: queued.batch,
                    renderersStarted: indexer.pool.startedRenderers)
            }
        } catch {
            if error.kind == .anotherWatcher { throw error }
            logger.warning("hook socket unavailable: \(error.message); glance hook will render by itself")
            hooks = nil
        }
    }

    /// Watches and answers hooks until the calling task is cancelled (then returns) or the
    /// watcher fails (then throws).
    public func run() async throws(WatchError) {
        let watcher = watcher
        let hooks = hooks
        let failure = await withTaskGroup(of: WatchError?.self) { group -> WatchError? in
            group.addTask {
                do throws(WatchError) {
                    try await watcher.run()
                    return nil
                } catch {
                    return error
                }
            }
            if let hooks {
                group.addTask {
                    await hooks.run()
                    return nil
                }
            }
            let first = await group.next() ?? nil
            group.cancelAll()
            return first
        }
        if let failure { throw failure }
    }
}
