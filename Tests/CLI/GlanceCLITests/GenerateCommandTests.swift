import Foundation
import GlanceStore
import GlanceTestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

@Suite("glance generate, list, show, export, gc", .timeLimit(.minutes(10)))
struct GenerateCommandTests {
    @Test("generate makes every thumbnail; list shows them fresh with the right sizes")
    func generateThenList() async throws {
        let container = try SampleContainer.standard()
        let (summary, result) = try await container.generate()
        #expect(result.status == 0, "\(result.standardError)")
        #expect(summary["rendered"] as? Int == 8)
        #expect(summary["unsupported"] as? Int == 1)
        #expect(summary["failed"] as? Int == 0)
        let rows = try await container.list()
        #expect(rows.count == 9)
        let expected = [
            "photo.jpg": "1024x768", "albums/turned.jpg": "600x400", "albums/deep/gray.png": "200x150",
            "screen.png": "200x150", "letter.pdf": "791x1024", "docs/rotated.pdf": "1024x791",
            "notes.txt": "724x1024", "docs/japanese.txt": "724x1024",
        ]
        for (path, size) in expected {
            #expect(rows[path]?["state"] as? String == "fresh", "\(path)")
            #expect(thumbnailSize(rows[path]) == size, "\(path)")
        }
        #expect(rows["data.bin"]?["state"] as? String == "unsupported")
        #expect(rows["photo.jpg"]?["mimeType"] as? String == "image/jpeg")
        #expect(FileManager.default.fileExists(atPath: container.file(".thumbnails/CACHEDIR.TAG")))
        let tag = try String(contentsOfFile: container.file(".thumbnails/CACHEDIR.TAG"), encoding: .utf8)
        #expect(tag.hasPrefix("Signature: 8a477f597d28d172789f06886806bc55"))
    }

    @Test(
        "café.png and café.png written e + U+0301 side by side: each rendered once with its own digest, both fresh, nothing stale on the next run"
    )
    func canonicallyEqualNames() async throws {
        let composed = "caf\u{E9}.png"
        let decomposed = "cafe\u{301}.png"
        // Not one dictionary literal: its keys would be equal.
        let container = try SampleContainer([:])
        try container.add(composed, from: "png/rgb8.png")
        try container.add(decomposed, from: "png/gray8.png")
        let (first, result) = try await container.generate()
        #expect(result.status == 0, "\(result.standardError)")
        #expect(first["rendered"] as? Int == 2)
        let listed = try await GlanceProcess.run(["list", container.path, "--json"])
        let rows = try JSONSerialization.jsonObject(with: Data(listed.standardOutput.utf8)) as? [[String: Any]] ?? []
        #expect(rows.count == 2)
        var digests: [[UInt8]: String] = [:]
        for row in rows {
            let path = Array((row["path"] as? String ?? "").utf8)
            #expect(row["state"] as? String == "fresh", "\(row)")
            digests[path] = row["digest"] as? String
        }
        let composedDigest = try #require(digests[Array(composed.utf8)])
        let decomposedDigest = try #require(digests[Array(decomposed.utf8)])
        #expect(composedDigest != decomposedDigest)
        let (second, _) = try await container.generate()
        #expect(second["rendered"] as? Int == 0, "\(second)")
    }

