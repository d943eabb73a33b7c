import Foundation
import GRDB
import GlanceCore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Claims: how two batches on one container split the work instead of rendering the same
/// document twice.
///
/// A claim is a row (path, pid, time). It ends when the batch saves the document (``save(_:thumbnails:)``
/// deletes it), when the batch releases its claims, or when it goes stale: its process is gone, or
/// it is older than the caller's limit. Process ids are only meaningful on one machine, which is
/// where a SQLite sidecar is used; a store shared by several machines needs another scheme.
extension SidecarStore {
    /// Claims `paths` for rendering by process `pid`, in one write transaction, and returns the
    /// paths granted (in the order given, without duplicates): those unclaimed, those claimed by
    /// `pid` already (their claim is refreshed), and those whose claim is stale, which `pid` takes
    /// over.
    ///
    /// A claim is stale when its process no longer exists, or when it was made more than
    /// `staleAfterSeconds` ago. The age limit covers what the process check cannot see: a process
    /// that hangs, and a process id reused by an unrelated program after the claimant died.
    public func claim(paths: [String], pid: Int32, staleAfterSeconds: Double) throws(StoreError) -> [String] {
        try write { db in
            let now = Date().timeIntervalSince1970
            var granted: [String] = []
            var seen: Set<String> = []
            for path in paths where seen.insert(path).inserted {
                if let existing = try ClaimRow.fetchOne(db, key: path),
                    existing.pid != pid,
                    Self.isAlive(existing.pid),
                    now - existing.claimedAt <= staleAfterSeconds
                {
                    continue
                }
                // Unclaimed, ours already, or stale: (re)claim it. `save` inserts the row, `update`
                // would miss an absent one; INSERT OR REPLACE covers both in one statement.
                try ClaimRow(path: path, pid: pid, claimedAt: now).insert(db, onConflict: .replace)
                granted.append(path)
            }
            return granted
        }
    }

    /// Drops every claim held by `pid` (at the end of a batch, or after a crash was noticed).
    public func releaseClaims(pid: Int32) throws(StoreError) {
        try write { db in
            _ = try ClaimRow.filter(ClaimRow.Columns.pid == pid).deleteAll(db)
        }
    }

    /// Drops `pid`'s claims on `paths` (documents it will not render after all).
    public func releaseClaims(paths: [String], pid: Int32) throws(StoreError) {
        try write { db in
            for chunk in paths.chunked(into: 500) {
                _ = try ClaimRow.filter(ClaimRow.Columns.pid == pid).filter(chunk.contains(ClaimRow.Columns.path))
                    .deleteAll(db)
            }
        }
    }

    /// Drops the claims of processes that no longer exist (a batch killed with `kill -9` cannot
    /// release its own), so that they do not linger until someone claims the same paths.
    public func releaseClaimsOfEndedProcesses() throws(StoreError) {
        try write { db in
            let holders = try Int32.fetchAll(db, ClaimRow.select(ClaimRow.Columns.pid, as: Int32.self).distinct())
            let ended = holders.filter { !Self.isAlive($0) }
            if !ended.isEmpty {
                _ = try ClaimRow.filter(ended.contains(ClaimRow.Columns.pid)).deleteAll(db)
            }
        }
    }

    /// Whether a process with this id exists on this machine.
    ///
    /// `kill(pid, 0)` sends nothing and only checks: ESRCH means no such process. EPERM means it
    /// exists but belongs to another user, which still counts as alive. Ids 0 and below are
    /// process groups to `kill`, never a claimant, so they count as gone.
    static func isAlive(_ pid: Int32) -> Bool {
        guard pid > 0 else {
            return false
        }
        if kill(pid, 0) == 0 {
            return true
        }
        return errno != ESRCH
    }
}
