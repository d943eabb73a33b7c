import Foundation
import GRDB

/// A row of the `claim` table: the document at `path` of `container` is being rendered under the
/// lease `token`, held by process `pid` on `host`, until `expiresAt` (seconds since 1970, wall
/// clock) unless renewed.
struct ClaimRow: Decodable, FetchableRecord, TableRecord {
    static let databaseTableName = "claim"

    var container: String
    var path: String
    var token: String
    var host: String
    var pid: Int32
    var expiresAt: Double

    /// The columns, the one place their names are spelled.
    enum Columns {
        static let container = Column(CodingKeys.container)
        static let path = Column(CodingKeys.path)
        static let token = Column(CodingKeys.token)
        static let host = Column(CodingKeys.host)
        static let pid = Column(CodingKeys.pid)
        static let expiresAt = Column(CodingKeys.expiresAt)
    }
}
