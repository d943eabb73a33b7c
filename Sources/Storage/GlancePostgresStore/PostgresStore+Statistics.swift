import GlanceCore
import PostgresNIO

/// Keeping the planner's picture of the documents' tables near their size.
///
/// A connection plans each statement the store prepares once and keeps that plan until an
/// ANALYZE of a table it reads invalidates it. A plan made while the statistics say a table holds
/// a few dozen rows reads it whole: the save then looked its document and thumbnails up through
/// every row, each save costing more than the last (measured with a libpq loop of the save
/// statement after an ANALYZE of the empty tables: 0.68 ms of the server's CPU a save at 1,000
/// documents, 4.9 ms at 8,000). Autovacuum analyzes again only at its next round (a minute) once
/// a tenth of the table changed: the first minutes of a catch-up into a store analyzed when it was
/// nearly empty went that way. So every ``statisticsCheckInterval`` saves, a store compares the
/// documents the statistics count with those the server holds, and analyzes the two tables when
/// the statistics are far behind.
extension PostgresStore {
    /// How many saves a store makes between two looks at the statistics.
    public static let statisticsCheckInterval = 1000

    /// Counts `saves` saves; every ``statisticsCheckInterval``th, analyzes `glance.document` and
    /// `glance.thumbnail` when the documents the statistics count are fewer than a quarter of
    /// those the server counts (less 1,000). Nothing it meets fails the save: a user who does not
    /// own the tables is told by PostgreSQL's warning, which the store does not show, and
    /// autovacuum is left to it.
    func checkStatisticsAfterSaves(_ saves: Int) async {
        let due = savesSinceStatisticsCheck.withLock { count in
            count += saves
            guard count >= Self.statisticsCheckInterval else { return false }
            count = 0
            return true
        }
        guard due, let counts = try? await statisticsBehind(), counts.behind else { return }
        _ = try? await rows("ANALYZE glance.document, glance.thumbnail")
    }

    /// The documents the statistics count (`reltuples`, -1 before the first ANALYZE) and those
    /// the server counts now (`n_live_tup`), and whether the first are far behind.
    public func statisticsBehind() async throws(StoreError) -> (planned: Double, live: Int64, behind: Bool) {
        let found = try await rows(
            """
            SELECT c.reltuples::float8, coalesce(s.n_live_tup, 0)::int8 FROM pg_class c
            LEFT JOIN pg_stat_user_tables s ON s.relid = c.oid WHERE c.oid = 'glance.document'::regclass
            """)
        guard let row = found.first, let (planned, live) = try? row.decode((Double, Int64).self) else {
            return (0, 0, false)
        }
        return (planned, live, Double(live) > max(planned, 0) * 4 + 1000)
    }
}
