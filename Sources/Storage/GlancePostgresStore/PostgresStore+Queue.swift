import Foundation
import GlanceCore
import PostgresNIO
import Synchronization

/// How soon a queued document is rendered.
public enum JobPriority: Int16, Sendable, Codable {
    /// A document just saved: someone is waiting for its thumbnail.
    case onSave = 0
    /// A batch's document.
    case batch = 1
}

/// A queue job that its document's next save marks done (see
/// ``PostgresStore/completeWithSave(_:under:leasingAhead:savesPerCommit:holdLimit:)``).
struct JobCompletion: Sendable {
    /// The job's id.
    var jobID: Int64
    /// The lease it is held under.
    var lease: Lease
    /// Whether a save marked it done.
    var completed = false
    /// The document's record as the lease read it (the inner nil: none), until a read takes it.
    var recorded: StoredDocument??
    /// The next jobs to lease with the save, if any.
    var leaseAhead: LeaseAhead?
    /// How soon the job was asked for: only a batch's save waits for others.
    var priority: JobPriority
    /// How many saves its save may go to the database with (1: at once).
    var savesPerCommit: Int
    /// How long its save may wait for others.
    var holdLimit: Duration
    /// Whether its save is held or sent, so that saves held for others do not wait for it.
    var saving = false

    /// How many saves its save may go to the database with: 1, at once, for an on-save job.
    var savesTogether: Int { priority == .batch ? max(1, savesPerCommit) : 1 }
}

/// Jobs a worker asks a save to lease for it (``PostgresStore/completeWithSave(_:under:leasingAhead:)``),
/// under the lease of the job the save completes.
public struct LeaseAhead: Sendable {
    /// How many.
    public var limit: Int
    /// As for ``PostgresStore/lease(limit:under:maxAttempts:onlyContainer:holding:)``.
    public var maxAttempts: Int
    /// As for ``PostgresStore/lease(limit:under:maxAttempts:onlyContainer:holding:)``.
    public var onlyContainer: String?
    /// The jobs the leasing host holds, asked when the save is sent (a save may wait for others,
    /// and the host take more jobs meanwhile): as for
    /// ``PostgresStore/lease(limit:under:maxAttempts:onlyContainer:holding:)``, neither failed nor
    /// leased again when their lease ran out while they rendered.
    public var holding: @Sendable () -> [Int64]

    public init(
        limit: Int, maxAttempts: Int, onlyContainer: String?, holding: @escaping @Sendable () -> [Int64] = { [] }
    ) {
        self.limit = limit
        self.maxAttempts = maxAttempts
        self.onlyContainer = onlyContainer
        self.holding = holding
    }
}

/// Jobs leased by saves ahead of the worker's asking, which its next lease takes first: shared
/// by a store and its siblings (the save runs on a container's sibling, the lease on the queue).
final class JobsLeasedAhead: Sendable {
    let jobs = Mutex<[QueuedJob]>([])
}

/// A document a worker has leased from the queue.
public struct QueuedJob: Sendable, Equatable {
    /// The job's id.
    public var id: Int64
    /// The container key its document belongs to.
    public var container: String
    /// The container's folder, as every host mounts it.
    public var root: String
    /// The document, relative to the container.
    public var path: String
    /// Whether to render even when the stored record is fresh (`generate --force`).
    public var force: Bool
    /// How many times it has been leased, this time included.
    public var attempts: Int
    /// How soon it was asked for.
    public var priority: JobPriority = .batch
    /// The document's record (thumbnails described, without bytes) as the lease read it, or nil
    /// for none: the worker's store answers its first read of the record with it
    /// (``PostgresStore/completeWithSave(_:under:leasingAhead:savesPerCommit:holdLimit:)``) instead of a round trip of its own.
    var recorded: StoredDocument?

    /// Creates a job as leased, without its record.
    public init(id: Int64, container: String, root: String, path: String, force: Bool, attempts: Int) {
        self.id = id
        self.container = container
        self.root = root
        self.path = path
        self.force = force
        self.attempts = attempts
    }
}

/// Where a job of the queue stands (the `state` column of `glance.job`).
public enum JobState: String, Sendable, Codable, CaseIterable, CodingKeyRepresentable {
    /// Waiting for a host.
    case pending
    /// A host is rendering it under a lease.
    case leased
    /// Rendered (or found fresh) and recorded.
    case done
    /// Given up: its attempts ran out, or its row could not be trusted.
    case failed
}

