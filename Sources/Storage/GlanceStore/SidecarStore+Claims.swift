import Foundation
import GRDB
import GlanceCore

/// Claims: how two batches on one container split the work instead of rendering the same
/// document twice.
///
/// A claim is a row (container, path, lease token, holder, expiry). It ends when its document is
/// saved (``save(_:thumbnails:)`` deletes it), when its holder releases it, or when it is
/// abandoned: its lease expired without renewal, or its holder is a process on this machine that
/// no longer exists (noticed at once, without waiting for the expiry).
extension SidecarStore {
    /// Claims `paths` under `lease` in one write transaction and returns the paths granted (in
    /// the order given, without duplicates): unclaimed, already claimed under this lease (the
    /// expiry is renewed), or abandoned, which this lease takes over.
    public func claim(paths: [String], under lease: Lease) async throws(StoreError) -> [String] {
        let container = container
        return try await write { db in
            let now = Date().timeIntervalSince1970
            var granted: [String] = []
            // Statements prepared once per connection: a batch claims every path it renders.
            let holder = try db.cachedStatement(
                sql: "SELECT container, path, token, host, pid, expiresAt FROM claim WHERE container = ? AND path = ?")
            // Unclaimed, ours already, or abandoned: (re)claim it. INSERT OR REPLACE covers an
            // absent row and a present one in one statement.
            let take = try db.cachedStatement(
                sql: """
                    INSERT OR REPLACE INTO claim (container, path, token, host, pid, expiresAt)
                    VALUES (?, ?, ?, ?, ?, ?)
                    """)
            for path in PathKey.unique(paths) {
                if let existing = try ClaimRow.fetchOne(holder, arguments: [container, path]),
                    existing.token != lease.token, !Self.isAbandoned(existing, now: now)
                {
                    continue
                }
                try take.execute(arguments: [container, path, lease.token, lease.host, lease.pid, now + lease.seconds])
                granted.append(path)
            }
            return granted
        }
    }

    /// Moves the expiry of every claim under `lease` to now plus its duration.
    public func renew(_ lease: Lease) async throws(StoreError) {
        try await write { db in
            _ = try ClaimRow.filter(ClaimRow.Columns.token == lease.token)
                .updateAll(db, ClaimRow.Columns.expiresAt.set(to: Date().timeIntervalSince1970 + lease.seconds))
        }
    }

    /// Drops the claims under `lease`: on `paths` only, or all when `paths` is nil.
    public func release(_ lease: Lease, paths: [String]?) async throws(StoreError) {
        let container = container
        try await write { db in
            let mine = ClaimRow.filter(ClaimRow.Columns.token == lease.token)
            guard let paths else {
                _ = try mine.deleteAll(db)
                return
            }
            for chunk in paths.chunked(into: 500) {
                _ = try mine.filter(ClaimRow.Columns.container == container && chunk.contains(ClaimRow.Columns.path))
                    .deleteAll(db)
            }
        }
    }

    /// Drops every abandoned claim (expired, or held by a process of this host that is gone).
    public func releaseAbandonedClaims() async throws(StoreError) {
        try await write { db in
            let now = Date().timeIntervalSince1970
            _ = try ClaimRow.filter(ClaimRow.Columns.expiresAt < now).deleteAll(db)
            let holders = try Row.fetchAll(db, sql: "SELECT DISTINCT host, pid FROM claim")
            for holder in holders {
                let host: String = holder[0]
                let pid: Int32 = holder[1]
                if Lease.holderIsGone(host: host, pid: pid) {
                    _ = try ClaimRow.filter(ClaimRow.Columns.host == host && ClaimRow.Columns.pid == pid).deleteAll(db)
                }
            }
        }
    }

    /// Whether a claim may be taken over: its lease expired, or its holder is known to be gone.
    static func isAbandoned(_ claim: ClaimRow, now: Double) -> Bool {
        claim.expiresAt < now || Lease.holderIsGone(host: claim.host, pid: claim.pid)
    }
}
