import GlanceCore
import PostgresNIO
import Synchronization

/// The saves of documents whose queue jobs ride on them (see
/// ``PostgresStore/completeWithSave(_:under:leasingAhead:savesPerCommit:holdLimit:)``), and the saves held
/// to go to the database together: what a store's one lock guards.
struct JobSaves: Sendable {
    /// The jobs to mark done with their document's next save, by path.
    var registered: [String: JobCompletion] = [:]
    /// Saves waiting for others to go with them, oldest first.
    var held: [HeldSave] = []
    /// Counts the batches of held saves, so that a batch's time limit ends that batch only.
    var batch = 0

    /// Holds `save`; returns the saves to send now (taken), if they are due.
    mutating func hold(_ save: HeldSave) -> [HeldSave]? {
        held.append(save)
        let path = save.document.record.path
        if let job = save.completion, registered[path]?.jobID == job.jobID { registered[path]?.saving = true }
        return takeDue()
    }

    /// The held saves, taken, when they should go now: as many as one of them asks to go with,
    /// or none of the registered jobs still to be saved (no other save is coming to join them).
    mutating func takeDue() -> [HeldSave]? {
        guard let together = held.map(\.together).min() else { return nil }
        let coming = registered.values.contains { !$0.saving }
        guard held.count >= together || !coming else { return nil }
        return takeAll()
    }

    /// Every held save, taken.
    mutating func takeAll() -> [HeldSave] {
        defer {
            held = []
            batch += 1
        }
        return held
    }
}

/// A save waiting to be sent (see ``JobSaves``).
struct HeldSave: Sendable {
    /// The record and its thumbnails' columns (their files written already).
    var document: SaveDocumentsStatement.Document
    /// The job it completes, as registered when it was saved.
    var completion: JobCompletion?
    /// How many saves it goes to the database with at most: 1 when it may not wait.
    var together: Int { completion?.savesTogether ?? 1 }
    /// Where its answer goes.
    var answer: CheckedContinuation<Result<Void, StoreError>, Never>
}

extension PostgresStore {
    /// How long a save may be held for others to go with it, at most: about the render of a
    /// large document on a slow host, after which it goes alone.
    public static let saveHoldLimit = Duration.seconds(10)

    /// Records `record` and replaces its thumbnail dictionary with `thumbnails`, releases any
    /// claim on its path, and marks done the queue's job waiting on this save (see
    /// ``completeWithSave(_:under:leasingAhead:savesPerCommit:holdLimit:)``): one prepared statement, so one
    /// transaction and one round trip. A record already at the path keeps its id.
    ///
    /// A save whose batch job was registered to go with others waits, up to its hold limit, for
    /// the other registered jobs' saves, and goes with them in one statement: what the
    /// database spends least on (see ``SaveDocumentsStatement``). It returns once its statement
    /// committed. Any other save goes at once, with the saves held then.
    public func save(_ record: DocumentRecord, thumbnails: [ThumbnailImage]) async throws(StoreError) {
        // Files first, flushed: the row that names them commits only after.
        let columns = try columns(for: thumbnails, of: record.path)
        let document = SaveDocumentsStatement.Document(record: record, thumbnails: columns)
        let result = await withCheckedContinuation { (answer: CheckedContinuation<Result<Void, StoreError>, Never>) in
            let (due, batch) = jobSaves.withLock { saves in
                let completion = saves.registered[record.path]
                let save = HeldSave(document: document, completion: completion, answer: answer)
                return (saves.hold(save), saves.held.count == 1 ? (saves.batch, completion?.holdLimit) : nil)
            }
            if let due {
                Task { await self.send(due) }
            } else if let (batch, limit) = batch {
                // The first save of a batch sets its time limit.
                Task {
                    try? await Task.sleep(for: limit ?? Self.saveHoldLimit)
                    let late = self.jobSaves.withLock { saves in saves.batch == batch ? saves.takeAll() : nil }
                    if let late { await self.send(late) }
                }
            }
        }
        try result.get()
    }

