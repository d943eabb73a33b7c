import ArgumentParser
import Foundation
import Glance
import GlanceContainer
import GlanceCore
import GlanceDesktopCache
import GlanceListing
import GlancePipeline
import GlancePostgresStore
import GlanceStore

/// `glance generate CONTAINER`: make every thumbnail that is not fresh.
struct GenerateCommand: AsyncParsableCommand, ContainerCommand {
    static let configuration = CommandConfiguration(
        commandName: "generate",
        abstract: "Render the thumbnails of every document in a container that is not fresh.",
        discussion: """
            Unchanged documents are skipped after one stat each, so a re-run costs almost nothing. \
            Passed over on purpose, and counted in the summary: hidden files and folders (names \
            starting with '.'), the store's folder, things that are not regular files, symbolic \
            links that are absolute or lead out of the container, paths longer than 4096 bytes. \
            A folder that cannot be read is reported as a failure. SIGINT or SIGTERM stops the \
            batch at once (exit 130); what was rendered is saved. \
            Renderers run in supervised renderer processes: a crash, hang or memory blow-up costs one \
            document, which is recorded as failed with the reason and not retried until it changes \
            (or --retry-failed). Exit status: 0 all done, 1 some documents failed, 2 bad usage or an \
            unusable container.
            """
    )

    @OptionGroup var containerOptions: ContainerOptions

    @OptionGroup var desktop: DesktopCacheOptions

    @OptionGroup var parallel: JobsOption
    var jobs: Int { parallel.jobs }

    @Option(
        help: ArgumentHelp(
            "The smaller thumbnails each document keeps besides the 1024, for grids and lists: box sides "
                + "separated by commas (32 to 1023), or none. Kept as the store's setting, so every later "
                + "command uses them; records without one of them are stale and rendered again. Default: the "
                + "store's setting, else 256,512.",
            valueName: "SIDES"))
    var sizes: String?

    @Flag(help: "Render every document again, fresh or not.")
    var force = false

    @Flag(help: "Render documents that failed before, even if they have not changed.")
    var retryFailed = false

    @Flag(help: "Only say how many documents would be rendered, and the time and space it would take.")
    var dryRun = false

    @Flag(help: "Print the summary as one JSON object.")
    var json = false

    @Flag(
        help:
            "With a PostgreSQL --store: queue what is not fresh for 'glance worker' on any host, instead of rendering here."
    )
    var enqueue = false

    @Flag(name: .shortAndLong, help: "No progress bar and no summary; failures are still named.")
    var quiet = false

    @Flag(
        name: .shortAndLong,
        help:
            "Say for each document what its renderer noticed: colour converted from an embedded profile, damage it recovered from, a profile it could not use; and at the end how many renderers were replaced."
    )
    var verbose = false

    @OptionGroup var rendererLimits: RendererLimitOptions

    @OptionGroup var limits: DocumentLimitOptions

    @OptionGroup var sandbox: SandboxOptions

    @OptionGroup var debug: DebugTriggerOptions
    #if DEBUG
        /// `PATTERN=TARGET`: replace a matching document by a symlink to TARGET right after opening
        /// it. It deletes a file and plants a link: debug builds only, for the tests.
        @Option(help: .hidden) var debugSwapOn: String?
    #endif

    func validate() throws {
        _ = try desktop.sizes()
        if let sizes, ThumbnailSizes(sizes) == nil {
            throw ValidationError("--sizes takes box sides from 32 to 1023 separated by commas (256,512), or none.")
        }
        if enqueue, !(location.store.map(PostgresAddress.isAddress) ?? false) {
            throw ValidationError("--enqueue needs a PostgreSQL --store (postgres://USER@HOST:PORT/DATABASE).")
        }
        if enqueue, dryRun { throw ValidationError("--enqueue and --dry-run exclude each other.") }
        // The workers render on other hosts, into their own users' caches, if anywhere: this
        // run renders nothing, so it would write nothing there (it made empty folders).
        if enqueue, desktop.xdg {
            throw ValidationError(
                "--enqueue and --xdg exclude each other: the queue's renderers render, not this run.")
        }
        #if DEBUG
            if let debugSwapOn, !debugSwapOn.contains("=") {
                throw ValidationError("--debug-swap-on takes PATTERN=TARGET.")
            }
        #endif
    }

    /// The smaller sizes of this run: `--sizes`, saved as the store's setting when it changes it
    /// (not by a dry run, which writes nothing), else the store's own.
    func chosenSizes(store: any ThumbnailStore) async throws -> ThumbnailSizes {
        let stored = try await ContainerLocation.sizes(of: store)
        guard let sizes, let chosen = ThumbnailSizes(sizes), chosen != stored else { return stored }
        if !dryRun {
            do {
                try await store.setSetting(ThumbnailSizes.settingName, to: chosen.description)
            } catch {
                throw CommandFailure.unusable(error.description)
            }
        }
        return chosen
    }

