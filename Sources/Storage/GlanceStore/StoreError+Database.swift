import Foundation
import GRDB
import GlanceCore

extension StoreError {
    /// A ``StoreError`` for any error met while using the database at `location`, in words a user
    /// can act on. A ``StoreError`` thrown from inside a transaction passes through unchanged.
    init(_ error: any Error, location: String) {
        if let storeError = error as? StoreError {
            self = storeError
            return
        }
        guard let databaseError = error as? DatabaseError else {
            // Record decoding and other non-SQLite failures: a row this version cannot read.
            self.init(.invalid, message: "unreadable record: \(error)", location: location)
            return
        }
        self.init(Self.kind(of: databaseError), message: Self.message(for: databaseError), location: location)
    }

    /// The kind of failure a database error is.
    private static func kind(of error: DatabaseError) -> Kind {
        switch error.resultCode {
        case .SQLITE_CORRUPT: .corrupt
        case .SQLITE_NOTADB: .notAStore
        case .SQLITE_BUSY, .SQLITE_LOCKED: .busy
        case .SQLITE_FULL, .SQLITE_READONLY, .SQLITE_CANTOPEN, .SQLITE_PERM, .SQLITE_AUTH, .SQLITE_IOERR,
            .SQLITE_NOMEM:
            .io
        default: .invalid
        }
    }

    /// What a database error means for the person running Glance. The store is a cache, so the
    /// way out of a damaged one is always to delete it and let the next run rebuild it.
    private static func message(for error: DatabaseError) -> String {
        let detail = error.message ?? "\(error.resultCode)"
        switch error.resultCode {
        case .SQLITE_CORRUPT:
            return "database is corrupt: \(detail); delete the folder to rebuild it"
        case .SQLITE_NOTADB:
            return "not a Glance thumbnail store (\(SidecarStore.databaseFileName) is not an SQLite database); "
                + "if it was Glance's, delete the folder and the next 'glance generate' rebuilds it"
        case .SQLITE_FULL:
            return "disk is full: \(detail); what was saved before is kept, free some space and run again"
        case .SQLITE_BUSY, .SQLITE_LOCKED:
            return "database is busy: another process held it locked for more than 30 seconds"
        case .SQLITE_READONLY:
            return "cannot write the database: \(detail); check the folder's permissions"
        case .SQLITE_CANTOPEN, .SQLITE_PERM, .SQLITE_AUTH:
            return "cannot open the database: \(detail); check the folder's permissions"
        case .SQLITE_IOERR
        where [.SQLITE_IOERR_WRITE, .SQLITE_IOERR_FSYNC, .SQLITE_IOERR_TRUNCATE].contains(error.extendedResultCode):
            // SQLite reports a full disk and a file-size limit (EFBIG) here too.
            return "cannot write the database (disk full, file-size limit, or a failing disk): \(detail); "
                + "what was saved before is kept"
        case .SQLITE_IOERR:
            return "disk I/O error: \(detail)"
        case .SQLITE_NOMEM:
            return "out of memory"
        default:
            return "database error: \(detail)"
        }
    }
}
