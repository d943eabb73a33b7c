import Foundation
import GlanceCore
import GlancePostgresStore
import GlanceTestSupport
import Synchronization
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// A PostgreSQL store whose thumbnails' bytes are files beside the database (`?thumbnails=DIR`),
/// on a real server and real folders: where the bytes go, what a damaged or missing file does,
/// the folder's marker, an unmounted or read-only folder, the sweep, and moving the bytes.
@Suite("PostgreSQL thumbnails as files", .timeLimit(.minutes(10)))
struct PostgresThumbnailFilesTests {
    /// A fresh database and a new folder for its thumbnails (not created yet), with the address
    /// naming it, and the warning lines the stores opened through ``open(_:)`` gave.
    final class Setup: Sendable {
        let parent: TemporaryFolder
        let address: PostgresAddress
        let server: PostgresServer
        let warnings = Mutex<[String]>([])

        init() async throws {
            parent = try TemporaryFolder()
            var address = try await StoreUnderTest.freshDatabase()
            address.thumbnailFolder = parent.file("thumbnails")
            self.address = address
            server = try await PostgresServer.running()
        }

        var folder: String { address.thumbnailFolder! }

        func open(container: String = "test") async throws -> PostgresStore {
            try await PostgresStore.open(address, container: container) { [self] line in
                self.warnings.withLock { $0.append(line) }
            }
        }

        func psql(_ sql: String) async throws -> String { try await server.psql(sql, database: address.database) }

        /// Every thumbnail file under the folder, by its path relative to it.
        func files() -> [String] {
            let enumerator = FileManager.default.enumerator(atPath: folder)
            var found: [String] = []
            while let name = enumerator?.nextObject() as? String {
                var isFolder: ObjCBool = false
                FileManager.default.fileExists(atPath: folder + "/" + name, isDirectory: &isFolder)
                if !isFolder.boolValue, name != ThumbnailFolder.markerName { found.append(name) }
            }
            return found.sorted()
        }
    }

    static func sha256Hex(_ bytes: [UInt8]) throws -> String {
        let file = try TemporaryFolder()
        try Data(bytes).write(to: URL(fileURLWithPath: file.file("b")))
        let output = try runTool("/usr/bin/sha256sum", [file.file("b")])
        return String(output.prefix(64))
    }