    @Test(
        "a batch of large documents of many kinds through one renderer: each document's outcome and thumbnail are what it gets alone"
    )
    func outcomeIndependentOfTheBatch() async throws {
        let documents = [
            "big.png": "png/interlaced-6000-rgba.png", "photo.heic": "heif/photo-with-thumbnail.heic",
            "photo.pdf": "pdf/with-photo.pdf", "scan.tiff": "tiff/rgb8-lzw.tiff", "clip.mp4": "media/fade-in.mp4",
            "raw.dng": "raw/preview.dng", "comic.cbz": "comics/natural.cbz", "photo.jpg": "jpeg/photo-baseline.jpg",
            "broken.jpg": "corrupt/truncated-header.jpg",
        ]
        /// Each document's state and its 1024 thumbnail's bytes (or error), from a `generate` of
        /// `names` through one renderer.
        func outcomes(of names: [String]) async throws -> [String: String] {
            let container = try SampleContainer([:])
            for name in names { try container.add(name, from: documents[name]!) }
            let (_, result) = try await container.generate(["--jobs", "1", "--sizes", "none"])
            #expect(result.status <= 1, "\(result.standardError)")
            var found: [String: String] = [:]
            for (path, row) in try await container.list() {
                let state = row["state"] as? String ?? "?"
                guard state == "fresh" else {
                    found[path] = state + ": " + (row["error"] as? String ?? "")
                    continue
                }
                let exported = container.output(path + ".thumbnail")
                _ = try await GlanceProcess.run(["export", container.path, path, "-o", exported])
                let bytes = (try? Data(contentsOf: URL(fileURLWithPath: exported))) ?? Data()
                found[path] = "fresh: \(bytes.count) bytes, \(bytes.hashValue)"
            }
            return found
        }
        let names = documents.keys.sorted()
        let together = try await outcomes(of: names)
        #expect(together.count == names.count)
        for name in names {
            let alone = try await outcomes(of: [name])
            #expect(
                alone[name] == together[name],
                "\(name): alone \(alone[name] ?? "-"), in the batch \(together[name] ?? "-")")
        }
    }

    @Test("list --json and show give a PDF's pages and their sizes and a text's encoding")
    func documentDetails() async throws {
        let container = try SampleContainer.standard()
        try container.add("two-pages.pdf", from: "pdf/a4-two-pages.pdf")
        try container.add("sjis.txt", from: "text/shift_jis.txt")
        try container.add("utf16.txt", from: "text/utf16be-bom.txt")
        _ = try await container.generate()
        let rows = try await container.list()
        let pdf = try #require(rows["two-pages.pdf"]?["details"] as? [String: Any])
        #expect(pdf["pageCount"] as? Int == 2)
        let runs = try #require(pdf["pageSizes"] as? [[String: Any]])
        // A4 upright, then A4 turned: two runs of one page.
        #expect(runs.map { $0["count"] as? Int } == [1, 1])
        #expect(runs.map { $0["width"] as? Int } == [595, 842] && runs.map { $0["height"] as? Int } == [842, 595])
        let text = try #require(rows["sjis.txt"]?["details"] as? [String: Any])
        #expect(text["textEncoding"] as? String == "SHIFT_JIS")
        // Lines as the decoded text has them (iconv's decoding of the same files, 13 and 11).
        #expect(text["lineCount"] as? Int == 13 && text["textIsLonger"] as? Bool == false)
        let utf16 = try #require(rows["utf16.txt"]?["details"] as? [String: Any])
        #expect(utf16["textEncoding"] as? String == "UTF-16BE" && utf16["lineCount"] as? Int == 11)
        #expect(rows["photo.jpg"]?["details"] == nil)
        let show = try await GlanceProcess.run(["show", container.path, container.file("two-pages.pdf")])
        #expect(show.standardOutput.contains("pages       2, in 2 sizes\n"), "\(show.standardOutput)")
        let letter = try await GlanceProcess.run(["show", container.path, container.file("letter.pdf")])
        #expect(letter.standardOutput.contains("pages       1, 612x792 pt\n"), "\(letter.standardOutput)")
        let sjis = try await GlanceProcess.run(["show", container.path, container.file("sjis.txt")])
        #expect(sjis.standardOutput.contains("encoding    SHIFT_JIS\nlines       13\n"), "\(sjis.standardOutput)")
    }

    @Test(
        "each document keeps 256 and 512 beside the 1024, each within its box with the aspect kept; --sizes is the store's setting"
    )
    func smallerSizes() async throws {
        let container = try SampleContainer.standard()
        let (generated, _) = try await container.generate()
        var sizesServedByStandard = 0
        for (path, row) in try await container.list() where row["state"] as? String == "fresh" {
            let thumbnails = try #require(row["thumbnails"] as? [String: [String: Any]], "\(path)")
            #expect(Set(thumbnails.keys) == ["256x256", "512x512", "1024x1024"], "\(path)")
            let standard = try #require(thumbnails["1024x1024"])
            let (width, height) = (standard["width"] as? Int ?? 0, standard["height"] as? Int ?? 0)
            for side in [256, 512] {
                let image = try #require(thumbnails["\(side)x\(side)"])
                if max(width, height) <= side {
                    // The 1024 fits this box as it is: not stored again, listed as that image.
                    #expect(image["sameAs"] as? String == "1024x1024", "\(path) \(side)")
                    #expect(image["format"] as? String == standard["format"] as? String, "\(path) \(side)")
                    #expect(image["bytes"] as? Int == standard["bytes"] as? Int, "\(path) \(side)")
                    sizesServedByStandard += 1
                    continue
                }
                #expect(image["sameAs"] == nil, "\(path) \(side)")
                let (w, h) = (image["width"] as? Int ?? 0, image["height"] as? Int ?? 0)
                // Within the box, never enlarged, the longer side the box's (or the 1024's own).
                #expect(max(w, h) == min(side, max(width, height)), "\(path) \(side): \(w)x\(h) of \(width)x\(height)")
                // The aspect of the 1024, to a pixel of rounding.
                #expect(
                    abs(w * height - h * width) <= max(width, height),
                    "\(path) \(side): \(w)x\(h) of \(width)x\(height)")
                // A photo's smaller sizes and the gradients of the two PNGs (gradual changes, as
                // a photograph's) lossy WebP; a PDF's text page's 256 lossless WebP, its 512
                // PNG; a text document's (gray) both PNG.
                let expected: String =
                    switch path {
                    case "photo.jpg", "albums/turned.jpg", "screen.png", "albums/deep/gray.png": "webp"
                    case "letter.pdf", "docs/rotated.pdf": side == 256 ? "webp" : "png"
                    default: "png"
                    }
                #expect(image["format"] as? String == expected, "\(path) \(side)")
            }
        }
        // The sample holds documents smaller than 512 (and 256): their sizes are the 1024 itself,
        // and the store holds them once.
        #expect(sizesServedByStandard >= 2)
        let stored = try #require(generated["thumbnailBytesBySize"] as? [String: Int])
        let rendered = try #require(generated["rendered"] as? Int)
        #expect(stored.count == 3 && rendered > 0)
        // Another choice of sizes is kept by the store, and every record is made again for it.
        let (summary, result) = try await container.generate(["--sizes", "128"])
        #expect(result.status == 0 && summary["rendered"] as? Int == 8, "\(result.standardError)")
        let made = try #require(summary["thumbnailBytesBySize"] as? [String: Int])
        #expect(Set(made.keys) == ["128x128", "1024x1024"] && made["128x128"]! < made["1024x1024"]!)
        let rows = try await container.list()
        let photo = try #require(rows["photo.jpg"]?["thumbnails"] as? [String: [String: Any]])
        #expect(Set(photo.keys) == ["128x128", "1024x1024"])
        #expect(photo["128x128"]?["width"] as? Int == 128)
        // Later commands use the store's setting without being told.
        let (again, _) = try await container.generate()
        #expect(again["rendered"] as? Int == 0)
        let exported = container.output("small.webp")
        let export = try await GlanceProcess.run([
            "export", container.path, "photo.jpg", "--size-key", "128x128", "-o", exported,
        ])
        #expect(export.status == 0, "\(export.standardError)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: exported)).starts(with: Array("RIFF".utf8)))
        let bad = try await GlanceProcess.run(["generate", container.path, "--sizes", "1024"])
        #expect(bad.status == 64 || bad.status == 2, "\(bad.status)")
        #expect(bad.standardError.contains("--sizes takes box sides from 32 to 1023"))
    }

    @Test("a re-run renders nothing; touching one document re-renders exactly that one")
    func rerun() async throws {
        let container = try SampleContainer.standard()
        _ = try await container.generate()
        let (again, result) = try await container.generate()
        #expect(result.status == 0)
        #expect(again["rendered"] as? Int == 0)
        #expect(again["fresh"] as? Int == 8)
        var times = [timespec(tv_sec: 1_700_000_000, tv_nsec: 5), timespec(tv_sec: 1_700_000_000, tv_nsec: 5)]
        #expect(utimensat(AT_FDCWD, container.file("notes.txt"), &times, 0) == 0)
        #expect(try await container.list()["notes.txt"]?["state"] as? String == "stale")
        let (touched, _) = try await container.generate()
        #expect(touched["rendered"] as? Int == 1)
        #expect(touched["fresh"] as? Int == 7)
    }

    @Test("a renamed document keeps its thumbnail without rendering; gc drops records of deleted ones")
    func renameAndGc() async throws {
        let container = try SampleContainer.standard()
        _ = try await container.generate()
        let before = try await GlanceProcess.run([
            "export", container.path, "photo.jpg", "-o", container.output("before.jpg"),
        ])
        #expect(before.status == 0)
        try FileManager.default.createDirectory(atPath: container.file("moved"), withIntermediateDirectories: true)
        #expect(rename(container.file("photo.jpg"), container.file("moved/holiday.jpg")) == 0)
        let (summary, _) = try await container.generate()
        #expect(summary["rendered"] as? Int == 0)
        #expect(summary["moved"] as? Int == 1)
        let rows = try await container.list()
        #expect(rows["moved/holiday.jpg"]?["state"] as? String == "fresh")
        #expect(rows["photo.jpg"] == nil)
        let after = try await GlanceProcess.run([
            "export", container.path, "moved/holiday.jpg", "-o", container.output("after.jpg"),
        ])
        #expect(after.status == 0)
        #expect(
            try Data(contentsOf: URL(fileURLWithPath: container.output("before.jpg")))
                == Data(contentsOf: URL(fileURLWithPath: container.output("after.jpg"))))

        try FileManager.default.removeItem(atPath: container.file("letter.pdf"))
        let gc = try await GlanceProcess.run(["gc", container.path])
        #expect(gc.status == 0)
        #expect(gc.standardOutput.hasPrefix("removed 1 record(s)"))
        #expect(try await container.store().document(at: "letter.pdf", includingImageData: false) == nil)
    }

    @Test("a document copied then deleted (new inode, same content) keeps its thumbnail too")
    func copyAndDelete() async throws {
        let container = try SampleContainer.standard()
        _ = try await container.generate()
        try FileManager.default.copyItem(
            atPath: container.file("screen.png"), toPath: container.file("screen-copy.png"))
        try FileManager.default.removeItem(atPath: container.file("screen.png"))
        let (summary, _) = try await container.generate()
        #expect(summary["moved"] as? Int == 1)
        #expect(summary["rendered"] as? Int == 0)
    }

    @Test("a worker that crashes costs one document: failed with the reason, others fresh, exit 1")
    func crashingWorker() async throws {
        let container = try SampleContainer.standard()
        try container.add("crash-me.png", from: "png/rgb8.png")
        let (summary, result) = try await container.generate(["--debug-crash-on", "crash-*"])
        #expect(result.status == 1)
        #expect(summary["rendered"] as? Int == 8)
        #expect(summary["failed"] as? Int == 1)
        let failures = summary["failures"] as? [[String: Any]] ?? []
        #expect(failures.first?["path"] as? String == "crash-me.png")
        #expect(failures.first?["error"] as? String == "renderer crashed (signal 11)")
        #expect(result.errorLines == ["glance: \(container.file("crash-me.png")): renderer crashed (signal 11)"])
        let rows = try await container.list()
        #expect(rows["crash-me.png"]?["state"] as? String == "failed")
        #expect(rows["crash-me.png"]?["error"] as? String == "renderer crashed (signal 11)")
        // Remembered: not retried until it changes, or until asked.
        let (again, _) = try await container.generate()
        #expect(again["rendered"] as? Int == 0)
        let (retried, retryResult) = try await container.generate(["--retry-failed"])
        #expect(retried["rendered"] as? Int == 1)
        #expect(retryResult.status == 0)
    }

    @Test("--json counts the renderers started: one a worker, one more for each that replaced a crashed worker")
    func workersStarted() async throws {
        let container = try SampleContainer.standard()
        let (sound, _) = try await container.generate()
        #expect(sound["renderersStarted"] as? Int == 2)
        #expect(sound["workersStarted"] as? Int == 2)
        // The largest document goes first, so the crashed worker's replacement renders the rest.
        let other = try SampleContainer.standard()
        try other.add("crash-me.png", from: "png/photo-like.png")
        let (summary, result) = try await other.generate(["--jobs", "1", "--debug-crash-on", "crash-*"])
        #expect(result.status == 1)
        #expect(summary["rendered"] as? Int == 8)
        #expect(summary["workersStarted"] as? Int == 2)
    }

    @Test("-v ends by saying how many renderers were replaced, and says nothing of them when none was")
    func verboseSaysReplacedRenderers() async throws {
        let container = try SampleContainer.standard()
        try container.add("crash-me.png", from: "png/photo-like.png")
        let crashed = try await GlanceProcess.run(
            ["generate", container.path, "-v", "--jobs", "1", "--debug-crash-on", "crash-*"])
        #expect(crashed.status == 1)
        let line =
            "glance: 2 renderers started for 1 at once (--jobs): 1 replaced after a crash, a time-out, a used-up CPU share "
            + "(--cpu-limit) or dying between documents"
        #expect(crashed.standardError.split(separator: "\n").last.map(String.init) == line, "\(crashed.standardError)")
        let sound = try SampleContainer.standard()
        let plain = try await GlanceProcess.run(["generate", sound.path, "-v", "--jobs", "1"])
        #expect(plain.status == 0)
        #expect(!plain.standardError.contains("renderers started"), "\(plain.standardError)")
    }

    @Test("a worker that hangs is killed at the time limit and replaced")
    func hangingWorker() async throws {
        let container = try SampleContainer.standard()
        try container.add("hang-1.png", from: "png/rgb8.png")
        try container.add("hang-2.png", from: "png/rgb8.png")
        // Three seconds, not one: a loaded machine takes more than a second over some of the
        // standard documents in a debug build, and those must not time out.
        let (summary, result) = try await container.generate(["--debug-hang-on", "hang-*", "--timeout", "3"])
        #expect(result.status == 1)
        #expect(summary["rendered"] as? Int == 8)
        let failures = summary["failures"] as? [[String: Any]] ?? []
        #expect(
            failures.map { $0["error"] as? String } == [
                "timed out after 3 s (--timeout)", "timed out after 3 s (--timeout)",
            ])
    }

    @Test("kill -9 in the middle of a batch leaves a sound store, and a re-run completes the job")
    func killNine() async throws {
        let container = try SampleContainer([:])
        for index in 0..<80 {
            try container.add(String(format: "photo-%03d.jpg", index), from: "jpeg/photo-progressive.jpg")
        }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: GlanceProcess.executable)
        process.arguments = ["generate", container.path, "--quiet", "--jobs", "2"]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        // Kill once the first thumbnails are in the store, while work remains.
        try await eventually("three thumbnails in the store", within: .seconds(30)) {
            // Asked of another process, synchronously: a test task that awaited here could be
            // starved of threads by the other tests while the batch runs to its end.
            let fresh = try await GlanceProcess.run(["list", container.path, "--status", "fresh", "--json"])
            let rows = (try? JSONSerialization.jsonObject(with: Data(fresh.standardOutput.utf8)) as? [Any]) ?? []
            return rows.count >= 3
        }
        kill(process.processIdentifier, SIGKILL)
        #expect(await exited(process, within: .seconds(60)), "process ended")
        let store = try container.store()
        #expect(try await store.checkIntegrity())
        let stored = try await store.allDocuments()
        #expect(stored.count < 80, "the batch was killed before it finished")
        for document in stored {
            #expect(document.record.state == .fresh)
            let full = try await store.document(at: document.record.path, includingImageData: true)
            let image = full?.thumbnails.first
            #expect(image?.data?.count == image?.byteCount && (image?.byteCount ?? 0) > 0)
        }
        let (summary, result) = try await container.generate()
        #expect(result.status == 0)
        #expect((summary["rendered"] as? Int ?? 0) + (summary["fresh"] as? Int ?? 0) == 80)
        #expect(try await container.list().values.allSatisfy { $0["state"] as? String == "fresh" })
    }

    @Test("two batches and a listing on one container at once: no errors, each document rendered about once")
    func concurrentBatches() async throws {
        let container = try SampleContainer([:])
        for index in 0..<40 {
            try container.add(String(format: "page-%02d.pdf", index), from: "pdf/with-photo.pdf")
        }
        func start() throws -> (Process, Pipe, Pipe) {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: GlanceProcess.executable)
            process.arguments = ["generate", container.path, "--json", "--jobs", "1"]
            let output = Pipe()
            let error = Pipe()
            process.standardOutput = output
            process.standardError = error
            try process.run()
            return (process, output, error)
        }
        let first = try start()
        let second = try start()
        let listing = try await GlanceProcess.run(["list", container.path, "--json"])
        #expect(listing.status == 0, "\(listing.standardError)")
        var rendered = 0
        for (process, output, error) in [first, second] {
            let data = await readToEnd(output.fileHandleForReading)
            let messages = String(decoding: await readToEnd(error.fileHandleForReading), as: UTF8.self)
            #expect(await exited(process, within: .seconds(60)), "process ended")
            #expect(process.terminationStatus == 0, "\(messages)")
            let summary = try JSONSerialization.jsonObject(with: data) as? [String: Any]
            rendered += summary?["rendered"] as? Int ?? 0
        }
        #expect(rendered >= 40 && rendered <= 42, "rendered \(rendered) times for 40 documents")
        #expect(try await container.store().checkIntegrity())
        #expect(try await container.list().values.allSatisfy { $0["state"] as? String == "fresh" })
    }

    @Test("a batch that waited for another's documents reports the ones that failed there, and exits 1")
    func failureRenderedElsewhere() async throws {
        let container = try SampleContainer(["z-bad.jpg": "corrupt/truncated-header.jpg"])
        for index in 0..<3 { try container.add("d\(index).png", from: "png/rgb8.png") }
        // The first batch takes every document and a second over each (one worker); the second
        // batch, started meanwhile, waits for them and finds them done, one of them failed.
        let first = Process()
        first.executableURL = URL(fileURLWithPath: GlanceProcess.executable)
        first.arguments = ["generate", container.path, "--jobs", "1", "--quiet", "--debug-slow-on", "*"]
        first.standardError = FileHandle.nullDevice
        try first.run()
        try await eventually("the first batch claimed its 4 documents", within: .seconds(30)) {
            container.claimCount() == 4
        }
        let second = try await GlanceProcess.run(["generate", container.path, "--json"])
        #expect(first.isRunning || first.terminationStatus == 1)
        #expect(await exited(first, within: .seconds(60)), "first ended")
        #expect(first.terminationStatus == 1)
        let summary = try JSONSerialization.jsonObject(with: Data(second.standardOutput.utf8)) as? [String: Any]
        #expect(second.status == 1, "\(second.standardError)")
        #expect(second.standardError.contains("z-bad.jpg: truncated JPEG data"), "\(second.standardError)")
        #expect(summary?["failed"] as? Int == 1)
        // Each of the three good documents is accounted for once: rendered by this batch, by the
        // first one meanwhile, or by the first one before this batch made its plan (fresh then: on
        // a loaded machine the second batch's start can take longer than the first's render).
        let accounted = ["rendered", "renderedElsewhere", "fresh"].map { summary?[$0] as? Int ?? 0 }
        #expect(accounted.reduce(0, +) == 3, "\(accounted)")
    }

    @Test("a document changed while it is rendered is rendered again from its new content")
    func changedDuringRender() async throws {
        let container = try SampleContainer(["slow-notes.txt": "text/latin-utf8.txt"])
        let process = Process()
        process.executableURL = URL(fileURLWithPath: GlanceProcess.executable)
        process.arguments = ["generate", container.path, "--json", "--debug-slow-on", "slow-*"]
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        // Changed once the batch has taken it (scanned, claimed, handed to a renderer, which waits
        // a second before it reads the file).
        try await eventually("the batch claimed slow-notes.txt", within: .seconds(30)) { container.claimCount() == 1 }
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: container.file("slow-notes.txt")))
        try handle.seekToEnd()
        try handle.write(contentsOf: Data("\nA line added while the thumbnail was being made.\n".utf8))
        try handle.close()
        let data = await readToEnd(output.fileHandleForReading)
        #expect(await exited(process, within: .seconds(60)), "process ended")
        #expect(process.terminationStatus == 0)
        let summary = try JSONSerialization.jsonObject(with: data) as? [String: Any]
        #expect(summary?["rendered"] as? Int == 1)
        let size = try FileManager.default.attributesOfItem(atPath: container.file("slow-notes.txt"))[.size] as? Int
        let record = try await container.store().document(at: "slow-notes.txt", includingImageData: false)?.record
        #expect(record?.state == .fresh)
        #expect(record.map { Int($0.identity.size) } == size, "the record describes the file as it is now")
        #expect(try await container.list()["slow-notes.txt"]?["state"] as? String == "fresh")
    }

    @Test("listing a container that was never generated shows every document missing and creates nothing")
    func listBeforeGenerate() async throws {
        let container = try SampleContainer.standard()
        let rows = try await container.list()
        #expect(rows.count == 9)
        #expect(rows.values.allSatisfy { $0["state"] as? String == "missing" })
        #expect(rows["letter.pdf"]?["kind"] as? String == "pdf")
        let gc = try await GlanceProcess.run(["gc", container.path])
        #expect(gc.status == 0 && gc.standardOutput.hasPrefix("removed 0 record(s)"), "\(gc.standardError)")
        #expect(!FileManager.default.fileExists(atPath: container.file(".thumbnails")))
        let export = try await GlanceProcess.run([
            "export", container.path, "letter.pdf", "-o", container.output("x.png"),
        ])
        #expect(export.status == 1)
        #expect(export.standardError.contains("run 'glance generate' first"))
    }

    @Test("a --store folder made inside the container by this run is never taken for documents")
    func storeMadeInside() async throws {
        let container = try SampleContainer(["a.png": "png/rgb8.png"])
        let store = container.file("thumbs")
        let result = try await GlanceProcess.run(["generate", container.path, "--store", store, "--json"])
        #expect(result.status == 0, "\(result.standardError)")
        let summary = try JSONSerialization.jsonObject(with: Data(result.standardOutput.utf8)) as? [String: Any]
        // The store's database and tag file were rendered or recorded as unsupported documents.
        #expect(summary?["rendered"] as? Int == 1)
        #expect(summary?["unsupported"] as? Int == 0)
    }

    @Test("gc on an empty container folder with the store elsewhere (a share not mounted) drops nothing")
    func gcOnEmptyFolder() async throws {
        let container = try SampleContainer(["a.png": "png/rgb8.png", "docs/b.txt": "text/latin-utf8.txt"])
        let store = container.output("store")
        #expect(try await GlanceProcess.run(["generate", container.path, "--store", store]).status == 0)
        try FileManager.default.removeItem(atPath: container.file("a.png"))
        try FileManager.default.removeItem(atPath: container.file("docs"))
        let refused = try await GlanceProcess.run(["gc", container.path, "--store", store])
        #expect(refused.status == 2)
        #expect(refused.standardError.contains("the container folder is empty"), "\(refused.standardError)")
        #expect(refused.standardError.contains("would drop all 2 record(s), so it dropped none"))
        let forced = try await GlanceProcess.run(["gc", container.path, "--store", store, "--even-if-empty"])
        #expect(forced.status == 0 && forced.standardOutput.hasPrefix("removed 2 record(s)"), "\(forced.standardError)")
    }

    @Test("--dry-run says what would be done and renders nothing")
    func dryRun() async throws {
        let container = try SampleContainer.standard()
        let result = try await GlanceProcess.run(["generate", container.path, "--dry-run"])
        #expect(result.status == 0)
        #expect(result.standardOutput.hasPrefix("9 documents would be rendered"))
        #expect(result.standardOutput.contains("estimated time"))
        #expect(try await container.store().allDocuments().isEmpty)
    }

    @Test("list filters by pattern, type and status, and sorts")
    func listFilters() async throws {
        let container = try SampleContainer.standard()
        _ = try await container.generate()
        await #expect(Set(try container.list(["*.pdf"]).keys) == ["letter.pdf", "docs/rotated.pdf"])
        await #expect(Set(try container.list(["--type", "text"]).keys) == ["notes.txt", "docs/japanese.txt"])
        await #expect(Set(try container.list(["--status", "unsupported"]).keys) == ["data.bin"])
        let bySize = try await GlanceProcess.run(["list", container.path, "--sort", "size", "--reverse", "--json"])
        let rows = try JSONSerialization.jsonObject(with: Data(bySize.standardOutput.utf8)) as? [[String: Any]] ?? []
        let sizes = rows.compactMap { $0["size"] as? Int }
        #expect(sizes == sizes.sorted(by: >) && sizes.count == 9)
        let table = try await GlanceProcess.run(["list", container.path])
        #expect(table.standardOutput.hasPrefix("NAME"))
        #expect(table.standardOutput.contains("724x1024 png"))
    }

    @Test("show prints one document's attributes; unknown documents and containers are clear errors")
    func showAndErrors() async throws {
        let container = try SampleContainer.standard()
        _ = try await container.generate()
        let show = try await GlanceProcess.run(["show", container.path, "letter.pdf", "--json"])
        let object = try JSONSerialization.jsonObject(with: Data(show.standardOutput.utf8)) as? [String: Any]
        #expect(object?["state"] as? String == "fresh")
        #expect(object?["kind"] as? String == "pdf")
        let missing = try await GlanceProcess.run(["show", container.path, "nope.pdf"])
        #expect(missing.status == 1)
        #expect(missing.errorLines.count == 1)
        let notFolder = try await GlanceProcess.run(["generate", container.file("notes.txt")])
        #expect(notFolder.status == 2)
        #expect(notFolder.standardError.contains("not a folder"))
    }

    @Test("hidden files, the sidecar and symlinks leading out of the container are not documents")
    func scanRules() async throws {
        let container = try SampleContainer.standard()
        try container.add(".hidden/secret.png", from: "png/rgb8.png")
        try container.add(".dotfile.txt", from: "text/latin-utf8.txt")
        #expect(symlink(CLIAssets.path("png/rgb8.png"), container.file("outside.png")) == 0)
        #expect(symlink("screen.png", container.file("inside-link.png")) == 0)
        // An absolute link is not followed, even to a document inside (see ContainerScanner).
        #expect(symlink(container.file("screen.png"), container.file("absolute-link.png")) == 0)
        let (summary, _) = try await container.generate()
        #expect(summary["rendered"] as? Int == 9)
        let rows = try await container.list()
        #expect(rows["outside.png"] == nil && rows[".dotfile.txt"] == nil && rows[".hidden/secret.png"] == nil)
        #expect(rows["absolute-link.png"] == nil)
        let skipped = summary["skipped"] as? [String: Int]
        #expect(skipped?["hidden"] == 3)  // .hidden, .dotfile.txt and the .thumbnails sidecar
        #expect(skipped?["linksNotFollowed"] == 2)
        #expect(rows["inside-link.png"]?["state"] as? String == "fresh")
    }

    @Test("one freshness rule: after a version change, list, show, export and generate agree on what is stale")
    func oneFreshnessRule() async throws {
        let container = try SampleContainer.standard()
        _ = try await container.generate()
        // As if an older Glance had found data.bin unsupported and letter.pdf fresh.
        let store = try container.store()
        for path in ["data.bin", "letter.pdf"] {
            var stored = try #require(try await store.document(at: path, includingImageData: true))
            stored.record.generatorVersion = "0.0.1"
            try await store.save(stored.record, thumbnails: stored.thumbnails)
        }
        let rows = try await container.list()
        #expect(rows["data.bin"]?["state"] as? String == "stale")
        #expect(rows["letter.pdf"]?["state"] as? String == "fresh")
        let show = try await GlanceProcess.run(["show", container.path, "data.bin", "--json"])
        let shown = try JSONSerialization.jsonObject(with: Data(show.standardOutput.utf8)) as? [String: Any]
        #expect(shown?["state"] as? String == "stale")
        let export = try await GlanceProcess.run([
            "export", container.path, "letter.pdf", "-o", container.output("l.png"),
        ])
        #expect(export.status == 0)
        #expect(!export.standardError.contains("stale"))
        let (summary, _) = try await container.generate()
        #expect(summary["rendered"] as? Int == 0)
        #expect(summary["unsupported"] as? Int == 1)
        #expect(try await container.list()["data.bin"]?["state"] as? String == "unsupported")
        #expect(try await store.document(at: "data.bin", includingImageData: false)?.record.generatorVersion != "0.0.1")
    }

    @Test(
        "SIGINT during a batch: exit 130 before the batch's end, the store sound, no renderer left, a re-run finishes")
    func interrupted() async throws {
        // Large interlaced PNGs (most of a second each), so that the batch is still running
        // when the signal comes however fast the machine is.
        let container = try SampleContainer([:])
        let count = 16
        for index in 0..<count {
            try container.add(String(format: "large-%02d.png", index), from: "png/interlaced-6000-rgba.png")
        }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: GlanceProcess.executable)
        process.arguments = ["generate", container.path, "--quiet", "--jobs", "2"]
        let errors = Pipe()
        process.standardError = errors
        try process.run()
        // Signal once the batch is under way: its workers have started.
        try await eventually("the batch's renderers started") {
            try !childProcesses(of: process.processIdentifier).isEmpty
        }
        // And its store is open: glance handles SIGINT itself from then on.
        try await eventually("glance handles SIGINT") { handlesSignal(SIGINT, pid: process.processIdentifier) }
        #expect(process.isRunning)
        let signalled = ContinuousClock.now
        kill(process.processIdentifier, SIGINT)
        // Its workers write nothing to this pipe (their standard error is /dev/null), and what
        // glance writes fits in the pipe's buffer: read it once glance has ended.
        let took = (await exitInstant(ofGlance: process, within: .seconds(30)) ?? .now) - signalled
        let message = String(decoding: await readToEnd(errors.fileHandleForReading), as: UTF8.self)
        // A hang guard, not a speed mark: how soon it stops is what the next lines judge (the
        // batch did not run to its end first).
        #expect(took < .seconds(60), "stopped after \(took)")
        #expect(process.terminationStatus == 130)
        #expect(message.contains("interrupted"))
        let children = try childProcesses(of: process.processIdentifier)
        #expect(children.isEmpty)
        #expect(try await container.store().checkIntegrity())
        let stoppedWith = try await container.store().allDocuments().filter { $0.record.state == .fresh }.count
        #expect(stoppedWith < count, "the batch stopped before its end (\(stoppedWith) of \(count) drawn)")
        let (summary, result) = try await container.generate()
        #expect(result.status == 0)
        #expect((summary["rendered"] as? Int ?? 0) + (summary["fresh"] as? Int ?? 0) == count)
    }
}