/// The queue's contents in numbers, for `glance queue`.
public struct QueueCounts: Sendable, Equatable, Codable {
    /// Jobs by state.
    public var byState: [JobState: Int]
    /// Jobs finished in the last minute, by the host that finished them.
    public var lastMinuteByHost: [String: Int]

    public init(byState: [JobState: Int] = [:], lastMinuteByHost: [String: Int] = [:]) {
        self.byState = byState
        self.lastMinuteByHost = lastMinuteByHost
    }
}

/// A job that ended `failed`, for `glance queue --failed`.
public struct FailedJob: Sendable, Equatable, Codable {
    /// The document, relative to the container.
    public var path: String
    /// How many times it was leased.
    public var attempts: Int
    /// When it was given up.
    public var finishedAt: Date
    /// The reasons, each host's prefixed with its name.
    public var error: String
}

/// The job queue, in the same database as the records: workers on many hosts lease jobs with
/// `FOR UPDATE SKIP LOCKED` (no two take the same row, none waits for another), keep them with
/// heartbeats, and complete them; a lease that expires (its host died) makes the job available
/// again, and a job leased too many times ends `failed` instead of going round for ever.
///
/// Enqueueing is per container (this store's key); leasing serves every container of the
/// database unless limited to one.
extension PostgresStore {
    /// Queues `paths` of this container (whose folder is `root` on every host) at `priority`.
    /// A document already waiting keeps one job, at the more urgent priority. Returns how many
    /// jobs were added.
    @discardableResult
    public func enqueue(_ paths: [String], root: String, priority: JobPriority, force: Bool = false)
        async throws(StoreError) -> Int
    {
        let unique = PathKey.unique(paths)
        if unique.isEmpty { return 0 }
        let container = container
        let logger = logger
        return try await transaction { connection in
            var added = 0
            // Chunks keep one statement's array modest on a container of millions.
            for start in stride(from: 0, to: unique.count, by: 5000) {
                let chunk = Array(unique[start..<min(start + 5000, unique.count)])
                let rows = try await connection.rows(
                    """
                    INSERT INTO glance.job AS j (container, root, path, priority, force)
                    SELECT \(container), \(root), p, \(priority.rawValue), \(force) FROM unnest(\(chunk)::text[]) AS p
                    ON CONFLICT (container, path) WHERE state = 'pending'
                    DO UPDATE SET priority = least(j.priority, EXCLUDED.priority), force = j.force OR EXCLUDED.force,
                        root = EXCLUDED.root
                    RETURNING (xmax = 0)
                    """, logger: logger)
                for row in rows where try row.decode(Bool.self) { added += 1 }
            }
            // Idle workers listening wake at the commit (a job added, or one made more urgent).
            _ = try await connection.rows("SELECT pg_notify(\(Self.jobsChannel), '')", logger: logger)
            return added
        }
    }

    /// The channel whose notifications say that jobs were queued (see ``listenForJobs(_:)``).
    public static let jobsChannel = "glance_jobs"

    /// Calls `ring` each time jobs are queued in this database (by any host, for any container),
    /// until the calling task is cancelled: what lets an idle worker wait long between looks at
    /// the queue and still take an on-save job at once. Holds one of the pool's connections,
    /// listening; when the connection fails, it is made again after a second, and `ring` is
    /// called then too (a notification may have been missed meanwhile).
    public func listenForJobs(_ ring: @escaping @Sendable () -> Void) async {
        while !Task.isCancelled {
            do {
                try await client.withConnection { connection in
                    try await connection.listen(on: Self.jobsChannel) { notifications in
                        ring()
                        for try await _ in notifications { ring() }
                    }
                }
            } catch {
                // Unreachable for now: the worker's own statements say so; try again shortly.
            }
            try? await Task.sleep(for: .seconds(1))
        }
    }

