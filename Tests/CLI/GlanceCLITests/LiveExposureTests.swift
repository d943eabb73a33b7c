import Foundation
import GlanceTestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// The live parts against a hostile neighbour (issue 35): the sidecar's permissions and planted
/// links, documents reached through links to hidden files or the store, a foreign `Host`, the
/// hook socket's NUL and oversized requests, and the server's smaller slips. Each runs the real
/// `glance` on real files; the memory of clients that stop reading is measured by
/// `Tests/EndToEnd/Server/test_hostile_requests.py`.
@Suite("Hostile neighbours of the live parts", .timeLimit(.minutes(10)))
struct LiveExposureTests {
    /// The permission bits of `path` (not following a link).
    static func mode(_ path: String) -> mode_t {
        var status = stat()
        guard lstat(path, &status) == 0 else { return 0 }
        return status.st_mode & 0o7777
    }

    /// One request with `headers` on a connection of its own; the whole answer.
    static func get(_ path: String, port: Int, headers: String = "Host: 127.0.0.1\r\n") async throws -> String {
        let connection = try LoopbackConnection(port: port)
        connection.send("GET \(path) HTTP/1.1\r\n\(headers)Connection: close\r\n\r\n")
        return await connection.read(until: nil, seconds: 10)
    }

    /// The status code of an answer.
    static func status(_ answer: String) -> Int {
        Int(answer.dropFirst("HTTP/1.1 ".count).prefix(3)) ?? 0
    }

    @Test(
        "the sidecar is owner-only: folder 0700, database and WAL 0600; an old 0755 store is narrowed, a group's kept")
    func sidecarIsOwnerOnly() async throws {
        let container = try SampleContainer(["private.txt": "text/latin-utf8.txt"])
        chmod(container.file("private.txt"), 0o600)
        let generated = try await GlanceProcess.run(["generate", container.path])
        #expect(generated.status == 0, "\(generated.standardError)")
        let store = container.file(".thumbnails")
        #expect(Self.mode(store) == 0o700)
        #expect(Self.mode(store + "/thumbnails.sqlite") == 0o600)
        // The WAL, when the last connection left one, has the database's mode (SQLite's rule).
        if FileManager.default.fileExists(atPath: store + "/thumbnails.sqlite-wal") {
            #expect(Self.mode(store + "/thumbnails.sqlite-wal") == 0o600)
        }
        // As another user, the picture of a file that user cannot read is not to be had.
        if getuid() == 0 {
            chmod(container.path, 0o755)
            let nobody = try await GlanceProcess.run(
                ["-u", "nobody", "--", GlanceProcess.executable, "export", container.path, "private.txt", "-o", "-"],
                executable: "/usr/sbin/runuser")
            #expect(nobody.status != 0)
            #expect(nobody.standardOutput.isEmpty)
        }
        // A store made by an earlier Glance (0755, 0644) is narrowed when next written.
        chmod(store, 0o755)
        chmod(store + "/thumbnails.sqlite", 0o644)
        #expect(try await GlanceProcess.run(["generate", container.path, "--force"]).status == 0)
        #expect(Self.mode(store) == 0o700)
        #expect(Self.mode(store + "/thumbnails.sqlite") == 0o600)
        // One shared with a group on purpose (nothing for others) is left as it is.
        chmod(store, 0o2770)
        chmod(store + "/thumbnails.sqlite", 0o660)
        #expect(try await GlanceProcess.run(["generate", container.path, "--force"]).status == 0)
        #expect(Self.mode(store) == 0o2770)
        #expect(Self.mode(store + "/thumbnails.sqlite") == 0o660)
    }

