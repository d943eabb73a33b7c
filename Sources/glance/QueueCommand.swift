import ArgumentParser
import Foundation
import GlanceCore
import GlanceListing
import GlancePostgresStore

/// `glance queue CONTAINER --store postgres://…`: what the job queue holds.
struct QueueCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "queue",
        abstract:
            "Show a PostgreSQL store's job queue for a container: pending, leased, done, failed, and each host's rate.",
        discussion: "Rates count the jobs each host finished in the last minute.")

    @OptionGroup var location: ContainerOptions

    @Flag(help: "Print one JSON object.")
    var json = false

    @Flag(help: "Count the jobs of every container in the database, not only this one's.")
    var allContainers = false

    @Option(help: "First drop this container's finished jobs (done or failed) older than this many hours.")
    var pruneHours: Double?

    func validate() throws {
        if let pruneHours, pruneHours < 0 || !pruneHours.isFinite {
            throw ValidationError("--prune-hours must be zero or more.")
        }
    }

    func run() async throws {
        guard case .postgres = try location.storeLocation() else {
            throw CommandFailure.unusable("the job queue lives in a PostgreSQL store; give --store postgres://…")
        }
        let (_, store) = try await location.open()
        guard let postgres = store as? PostgresStore else { throw CommandFailure.unusable("not a PostgreSQL store") }
        let counts: QueueCounts
        do {
            if let pruneHours {
                let dropped = try await postgres.pruneFinishedJobs(olderThan: pruneHours * 3600)
                if !json { print("dropped \(dropped) finished job(s)") }
            }
            counts = try await postgres.queueCounts(allContainers: allContainers)
        } catch {
            throw CommandFailure.unusable(error.description)
        }
        await postgres.close()
        if json {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys]
            print(String(decoding: try encoder.encode(counts), as: UTF8.self))
            return
        }
        for state in ["pending", "leased", "done", "failed"] {
            print("\(state.padding(toLength: 8, withPad: " ", startingAt: 0)) \(counts.byState[state] ?? 0)")
        }
        if counts.lastMinuteByHost.isEmpty {
            print("no host finished a job in the last minute")
        } else {
            for (host, count) in counts.lastMinuteByHost.sorted(by: { $0.key < $1.key }) {
                print("\(DisplayText.escaped(host)): \(count) documents in the last minute")
            }
        }
    }
}
