import ArgumentParser
import Dispatch
import Foundation
import Glance
import GlanceContainer
import GlanceCore
import GlanceOnSave
import GlanceOperations
import GlancePipeline
import GlancePostgresStore
import Logging
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// `glance watch CONTAINER`: keeps thumbnails fresh as documents are saved (inotify), and answers
/// `glance hook` over a socket in the store's folder.
struct WatchCommand: AsyncParsableCommand, ContainerCommand {
    static let configuration = CommandConfiguration(
        commandName: "watch",
        abstract: "Keep a container's thumbnails fresh as documents are saved, renamed and deleted (inotify).",
        discussion: """
            Starts with a catch-up pass (what 'glance generate' would do), in the background, \
            then renders each saved document within moments, ahead of any batch work. A rename \
            inside the container moves the thumbnail without rendering; a delete drops it. \
            Logs one line per document (path, outcome, save-to-fresh latency). Answers \
            'glance hook' on the socket hook.sock in the store's folder. SIGINT or SIGTERM \
            stops it within 2 seconds with the store consistent (exit 0). Exit 2 when the \
            container cannot be watched.
            """)

    @OptionGroup var containerOptions: ContainerOptions

    @OptionGroup var parallel: JobsOption
    var jobs: Int { parallel.jobs }

    @Option(help: "Log lines as text or json.")
    var logFormat: LineLogHandler.Format = .text

    @Option(help: "Least important log level shown: trace, debug, info, notice, warning, error, critical.")
    var logLevel: Logger.Level = .info

    @OptionGroup var rendererLimits: RendererLimitOptions

    @OptionGroup var limits: DocumentLimitOptions

    @OptionGroup var sandbox: SandboxOptions

    @Flag(help: "Skip the catch-up pass at start: only watch.")
    var noCatchUp = false

    @Flag(
        help:
            "With a PostgreSQL --store: queue saved documents (first in line) and the catch-up's for 'glance worker' on any host instead of rendering here; moves and deletions are still recorded here."
    )
    var enqueue = false

    @OptionGroup var metricsOptions: MetricsOptions

    @OptionGroup var debug: DebugTriggerOptions

    func run() async throws {
        let format = logFormat
        let level = logLevel
        LoggingSystem.bootstrap { label in LineLogHandler(label: label, format: format, logLevel: level) }
        let logger = Logger(label: "glance.watch")
        // Workers ready for the first save (about 20 ms sooner), unless the rendering is handed off.
        let metrics = ProcessMetrics()
        var poolConfiguration = try RendererLauncher.configuration(
            renderers: jobs, limits: rendererLimits, sandbox: sandbox,
            triggers: debug.triggers, startingAhead: !enqueue)
        if metricsOptions.metricsAddress != nil { poolConfiguration.metrics = metrics.render }
        let pool = RendererPool(configuration: poolConfiguration)
        let indexer: Indexer
        do {
            indexer = try await Container.open(location, pool: pool, options: limits.indexerOptions()).indexer
        } catch {
            await pool.stop()
            throw error
        }
        let (scanner, store) = (indexer.scanner, indexer.store)
        location.prepareHookFolder()
        var options = ContainerWatcher.Options()
        options.catchUpFirst = !noCatchUp
        options.metrics = poolConfiguration.metrics
        if enqueue {
            guard let queue = store as? PostgresStore else {
                throw CommandFailure.unusable(
                    "--enqueue needs a PostgreSQL --store (postgres://USER@HOST:PORT/DATABASE)")
            }
            let root = scanner.root
            options.handOff = { paths, urgent in
                let added = try await queue.enqueue(paths, root: root, priority: urgent ? .onSave : .batch)
                return "queued \(added) for glance worker"
            }
        }
        let live: LiveContainer
        do {
            live = try LiveContainer(
                indexer: indexer, excludingFolders: location.excludedFolders(of: scanner),
                hookSocket: location.hookSocket, logger: logger, options: options)
        } catch {
            await pool.stop()
            throw CommandFailure.unusable(error.message)
        }
        // One lifecycle, as serve's: the watcher is the main part; beside it the operator's
        // listener and systemd (ready once every watch is in place, the watchdog while the watcher
        // watches). A stop signal kills the renders under way first (renderers killed, queued
        // jobs dropped: every saved record was one transaction), then stops the rest.
        var lifecycle = ProcessLifecycle(logger: logger)
        lifecycle.addMain(LiveContainerService(live: live))
        if let listener = metricsOptions.listener(metrics: metrics, health: live.health, logger: logger) {
            lifecycle.add(listener)
        }
        let watcher = live.watcher
        lifecycle.add(
            SystemdNotifyService(
                status: "watching \(DisplayText.escaped(scanner.root))", isReady: { watcher.isWatching },
                isHealthy: { watcher.isWatching }))
        lifecycle.stopOnShutdown(pool)
        do {
            try await lifecycle.run()
        } catch let error as WatchError {
            throw CommandFailure.unusable(error.description)
        } catch {
            throw CommandFailure.unusable("--metrics-address: cannot listen: \(error)")
        }
    }
}