    /// Leases up to `limit` jobs under `lease`: pending ones, and leased ones whose lease expired
    /// (their host stopped sending heartbeats), most urgent and oldest first, each counted as an
    /// attempt. Jobs whose expired lease was their `maxAttempts`-th end `failed` first. A job this
    /// host gave back is left to other hosts for one lease's length (``giveBack(_:under:error:maxAttempts:)``).
    ///
    /// `holding`: the jobs the host holds, which the statement neither fails nor leases again even
    /// when their lease ran out (the database away while they rendered, no heartbeat reaching it).
    public func lease(
        limit: Int, under lease: Lease, maxAttempts: Int, onlyContainer: String? = nil, holding: [Int64] = []
    ) async throws(StoreError) -> [QueuedJob] {
        // Leased already by a save (its answer carried them): no round trip.
        let ahead = leasedAhead.jobs.withLock { waiting in
            let taken = Array(waiting.prefix(max(0, limit)))
            waiting.removeFirst(taken.count)
            return taken
        }
        if !ahead.isEmpty { return ahead }
        // One statement: jobs whose last lease expired on their last attempt end failed, and the
        // next ones are leased (never the same rows: `next` skips exhausted jobs).
        let rows = try await run(
            LeaseJobsStatement(
                maxAttempts: Int32(clamping: maxAttempts), onlyContainer: onlyContainer, lease: lease,
                limit: Int64(max(0, limit)), holding: holding))
        var jobs: [QueuedJob] = []
        for row in rows {
            if let job = try leasedJob(in: row, at: 0) { jobs.append(job) }
        }
        return jobs.sorted { $0.id < $1.id }
    }

    /// A leased job from column `offset` of `row` (as ``LeaseJobsStatement`` gives it: seven
    /// columns, then its document's record and thumbnails described), or nil when its id is NULL.
    func leasedJob(in row: PostgresRow, at offset: Int) throws(StoreError) -> QueuedJob? {
        let cells = row.makeRandomAccess()
        do {
            guard let id = try cells[offset].decode(Int64?.self) else { return nil }
            var job = QueuedJob(
                id: id, container: try cells[offset + 1].decode(String.self),
                root: try cells[offset + 2].decode(String.self), path: try cells[offset + 3].decode(String.self),
                force: try cells[offset + 4].decode(Bool.self), attempts: Int(try cells[offset + 5].decode(Int32.self)))
            // A priority this version does not know (a newer one wrote it) is a batch's: never
            // held for less.
            job.priority = JobPriority(rawValue: try cells[offset + 6].decode(Int16.self)) ?? .batch
            // The record's columns follow (NULL when there is none), then its thumbnails'.
            let recordAt = offset + 7
            if try cells[recordAt].decode(Int64?.self) != nil {
                let (_, record) = try record(from: row, at: recordAt)
                job.recorded = StoredDocument(
                    record: record, thumbnails: try describedThumbnails(in: row, at: recordAt + Self.columnCount))
            }
            return job
        } catch let error as StoreError {
            throw error
        } catch {
            throw StoreError(postgres: error, location: location, address: address)
        }
    }

    /// Takes the jobs saves leased ahead that no lease has taken yet (a worker stopping).
    public func takeJobsLeasedAhead() -> [QueuedJob] {
        leasedAhead.jobs.withLock { waiting in
            defer { waiting = [] }
            return waiting
        }
    }

    /// Puts jobs leased but never started back as they were before (pending, the attempt their
    /// lease counted taken back): a worker stopping with jobs a save leased ahead.
    public func returnUnstarted(_ jobs: [QueuedJob], under lease: Lease) async throws(StoreError) {
        if jobs.isEmpty { return }
        let ids = jobs.map(\.id)
        _ = try await rows(
            """
            UPDATE glance.job SET state = 'pending', attempts = greatest(attempts - 1, 0), lease_token = NULL,
                lease_host = NULL, lease_expires = NULL
            WHERE id = ANY(\(ids)) AND lease_token = \(lease.token) AND state = 'leased'
                AND NOT EXISTS (
                    SELECT 1 FROM glance.job w WHERE w.container = glance.job.container AND w.path = glance.job.path
                        AND w.state = 'pending')
            """)
    }

    /// Moves the expiry of the jobs a host holds under `lease` (`holding`, and those saves leased
    /// ahead that no lease has taken yet) to now plus its duration: a heartbeat. Only these: a job
    /// leased under the same token that the host does not know of (a statement that committed
    /// but whose answer was lost with its connection) expires, and any host may take it then;
    /// renewing every job of the token kept such a job leased for the life of the process. No
    /// round trip when the host holds nothing.
    public func renewJobs(_ lease: Lease, holding: [Int64]) async throws(StoreError) {
        let ahead = leasedAhead.jobs.withLock { waiting in waiting.map(\.id) }
        let jobs = holding + ahead
        if jobs.isEmpty { return }
        _ = try await run(RenewJobsStatement(lease: lease, jobs: jobs))
    }

