import Foundation
import GRDB

/// A row of the `claim` table: process `pid` is rendering the document at `path` since
/// `claimedAt` (seconds since 1970, wall clock).
struct ClaimRow: Codable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "claim"

    var path: String
    var pid: Int32
    var claimedAt: Double

    /// The columns, for queries written by hand.
    enum Columns {
        static let path = Column(CodingKeys.path)
        static let pid = Column(CodingKeys.pid)
    }
}
