import Foundation
import GlanceTestSupport
import Testing

/// Every container command with `--store postgres://…`, against a real PostgreSQL server.
@Suite("Commands on a PostgreSQL store", .timeLimit(.minutes(10)))
struct PostgresStoreCommandTests {
    /// A database of this test's own on the test process's server.
    static func freshDatabase() async throws -> (server: PostgresServer, database: String) {
        let server = try await PostgresServer.running()
        let name = "cli_" + UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased()
        try await server.psql("CREATE DATABASE \(name)")
        return (server, name)
    }

    @Test("generate, list, show, export and gc work on PostgreSQL, and nothing is written into the container")
    func wholeCycle() async throws {
        let (server, database) = try await Self.freshDatabase()
        let store = server.address(container: "sample", database: database)
        let container = try SampleContainer.standard()
        let (summary, result) = try await container.generate(["--store", store])
        #expect(result.status == 0, "\(result.standardError)")
        #expect(summary["rendered"] as? Int == 8)
        #expect(summary["unsupported"] as? Int == 1)
        #expect(!FileManager.default.fileExists(atPath: container.file(".thumbnails")), "no sidecar is made")

        let rows = try await container.list(["--store", store])
        #expect(rows.count == 9)
        #expect(rows["photo.jpg"]?["state"] as? String == "fresh")
        #expect(thumbnailSize(rows["photo.jpg"]) == "1024x768")
        #expect(thumbnailSize(rows["letter.pdf"]) == "791x1024")
        #expect(rows["data.bin"]?["state"] as? String == "unsupported")
        // The rows are in PostgreSQL: the server counts them under the container's key.
        await #expect(
            try server.psql("SELECT count(*) FROM glance.document WHERE container = 'sample'", database: database)
                == "9")