    /// Marks a job done by `lease`'s host. A job whose lease was lost meanwhile (another host
    /// took it after an expiry) is left to that host; returns whether this lease still held it.
    @discardableResult
    public func complete(_ job: QueuedJob, under lease: Lease) async throws(StoreError) -> Bool {
        !(try await run(CompleteJobStatement(jobID: job.id, lease: lease))).isEmpty
    }

    /// Has the next save of `job`'s document through this store (``save(_:thumbnails:)``) mark
    /// the job done in the same statement: a worker's render and its job end in one transaction
    /// and one round trip. Returns false, registering nothing, when a job of the same path is
    /// registered already (that one rides on the save; this one is completed on its own).
    ///
    /// The record the lease read comes with it: the store's next read of that record without
    /// bytes (``document(at:bytes:)``, the worker's look at whether the document is fresh) is
    /// answered from it, once, without a round trip.
    ///
    /// `leasingAhead`: the save also leases the worker's next jobs under `lease` (one round trip
    /// fewer a document), which its next ``lease(limit:under:maxAttempts:onlyContainer:holding:)`` takes
    /// without asking the database; as many as the saves sent together ask for, less those leased
    /// ahead already waiting (counted when the statement is sent).
    ///
    /// `savesPerCommit`: a batch job's save waits for the saves of the other jobs registered here
    /// (up to this many in all, and `holdLimit`), and goes with them in one statement. The job's
    /// record is seen by others that much later; an on-save job's never waits.
    public func completeWithSave(
        _ job: QueuedJob, under lease: Lease, leasingAhead: LeaseAhead? = nil, savesPerCommit: Int = 1,
        holdLimit: Duration = PostgresStore.saveHoldLimit
    ) -> Bool {
        jobSaves.withLock { saves in
            guard saves.registered[job.path] == nil else { return false }
            saves.registered[job.path] = JobCompletion(
                jobID: job.id, lease: lease, recorded: .some(job.recorded), leaseAhead: leasingAhead,
                priority: job.priority, savesPerCommit: savesPerCommit, holdLimit: holdLimit)
            return true
        }
    }

    /// The record of `path` that a lease read, if its job's registration still holds it unread
    /// (``completeWithSave(_:under:leasingAhead:savesPerCommit:holdLimit:)``): taken, so that it answers one read only.
    func takeLeasedRecord(of path: String) -> StoredDocument?? {
        jobSaves.withLock { saves in
            guard let recorded = saves.registered[path]?.recorded else { return nil }
            saves.registered[path]?.recorded = nil
            return recorded
        }
    }

    /// Ends `job`'s registration with ``completeWithSave(_:under:leasingAhead:savesPerCommit:holdLimit:)``: whether a save marked it
    /// done (when not, because its document was not saved, or its lease was lost, the caller
    /// completes it on its own with ``complete(_:under:)``). Saves held for this one's (it was
    /// not saved) go now, when no other is coming.
    public func takeCompletion(of job: QueuedJob) -> Bool {
        let completed = jobSaves.withLock { saves in
            guard let completion = saves.registered[job.path], completion.jobID == job.id else { return false }
            saves.registered[job.path] = nil
            return completion.completed
        }
        sendHeldSavesIfDue()
        return completed
    }

