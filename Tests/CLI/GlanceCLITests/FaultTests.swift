import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// Faults of the machine and the file system, as regression tests: each one a clear error, the
/// store sound, nothing recorded fresh that is not.
@Suite("Faults", .timeLimit(.minutes(10)))
struct FaultTests {
    /// `command` as run by an unprivileged user: as root (CI), through setpriv as nobody, since
    /// root reads and writes whatever the permissions say.
    func asUnprivileged(_ command: [String]) async throws -> GlanceProcess.Result {
        guard getuid() == 0 else { return try await GlanceProcess.run(command) }
        return try await GlanceProcess.run(
            ["--reuid=65534", "--regid=65534", "--clear-groups", GlanceProcess.executable] + command,
            executable: "/usr/bin/setpriv")
    }

    @Test(
        "the disk fills while the sidecar is written (RLIMIT_FSIZE): one clear line, the store sound, a re-run finishes"
    )
    func diskFull() async throws {
        var files: [String: String] = [:]
        for index in 0..<10 { files["photo-\(index).jpg"] = "jpeg/photo-baseline.jpg" }
        let container = try SampleContainer(files)
        // Each thumbnail is about 100 kB: 300 kB of file fills up after two or three.
        let limited = try await GlanceProcess.run(
            ["--fsize=300000", GlanceProcess.executable, "generate", container.path, "--quiet"],
            executable: "/usr/bin/prlimit")
        #expect(limited.status == 2)
        #expect(limited.errorLines.count == 1, "\(limited.standardError)")
        #expect(
            limited.standardError.contains(
                "cannot write the database (disk full, file-size limit, or a failing disk)"))
        #expect(try await container.store().checkIntegrity())
        let rows = try await container.list()
        let fresh = rows.values.filter { $0["state"] as? String == "fresh" }
        #expect(fresh.count < 10)
        #expect(fresh.allSatisfy { thumbnailSize($0) == "1024x768" }, "a fresh record has its thumbnail")
        #expect(rows.values.allSatisfy { ["fresh", "missing"].contains($0["state"] as? String) })
        let (summary, again) = try await container.generate()
        #expect(again.status == 0)
        #expect(summary["rendered"] as? Int == 10 - fresh.count)
    }

    @Test("a read-only sidecar: list and show work, generate says why it cannot write")
    func readOnlyStore() async throws {
        let container = try SampleContainer(["a.png": "png/rgb8.png", "b.png": "png/gray8.png"])
        let store = container.output("store")
        let first = try await GlanceProcess.run(["generate", container.path, "--store", store, "--quiet"])
        #expect(first.status == 0)
        try container.add("new.png", from: "png/rgba8.png")
        chmod(container.path, 0o755)
        chmod(container.outputs, 0o755)
        for file in try FileManager.default.contentsOfDirectory(atPath: store) { chmod(store + "/" + file, 0o444) }
        chmod(store, 0o555)
        defer { chmod(store, 0o755) }
        let list = try await asUnprivileged(["list", container.path, "--store", store, "--json"])
        #expect(list.status == 0, "\(list.standardError)")
        let rows = try JSONSerialization.jsonObject(with: Data(list.standardOutput.utf8)) as? [[String: Any]] ?? []
        let states = Dictionary(
            uniqueKeysWithValues: rows.map { ($0["path"] as? String ?? "", $0["state"] as? String) })
        #expect(states == ["a.png": "fresh", "b.png": "fresh", "new.png": "missing"])
        let show = try await asUnprivileged(["show", container.path, "a.png", "--store", store])
        #expect(show.status == 0, "\(show.standardError)")
        let generate = try await asUnprivileged(["generate", container.path, "--store", store])
        #expect(generate.status == 2)
        // Whether opening or the first write meets the read-only file, the line names the store.
        #expect(generate.errorLines.count == 1)
        // As root the other user is nobody, and the store is not theirs to write; else it is
        // the user's own, read-only.
        #expect(
            generate.standardError.contains(
                getuid() == 0
                    ? "\(store): the store's folder belongs to another user"
                    : "\(store): cannot write the database: attempt to write a readonly database; check the folder's permissions"
            ), "\(generate.standardError)")
    }

    @Test("a sidecar replaced by garbage: a clear error that names it and says how to rebuild; documents untouched")
    func garbageDatabase() async throws {
        let container = try SampleContainer(["a.png": "png/rgb8.png", "notes.txt": "text/latin-utf8.txt"])
        #expect(try await container.generate().result.status == 0)
        let store = container.file(".thumbnails")
        // The database replaced, with its write-ahead log gone too (a log left beside garbage may
        // still hold every page, and SQLite would read the store from it).
        try Data(repeating: 0x5A, count: 8192).write(to: URL(fileURLWithPath: store + "/thumbnails.sqlite"))
        for suffix in ["-wal", "-shm"] {
            try? FileManager.default.removeItem(atPath: store + "/thumbnails.sqlite" + suffix)
        }
        let before = try Data(contentsOf: URL(fileURLWithPath: container.file("a.png")))
        let expected =
            "glance: \(store): not a Glance thumbnail store (thumbnails.sqlite is not an SQLite database); "
            + "if it was Glance's, delete the folder and the next 'glance generate' rebuilds it\n"
        for command in [["list", container.path], ["generate", container.path], ["show", container.path, "a.png"]] {
            let result = try await GlanceProcess.run(command)
            #expect(result.status == 2, "\(command)")
            #expect(result.standardError == expected, "\(command)")
        }
        #expect(try Data(contentsOf: URL(fileURLWithPath: container.file("a.png"))) == before)
        try FileManager.default.removeItem(atPath: store)
        let (summary, rebuilt) = try await container.generate()
        #expect(rebuilt.status == 0)
        #expect(summary["rendered"] as? Int == 2)
    }

    @Test("permission denied on one document: it fails with the reason, the others render, exit 1")
    func permissionDenied() async throws {
        let container = try SampleContainer(["a.png": "png/rgb8.png", "secret.png": "png/gray8.png"])
        chmod(container.file("secret.png"), 0o600)
        if getuid() == 0 { chown(container.file("secret.png"), 0, 0) }
        chmod(container.path, 0o755)
        chmod(container.outputs, 0o777)
        let store = container.output("store")
        let result = try await asUnprivileged(["generate", container.path, "--store", store, "--json"])
        #expect(result.status == 1)
        #expect(
            result.errorLines == ["glance: \(container.file("secret.png")): cannot read the file: Permission denied"])
        let summary = try JSONSerialization.jsonObject(with: Data(result.standardOutput.utf8)) as? [String: Any]
        #expect(summary?["rendered"] as? Int == 1)
        #expect(summary?["failed"] as? Int == 1)
    }

    @Test("sockets, FIFOs, devices and symbolic-link loops in a container are passed over at once, and counted")
    func oddFiles() async throws {
        let container = try SampleContainer(["a.png": "png/rgb8.png", "sub/b.png": "png/gray8.png"])
        #expect(mkfifo(container.file("pipe.txt"), 0o644) == 0)
        let socketPath = container.file("listener.txt")
        let listener = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(listener) }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        _ = withUnsafeMutableBytes(of: &address.sun_path) { buffer in
            socketPath.utf8CString.withUnsafeBytes {
                buffer.copyMemory(from: UnsafeRawBufferPointer(rebasing: $0.prefix(buffer.count)))
            }
        }
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(listener, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        #expect(bound == 0)
        // A character device (the null device's numbers, 1:3, as glibc's makedev packs them) where mknod is allowed: as root, as CI
        // runs; elsewhere the FIFO and the socket stand for the kind.
        let devices = mknod(container.file("null.txt"), S_IFCHR | 0o644, dev_t((1 << 8) | 3)) == 0 ? 1 : 0
        for (name, target) in [("loop-a.txt", "loop-b.txt"), ("loop-b.txt", "loop-a.txt"), ("self.txt", "self.txt")] {
            #expect(symlink(target, container.file(name)) == 0)
        }
        #expect(symlink("..", container.file("sub/up")) == 0)
        let started = Date()
        let (summary, result) = try await container.generate(["--timeout", "60"])
        #expect(Date().timeIntervalSince(started) < 30, "nothing waited for")
        #expect(result.status == 0, "\(result.standardError)")
        #expect(summary["rendered"] as? Int == 2)
        let skipped = summary["skipped"] as? [String: Int] ?? [:]
        #expect(skipped["notRegularFiles"] == 2 + devices)
        #expect(skipped["linksNotFollowed"] == 4)
    }

    @Test("100,000 files in one folder: a dry run and a listing cover every one")
    func hundredThousandFiles() async throws {
        let container = try SampleContainer([:])
        let folder = container.file("many")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        for index in 0..<100_000 {
            let descriptor = open(folder + String(format: "/note-%06d.txt", index), O_WRONLY | O_CREAT | O_EXCL, 0o644)
            #expect(descriptor >= 0)
            close(descriptor)
        }
        let plan = try await GlanceProcess.run(["generate", container.path, "--dry-run", "--json"])
        #expect(plan.status == 0, "\(plan.standardError)")
        let estimate = try JSONSerialization.jsonObject(with: Data(plan.standardOutput.utf8)) as? [String: Any]
        #expect(estimate?["documents"] as? Int == 100_000, "\(plan.standardOutput)")
        let list = try await GlanceProcess.run(["list", container.path, "--json"])
        #expect(list.status == 0)
        let rows = try JSONSerialization.jsonObject(with: Data(list.standardOutput.utf8)) as? [[String: Any]] ?? []
        #expect(rows.count == 100_000)
        #expect(rows.allSatisfy { $0["state"] as? String == "missing" })
        #expect(!FileManager.default.fileExists(atPath: container.file(".thumbnails")), "a dry run creates nothing")
    }
}
