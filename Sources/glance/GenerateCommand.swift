import ArgumentParser
import Foundation
import GlanceListing
import GlancePipeline
import GlanceRender
import GlanceStore

/// `glance generate CONTAINER`: make every thumbnail that is not fresh.
struct GenerateCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "generate",
        abstract: "Render the thumbnails of every document in a container that is not fresh.",
        discussion: """
            Unchanged documents are skipped after one stat each, so a re-run costs almost nothing. \
            Renderers run in supervised worker processes: a crash, hang or memory blow-up costs one \
            document, which is recorded as failed with the reason and not retried until it changes \
            (or --retry-failed). Exit status: 0 all done, 1 some documents failed, 2 bad usage or an \
            unusable container.
            """
    )

    @OptionGroup var location: ContainerOptions

    @Option(name: .shortAndLong, help: "Worker processes to run at once (default: the number of cores).")
    var jobs: Int = ProcessInfo.processInfo.activeProcessorCount

    @Flag(help: "Render every document again, fresh or not.")
    var force = false

    @Flag(help: "Render documents that failed before, even if they have not changed.")
    var retryFailed = false

    @Flag(help: "Only say how many documents would be rendered, and the time and space it would take.")
    var dryRun = false

    @Flag(help: "Print the summary as one JSON object.")
    var json = false

    @Flag(name: .shortAndLong, help: "No progress bar and no summary; failures are still named.")
    var quiet = false

    @Option(help: "Seconds one document may take before its worker is killed.")
    var timeout: Double = 30

    @Option(help: "Memory limit of each worker process, in MiB (address space).")
    var memoryLimit: Int = 1024

    @Option(help: "Refuse images that would need more than this many decoded pixels.")
    var maxPixels: Int = RenderRequest.defaultMaxPixels

    @Option(help: .hidden) var debugCrashOn: String?
    @Option(help: .hidden) var debugHangOn: String?
    @Option(help: .hidden) var debugSlowOn: String?

    func validate() throws {
        if jobs < 1 || jobs > 256 { throw ValidationError("--jobs must be between 1 and 256.") }
        if timeout <= 0 { throw ValidationError("--timeout must be a positive number of seconds.") }
        if memoryLimit < 64 { throw ValidationError("--memory-limit must be at least 64 (MiB).") }
    }

    func run() throws {
        let (scanner, store) = try location.open()
        var options = BatchGenerator.Options(
            generatorVersion: GlanceVersion.current, jobs: jobs, timeoutSeconds: timeout,
            workerExecutable: WorkerCommand.executablePath,
            workerArguments: WorkerCommand.arguments(
                memoryLimitMiB: memoryLimit, crashOn: debugCrashOn, hangOn: debugHangOn, slowOn: debugSlowOn))
        options.force = force
        options.retryFailed = retryFailed
        options.maxPixels = maxPixels
        let generator = BatchGenerator(scanner: scanner, store: store, options: options)
        do {
            let plan = try generator.plan()
            if dryRun {
                print(GenerationEstimate(plan: plan, jobs: jobs).report(json: json))
                return
            }
            let progress = ProgressBar(enabled: !quiet && !json && ProgressBar.standardErrorIsTerminal)
            let summary = try generator.run(plan) { progress.update($0) }
            progress.finish()
            for failure in summary.failures {
                StandardError.report(path: location.documentPath(failure.path), failure.error)
            }
            if json {
                print(ListingFormatter.json(summary))
            } else if !quiet {
                print(SummaryText.describe(summary))
            }
            if summary.failed > 0 { throw CommandFailure.documentsFailed }
        } catch let error as StoreError {
            throw CommandFailure.unusable(error.description)
        }
    }
}
