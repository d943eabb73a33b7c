import Foundation
import GRDB
import GlanceCore

/// A row of the `document` table: one ``DocumentRecord`` as SQLite stores it.
///
/// Enumerations are kept as their raw strings so that the table reads well in the `sqlite3`
/// shell; ``record()`` turns them back, refusing values this version does not know.
struct DocumentRow: Decodable, FetchableRecord, TableRecord {
    static let databaseTableName = "document"

    var id: Int64?
    /// The container key: which of the store's containers the document belongs to.
    var container: String
    var path: String
    // SQLite integers are signed 64-bit; device and inode numbers are unsigned, so they are
    // stored as the same 64 bits read as signed (an identity only ever needs equality).
    var device: Int64
    var inode: Int64
    var size: Int64
    var modifiedNs: Int64
    var digest: String?
    var contentType: String?
    var state: String
    var error: String?
    var generatorVersion: String
    /// Stored as GRDB stores dates: UTC text with millisecond precision ("2026-11-22 02:23:05.736").
    var generatedAt: Date
    var renderMilliseconds: Int?
    /// ``DocumentDetails`` as JSON.
    var details: String?

    /// The columns, the one place their names are spelled.
    enum Columns {
        static let id = Column(CodingKeys.id)
        static let container = Column(CodingKeys.container)
        static let path = Column(CodingKeys.path)
        static let device = Column(CodingKeys.device)
        static let inode = Column(CodingKeys.inode)
        static let digest = Column(CodingKeys.digest)
        static let state = Column(CodingKeys.state)
    }

    init(_ record: DocumentRecord, container: String, id: Int64? = nil) {
        self.id = id
        self.container = container
        path = record.path
        device = 0
        inode = 0
        size = 0
        modifiedNs = 0
        digest = record.digest
        contentType = record.contentType?.rawValue
        state = record.state.rawValue
        error = record.error
        generatorVersion = record.generatorVersion
        generatedAt = record.generatedAt
        renderMilliseconds = record.renderMilliseconds
        details = record.details.flatMap { $0.isEmpty ? nil : $0.json }
        setIdentity(record.identity)
    }

    /// Copies the identity's fields into their columns.
    mutating func setIdentity(_ identity: FileIdentity) {
        device = Int64(bitPattern: identity.device)
        inode = Int64(bitPattern: identity.inode)
        size = identity.size
        modifiedNs = identity.modifiedNanoseconds
    }

    /// The identity as the columns describe it.
    var identity: FileIdentity {
        FileIdentity(
            device: UInt64(bitPattern: device), inode: UInt64(bitPattern: inode), size: size,
            modifiedNanoseconds: modifiedNs)
    }

    /// The public record, or a ``StoreError`` when a column holds a value this version does not
    /// know (a store written by a newer Glance).
    func record(location: String) throws(StoreError) -> DocumentRecord {
        let documentState = try StoredNames.state(state, path: path, location: location)
        let type = try StoredNames.contentType(contentType, path: path, location: location)
        return DocumentRecord(
            path: path, identity: identity, digest: digest, contentType: type, state: documentState, error: error,
            generatorVersion: generatorVersion, generatedAt: generatedAt,
            renderMilliseconds: renderMilliseconds, details: details.flatMap(DocumentDetails.init(json:))?.checked)
    }

    /// The columns a save writes, each with its value: the one place a column is paired with
    /// the field it stores (the date as GRDB stores one, ``StoredDate``).
    private static let written: [(column: String, value: @Sendable (DocumentRow) -> (any DatabaseValueConvertible)?)] =
        [
            ("container", { $0.container }), ("path", { $0.path }), ("device", { $0.device }), ("inode", { $0.inode }),
            ("size", { $0.size }), ("modifiedNs", { $0.modifiedNs }), ("digest", { $0.digest }),
            ("contentType", { $0.contentType }), ("state", { $0.state }), ("error", { $0.error }),
            ("generatorVersion", { $0.generatorVersion }), ("generatedAt", { StoredDate.text($0.generatedAt) }),
            ("renderMilliseconds", { $0.renderMilliseconds }), ("details", { $0.details }),
        ]
    private static let writtenColumns = written.map(\.column)

    /// Inserts a new row (the database picks its id).
    static let insertSQL =
        "INSERT INTO document (\(writtenColumns.joined(separator: ", "))) VALUES (\(writtenColumns.map { _ in "?" }.joined(separator: ", ")))"

    /// Rewrites every column of the row with a given id (the last argument).
    static let updateSQL =
        "UPDATE document SET \(writtenColumns.map { "\($0) = ?" }.joined(separator: ", ")) WHERE id = ?"

    /// The values of ``insertSQL``.
    var insertArguments: StatementArguments {
        StatementArguments(Self.written.map { $0.value(self) })
    }

    /// The values of ``updateSQL`` for the row `id`.
    func updateArguments(id: Int64) -> StatementArguments {
        insertArguments + [id]
    }
}