    static func runTool(_ tool: String, _ arguments: [String]) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: tool)
        process.arguments = arguments
        let pipe = Pipe()
        process.standardOutput = pipe
        try process.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return String(decoding: data, as: UTF8.self)
    }

    static func mode(_ path: String) -> mode_t {
        var status = stat()
        _ = lstat(path, &status)
        return status.st_mode & 0o7777
    }

    @Test("bytes go to private files named by their SHA-256, rows name them, identical thumbnails are one file")
    func bytesInFiles() async throws {
        let setup = try await Setup()
        let store = try await setup.open()
        let large = Fixtures.image(byteCount: 5000, seed: 3)
        let small = Fixtures.image(sizeKey: "256x256", format: .jpeg, byteCount: 700, seed: 9)
        try await store.save(Fixtures.record("a.pdf"), thumbnails: [large, small])
        // Another document, in another container, with the same 1024 thumbnail.
        try await setup.open(container: "other").save(Fixtures.record("b.pdf"), thumbnails: [large])

        let hex = try Self.sha256Hex(large.data!)
        let expected = [
            "\(hex.prefix(2))/\(hex.dropFirst(2).prefix(2))/\(hex)",
            try { () throws -> String in
                let small = try Self.sha256Hex(small.data!)
                return "\(small.prefix(2))/\(small.dropFirst(2).prefix(2))/\(small)"
            }(),
        ].sorted()
        #expect(setup.files() == expected, "two files for three thumbnails: the identical one is stored once")
        for file in expected {
            #expect(Self.mode(setup.folder + "/" + file) == 0o600)
            #expect(Self.mode(setup.folder + "/" + file.prefix(2)) == 0o700)
        }
        #expect(Self.mode(setup.folder) == 0o700)
        // The rows hold names, not bytes.
        #expect(
            try await setup.psql(
                "SELECT count(*) FROM glance.thumbnail WHERE data IS NULL AND length(file_digest) = 32")
                == "3")
        #expect(try await setup.psql("SELECT encode(file_digest, 'hex') FROM glance.thumbnail LIMIT 1").count == 64)

        let read = try #require(try await store.document(at: "a.pdf", includingImageData: true))
        #expect(read.thumbnails == [large, small])
        let one = try #require(try await store.document(at: "a.pdf", bytes: .only("256x256")))
        #expect(one.thumbnails == [Fixtures.withoutData(large), small])
        #expect(setup.warnings.withLock { $0 }.isEmpty)
    }

    @Test(
        "a damaged or missing file is a miss: never served, the record dropped so the document is drawn again, one line said",
        arguments: ["damaged", "missing", "shorter"])
    func damagedFile(how: String) async throws {
        let setup = try await Setup()
        let store = try await setup.open()
        let image = Fixtures.image(byteCount: 4000, seed: 5)
        try await store.save(Fixtures.record("a.pdf"), thumbnails: [image])
        let file = setup.folder + "/" + setup.files()[0]
        switch how {
        case "damaged":
            var bytes = image.data!
            bytes[100] ^= 0xFF
            try Data(bytes).write(to: URL(fileURLWithPath: file))
        case "shorter":
            try Data(image.data!.prefix(10)).write(to: URL(fileURLWithPath: file))
        default:
            try FileManager.default.removeItem(atPath: file)
        }
        // Described without bytes, the record is still there; asked with them, it is a miss.
        #expect(try await store.document(at: "a.pdf", includingImageData: false) != nil)
        #expect(try await store.document(at: "a.pdf", includingImageData: true) == nil)
        #expect(try await store.document(at: "a.pdf", includingImageData: false) == nil, "the record was dropped")
        let lines = setup.warnings.withLock { $0 }
        #expect(lines.count == 1)
        #expect(lines.first?.contains("a.pdf") == true)
        #expect(lines.first?.contains(how == "missing" ? "is missing" : "is damaged") == true, "\(lines)")
        #expect(lines.allSatisfy { !$0.contains("\n") })
        if how != "missing" { #expect(setup.files().isEmpty, "the damaged file was deleted") }
        // Drawn again, it is whole once more.
        try await store.save(Fixtures.record("a.pdf"), thumbnails: [image])
        #expect(try await store.document(at: "a.pdf", includingImageData: true)?.thumbnails == [image])
    }

    @Test(
        "the warning about a damaged file names the document escaped: a name cannot forge a line or drive the terminal")
    func warningEscaped() async throws {
        let setup = try await Setup()
        let store = try await setup.open()
        let name = "evil\nglance: forged\u{1B}[2J.pdf"
        try await store.save(Fixtures.record(name), thumbnails: [Fixtures.image()])
        try FileManager.default.removeItem(atPath: setup.folder + "/" + setup.files()[0])
        #expect(try await store.document(at: name, includingImageData: true) == nil)
        let line = try #require(setup.warnings.withLock { $0 }.first)
        #expect(!line.contains("\n") && !line.contains("\u{1B}"), "\(line)")
        #expect(line.contains("evil\\nglance: forged\\x1B[2J.pdf"), "\(line)")
    }

    @Test("a row naming a file is not trusted: a digest that is not 32 bytes is a miss, not a path")
    func untrustedRow() async throws {
        let setup = try await Setup()
        let store = try await setup.open()
        try await store.save(Fixtures.record("a.pdf"), thumbnails: [Fixtures.image()])
        _ = try await setup.psql("UPDATE glance.thumbnail SET file_digest = convert_to('../../etc/passwd', 'UTF8')")
        #expect(try await store.document(at: "a.pdf", includingImageData: true) == nil)
        #expect(setup.warnings.withLock { $0 }.first?.contains("damaged") == true)
    }

    @Test(
        "the folder's marker: an empty mount point, a folder of other files and another database's folder are refused, and nothing is written to them"
    )
    func marker() async throws {
        let setup = try await Setup()
        let store = try await setup.open()
        try await store.save(Fixtures.record("a.pdf"), thumbnails: [Fixtures.image()])
        await store.close()
        // The folder's storage not mounted: an empty folder where it was.
        try FileManager.default.moveItem(atPath: setup.folder, toPath: setup.parent.file("mounted-elsewhere"))
        try FileManager.default.createDirectory(atPath: setup.folder, withIntermediateDirectories: false)
        let error = await #expect(throws: StoreError.self) { try await setup.open() }
        #expect(error?.kind == .io)
        #expect(error?.message.contains("marker") == true && error?.message.contains("mounted") == true, "\(error!)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: setup.folder).isEmpty, "nothing written")
        // Not even created when it is not there.
        try FileManager.default.removeItem(atPath: setup.folder)
        await #expect(throws: StoreError.self) { try await setup.open() }
        #expect(!FileManager.default.fileExists(atPath: setup.folder))
        // Mounted again: opens.
        try FileManager.default.moveItem(atPath: setup.parent.file("mounted-elsewhere"), toPath: setup.folder)
        let back = try await setup.open()
        #expect(try await back.document(at: "a.pdf", includingImageData: true) != nil)
        await back.close()

        // Another database cannot take this folder, nor a folder holding other files.
        let other = try await Setup()
        var stolen = other.address
        stolen.thumbnailFolder = setup.folder
        let refused = await #expect(throws: StoreError.self) { try await PostgresStore.open(stolen, container: "x") }
        #expect(refused?.message.contains("another database") == true)
        try "notes".write(toFile: other.parent.file("busy"), atomically: true, encoding: .utf8)
        stolen.thumbnailFolder = other.parent.path
        let busy = await #expect(throws: StoreError.self) { try await PostgresStore.open(stolen, container: "x") }
        #expect(busy?.message.contains("other files") == true)
        #expect(!FileManager.default.fileExists(atPath: other.parent.file(ThumbnailFolder.markerName)))
    }

    @Test("the folder unmounted under a running store: a save fails in one line and writes nothing to the mount point")
    func unmountedWhileOpen() async throws {
        let setup = try await Setup()
        let store = try await setup.open()
        try await store.save(Fixtures.record("a.pdf"), thumbnails: [Fixtures.image(seed: 1)])
        try FileManager.default.moveItem(atPath: setup.folder, toPath: setup.parent.file("gone"))
        try FileManager.default.createDirectory(atPath: setup.folder, withIntermediateDirectories: false)
        let error = await #expect(throws: StoreError.self) {
            try await store.save(Fixtures.record("b.pdf"), thumbnails: [Fixtures.image(seed: 2)])
        }
        #expect(error?.kind == .io)
        #expect(error?.description.contains("unmounted") == true, "\(error!)")
        #expect(!(error?.description.contains("\n") ?? true))
        #expect(try FileManager.default.contentsOfDirectory(atPath: setup.folder).isEmpty)
        #expect(try await store.document(at: "b.pdf", includingImageData: false) == nil, "no row without its file")
        #expect(throws: StoreError.self) { try store.thumbnailFolder!.checkUsable(location: store.location) }
    }

    @Test("a read-only folder: a save fails in one line naming the folder, the record is not written")
    func readOnlyFolder() async throws {
        let setup = try await Setup()
        let store = try await setup.open()
        try await store.save(Fixtures.record("a.pdf"), thumbnails: [Fixtures.image(seed: 1)])
        // As root (CI), a read-only bind mount of the folder over itself; otherwise its mode.
        let asRoot = geteuid() == 0
        if asRoot {
            _ = try Self.runTool("/usr/bin/mount", ["--bind", setup.folder, setup.folder])
            _ = try Self.runTool("/usr/bin/mount", ["-o", "remount,ro,bind", setup.folder])
        } else {
            chmod(setup.folder, 0o500)
        }
        defer {
            if asRoot { _ = try? Self.runTool("/usr/bin/umount", [setup.folder]) } else { chmod(setup.folder, 0o700) }
        }
        // The new store opens the mounted folder; the first one holds the folder beneath the mount.
        let writer = asRoot ? try await setup.open() : store
        let error = await #expect(throws: StoreError.self) {
            try await writer.save(Fixtures.record("b.pdf"), thumbnails: [Fixtures.image(seed: 2)])
        }
        #expect(error?.kind == .io)
        #expect(error?.description.contains(setup.folder) == true, "\(error!)")
        #expect(try await writer.document(at: "b.pdf", includingImageData: false) == nil)
        // What was there is still served.
        #expect(try await writer.document(at: "a.pdf", includingImageData: true)?.thumbnails.first?.data != nil)
    }

    @Test(
        "the sweep deletes files no row names once past the grace period, keeps named and young ones; a dry run deletes nothing"
    )
    func sweep() async throws {
        let setup = try await Setup()
        let store = try await setup.open()
        let kept = Fixtures.image(byteCount: 900, seed: 1)
        let dropped = Fixtures.image(byteCount: 800, seed: 2)
        try await store.save(Fixtures.record("kept.pdf"), thumbnails: [kept])
        try await store.save(Fixtures.record("gone.pdf"), thumbnails: [dropped])
        _ = try await store.removeDocuments(at: ["gone.pdf"])
        // A host killed between its file and its row: a temporary file, and a whole file no row names.
        let stray = setup.folder + "/" + setup.files()[0].prefix(5) + "/.stray.abcdefghijkl.partial"
        try Data([1, 2, 3]).write(to: URL(fileURLWithPath: stray))
        #expect(setup.files().count == 3)

        let young = try await store.sweepFiles(graceSeconds: 3600, dryRun: false)
        #expect(young.examined == 3 && young.unnamed == 0 && young.young == 2)
        #expect(setup.files().count == 3)
        let dry = try await store.sweepFiles(graceSeconds: 0, dryRun: true)
        #expect(dry.unnamed == 2 && dry.unnamedBytes == 803)
        #expect(setup.files().count == 3, "a dry run deletes nothing")
        // Past the grace period (file times set back an hour).
        for file in setup.files() {
            let old = Date(timeIntervalSinceNow: -7200)
            try FileManager.default.setAttributes([.modificationDate: old], ofItemAtPath: setup.folder + "/" + file)
        }
        let swept = try await store.sweepFiles(graceSeconds: 3600, dryRun: false)
        #expect(swept.unnamed == 2 && swept.young == 0)
        #expect(setup.files().count == 1)
        #expect(try await store.document(at: "kept.pdf", includingImageData: true)?.thumbnails == [kept])
        // A file reused by a save is young again, so that a sweep that read the rows before the
        // save committed keeps it.
        let file = setup.folder + "/" + setup.files()[0]
        let attributes = try FileManager.default.attributesOfItem(atPath: file)
        #expect((attributes[.modificationDate] as! Date).timeIntervalSinceNow < -3600)
        try await store.save(Fixtures.record("again.pdf"), thumbnails: [kept])
        let reused = try FileManager.default.attributesOfItem(atPath: file)
        #expect((reused[.modificationDate] as! Date).timeIntervalSinceNow > -60)
        #expect(setup.files().count == 1)
    }

    @Test("thumbnails move from the rows to files and back, in batches, every one still read the same")
    func moveBothWays() async throws {
        let setup = try await Setup()
        var inRows = setup.address
        inRows.thumbnailFolder = nil
        let before = try await PostgresStore.open(inRows, container: "test")
        var saved: [String: [ThumbnailImage]] = [:]
        for index in 0..<7 {
            let images = [Fixtures.image(byteCount: 300 + index, seed: UInt8(index))]
            saved["d\(index).pdf"] = images
            try await before.save(Fixtures.record("d\(index).pdf", inode: UInt64(index)), thumbnails: images)
        }
        await before.close()
        let store = try await setup.open()
        var batches = 0
        while try await store.moveThumbnails(to: .files, batchSize: 3) > 0 { batches += 1 }
        #expect(batches == 3)
        #expect(try await setup.psql("SELECT count(*) FROM glance.thumbnail WHERE data IS NULL") == "7")
        #expect(setup.files().count == 7)
        for (path, images) in saved {
            #expect(try await store.document(at: path, includingImageData: true)?.thumbnails == images)
        }
        // A store opened without the folder cannot read them, and says what to add.
        let blind = try await PostgresStore.open(inRows, container: "test")
        let error = await #expect(throws: StoreError.self) {
            try await blind.document(at: "d1.pdf", includingImageData: true)
        }
        #expect(error?.message.contains("thumbnails=") == true)
        await blind.close()
        while try await store.moveThumbnails(to: .database, batchSize: 5) > 0 {}
        #expect(try await setup.psql("SELECT count(*) FROM glance.thumbnail WHERE file_digest IS NULL") == "7")
        for (path, images) in saved {
            #expect(try await store.document(at: path, includingImageData: true)?.thumbnails == images)
        }
    }
}