    /// Says that the run was interrupted and returns the exit it ends with (130).
    static func interrupted() -> ExitCode {
        StandardError.write("glance: interrupted; what was rendered is saved, a re-run renders the rest")
        return ExitCode(130)
    }

    func run() async throws {
        // The first workers start while the store opens and the plan is made when every
        // document will be rendered (a new sidecar, --force); they are also the sandbox's trial.
        // Otherwise they start on the first jobs: a run that finds everything up to date starts
        // none (two would cost it about 8 ms of 21 on a small folder).
        let probe = dryRun ? nil : sandbox.startProbe()
        let triggers = debug.triggers
        let pool = RendererPool(
            configuration: try RendererLauncher.configuration(
                renderers: jobs, limits: rendererLimits, sandbox: sandbox, probe: probe,
                triggers: triggers, startingAhead: !dryRun && !enqueue && (force || location.sidecarIsNew)))
        defer { pool.shutdownBlocking() }
        // A dry run only reads: it creates no store where there is none (every document counts as
        // missing then), and reads one it may not write.
        let (scanner, store): (ContainerScanner, any ThumbnailStore) =
            dryRun ? try await location.openForReading() : try await location.open()
        // SIGINT or SIGTERM from here on (the workers started ahead are running already): stop
        // the pool (queued jobs dropped, workers killed), let the catch-up end with what is
        // saved, and exit 130; every saved record was one transaction, and a re-run finishes
        // the job. A signal that comes while the plan is made is acted on once it is.
        let signals = StopSignals()
        let (options, mirror, notes) = try await batchOptions(store: store)
        let indexer = Indexer(scanner: scanner, store: store, pool: pool, options: options)
        do {
            let plan = try await indexer.plan(force: force, retryFailed: retryFailed)
            if signals.received { throw Self.interrupted() }
            if enqueue, let postgres = store as? PostgresStore {
                try await queue(plan, in: postgres, root: scanner.root)
                return
            }
            if dryRun {
                print(GenerationEstimate(plan: plan, jobs: jobs, sizes: options.sizes).report(json: json))
                return
            }
            let progress = ProgressBar(enabled: !quiet && !json && ProgressBar.standardErrorIsTerminal)
            let finished = await Self.catchUp(indexer, plan: plan, pool: pool, stoppedBy: signals, progress: progress)
            if signals.received {
                progress.finish()
                throw Self.interrupted()
            }
            guard let finished else { throw CommandFailure.unusable("the batch ended without a result") }
            var (summary, fill) = try finished.get()
            summary.sidecarBytes = (store as? SidecarStore)?.sizeOnDisk() ?? 0
            progress.finish()
            try report(summary, mirror: mirror, filled: fill, notes: notes, pool: pool)
        } catch let error as StoreError {
            throw CommandFailure.unusable(error.description)
        }
    }

    /// The indexer's options from the command line: the limits, the desktop cache's mirror, the
    /// notes the renderers' outcomes go to, and the sizes the store keeps.
    private func batchOptions(store: any ThumbnailStore) async throws -> (
        Indexer.Options, DesktopCacheMirror?, RenderNotes
    ) {
        var options = limits.indexerOptions()
        let mirror = try (dryRun ? nil : desktop.openCache()).map { cache in
            DesktopCacheMirror(
                cache: cache, containerPath: DesktopCacheOptions.absolutePath(location.container), sizes: cache.sizes,
                rewrite: force)
        }
        options.mirror = mirror
        let notes = RenderNotes(container: location.container, printing: verbose)
        options.onRendered = { path, outcome in notes.record(path: path, outcome: outcome) }
        #if DEBUG
            if let debugSwapOn, let equals = debugSwapOn.firstIndex(of: "=") {
                options.debugSwap = (
                    String(debugSwapOn[..<equals]), String(debugSwapOn[debugSwapOn.index(after: equals)...])
                )
            }
        #endif
        options.sizes = try await chosenSizes(store: store)
        return (options, mirror, notes)
    }

    /// Renders what `plan` says and fills the desktop cache, racing the stop signals: a signal
    /// stops the pool (queued jobs dropped, renderers killed) and the catch-up ends with what is
    /// saved. Nil when the signal came first and the work gave no result.
    private static func catchUp(
        _ indexer: Indexer, plan: GenerationPlan, pool: RendererPool, stoppedBy signals: StopSignals,
        progress: ProgressBar
    ) async -> Result<(GenerationSummary, Indexer.MirrorFill), StoreError>? {
        await withTaskGroup(of: Result<(GenerationSummary, Indexer.MirrorFill), StoreError>?.self) { group in
            group.addTask {
                do throws(StoreError) {
                    let summary = try await indexer.catchUp(plan) { progress.update($0) }
                    // Documents fresh before this run get their desktop entries from the store.
                    let fill = try await indexer.fillMirror(savedSince: plan.madeAt) { progress.update($0) }
                    return .success((summary, fill))
                } catch {
                    return .failure(error)
                }
            }
            group.addTask {
                await signals.next()
                return nil
            }
            var result: Result<(GenerationSummary, Indexer.MirrorFill), StoreError>?
            while let next = await group.next() {
                guard let next else {
                    // The signal came first.
                    await pool.stop()
                    group.cancelAll()
                    continue
                }
                result = result ?? next
                group.cancelAll()
            }
            return result
        }
    }

