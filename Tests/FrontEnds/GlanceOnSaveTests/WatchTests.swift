import Foundation
import GlanceCore
import GlanceOnSave
import GlanceTestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// `glance watch`'s engine against real file operations, each checked in `glance list --json`.
@Suite("Watching a container", .timeLimit(.minutes(10)), .serialized)
struct WatchTests {
    @Test("a save is fresh; an overwrite in place (cp over, truncate and write) is fresh with the new size")
    func saveAndOverwrite() async throws {
        let watched = try await WatchedContainer()
        try WatchedContainer.copy(TestLocations.asset("text/latin-utf8.txt"), to: watched.file("notes.txt"))
        var rows = try await watched.listing { state($0["notes.txt"]) == "fresh" }
        #expect(state(rows["notes.txt"]) == "fresh")
        // cp over the document.
        let longer = try Data(contentsOf: URL(fileURLWithPath: TestLocations.asset("text/japanese-utf8.txt")))
        try longer.write(to: URL(fileURLWithPath: watched.file("notes.txt")))
        rows = try await watched.listing { state($0["notes.txt"]) == "fresh" && size($0["notes.txt"]) == longer.count }
        #expect(size(rows["notes.txt"]) == longer.count && state(rows["notes.txt"]) == "fresh")
        // Truncate, then write.
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: watched.file("notes.txt")))
        try handle.truncate(atOffset: 0)
        try handle.write(contentsOf: Data("short now\n".utf8))
        try handle.close()
        rows = try await watched.listing { size($0["notes.txt"]) == 10 && state($0["notes.txt"]) == "fresh" }
        #expect(state(rows["notes.txt"]) == "fresh" && size(rows["notes.txt"]) == 10)
    }

    @Test("an editor's save (a hidden temporary renamed over) and rsync's (temp, rename) cost one render each")
    func saveByRename() async throws {
        let watched = try await WatchedContainer(files: ["doc.txt": "text/latin-utf8.txt"])
        try await watched.settle()
        let before = watched.indexer.rendersStarted
        for round in 0..<3 {
            let temporary = watched.file(".doc.txt.swp")
            try Data("version \(round)\n".utf8).write(to: URL(fileURLWithPath: temporary))
            #expect(rename(temporary, watched.file("doc.txt")) == 0)
        }
        try Data("from rsync\n".utf8).write(to: URL(fileURLWithPath: watched.file(".synced.txt.XYZ123")))
        #expect(rename(watched.file(".synced.txt.XYZ123"), watched.file("synced.txt")) == 0)
        let rows = try await watched.listing {
            state($0["doc.txt"]) == "fresh" && size($0["doc.txt"]) == 10 && state($0["synced.txt"]) == "fresh"
        }
        #expect(state(rows["doc.txt"]) == "fresh" && state(rows["synced.txt"]) == "fresh")
        try await watched.settle()
        // Three saves of doc.txt in a burst: one render of the final content; one for synced.txt.
        #expect(watched.indexer.rendersStarted - before == 2)
        #expect(rows.keys.allSatisfy { !$0.hasPrefix(".") })
    }

    @Test("100 writes of one file in a second are one render of the final content")
    func burst() async throws {
        let watched = try await WatchedContainer()
        for index in 0..<100 {
            try Data("line \(index)\n".utf8).write(to: URL(fileURLWithPath: watched.file("burst.txt")))
        }
        let rows = try await watched.listing { size($0["burst.txt"]) == 8 && state($0["burst.txt"]) == "fresh" }
        #expect(state(rows["burst.txt"]) == "fresh")
        try await watched.settle()
        #expect(watched.indexer.rendersStarted <= 3, "\(watched.indexer.rendersStarted) renders")
    }

    @Test("renames and moves between folders render nothing; the record follows")
    func renames() async throws {
        let watched = try await WatchedContainer(files: [
            "a/photo.png": "png/rgb8.png", "b/keep.txt": "text/latin-utf8.txt",
        ])
        _ = await watched.indexer.refresh(["a/photo.png", "b/keep.txt"])
        let before = watched.indexer.rendersStarted
        #expect(rename(watched.file("a/photo.png"), watched.file("b/renamed.png")) == 0)
        #expect(rename(watched.file("b"), watched.file("c")) == 0)
        let rows = try await watched.listing {
            state($0["c/renamed.png"]) == "fresh" && state($0["c/keep.txt"]) == "fresh"
        }
        #expect(state(rows["c/renamed.png"]) == "fresh" && state(rows["c/keep.txt"]) == "fresh")
        try await watched.settle()
        #expect(watched.indexer.rendersStarted == before)
        #expect(try await watched.store.document(at: "a/photo.png", includingImageData: false) == nil)
        #expect(try await watched.store.document(at: "b/keep.txt", includingImageData: false) == nil)
    }

    @Test("a move in from outside is rendered; a move out and a delete drop the record")
    func moveInAndOut() async throws {
        let outside = FileManager.default.temporaryDirectory.appendingPathComponent("outside-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: outside, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: outside) }
        let watched = try await WatchedContainer(files: [
            "leaving.png": "png/rgb8.png", "gone.txt": "text/latin-utf8.txt",
        ])
        _ = await watched.indexer.refresh(["leaving.png", "gone.txt"])
        try WatchedContainer.copy(TestLocations.asset("pdf/letter.pdf"), to: outside + "/arriving.pdf")
        #expect(rename(outside + "/arriving.pdf", watched.file("arriving.pdf")) == 0)
        #expect(rename(watched.file("leaving.png"), outside + "/left.png") == 0)
        #expect(unlink(watched.file("gone.txt")) == 0)
        try await watched.listing { state($0["arriving.pdf"]) == "fresh" }
        try await watched.settle()
        #expect(try await watched.store.document(at: "leaving.png", includingImageData: false) == nil)
        #expect(try await watched.store.document(at: "gone.txt", includingImageData: false) == nil)
        #expect(try await watched.store.document(at: "arriving.pdf", includingImageData: false)?.record.state == .fresh)
    }

    @Test("a new folder with files written into it at once: every file is fresh")
    func newFolder() async throws {
        let watched = try await WatchedContainer()
        let folder = watched.file("new/deeper")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        for index in 0..<10 {
            try Data("file \(index)\n".utf8).write(to: URL(fileURLWithPath: folder + "/\(index).txt"))
        }
        let rows = try await watched.listing { rows in
            (0..<10).allSatisfy { state(rows["new/deeper/\($0).txt"]) == "fresh" }
        }
        #expect((0..<10).allSatisfy { state(rows["new/deeper/\($0).txt"]) == "fresh" })
    }

    @Test("a document appended to slowly over 2 s is never listed fresh with an old size")
    func slowAppend() async throws {
        let watched = try await WatchedContainer()
        let path = watched.file("growing.txt")
        FileManager.default.createFile(atPath: path, contents: nil)
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
        var written = 0
        for index in 0..<20 {
            let line = Data("appended line \(index)\n".utf8)
            try handle.write(contentsOf: line)
            written += line.count
            if index.isMultiple(of: 4) {
                let row = try await watched.list()["growing.txt"]
                if state(row) == "fresh" {
                    #expect(size(row) == written, "fresh with \(size(row) ?? -1) bytes while the file has \(written)")
                }
            }
            try await Task.sleep(for: .milliseconds(100))
        }
        try handle.close()
        let rows = try await watched.listing { state($0["growing.txt"]) == "fresh" }
        #expect(size(rows["growing.txt"]) == written)
    }

    @Test("git checkout of another commit: every changed document fresh, the unchanged not rendered again")
    func gitCheckout() async throws {
        let watched = try await WatchedContainer()
        /// Runs git in the container; returns what it printed.
        @discardableResult
        func git(_ arguments: String...) async throws -> String {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/usr/bin/git")
            process.arguments = ["-C", watched.root, "-c", "user.name=t", "-c", "user.email=t@t"] + arguments
            let output = Pipe()
            process.standardOutput = output
            process.standardError = FileHandle.nullDevice
            try process.run()
            let printed = String(decoding: await readToEnd(output.fileHandleForReading), as: UTF8.self)
            #expect(await exited(process, within: .seconds(60)), "process ended")
            #expect(process.terminationStatus == 0, "git \(arguments)")
            return printed
        }
        for index in 0..<6 {
            try Data("version one of \(index)\n".utf8).write(to: URL(fileURLWithPath: watched.file("d\(index).txt")))
        }
        try await git("init", "-q")
        try await git("add", ".")
        try await git("commit", "-q", "-m", "one")
        for index in 0..<3 {
            try Data("version two, longer, of \(index)\n".utf8).write(
                to: URL(fileURLWithPath: watched.file("d\(index).txt")))
        }
        try await git("commit", "-q", "-am", "two")
        // `git add .` left the store out (its .gitignore): a checkout never writes over the live
        // database (it failed when the database had changed since the commit, or wrote over it).
        let files = try await git("ls-files")
        #expect(files.split(separator: "\n").sorted() == (0..<6).map { "d\($0).txt" }, "\(files)")
        try await watched.listing { rows in (0..<6).allSatisfy { state(rows["d\($0).txt"]) == "fresh" } }
        try await watched.settle()
        let before = watched.indexer.rendersStarted
        try await git("checkout", "-q", "HEAD~1")
        let rows = try await watched.listing { rows in
            (0..<3).allSatisfy {
                size(rows["d\($0).txt"]) == "version one of \($0)\n".utf8.count && state(rows["d\($0).txt"]) == "fresh"
            }
        }
        #expect((0..<6).allSatisfy { state(rows["d\($0).txt"]) == "fresh" })
        try await watched.settle()
        #expect(watched.indexer.rendersStarted - before == 3)
        #expect(rows.keys.allSatisfy { !$0.hasPrefix(".git") })
    }

    @Test("an overflowing event queue leads to a catch-up pass, never silence", .enabled(if: getuid() == 0))
    func overflow() async throws {
        // The kernel's per-instance queue length is read when an instance is made: shrink it for
        // the watcher's instance only, then restore it.
        let setting = "/proc/sys/fs/inotify/max_queued_events"
        let original = try String(contentsOfFile: setting, encoding: .utf8).trimmingCharacters(
            in: .whitespacesAndNewlines)
        try "1".write(toFile: setting, atomically: false, encoding: .utf8)
        let watched: WatchedContainer
        do {
            watched = try await WatchedContainer()
            try original.write(toFile: setting, atomically: false, encoding: .utf8)
        } catch {
            try original.write(toFile: setting, atomically: false, encoding: .utf8)
            throw error
        }
        for index in 0..<100 {
            FileManager.default.createFile(atPath: watched.file("f\(index).txt"), contents: Data("\(index)\n".utf8))
        }
        let rows = try await watched.listing { rows in (0..<100).allSatisfy { state(rows["f\($0).txt"]) == "fresh" } }
        #expect((0..<100).allSatisfy { state(rows["f\($0).txt"]) == "fresh" })
        try await eventually("a catch-up pass", within: .seconds(60)) { watched.watcher.catchUpPasses >= 1 }
    }
}