        let exported = container.output("photo.jpg")
        let export = try await GlanceProcess.run([
            "export", container.path, "photo.jpg", "-o", exported, "--store", store,
        ])
        #expect(export.status == 0, "\(export.standardError)")
        let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: exported)))
        #expect(bytes.starts(with: [0xFF, 0xD8, 0xFF]), "a JPEG thumbnail came back out of the database")

        let show = try await GlanceProcess.run(["show", container.path, "notes.txt", "--store", store])
        #expect(show.status == 0, "\(show.standardError)")
        #expect(show.standardOutput.contains("fresh"))

        let (again, _) = try await container.generate(["--store", store])
        #expect(again["rendered"] as? Int == 0)
        #expect(again["fresh"] as? Int == 8)

        try FileManager.default.removeItem(atPath: container.file("screen.png"))
        let gc = try await GlanceProcess.run(["gc", container.path, "--store", store])
        #expect(gc.status == 0, "\(gc.standardError)")
        #expect(gc.standardOutput.contains("removed 1 record"))
        #expect(try await container.list(["--store", store]).count == 8)
        // The sidecar, a separate store, knows nothing of it.
        #expect(try await container.list()["photo.jpg"]?["state"] as? String == "missing")
    }

    @Test(
        "?thumbnails=DIR: the bytes are files; export and show read them; gc sweeps files no record names after the grace, --dry-run deletes nothing; --move-thumbnails moves them back"
    )
    func thumbnailFiles() async throws {
        let (server, database) = try await Self.freshDatabase()
        let container = try SampleContainer.standard()
        let folder = container.output("thumbnail-files")
        let store = server.address(container: "sample", database: database) + "&thumbnails=\(folder)"
        let (summary, result) = try await container.generate(["--store", store])
        #expect(result.status == 0, "\(result.standardError)")
        #expect(summary["rendered"] as? Int == 8)
        await #expect(
            try server.psql("SELECT count(*) FROM glance.thumbnail WHERE data IS NOT NULL", database: database) == "0")
        let files = { () -> Int in
            (FileManager.default.enumerator(atPath: folder)?.allObjects as? [String] ?? []).filter {
                $0.split(separator: "/").count == 3
            }.count
        }
        let stored = files()
        #expect(stored >= 8, "a file per distinct thumbnail")

        let exported = container.output("photo.jpg")
        let export = try await GlanceProcess.run([
            "export", container.path, "photo.jpg", "-o", exported, "--store", store,
        ])
        #expect(export.status == 0, "\(export.standardError)")
        #expect(try [UInt8](Data(contentsOf: URL(fileURLWithPath: exported))).starts(with: [0xFF, 0xD8, 0xFF]))

        // A document gone: its record dropped by gc; its files, no longer named, kept while young.
        try FileManager.default.removeItem(atPath: container.file("screen.png"))
        let dry = try await GlanceProcess.run([
            "gc", container.path, "--store", store, "--dry-run", "--grace-seconds", "0",
        ])
        #expect(dry.status == 0, "\(dry.standardError)")
        #expect(dry.standardOutput.contains("would remove 1 record"), "\(dry.standardOutput)")
        await #expect(
            try server.psql("SELECT count(*) FROM glance.document", database: database) == "9",
            "a dry run drops nothing")
        let gc = try await GlanceProcess.run(["gc", container.path, "--store", store])
        #expect(gc.status == 0, "\(gc.standardError)")
        #expect(gc.standardOutput.contains("removed 1 record"), "\(gc.standardOutput)")
        #expect(gc.standardOutput.contains("deleted 0 thumbnail file(s)"), "\(gc.standardOutput)")
        #expect(files() == stored)
        let swept = try await GlanceProcess.run(["gc", container.path, "--store", store, "--grace-seconds", "0"])
        #expect(swept.status == 0, "\(swept.standardError)")
        #expect(!swept.standardOutput.contains("deleted 0 thumbnail file(s)"), "\(swept.standardOutput)")
        let left = files()
        #expect(left < stored)

        // Back into the rows, and the documents still read.
        let back = try await GlanceProcess.run([
            "gc", container.path, "--store", store, "--move-thumbnails", "database",
        ])
        #expect(back.status == 0, "\(back.standardError)")
        #expect(back.standardOutput.contains("moved \(left) thumbnail(s) to the database"), "\(back.standardOutput)")
        await #expect(
            try server.psql("SELECT count(*) FROM glance.thumbnail WHERE file_digest IS NOT NULL", database: database)
                == "0")
        let plain = server.address(container: "sample", database: database)
        let again = try await GlanceProcess.run([
            "export", container.path, "photo.jpg", "-o", exported, "--store", plain,
        ])
        #expect(again.status == 0, "\(again.standardError)")
        // Without a folder on the address, moving is refused in one line.
        let refused = try await GlanceProcess.run([
            "gc", container.path, "--store", plain, "--move-thumbnails", "files",
        ])
        #expect(refused.status == 2)
        #expect(refused.standardError.contains("?thumbnails=DIR"), "\(refused.standardError)")
    }

    @Test(
        "gc's --grace-seconds out of range, infinite or not a number, and --move-thumbnails with --dry-run, are bad usage"
    )
    func gcUsage() async throws {
        let container = try SampleContainer(["a.png": "png/gray8.png"])
        for grace in ["nan", "inf", "-1", "1e12"] {
            let result = try await GlanceProcess.run(["gc", container.path, "--grace-seconds", grace])
            #expect(result.status == 2, "\(grace)")
            #expect(result.standardError.contains("--grace-seconds takes a number of seconds"), "\(grace)")
        }
        let both = try await GlanceProcess.run([
            "gc", container.path, "--move-thumbnails", "files", "--dry-run",
        ])
        #expect(both.status == 2)
        #expect(both.standardError.contains("exclude each other"), "\(both.standardError)")
    }

    @Test(
        "?thumbnails=DIR whose storage is not mounted (an empty folder where it was): exit 2, one line, nothing written"
    )
    func thumbnailFolderNotMounted() async throws {
        let (server, database) = try await Self.freshDatabase()
        let container = try SampleContainer(["a.png": "png/gray8.png"])
        let folder = container.output("thumbnail-files")
        let store = server.address(container: "sample", database: database) + "&thumbnails=\(folder)"
        #expect(try await container.generate(["--store", store]).result.status == 0)
        try FileManager.default.moveItem(atPath: folder, toPath: folder + "-elsewhere")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: false)
        let result = try await GlanceProcess.run(["generate", container.path, "--store", store, "--force"])
        #expect(result.status == 2, "\(result.standardError)")
        #expect(result.standardError.split(separator: "\n").count == 1, "\(result.standardError)")
        #expect(result.standardError.contains("is the shared storage mounted?"), "\(result.standardError)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder).isEmpty)
    }

    @Test("two containers share one database, each under its own key")
    func twoContainers() async throws {
        let (server, database) = try await Self.freshDatabase()
        let first = try SampleContainer(["a.png": "png/gray8.png"])
        let second = try SampleContainer(["b.txt": "text/latin-utf8.txt", "c.png": "png/rgba8.png"])
        // Without ?container= the key is the container's absolute path.
        let store = "postgres://\(server.user)@127.0.0.1:\(server.port)/\(database)"
        #expect(try await first.generate(["--store", store]).result.status == 0)
        #expect(try await second.generate(["--store", store]).result.status == 0)
        await #expect(Set(try first.list(["--store", store]).keys) == ["a.png"])
        await #expect(Set(try second.list(["--store", store]).keys) == ["b.txt", "c.png"])
        let keys = try await server.psql(
            "SELECT count(DISTINCT container) FROM glance.document", database: database)
        #expect(keys == "2")
    }

    @Test("a bad address or an unreachable server: exit 2 and one line saying why, without the password")
    func unusableStore() async throws {
        let container = try SampleContainer(["a.png": "png/gray8.png"])
        let malformed = try await GlanceProcess.run([
            "generate", container.path, "--store", "postgres://glance:secret@127.0.0.1/db?colour=blue",
        ])
        #expect(malformed.status == 2)
        #expect(malformed.errorLines.count == 1, "\(malformed.standardError)")
        #expect(malformed.standardError.contains("unknown parameter 'colour'"))
        #expect(!malformed.standardError.contains("secret"))

        let port = PostgresServer.freePort()
        let unreachable = try await GlanceProcess.run([
            "list", container.path, "--store", "postgres://glance:secret@127.0.0.1:\(port)/db",
        ])
        #expect(unreachable.status == 2)
        #expect(unreachable.errorLines.count == 1, "\(unreachable.standardError)")
        #expect(unreachable.standardError.contains("127.0.0.1:\(port)"))
        #expect(!unreachable.standardError.contains("secret"))
    }
}
