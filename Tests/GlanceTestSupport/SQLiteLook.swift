import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// Looks into a SQLite database (a sidecar store) while a glance process writes it, so that a test
/// can wait for a row itself (a claim, a saved record) instead of guessing how long it takes to
/// come. Read only, through the libsqlite3 that the store links, found when first used (the test
/// targets do not depend on GRDB).
public enum SQLiteLook {
    private typealias Open =
        @convention(c) (UnsafePointer<CChar>, UnsafeMutablePointer<OpaquePointer?>, Int32, UnsafePointer<CChar>?) ->
        Int32
    private typealias Prepare =
        @convention(c) (
            OpaquePointer?, UnsafePointer<CChar>, Int32, UnsafeMutablePointer<OpaquePointer?>,
            UnsafeMutablePointer<UnsafePointer<CChar>?>?
        ) -> Int32
    private typealias Handle = @convention(c) (OpaquePointer?) -> Int32
    private typealias SetInteger = @convention(c) (OpaquePointer?, Int32) -> Int32
    private typealias Column = @convention(c) (OpaquePointer?, Int32) -> Int64

    /// The library's functions, or nil when it cannot be loaded.
    private struct Library: @unchecked Sendable {
        let open: Open
        let busyTimeout: SetInteger
        let prepare: Prepare
        let step: Handle
        let column: Column
        let finalize: Handle
        let close: Handle

        init?() {
            guard let library = dlopen("libsqlite3.so.0", RTLD_NOW) else { return nil }
            func symbol<T>(_ name: String, as type: T.Type) -> T? {
                dlsym(library, name).map { unsafeBitCast($0, to: type) }
            }
            guard let open = symbol("sqlite3_open_v2", as: Open.self),
                let busyTimeout = symbol("sqlite3_busy_timeout", as: SetInteger.self),
                let prepare = symbol("sqlite3_prepare_v2", as: Prepare.self),
                let step = symbol("sqlite3_step", as: Handle.self),
                let column = symbol("sqlite3_column_int64", as: Column.self),
                let finalize = symbol("sqlite3_finalize", as: Handle.self),
                let close = symbol("sqlite3_close", as: Handle.self)
            else { return nil }
            (self.open, self.busyTimeout, self.prepare, self.step) = (open, busyTimeout, prepare, step)
            (self.column, self.finalize, self.close) = (column, finalize, close)
        }
    }

    private static let library = Library()

    /// The integer in the first column of the first row `sql` gives on `database`, or nil when it
    /// gives none now (no such file or table yet, or the database busy for a second).
    public static func integer(_ sql: String, in database: String) -> Int64? {
        guard let library, FileManager.default.fileExists(atPath: database) else { return nil }
        var connection: OpaquePointer?
        defer { _ = library.close(connection) }
        let readOnly: Int32 = 0x01  // SQLITE_OPEN_READONLY
        guard library.open(database, &connection, readOnly, nil) == 0 else { return nil }
        _ = library.busyTimeout(connection, 1000)
        var statement: OpaquePointer?
        defer { _ = library.finalize(statement) }
        guard library.prepare(connection, sql, -1, &statement, nil) == 0 else { return nil }
        let row: Int32 = 100  // SQLITE_ROW
        guard library.step(statement) == row else { return nil }
        return library.column(statement, 0)
    }
}
