import Foundation
import GlanceCore
import GlancePostgresStore
import GlanceStore
import GlanceTestSupport
import Testing

/// The implementations of ``ThumbnailStore`` that the shared store tests run against.
enum StoreKind: String, CaseIterable, CustomTestStringConvertible, Sendable {
    /// The SQLite sidecar in a temporary folder.
    case sqlite
    /// A real PostgreSQL server (``PostgresServer``), a database of the test's own.
    case postgres
    /// The same, with the thumbnails' bytes as files in a folder of the test's own
    /// (`?thumbnails=DIR`).
    case postgresFiles = "postgres+files"

    var testDescription: String { rawValue }
}

/// One test's store of a given kind, on a backing of its own (a fresh folder, a fresh database),
/// and more stores on that same backing as other processes or hosts would open them.
final class StoreUnderTest: Sendable {
    let kind: StoreKind
    /// The first store, container key "" (SQLite) or "test" (PostgreSQL).
    let store: any ThumbnailStore
    /// The SQLite folder, or the thumbnails' folder's parent, removed with this value.
    private let folder: TemporaryFolder?
    /// The PostgreSQL database's address, without a container.
    private let address: PostgresAddress?

    init(_ kind: StoreKind) async throws {
        self.kind = kind
        switch kind {
        case .sqlite:
            let folder = try TemporaryFolder()
            self.folder = folder
            address = nil
            store = try SidecarStore(directory: folder.path)
        case .postgres:
            let address = try await Self.freshDatabase()
            self.address = address
            folder = nil
            store = try await PostgresStore.open(address, container: "test")
        case .postgresFiles:
            let folder = try TemporaryFolder()
            var address = try await Self.freshDatabase()
            address.thumbnailFolder = folder.file("thumbnails")
            self.address = address
            self.folder = folder
            store = try await PostgresStore.open(address, container: "test")
        }
    }

    /// Another store on the same folder or database, for `container` (nil: the first's).
    func another(container: String? = nil) async throws -> any ThumbnailStore {
        switch kind {
        case .sqlite:
            return try SidecarStore(directory: folder!.path, container: container ?? "")
        case .postgres, .postgresFiles:
            return try await PostgresStore.open(address!, container: container ?? "test")
        }
    }

    /// A new empty database on the test process's PostgreSQL server.
    static func freshDatabase() async throws -> PostgresAddress {
        let server = try await PostgresServer.running()
        let name = "t_" + UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased()
        try await server.psql("CREATE DATABASE \(name)")
        return try PostgresAddress(parsing: "postgres://\(server.user)@127.0.0.1:\(server.port)/\(name)")
    }
}