    /// Gives a job back after this host could not do it (`error` says why): pending again, or
    /// `failed` when it has had `maxAttempts` attempts. Other hosts may take it at once; this host
    /// only after one lease's length, so that a host that cannot read the shared storage does not
    /// use up a job's attempts in a moment while hosts that can are busy.
    public func giveBack(_ job: QueuedJob, under lease: Lease, error: String, maxAttempts: Int) async throws(StoreError)
    {
        let reason = "\(lease.host): \(error)"
        _ = try await rows(
            """
            UPDATE glance.job SET error = \(reason), lease_token = NULL, lease_host = NULL, lease_expires = NULL,
                refused_by = \(lease.host), retry_after = now() + make_interval(secs => \(lease.seconds)),
                state = CASE WHEN attempts >= \(maxAttempts) THEN 'failed' ELSE 'pending' END,
                finished_at = CASE WHEN attempts >= \(maxAttempts) THEN now() END
            WHERE id = \(job.id) AND lease_token = \(lease.token) AND state = 'leased'
                AND NOT EXISTS (
                    SELECT 1 FROM glance.job w WHERE w.container = glance.job.container AND w.path = glance.job.path
                        AND w.state = 'pending')
            """)
        // A newer job for the same document is waiting already: this one is settled by it.
        _ = try await rows(
            """
            UPDATE glance.job SET state = 'done', finished_at = now(), finished_by = \(lease.host), error = \(reason)
            WHERE id = \(job.id) AND lease_token = \(lease.token) AND state = 'leased'
            """)
    }

    /// How many jobs of this container (or of every container, `allContainers`) are in each
    /// state, and how many each host finished in the last minute.
    public func queueCounts(allContainers: Bool = false) async throws(StoreError) -> QueueCounts {
        let container: String? = allContainers ? nil : container
        let logger = logger
        return try await transaction { connection in
            var counts = QueueCounts()
            for row in try await connection.rows(
                """
                SELECT state, count(*) FROM glance.job
                WHERE \(container)::text IS NULL OR container = \(container) GROUP BY state
                """, logger: logger)
            {
                let (name, count) = try row.decode((String, Int64).self)
                // A state this version does not know (a newer one wrote it) is not counted as one
                // it does.
                guard let state = JobState(rawValue: name) else { continue }
                counts.byState[state] = Int(count)
            }
            for row in try await connection.rows(
                """
                SELECT finished_by, count(*) FROM glance.job
                WHERE state = 'done' AND finished_at > now() - interval '1 minute' AND finished_by IS NOT NULL
                    AND (\(container)::text IS NULL OR container = \(container))
                GROUP BY finished_by
                """, logger: logger)
            {
                let (host, count) = try row.decode((String, Int64).self)
                counts.lastMinuteByHost[host] = Int(count)
            }
            return counts
        }
    }

    /// This container's failed jobs, the most recent first, at most `limit`.
    public func failedJobs(limit: Int) async throws(StoreError) -> [FailedJob] {
        let rows = try await rows(
            """
            SELECT path, attempts, finished_at, coalesce(error, '') FROM glance.job
            WHERE container = \(container) AND state = 'failed'
            ORDER BY finished_at DESC, id DESC LIMIT \(limit)
            """)
        do {
            return try rows.map { row in
                let (path, attempts, finishedAt, error) = try row.decode((String, Int32, Date, String).self)
                return FailedJob(path: path, attempts: Int(attempts), finishedAt: finishedAt, error: error)
            }
        } catch {
            throw StoreError(postgres: error, location: location, address: address)
        }
    }

    /// Queues this container's failed documents again, with their attempts counted from zero
    /// (after the cause is fixed: a share mounted, a limit raised). A document that is queued
    /// already, or failed more than once, is queued once. Returns how many jobs are pending again.
    @discardableResult
    public func retryFailedJobs() async throws(StoreError) -> Int {
        let rows = try await rows(
            """
            WITH latest AS (
                SELECT DISTINCT ON (path) id FROM glance.job AS f
                WHERE container = \(container) AND state = 'failed'
                    AND NOT EXISTS (
                        SELECT 1 FROM glance.job AS w WHERE w.container = f.container AND w.path = f.path
                            AND w.state = 'pending')
                ORDER BY path, id DESC
            )
            UPDATE glance.job AS j SET state = 'pending', attempts = 0, error = NULL, finished_at = NULL,
                finished_by = NULL, refused_by = NULL, retry_after = NULL
            FROM latest WHERE j.id = latest.id
            RETURNING j.id
            """)
        return rows.count
    }

    /// Drops finished jobs (done or failed) of this container older than `age` seconds.
    @discardableResult
    public func pruneFinishedJobs(olderThan age: Double) async throws(StoreError) -> Int {
        let rows = try await rows(
            """
            DELETE FROM glance.job WHERE container = \(container) AND state IN ('done', 'failed')
                AND finished_at < now() - make_interval(secs => \(age))
            RETURNING id
            """)
        return rows.count
    }
}
