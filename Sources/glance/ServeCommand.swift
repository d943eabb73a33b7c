import ArgumentParser
import Foundation
import GlanceCore
import GlancePipeline
import GlanceServer
import Hummingbird
import Logging

/// `glance serve CONTAINER`: the preview listing over HTTP (the API, thumbnails and originals).
struct ServeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Serve a container's thumbnails and listing over HTTP (loopback by default).",
        discussion: """
            Routes: /api/items (the listing as JSON: pattern, type, status, sort, reverse, offset, \\
            limit), /api/items/PATH (one document), /thumbnails/PATH (the stored thumbnail, made on \\
            demand when missing or stale; ETag, 304, ?v=DIGEST for an immutable URL), \\
            /documents/PATH (the original, with Range). Only GET and HEAD; a path outside the \\
            container, hidden or through a link that leads out answers 404. SIGINT or SIGTERM \\
            stops it gracefully.
            """)

    @OptionGroup var location: ContainerOptions

    @Option(help: "The address to listen on.")
    var host = "127.0.0.1"

    @Option(help: "The port to listen on (0: any free port).")
    var port = 8080

    @Option(name: .shortAndLong, help: "Worker processes for on-demand renders (default: the number of cores).")
    var jobs: Int = ProcessInfo.processInfo.activeProcessorCount

    @Option(help: "Seconds a request waits for an on-demand render before it answers 503.")
    var timeout: Double = 30

    @Option(help: "Least important log level shown.")
    var logLevel: Logger.Level = .info

    func validate() throws {
        guard (0...65535).contains(port) else { throw ValidationError("--port must be between 0 and 65535.") }
        try OptionChecks.jobs(jobs)
        try OptionChecks.timeout(timeout)
    }

    func run() async throws {
        let level = logLevel
        LoggingSystem.bootstrap { label in LineLogHandler(label: label, format: .text, logLevel: level) }
        let (scanner, store) = try location.open()
        let pool = WorkerPool(
            configuration: .init(
                executable: WorkerLauncher.executablePath, arguments: WorkerLauncher.arguments(memoryLimitMiB: 1024),
                workers: jobs, timeoutSeconds: timeout))
        defer { pool.stop() }
        let indexer = Indexer(
            scanner: scanner, store: store, pool: pool, options: .init(generatorVersion: GlanceVersion.current))
        let server = PreviewServer(indexer: indexer, renderTimeout: .milliseconds(Int(timeout * 1000)))
        let application = server.application(host: host, port: port, logger: Logger(label: "glance.serve")) { url in
            // Written at once (print's buffer would hold it while stdout is a pipe or a file).
            DescriptorWriter.writeAll(Array("serving \(DisplayText.escaped(scanner.root)) at \(url)\n".utf8), to: 1)
        }
        do {
            try await application.runService()
        } catch {
            throw CommandFailure.unusable("cannot serve on \(host):\(port): \(error)")
        }
    }
}