    /// Sends the saves held once no other save is coming (a registered job ended unsaved).
    func sendHeldSavesIfDue() {
        if let due = jobSaves.withLock({ $0.takeDue() }) { Task { await send(due) } }
    }

    /// Sends `saves`: those of the same lease (and those of none) in one statement each.
    private func send(_ saves: [HeldSave]) async {
        var byLease: [String?: [HeldSave]] = [:]
        var order: [String?] = []
        for save in saves {
            let token = save.completion?.lease.token
            if byLease[token] == nil { order.append(token) }
            byLease[token, default: []].append(save)
        }
        // Saves of no job go with the first lease's.
        if order.count > 1, let loose = byLease.removeValue(forKey: nil) {
            order.removeAll { $0 == nil }
            byLease[order[0], default: []].append(contentsOf: loose)
        }
        for token in order { await sendTogether(byLease[token] ?? []) }
    }

    /// Sends `saves` (of one lease) in one statement and answers each. When the statement fails
    /// for something other than the database's absence, each is sent again alone: one record the
    /// database refuses fails its own save only.
    private func sendTogether(_ saves: [HeldSave]) async {
        guard !saves.isEmpty else { return }
        let jobs = saves.compactMap(\.completion)
        var statement = SaveDocumentsStatement(container: container, documents: saves.map(\.document))
        statement.jobs = jobs.map(\.jobID)
        statement.lease = jobs.first?.lease
        // The next jobs: as many as these saves' workers asked for, less those leased ahead that
        // no lease has taken yet. A pair whose first save found one waiting would otherwise
        // lease one, and the worker's next lease go to the database (half a statement a
        // document with eight hosts in bench/scaleout.py).
        let ahead = jobs.compactMap(\.leaseAhead)
        let waiting = leasedAhead.jobs.withLock { $0.count }
        if let first = ahead.first {
            statement.leaseAhead = LeaseAhead(
                limit: max(0, ahead.reduce(0) { $0 + $1.limit } - waiting), maxAttempts: first.maxAttempts,
                onlyContainer: first.onlyContainer)
            // The jobs these saves complete, and every other the hosts hold: a lease of one that
            // ran out while it rendered (the database away) neither fails it nor hands it back.
            var spared = Set(statement.jobs)
            for asking in ahead { spared.formUnion(asking.holding()) }
            statement.spared = spared.sorted()
        }
        let finished: Set<Int64>
        do throws(StoreError) {
            let rows = try await run(statement)
            var done: Set<Int64> = []
            var leased: [QueuedJob] = []
            for row in rows {
                if done.isEmpty, let ids = try? row.makeRandomAccess()[0].decode([Int64].self) { done = Set(ids) }
                if let job = try leasedJob(in: row, at: 1) { leased.append(job) }
            }
            finished = done
            if !leased.isEmpty { leasedAhead.jobs.withLock { $0.append(contentsOf: leased.sorted { $0.id < $1.id }) } }
        } catch {
            if saves.count > 1, error.kind != .unavailable, error.kind != .busy {
                for save in saves { await sendTogether([save]) }
                return
            }
            jobSaves.withLock { state in
                for save in saves {
                    guard let job = save.completion else { continue }
                    let path = save.document.record.path
                    if state.registered[path]?.jobID == job.jobID { state.registered[path]?.saving = false }
                }
            }
            for save in saves { save.answer.resume(returning: .failure(error)) }
            return
        }
        // Only now, with the saves committed: a save that failed leaves its job to its worker.
        jobSaves.withLock { state in
            for save in saves {
                guard let job = save.completion else { continue }
                let path = save.document.record.path
                if state.registered[path]?.jobID == job.jobID {
                    state.registered[path]?.completed = finished.contains(job.jobID)
                }
            }
        }
        await checkStatisticsAfterSaves(saves.count)
        for save in saves { save.answer.resume(returning: .success(())) }
    }
}
