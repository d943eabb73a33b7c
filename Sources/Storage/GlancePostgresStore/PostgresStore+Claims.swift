import Foundation
import GlanceCore
import PostgresNIO

/// Claims: how batches on many hosts split the work instead of rendering a document twice.
///
/// As in the sidecar, a claim is a row (container, path, lease token, holder, expiry), ended by
/// the document's save, its holder's release, or abandonment. Expiry is by the server's clock,
/// which every host shares; a holder known to be gone (a process of this host that no longer
/// exists) is taken over at once.
extension PostgresStore {
    /// Claims `paths` under `lease` and returns the paths granted, in the order given, without
    /// duplicates. One statement decides every path: an insert that takes over an existing claim
    /// only when it is this lease's, expired, or held by a gone process of this host. Two hosts
    /// claiming at once cannot both win a path: the second waits on the first's row and re-checks.
    public func claim(paths: [String], under lease: Lease) async throws(StoreError) -> [String] {
        let unique = PathKey.unique(paths)
        if unique.isEmpty { return [] }
        let container = container
        let logger = logger
        let granted = try await transaction { connection in
            var gone: [Int32] = []
            for row in try await connection.rows(
                """
                SELECT DISTINCT pid FROM glance.claim
                WHERE container = \(container) AND host = \(lease.host) AND token <> \(lease.token)
                """, logger: logger)
            {
                let pid = try row.decode(Int32.self)
                if Lease.holderIsGone(host: lease.host, pid: pid) { gone.append(pid) }
            }
            let rows = try await connection.rows(
                """
                INSERT INTO glance.claim AS c (container, path, token, host, pid, expires_at)
                SELECT \(container), p, \(lease.token), \(lease.host), \(lease.pid),
                    now() + make_interval(secs => \(lease.seconds))
                FROM unnest(\(unique)::text[]) AS p
                ON CONFLICT (container, path) DO UPDATE SET token = EXCLUDED.token, host = EXCLUDED.host,
                    pid = EXCLUDED.pid, expires_at = EXCLUDED.expires_at
                WHERE c.token = EXCLUDED.token OR c.expires_at < now()
                    OR (c.host = EXCLUDED.host AND c.pid = ANY(\(gone)::integer[]))
                RETURNING c.path
                """, logger: logger)
            var granted: Set<PathKey> = []
            for row in rows { granted.insert(PathKey(try row.decode(String.self))) }
            return granted
        }
        return unique.filter { granted.contains(PathKey($0)) }
    }

    /// Moves the expiry of every claim under `lease` to now plus its duration.
    public func renew(_ lease: Lease) async throws(StoreError) {
        _ = try await rows(
            """
            UPDATE glance.claim SET expires_at = now() + make_interval(secs => \(lease.seconds))
            WHERE token = \(lease.token)
            """)
    }

    /// Drops the claims under `lease`: on `paths` only, or all when `paths` is nil.
    public func release(_ lease: Lease, paths: [String]?) async throws(StoreError) {
        let container = container
        let logger = logger
        try await transaction { connection in
            if let paths {
                _ = try await connection.rows(
                    """
                    DELETE FROM glance.claim
                    WHERE token = \(lease.token) AND container = \(container) AND path = ANY(\(paths))
                    """, logger: logger)
            } else {
                _ = try await connection.rows("DELETE FROM glance.claim WHERE token = \(lease.token)", logger: logger)
            }
        }
    }

    /// Drops every abandoned claim: expired, or held by a process of this host that is gone.
    public func releaseAbandonedClaims() async throws(StoreError) {
        let logger = logger
        let host = Lease.thisHost
        try await transaction { connection in
            _ = try await connection.rows("DELETE FROM glance.claim WHERE expires_at < now()", logger: logger)
            var gone: [Int32] = []
            for row in try await connection.rows(
                "SELECT DISTINCT pid FROM glance.claim WHERE host = \(host)", logger: logger)
            {
                let pid = try row.decode(Int32.self)
                if Lease.holderIsGone(host: host, pid: pid) { gone.append(pid) }
            }
            if !gone.isEmpty {
                _ = try await connection.rows(
                    "DELETE FROM glance.claim WHERE host = \(host) AND pid = ANY(\(gone))", logger: logger)
            }
        }
    }
}