    /// Prints what the batch did (its failures, one line each, on standard error; the summary as
    /// text or JSON) and throws when anything failed.
    private func report(
        _ summary: GenerationSummary, mirror: DesktopCacheMirror?, filled fill: Indexer.MirrorFill,
        notes: RenderNotes, pool: RendererPool
    ) throws {
        for failure in summary.failures {
            StandardError.report(path: location.documentPath(failure.path), failure.error)
        }
        for folder in summary.unreadableFolders {
            StandardError.report(path: location.documentPath(folder.path), "cannot read the folder: \(folder.error)")
        }
        var desktopReport = mirror?.summary
        desktopReport?.unchanged += fill.held
        for error in desktopReport?.errors ?? [] {
            StandardError.report(path: location.documentPath(error.path), "desktop cache: \(error.error)")
        }
        if json {
            print(
                ListingFormatter.json(
                    GenerateReport(
                        summary: summary, sandbox: pool.sandbox ?? pool.configuration.sandbox,
                        workersStarted: pool.startedRenderers, officeRenderersStarted: pool.startedOfficeRenderers,
                        notes: notes.all, desktopCache: desktopReport)))
        } else if !quiet {
            print(SummaryText.describe(summary, desktopCache: desktopReport))
        }
        if verbose, let line = SummaryText.replacedRenderers(started: pool.startedRenderers, renderers: jobs) {
            StandardError.write("glance: \(line)")
        }
        if summary.failed > 0 || !summary.unreadableFolders.isEmpty || !(desktopReport?.errors.isEmpty ?? true) {
            throw CommandFailure.documentsFailed
        }
    }
}

/// `glance generate --json`'s object: the batch's summary, the sandbox its renderers ran in
/// (`sandbox`: `bubblewrap+seccomp`, `seccomp` or `none`), how many renderer processes were
/// started (`renderersStarted`, see ``RendererPool/startedRenderers``: the word `glance status`
/// uses; `workersStarted`, its earlier name, is written too for this release), the office lane's
/// (`officeRenderersStarted`: 0 when no office document came), and with `--xdg` what the desktop
/// cache received (`desktopCache`).
struct GenerateReport: Encodable {
    var summary: GenerationSummary
    var sandbox: RendererSandbox
    var workersStarted: Int
    var officeRenderersStarted: Int
    /// What the renderers noticed (``RenderNotes``).
    var notes: [RenderNotes.Note]
    var desktopCache: DesktopCacheMirror.Report?

    enum CodingKeys: String, CodingKey {
        case sandbox, renderersStarted, workersStarted, officeRenderersStarted, notes, desktopCache
    }

    func encode(to encoder: any Encoder) throws {
        try summary.encode(to: encoder)
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(sandbox, forKey: .sandbox)
        try container.encode(workersStarted, forKey: .renderersStarted)
        // The earlier name of the same count, kept for one release (docs/changes.md).
        try container.encode(workersStarted, forKey: .workersStarted)
        try container.encode(officeRenderersStarted, forKey: .officeRenderersStarted)
        try container.encode(notes, forKey: .notes)
        try container.encodeIfPresent(desktopCache, forKey: .desktopCache)
    }
}

extension GenerateCommand {
    /// `--enqueue`: records follow renamed documents here (no rendering needed), and what must be
    /// rendered goes to the queue at batch priority for `glance worker` on any host.
    func queue(_ plan: GenerationPlan, in store: PostgresStore, root: String) async throws(StoreError) {
        for move in plan.moves {
            try await store.moveDocument(from: move.from, to: move.to, identity: move.identity)
        }
        // Queued in the order a local batch renders (largest first), so that hosts finish together.
        let paths = Indexer.renderOrder(plan.toRender).map(\.path)
        let added = try await store.enqueue(paths, root: root, priority: .batch, force: force || retryFailed)
        let kept = plan.kept.values.reduce(0) { $0 + $1.count }
        if json {
            print(
                "{\"queued\":\(added),\"alreadyQueued\":\(paths.count - added),\"moved\":\(plan.moves.count),\"kept\":\(kept)}"
            )
        } else if !quiet {
            print(
                "queued \(added) document(s) for glance worker (\(paths.count - added) queued already); "
                    + "\(plan.moves.count) moved, \(kept) up to date")
        }
    }
}
