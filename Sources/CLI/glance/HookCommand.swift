import ArgumentParser
import Foundation
import Glance
import GlanceContainer
import GlanceCore
import GlanceListing
import GlanceOnSave
import GlancePipeline
import GlancePostgresStore

/// `glance hook CONTAINER FILE...`: a document store's post-save hook; refreshes exactly these
/// documents now, through a running watcher when there is one.
struct HookCommand: AsyncParsableCommand, ContainerCommand {
    static let configuration = CommandConfiguration(
        commandName: "hook",
        abstract: "Refresh the thumbnails of the given documents now (an on-save hook); no container scan.",
        discussion: """
            Prints one line per document: 'PATH fresh 1024x683 jpeg', 'PATH failed: reason', \
            'PATH unsupported (reason)' or 'PATH removed' (the file is gone, so is its record). When a \
            'glance watch' runs on the container, the documents are handed to it over its socket \
            in the store's folder, so a save pays no process start \
            or cold worker; otherwise glance renders them itself. FILE is a path inside the \
            container: relative to it, or as seen from here (as for 'glance show'). Exit status: 0 all fresh (or unsupported, or \
            removed), 1 some document failed, 2 bad usage or a FILE outside the container.
            """)

    @OptionGroup var containerOptions: ContainerOptions

    @Argument(help: "The saved documents: paths inside the container (relative to it, or as seen from here).")
    var files: [String]

    @Flag(help: "Print a JSON array of objects (path, state, width, height, format, error).")
    var json = false

    @Flag(
        help:
            "With a PostgreSQL --store: queue the documents, first in line, for 'glance worker' on any host, and return at once."
    )
    var enqueue = false

    @OptionGroup var rendererLimits: RendererLimitOptions

    @OptionGroup var parallel: JobsOption
    var jobs: Int { parallel.jobs }

    @OptionGroup var limits: DocumentLimitOptions

    @OptionGroup var sandbox: SandboxOptions

    func validate() throws {
        if files.isEmpty { throw ValidationError("Name at least one document.") }
    }

    func run() async throws {
        let scanner = try location.openScanner()
        var paths: [String] = []
        for file in files {
            guard let inside = DocumentLocator.locate(file, in: scanner) else {
                throw CommandFailure.unusable("\(file): not inside the container \(location.container)")
            }
            do {
                paths.append(try DocumentPath(inside).relative)
            } catch {
                throw CommandFailure.unusable("\(file): \(error.reason)")
            }
        }
        if enqueue {
            try await queue(paths, root: scanner.root)
            return
        }
        let request = HookRequest(paths: paths)
        let socket = location.hookSocket
        let answers: [HookAnswer]
        let watcherAnswers: [HookAnswer]?
        do {
            watcherAnswers = try HookClient.ask(request, at: socket, timeoutSeconds: rendererLimits.timeout)
        } catch {
            throw CommandFailure.unusable(error.description)
        }
        if let fromWatcher = watcherAnswers {
            answers = fromWatcher
        } else {
            answers = try await refreshHere(paths)
        }
        if json {
            print(ListingFormatter.json(answers))
        } else {
            for answer in answers {
                print("\(DisplayText.escaped(answer.path)) \(DisplayText.escaped(answer.summary))")
            }
        }
        if answers.contains(where: \.isFailure) { throw CommandFailure.documentsFailed }
    }

    /// No watcher runs: render here, with a pool of our own. A saved document has most often
    /// changed, so the workers start at once, while the store opens.
    private func refreshHere(_ paths: [String]) async throws -> [HookAnswer] {
        let pool = RendererPool(
            configuration: try RendererLauncher.configuration(
                renderers: min(jobs, paths.count), limits: rendererLimits, sandbox: sandbox,
                startingAhead: true))
        do {
            let container = try await Container.open(location, pool: pool, options: limits.indexerOptions())
            let answers = await container.indexer.refresh(paths).map(HookAnswer.init)
            await pool.shutdown()
            return answers
        } catch {
            await pool.stop()
            throw error
        }
    }
}

extension HookCommand {
    /// `--enqueue`: the documents go to the queue at on-save priority; one line says so.
    func queue(_ paths: [String], root: String) async throws {
        guard location.isPostgres else {
            throw CommandFailure.unusable("--enqueue needs a PostgreSQL --store (postgres://USER@HOST:PORT/DATABASE)")
        }
        let (_, store) = try await location.open()
        guard let queue = store as? PostgresStore else { throw CommandFailure.unusable("not a PostgreSQL store") }
        do {
            let added = try await queue.enqueue(paths, root: root, priority: .onSave)
            await queue.close()
            if json {
                print("{\"queued\":\(added),\"alreadyQueued\":\(Set(paths).count - added)}")
            } else {
                print(
                    "queued \(added) document(s) for glance worker, first in line (\(Set(paths).count - added) queued already)"
                )
            }
        } catch {
            await queue.close()
            throw CommandFailure.unusable(error.description)
        }
    }
}
