import ArgumentParser
import Foundation
import Glance
import GlanceCore
import GlanceListing
import GlancePostgresStore

/// `glance queue CONTAINER --store postgres://…`: what the job queue holds.
struct QueueCommand: AsyncParsableCommand, ContainerCommand {
    static let configuration = CommandConfiguration(
        commandName: "queue",
        abstract:
            "Show a PostgreSQL store's job queue for a container: pending, leased, done, failed, and each host's rate.",
        discussion: """
            Rates count the jobs each host finished in the last minute. With ?container=NAME in the \
            address, the container folder need not be mounted where this runs. A job ends failed when it was \
            tried --max-attempts times (its hosts died, or could not read the container): --failed \
            lists them with the reasons, --retry-failed queues them again once the cause is fixed. \
            (A document that merely fails to render is not a failed job: its record says failed.)
            """)

    @OptionGroup var containerOptions: ContainerOptions

    @Flag(help: "Print one JSON object.")
    var json = false

    @Flag(help: "Count the jobs of every container in the database, not only this one's.")
    var allContainers = false

    @Option(
        parsing: .unconditional,
        help: "First drop this container's finished jobs (done or failed) older than this many hours.")
    var pruneHours: Double?

    @Flag(help: "Also list this container's failed jobs, the most recent first, with the reasons.")
    var failed = false

    @Option(parsing: .unconditional, help: "How many failed jobs --failed lists.")
    var limit = 50

    @Flag(help: "First queue this container's failed jobs again, their attempts counted from zero.")
    var retryFailed = false

    func validate() throws {
        // At most a century: PostgreSQL's intervals and timestamps end not far beyond.
        if let pruneHours, !(0...876_000).contains(pruneHours) {
            throw ValidationError("--prune-hours must be a number of hours from 0 to 876000 (a century).")
        }
        guard limit >= 1 else { throw ValidationError("--limit must be at least 1.") }
    }

    /// What `--json` prints: the counts, and the failed jobs when asked for.
    private struct Report: Encodable {
        var counts: QueueCounts
        var failedJobs: [FailedJob]?

        func encode(to encoder: any Encoder) throws {
            try counts.encode(to: encoder)
            if let failedJobs {
                var container = encoder.container(keyedBy: Key.self)
                try container.encode(failedJobs, forKey: .failedJobs)
            }
        }

        private enum Key: String, CodingKey { case failedJobs }
    }

    func run() async throws {
        guard case .postgres(let address) = try location.storeKind() else {
            throw CommandFailure.unusable("the job queue lives in a PostgreSQL store; give --store postgres://…")
        }
        let postgres: PostgresStore
        if let named = address.container {
            // The queue is in the database: with the container named, this host need not mount it.
            do { postgres = try await PostgresStore.open(address, container: named) } catch {
                throw CommandFailure.unusable(error.description)
            }
        } else {
            let (_, store) = try await location.open()
            guard let opened = store as? PostgresStore else { throw CommandFailure.unusable("not a PostgreSQL store") }
            postgres = opened
        }
        let counts: QueueCounts
        var failedJobs: [FailedJob]?
        do {
            if let pruneHours {
                let dropped = try await postgres.pruneFinishedJobs(olderThan: pruneHours * 3600)
                if !json { print("dropped \(dropped) finished job(s)") }
            }
            if retryFailed {
                let queued = try await postgres.retryFailedJobs()
                if !json { print("queued \(queued) failed job(s) again") }
            }
            counts = try await postgres.queueCounts(allContainers: allContainers)
            if failed { failedJobs = try await postgres.failedJobs(limit: limit) }
        } catch {
            await postgres.close()
            throw CommandFailure.unusable(error.description)
        }
        await postgres.close()
        if json {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys]
            encoder.dateEncodingStrategy = .iso8601
            print(String(decoding: try encoder.encode(Report(counts: counts, failedJobs: failedJobs)), as: UTF8.self))
            return
        }
        for state in JobState.allCases {
            print("\(state.rawValue.padding(toLength: 8, withPad: " ", startingAt: 0)) \(counts.byState[state] ?? 0)")
        }
        if counts.lastMinuteByHost.isEmpty {
            print("no host finished a job in the last minute")
        } else {
            for (host, count) in counts.lastMinuteByHost.sorted(by: { $0.key < $1.key }) {
                print("\(DisplayText.escaped(host)): \(count) documents in the last minute")
            }
        }
        if let failedJobs {
            if failedJobs.isEmpty { print("no failed jobs") }
            for job in failedJobs {
                let when = job.finishedAt.formatted(.iso8601)
                print(
                    "failed: \(DisplayText.escaped(job.path)) (\(job.attempts) attempts, \(when)): "
                        + DisplayText.escaped(job.error))
            }
        }
    }
}