    @Test("a store folder or database planted by another user, or a link in it, is refused: nothing is written there")
    func plantedStoreRefused() async throws {
        let container = try SampleContainer(["notes.txt": "text/latin-utf8.txt"])
        let elsewhere = try CLIAssets.scratchFolder()
        defer { try? FileManager.default.removeItem(atPath: elsewhere) }
        let target = elsewhere + "/created.db"
        let store = container.file(".thumbnails")
        // Our own folder with a link where the database goes, and one where its WAL goes.
        try FileManager.default.createDirectory(atPath: store, withIntermediateDirectories: false)
        chmod(store, 0o700)
        for name in ["thumbnails.sqlite", "thumbnails.sqlite-wal"] {
            symlink(target, store + "/" + name)
            let refused = try await GlanceProcess.run(["generate", container.path])
            #expect(refused.status == 2)
            #expect(refused.standardError.contains("\(name) is a symbolic link"), "\(refused.standardError)")
            #expect(!FileManager.default.fileExists(atPath: target))
            unlink(store + "/" + name)
        }
        // An empty file of ours at the link's target is not turned into a database either.
        #expect(FileManager.default.createFile(atPath: target, contents: nil))
        symlink(target, store + "/thumbnails.sqlite")
        #expect(try await GlanceProcess.run(["generate", container.path]).status == 2)
        #expect(
            Self.mode(target) != 0 && (try? FileManager.default.attributesOfItem(atPath: target)[.size] as? Int) == 0)
        unlink(store + "/thumbnails.sqlite")
        // A folder another user made (what a neighbour does in a 1777 container).
        if getuid() == 0 {
            chown(store, 65534, 65534)
            let refused = try await GlanceProcess.run(["generate", container.path])
            #expect(refused.status == 2)
            #expect(refused.standardError.contains("belongs to another user"), "\(refused.standardError)")
            #expect(!FileManager.default.fileExists(atPath: store + "/thumbnails.sqlite"))
        }
        // A store folder that any user may write is refused as well.
        chown(store, getuid(), getgid())
        chmod(store, 0o777)
        let open = try await GlanceProcess.run(["generate", container.path])
        #expect(open.status == 2)
        #expect(open.standardError.contains("may be written by any user"), "\(open.standardError)")
        chmod(store, 0o700)
        #expect(try await GlanceProcess.run(["generate", container.path]).status == 0)
    }

    /// A container with a secret hidden file, links to it, to `.git`, to the sidecar and to a
    /// `--store` inside it: none of it is a document, wherever it is asked for.
    static func containerWithHiddenTargets() throws -> SampleContainer {
        let container = try SampleContainer(["notes.txt": "text/latin-utf8.txt"])
        try Data("SECRET=hunter2\n".utf8).write(to: URL(fileURLWithPath: container.file(".env")))
        try FileManager.default.createDirectory(atPath: container.file(".git"), withIntermediateDirectories: false)
        try Data("[core] secret-config\n".utf8).write(to: URL(fileURLWithPath: container.file(".git/config")))
        try FileManager.default.createDirectory(atPath: container.file("sub"), withIntermediateDirectories: false)
        symlink(".env", container.file("env.txt"))
        symlink("../.git/config", container.file("sub/x.txt"))
        symlink(".thumbnails/thumbnails.sqlite", container.file("db.png"))
        symlink("store/thumbnails.sqlite", container.file("store.png"))
        return container
    }

    @Test("links to hidden files, to .git, to the sidecar or to a --store inside: no document, no record, 404")
    func linksToHiddenTargets() async throws {
        let container = try Self.containerWithHiddenTargets()
        #expect(try await GlanceProcess.run(["generate", container.path]).status == 0)
        let inside = container.file("store")
        let generated = try await GlanceProcess.run(["generate", container.path, "--store", inside, "--json"])
        #expect(generated.status == 0, "\(generated.standardError)")
        // With the store inside named, nothing of it is a document; with the default sidecar,
        // none of the links to hidden files (the other store is then a folder like any other).
        let list = try await GlanceProcess.run(["list", container.path, "--json", "--store", inside])
        let rows = try JSONSerialization.jsonObject(with: Data(list.standardOutput.utf8)) as? [[String: Any]]
        #expect(rows?.compactMap { $0["path"] as? String } == ["notes.txt"], "\(list.standardOutput)")
        let plain = try await GlanceProcess.run(["list", container.path, "--json"])
        let plainRows = try JSONSerialization.jsonObject(with: Data(plain.standardOutput.utf8)) as? [[String: Any]]
        let plainPaths = Set(plainRows?.compactMap { $0["path"] as? String } ?? [])
        #expect(plainPaths.contains("notes.txt"))
        #expect(plainPaths.isDisjoint(with: ["env.txt", "sub/x.txt", "db.png"]), "\(plainPaths)")
        // The hook renders none of them, and records nothing under their names.
        let hook = try await GlanceProcess.run(["hook", container.path, "env.txt", "sub/x.txt", "db.png", "--json"])
        #expect(!hook.standardOutput.contains("\"fresh\""), "\(hook.standardOutput)")
        let (serve, port, _) = try await ServeCommandTests.startServe([
            container.path, "--store", inside, "--jobs", "1",
        ])
        defer { if serve.isRunning { kill(serve.processIdentifier, SIGKILL) } }
        for path in [
            "/documents/env.txt", "/documents/db.png", "/documents/store.png", "/documents/sub/x.txt",
            "/documents/store/thumbnails.sqlite", "/thumbnails/env.txt", "/api/items/env.txt", "/preview/env.txt",
            "/thumbnails/store/thumbnails.sqlite",
        ] {
            let answer = try await Self.get(path, port: port)
            #expect(Self.status(answer) == 404, "\(path): \(answer.prefix(200))")
            #expect(
                !answer.contains("hunter2") && !answer.contains("secret-config") && !answer.contains("SQLite format"))
        }
        await #expect(Self.status(try Self.get("/documents/notes.txt", port: port)) == 200)
    }

    @Test("a Host that names neither the bound address, localhost nor a --server-name answers 421, never a document")
    func foreignHost() async throws {
        let container = try SampleContainer(["README.txt": "text/latin-utf8.txt"])
        let (serve, port, _) = try await ServeCommandTests.startServe([
            container.path, "--jobs", "1", "--server-name", "docs.example",
        ])
        defer { if serve.isRunning { kill(serve.processIdentifier, SIGKILL) } }
        for host in ["attacker.example:\(port)", "attacker.example", "127.0.0.1.attacker.example", "10.1.2.3"] {
            let answer = try await Self.get("/documents/README.txt", port: port, headers: "Host: \(host)\r\n")
            #expect(Self.status(answer) == 421, "Host \(host): \(answer.prefix(200))")
            #expect(answer.contains("answers only for"))
        }
        let missing = try await Self.get("/documents/README.txt", port: port, headers: "")
        #expect(Self.status(missing) == 400)
        for host in ["127.0.0.1:\(port)", "localhost:\(port)", "LOCALHOST", "docs.example", "docs.example:443"] {
            let answer = try await Self.get("/documents/README.txt", port: port, headers: "Host: \(host)\r\n")
            #expect(Self.status(answer) == 200, "Host \(host): \(answer.prefix(200))")
        }
    }

    @Test("one URL a document: a trailing slash is 404; an offset past the end says so; huge Range numbers")
    func smallerSlips() async throws {
        let container = try SampleContainer(["a.txt": "text/latin-utf8.txt", "b.png": "png/rgb8.png"])
        #expect(try await GlanceProcess.run(["generate", container.path]).status == 0)
        let (serve, port, _) = try await ServeCommandTests.startServe([container.path, "--jobs", "1"])
        defer { if serve.isRunning { kill(serve.processIdentifier, SIGKILL) } }
        for path in ["/documents/a.txt/", "/thumbnails/b.png/", "/api/items/a.txt/", "/preview/a.txt/"] {
            await #expect(Self.status(try Self.get(path, port: port)) == 404, "\(path)")
        }
        await #expect(Self.status(try Self.get("/", port: port)) == 200)
        let past = try await Self.get("/?offset=9223372036854775807", port: port)
        #expect(Self.status(past) == 200)
        #expect(!past.contains("2–2 of 2"), "\(past)")
        #expect(past.contains("past the end of 2 documents"))
        #expect(past.contains("href=\"/?offset=0\"") || past.contains("href=\"/\""), "a link back to the last page")
        let size = try FileManager.default.attributesOfItem(atPath: container.file("a.txt"))[.size] as? Int ?? 0
        let whole = try await Self.get(
            "/documents/a.txt", port: port, headers: "Host: 127.0.0.1\r\nRange: bytes=0-99999999999999999999\r\n")
        #expect(Self.status(whole) == 206)
        #expect(
            whole.contains("Content-Range: bytes 0-\(size - 1)/\(size)")
                || whole.lowercased().contains("content-range: bytes 0-\(size - 1)/\(size)"))
        let beyond = try await Self.get(
            "/documents/a.txt", port: port, headers: "Host: 127.0.0.1\r\nRange: bytes=99999999999999999999-\r\n")
        #expect(Self.status(beyond) == 416)
    }

    /// Sends `request` (one line) to the Unix socket at `path`; every line of the answer, read
    /// until the watcher closes or `seconds` pass.
    static func askSocket(_ path: String, _ request: [UInt8], seconds: Double = 60) async throws -> [String] {
        let connection = try LoopbackConnection(unixSocket: path)
        connection.send(bytes: request)
        return await connection.read(until: nil, seconds: seconds).split(separator: "\n").map(String.init)
    }

    /// The resident memory of process `pid`, in MiB.
    static func residentMiB(_ pid: Int32) -> Int {
        guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8),
            let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmRSS:") })
        else { return 0 }
        return (Int(line.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first ?? "") ?? 0) / 1024
    }

    @Test(
        "the hook socket: a path with a NUL is an error and drops no record; 100,000 paths are refused without growing")
    func hookSocketRequests() async throws {
        let container = try SampleContainer(["photo.png": "png/rgb8.png", "notes.txt": "text/latin-utf8.txt"])
        let (watch, log) = try await OnSaveCommandTests.startWatch(container)
        defer { if watch.isRunning { kill(watch.processIdentifier, SIGKILL) } }
        let socket = container.file(".thumbnails/hook.sock")
        let fresh = try await Self.askSocket(socket, Array("{\"paths\":[\"photo.png\"]}\n".utf8))
        #expect(fresh.count == 1 && fresh[0].contains("\"fresh\""), "\(fresh)")
        let nul = try await Self.askSocket(socket, Array("{\"paths\":[\"photo.png\\u0000junk\"]}\n".utf8))
        #expect(nul.count == 1 && nul[0].contains("\"error\""), "\(nul)")
        let listed = try await GlanceProcess.run(["show", container.path, "photo.png", "--json"])
        #expect(
            listed.standardOutput.contains("\"state\" : \"fresh\""),
            "the record is still there: \(listed.standardOutput)")
        // A request of 100,000 paths (about 1.3 MB) is refused whole; the watcher does not grow.
        let before = Self.residentMiB(watch.processIdentifier)
        let paths = (0..<100_000).map { "\"missing-\($0).txt\"" }.joined(separator: ",")
        let huge = try await Self.askSocket(socket, Array("{\"paths\":[\(paths)]}\n".utf8))
        #expect(huge.count <= 1, "\(huge.prefix(3))")
        // The limit, just under it: 1,000 paths, every one answered, in order.
        let thousand = (0..<1000).map { "\"missing-\($0).txt\"" }.joined(separator: ",")
        let answered = try await Self.askSocket(socket, Array("{\"paths\":[\(thousand)]}\n".utf8))
        #expect(answered.count == 1000)
        #expect(answered.first?.contains("missing-0.txt") == true && answered.last?.contains("missing-999.txt") == true)
        let over = (0..<1001).map { "\"missing-\($0).txt\"" }.joined(separator: ",")
        let refused = try await Self.askSocket(socket, Array("{\"paths\":[\(over)]}\n".utf8))
        #expect(refused.count == 1 && refused[0].contains("too many paths"), "\(refused.prefix(2))")
        let after = Self.residentMiB(watch.processIdentifier)
        #expect(after - before < 100, "the watcher grew from \(before) to \(after) MiB")
        // glance hook splits a long list into requests the watcher takes (two of them).
        let served = log.read().components(separatedBy: "hook served").count
        let names = (0..<1500).map { "gone-\($0).txt" }
        let hook = try await GlanceProcess.run(["hook", container.path] + names)
        #expect(hook.standardOutput.split(separator: "\n").count == 1500, "\(hook.standardError)")
        #expect(log.read().components(separatedBy: "hook served").count == served + 2)
        #expect(watch.isRunning)
    }

    @Test("serving beyond loopback is refused without --allow-anonymous; with it, the log says so at start")
    func noAccidentalExposure() async throws {
        let container = try SampleContainer(["a.png": "png/rgb8.png"])
        for host in ["0.0.0.0", "::", "192.0.2.1", "docs.example"] {
            let refused = try await GlanceProcess.run(["serve", container.path, "--host", host, "--port", "0"])
            #expect(refused.status == 2, "\(host)")
            #expect(
                refused.standardError.contains("--host \(host) would show every document"), "\(refused.standardError)")
            #expect(refused.standardError.contains("--allow-anonymous"))
        }
        let (serve, port, log) = try await ServeCommandTests.startServe([
            container.path, "--host", "0.0.0.0", "--allow-anonymous", "--jobs", "1",
        ])
        defer { if serve.isRunning { kill(serve.processIdentifier, SIGKILL) } }
        #expect(port > 0)
        #expect(try await Self.get("/", port: port).hasPrefix("HTTP/1.1 200"))
        kill(serve.processIdentifier, SIGTERM)
        #expect(await exited(serve, within: .seconds(60)), "serve ended")
        let text = String(decoding: await readToEnd(log.fileHandleForReading), as: UTF8.self)
        #expect(text.contains("warning serving anonymously (--allow-anonymous)"), "\(text)")
        #expect(text.contains("host=0.0.0.0"), "\(text)")
    }
}
