import ArgumentParser
import Foundation
import GlanceCore
import GlanceOperations
import GlancePipeline
import GlancePostgresStore
import GlanceQueue
import Logging

/// `glance worker --store postgres://…`: render queued documents on this host.
struct WorkerCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "worker",
        abstract: "Render the documents queued in a PostgreSQL store, on this host, until stopped.",
        discussion: """
            Run one on each host that mounts the containers at the same path (shared storage). \
            Each leases jobs (on-save ones first, then batch ones, oldest first), renders them \
            through its own supervised renderer processes, sends a heartbeat while they render, and \
            records each result; 'glance generate CONTAINER --store URL --enqueue' fills the queue. \
            A host that dies mid-job loses nothing: its leases expire and another host takes the \
            jobs. A job that fails on every try ends 'failed' after --max-attempts ('glance queue \
            --failed' lists them). A host that cannot open a container's folder, or finds it empty \
            (a share not mounted), gives the job back, saying why, and leaves it to other hosts \
            for --lease-seconds. A job whose folder is not a --root folder (or inside one), or \
            whose path is not a document's (absolute, '..', hidden), is refused: the queue is a \
            table, and whoever can write it must not choose what a worker reads. SIGINT or SIGTERM \
            stops at once: renders under way are killed and their jobs go back to the queue. \
            Exit status: 0 stopped or idle, \
            2 bad usage or an unreachable store.
            """)

    @Option(
        help: ArgumentHelp(
            "The PostgreSQL store: postgres://USER@HOST[:PORT]/DATABASE[?container=NAME] (with NAME, serve that "
                + "container only; ?host=/SOCKET/FOLDER reaches a server on this machine through its Unix-domain "
                + "socket).", valueName: "URL"))
    var store: String

    @Option(
        name: .customLong("root"),
        help: ArgumentHelp(
            "A folder whose containers this host renders (repeat for several; at least one). A job names its "
                + "container's folder, and anyone who can write the queue's table can name any folder: one that is "
                + "not a --root or inside one is refused.", valueName: "DIR"))
    var roots: [String] = []

    @OptionGroup var parallel: JobsOption
    var jobs: Int { parallel.jobs }

    @Option(
        parsing: .unconditional,
        help: ArgumentHelp(
            "Seconds a lease lasts without a heartbeat: how soon another host takes over a dead one's jobs, "
                + "and how long this host leaves a job it gave back to the others."))
    var leaseSeconds: Double = 30

    @Option(
        parsing: .unconditional,
        help: "Attempts before a job ends failed (a host dying, or unable to read the document, is an attempt).")
    var maxAttempts: Int = 3

    @Option(
        parsing: .unconditional,
        help: ArgumentHelp(
            "Batch documents whose records go to the database in one statement, at most: each but the last "
                + "waits for the next render (10 s at most), and the database spends about a third less on each "
                + "(docs/scale-out.md). On-save documents go at once. 1: each at once.", valueName: "N"))
    var savesPerCommit = 2

    @Flag(help: "Exit when no job is pending or leased, instead of waiting for more.")
    var exitWhenIdle = false

    @Flag(
        help: """
            Wait for each lease and save to reach the database's disk before going on. Without it \
            commits return before (synchronous_commit off): a crash of the database server loses \
            its last fraction of a second, whose jobs are rendered again after their lease.
            """)
    var durableCommits = false

    @Flag(name: .shortAndLong, help: "Print each finished document and its state.")
    var verbose = false

    @OptionGroup var rendererLimits: RendererLimitOptions

    @OptionGroup var limits: DocumentLimitOptions

    @OptionGroup var sandbox: SandboxOptions

    @OptionGroup var metricsOptions: MetricsOptions

    @OptionGroup var debug: DebugTriggerOptions

    func validate() throws {
        guard leaseSeconds >= 1, leaseSeconds <= 3600 else {
            throw ValidationError("--lease-seconds must be between 1 and 3600.")
        }
        guard (1...100).contains(maxAttempts) else {
            throw ValidationError("--max-attempts must be between 1 and 100.")
        }
        guard (1...16).contains(savesPerCommit) else {
            throw ValidationError("--saves-per-commit must be between 1 and 16.")
        }
        guard PostgresAddress.isAddress(store) else {
            throw ValidationError("--store must be a PostgreSQL address (postgres://USER@HOST:PORT/DATABASE).")
        }
        guard !roots.isEmpty else {
            throw ValidationError(
                "Name the folders whose containers this host renders with --root DIR (one or more): a job's folder "
                    + "comes from the queue, which is not trusted to name it.")
        }
    }

    func run() async throws {
        var resolvedRoots: [String] = []
        for root in roots {
            guard let resolved = FileName.withCString(root, { realpath($0, nil) }) else {
                throw CommandFailure.unusable(
                    "--root \(DisplayText.escaped(root)): \(String(cString: strerror(errno)))")
            }
            resolvedRoots.append(FileName.decode(cString: resolved))
            free(resolved)
        }
        let address: PostgresAddress
        let queue: PostgresStore
        do {
            address = try PostgresAddress(parsing: store)
            // Every write of a worker is redone when a crash of the database loses it.
            queue = try await PostgresStore.open(
                address, container: address.container ?? "", commits: durableCommits ? .flushed : .deferred)
        } catch {
            throw CommandFailure.unusable(error.description)
        }
        let metrics = ProcessMetrics()
        var poolConfiguration = try RendererLauncher.configuration(
            renderers: jobs, limits: rendererLimits, sandbox: sandbox,
            triggers: debug.triggers)
        if metricsOptions.metricsAddress != nil { poolConfiguration.metrics = metrics.render }
        let pool = RendererPool(configuration: poolConfiguration)
        defer { pool.shutdownBlocking() }
        let verbose = verbose
        let worker = QueueWorker(
            address: address, queue: queue, pool: pool, options: limits.indexerOptions(),
            settings: .init(
                jobs: jobs, leaseSeconds: leaseSeconds, maxAttempts: maxAttempts, onlyContainer: address.container,
                roots: resolvedRoots, exitWhenIdle: exitWhenIdle, savesPerCommit: savesPerCommit)
        ) { event in
            // A job's progress on standard output with -v; everything else, always, on stderr.
            // The event's line is escaped already.
            if event.isProgress {
                // Written at once: print's buffer would hold the lines while stdout is a pipe
                // or a journal (a service's log showed nothing until the worker stopped).
                if verbose { DescriptorWriter.writeAll(Array((event.description + "\n").utf8), to: 1) }
            } else {
                StandardError.writeRaw("glance: \(event.description)\n")
            }
        }
        // One lifecycle, as serve's and watch's: the queue worker is the main part (a stop signal
        // is its stop request: it gives back what it has not finished); beside it the operator's
        // listener and systemd (ready with the queue open, the watchdog while it works). The
        // renders under way are its own to finish or give back: the pool is not stopped first.
        let service = QueueWorkerService(worker: worker)
        var lifecycle = ProcessLifecycle(logger: Logger(label: "glance.worker"))
        lifecycle.addMain(service)
        if let listener = metricsOptions.listener(
            metrics: metrics, health: HealthCheck(pool: pool, stores: [queue]), logger: Logger(label: "glance.worker"))
        {
            lifecycle.add(listener)
        }
        lifecycle.add(SystemdNotifyService(status: "working on \(address.host):\(address.port)/\(address.database)"))
        do {
            try await lifecycle.run()
        } catch {
            await queue.close()
            throw CommandFailure.unusable(String(describing: error))
        }
        await queue.close()
        let tally = service.tally ?? QueueWorker.Tally()
        // Stopped by a signal, as a service is, or idle: both are a clean end (exit 0).
        StandardError.write("glance: worker \(Lease.thisHost): \(tally.description)")
    }
}
