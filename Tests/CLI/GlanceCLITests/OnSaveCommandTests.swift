import Foundation
import GlanceStore
import GlanceTestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// `glance hook` and `glance watch` as a document store's scripts and an operator run them.
@Suite("glance hook and watch", .timeLimit(.minutes(10)))
struct OnSaveCommandTests {
    /// Starts `glance watch` on `container`; waits until its hook socket is there.
    /// Starts `glance watch` on the container, its log going to a file, and returns once it
    /// watches: once its "watching" line is written (the socket comes before the watches, so a
    /// file saved when only the socket exists may be missed with `--no-catch-up`).
    static func startWatch(_ container: SampleContainer, _ extra: [String] = []) async throws -> (Process, WatchLog) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: GlanceProcess.executable)
        process.arguments = ["watch", container.path, "--log-level", "debug", "--jobs", "2"] + extra
        let log = try WatchLog(path: container.output("watch-\(UUID().uuidString).log"))
        process.standardError = log.handle
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        try await eventually("the watch says it is watching (or ended)", within: .seconds(30)) {
            log.read().contains("watching") || !process.isRunning
        }
        return (process, log)
    }

    /// A watcher's log, written to a file so that it can be read while the watcher runs.
    final class WatchLog {
        let path: String
        let handle: FileHandle

        init(path: String) throws {
            self.path = path
            guard FileManager.default.createFile(atPath: path, contents: nil) else {
                throw CocoaError(.fileWriteUnknown)
            }
            handle = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
        }

        /// What the watcher has written so far.
        func read() -> String {
            (try? String(contentsOfFile: path, encoding: .utf8)) ?? ""
        }
    }

    @Test("hook without a watcher renders the named documents itself, one line each, and nothing else")
    func hookAlone() async throws {
        let container = try SampleContainer([
            "a.png": "png/rgb8.png", "docs/b.txt": "text/latin-utf8.txt", "bad.jpg": "corrupt/truncated-header.jpg",
            "other.pdf": "pdf/letter.pdf",
        ])
        let result = try await GlanceProcess.run([
            "hook", container.path, "a.png", container.file("docs/b.txt"), "never-there.txt",
        ])
        #expect(result.status == 0, "\(result.standardError)")
        #expect(
            result.standardOutput.split(separator: "\n") == [
                "a.png fresh 200x150 png", "docs/b.txt fresh 724x1024 png", "never-there.txt removed",
            ])
        let rows = try await container.list()
        #expect(rows["other.pdf"]?["state"] as? String == "missing")
        let failed = try await GlanceProcess.run(["hook", container.path, "bad.jpg", "--json"])
        #expect(failed.status == 1)
        let answers = try JSONSerialization.jsonObject(with: Data(failed.standardOutput.utf8)) as? [[String: Any]]
        #expect(answers?.first?["state"] as? String == "failed")
        for outside in ["../elsewhere.txt", "/etc/passwd"] {
            let refused = try await GlanceProcess.run(["hook", container.path, outside])
            #expect(refused.status == 2)
            #expect(refused.standardError.contains("not inside the container"))
        }
        // A path as seen from the current folder, as show and export take it (it was read as
        // CONTAINER/CONTAINER/docs/b.txt, and answered `removed`).
        let parent = (container.path as NSString).deletingLastPathComponent
        let name = (container.path as NSString).lastPathComponent
        let fromHere = try await GlanceProcess.run(["hook", name, name + "/docs/b.txt"], in: parent)
        #expect(fromHere.status == 0, "\(fromHere.standardError)")
        #expect(fromHere.standardOutput == "docs/b.txt fresh 724x1024 png\n")
        // Hidden files are not documents: refused, not rendered into the store.
        try Data("hidden\n".utf8).write(to: URL(fileURLWithPath: container.file(".notes.txt")))
        let hidden = try await GlanceProcess.run(["hook", container.path, ".notes.txt"])
        #expect(hidden.status == 2)
        #expect(hidden.standardError == "glance: .notes.txt: \(Self.hiddenReason)\n")
        let shown = try await GlanceProcess.run(["show", container.path, ".notes.txt"])
        #expect(shown.status == 1)
        #expect(shown.standardError == "glance: .notes.txt: \(Self.hiddenReason)\n")
        #expect(try await container.list()[".notes.txt"] == nil)
        // export names a path that is no document as such (generate would not help).
        let exported = try await GlanceProcess.run([
            "export", container.path, "never-there.txt", "-o", container.output("n.png"),
        ])
        #expect(exported.status == 1)
        #expect(exported.standardError.contains("never-there.txt: no such document in"))
        let unrendered = try await GlanceProcess.run([
            "export", container.path, "other.pdf", "-o", container.output("o.png"),
        ])
        #expect(unrendered.standardError.contains("other.pdf: no thumbnail yet: run 'glance generate' first"))
    }

    @Test("watch --log-format json: one object a line, the latency a number")
    func jsonLog() async throws {
        let container = try SampleContainer([:])
        let (watch, log) = try await Self.startWatch(container, ["--log-format", "json", "--no-catch-up"])
        try Data("saved\n".utf8).write(to: URL(fileURLWithPath: container.file("saved.txt")))
        // The watcher renders it a moment after the save; its line is written by then.
        try await eventually("saved.txt fresh", within: .seconds(30)) {
            try await container.list()["saved.txt"]?["state"] as? String == "fresh"
        }
        let hooked = try await GlanceProcess.run(["hook", container.path, "saved.txt"])
        #expect(hooked.status == 0)
        kill(watch.processIdentifier, SIGTERM)
        #expect(await exited(watch, within: .seconds(60)), "watch ended")
        let text = log.read()
        let objects = try text.split(separator: "\n").map {
            try #require(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any], "\($0)")
        }
        #expect(objects.allSatisfy { $0["time"] is String && $0["level"] is String && $0["message"] is String })
        let refreshed = try #require(objects.first { $0["message"] as? String == "refreshed" }, "\(text)")
        #expect(refreshed["path"] as? String == "saved.txt")
        #expect(refreshed["latencyMs"] as? Int != nil, "\(text)")
        let served = try #require(objects.first { $0["message"] as? String == "hook served" }, "\(text)")
        #expect(served["documents"] as? Int == 1, "\(text)")
    }

    @Test("a name that is not UTF-8 or holds a line break is logged escaped once: bad\\xFF, not bad\\\\xFF")
    func oddNamesLoggedOnce() async throws {
        let container = try SampleContainer([:])
        let (watch, log) = try await Self.startWatch(container, ["--no-catch-up"])
        defer { if watch.isRunning { kill(watch.processIdentifier, SIGKILL) } }
        for name in [Array("bad".utf8) + [0xFF] + Array(".txt".utf8), Array("two\nlines.txt".utf8)] {
            let path = Array(container.path.utf8) + [UInt8(ascii: "/")] + name + [0]
            let descriptor = path.withUnsafeBufferPointer {
                $0.withMemoryRebound(to: CChar.self) { open($0.baseAddress!, O_WRONLY | O_CREAT | O_EXCL, 0o644) }
            }
            try #require(descriptor >= 0)
            _ = write(descriptor, "saved\n", 6)
            close(descriptor)
        }
        try await eventually("two refreshes logged", within: .seconds(30)) {
            log.read().components(separatedBy: " refreshed ").count >= 3
        }
        kill(watch.processIdentifier, SIGTERM)
        #expect(await exited(watch, within: .seconds(60)), "watch ended")
        let text = log.read()
        #expect(text.contains("path=bad\\xFF.txt"), "\(text)")
        #expect(text.contains("path=two\\nlines.txt"), "\(text)")
        #expect(!text.contains("\\\\"), "\(text)")
        // One event a line: the name's line break did not start a line of its own.
        #expect(text.split(separator: "\n").allSatisfy { $0.hasPrefix("20") }, "\(text)")
    }

    @Test("a container folder deleted under a running watch stops it with exit 2, not a silent service")
    func containerDeleted() async throws {
        let container = try SampleContainer(["a.png": "png/rgb8.png", "docs/b.txt": "text/latin-utf8.txt"])
        let (watch, log) = try await Self.startWatch(container)
        defer {
            if watch.isRunning { kill(watch.processIdentifier, SIGKILL) }
        }
        try FileManager.default.removeItem(atPath: container.path)
        #expect(await waitForExit(watch, within: .seconds(15)))
        #expect(watch.terminationStatus == 2)
        let messages = log.read()
        #expect(messages.contains(": the container folder is gone (deleted or unmounted)"), "\(messages)")
    }

    static let hiddenReason = "not a document: hidden files and folders (names starting with '.') are passed over"

    @Test("hook with a watcher running hands the documents to it over the socket")
    func hookThroughWatcher() async throws {
        let container = try SampleContainer(["a.png": "png/rgb8.png"])
        let (watch, log) = try await Self.startWatch(container, ["--no-catch-up"])
        defer {
            if watch.isRunning { kill(watch.processIdentifier, SIGKILL) }
        }
        var status = stat()
        #expect(lstat(container.file(".thumbnails/hook.sock"), &status) == 0)
        #expect(status.st_mode & 0o777 == 0o600)
        try Data("saved by the store\n".utf8).write(to: URL(fileURLWithPath: container.file("saved.txt")))
        let result = try await GlanceProcess.run(["hook", container.path, "saved.txt", "a.png"])
        #expect(result.status == 0, "\(result.standardError)")
        #expect(
            result.standardOutput.split(separator: "\n") == ["saved.txt fresh 724x1024 png", "a.png fresh 200x150 png"])
        kill(watch.processIdentifier, SIGTERM)
        #expect(await exited(watch, within: .seconds(60)), "watch ended")
        let messages = log.read()
        #expect(messages.contains("hook served"))
        #expect(watch.terminationStatus == 0)
        #expect(!FileManager.default.fileExists(atPath: container.file(".thumbnails/hook.sock")))
    }

    @Test("SIGTERM during a burst of saves: exit 0 within 2 s, a sound store, no worker left")
    func stopDuringBurst() async throws {
        let container = try SampleContainer([:])
        let (watch, _) = try await Self.startWatch(container, ["--no-catch-up"])
        for index in 0..<60 {
            try container.add("photo-\(index).jpg", from: "jpeg/photo-progressive.jpg")
        }
        // Once the burst is under way: its first records are in the sidecar.
        try await eventually("the watcher recorded a photo", within: .seconds(30)) {
            (container.recordCount() ?? 0) > 0
        }
        let signalled = ContinuousClock.now
        kill(watch.processIdentifier, SIGTERM)
        let ended = await exitInstant(ofGlance: watch, within: .seconds(20))
        let took = (ended ?? .now) - signalled
        #expect(watch.terminationStatus == 0)
        // A hang guard, not a speed mark: that the stop did not wait for the burst is judged by
        // what it left (not every photo drawn).
        #expect(took < .seconds(60), "stopped after \(took)")
        #expect(try await container.store().checkIntegrity())
        #expect((container.recordCount() ?? 0) < 60, "the stop did not wait for the whole burst")
        // Every record that exists is whole: fresh with its thumbnail.
        for stored in try await container.store().allDocuments() {
            #expect(stored.record.state == .fresh && stored.thumbnails.count == 3)
        }
        let workers = try childProcesses(of: watch.processIdentifier)
        #expect(workers.isEmpty)
    }
}
