import Foundation
import GlanceStore
import GlanceTestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// The defects found by hostile testing (issue "Defects found by hostile testing"): each test
/// tries what an attacker or a careless user would, and checks that Glance neither escapes the
/// container, nor writes what it must not, nor crashes, nor claims success it did not see.
@Suite("Hostile input", .timeLimit(.minutes(10)))
struct HostileInputTests {
    // MARK: 1. Escapes

    @Test("a document swapped for a symlink that leads out, after it was opened, is not stored from outside")
    func symlinkSwapMidBatch() async throws {
        let container = try SampleContainer([:])
        for index in 1...5 {
            try Data("inside document \(index)\n".utf8).write(to: URL(fileURLWithPath: container.file("a\(index).txt")))
        }
        #expect(symlink("a1.txt", container.file("zzz.txt")) == 0)
        let secret = container.output("secret.txt")
        try Data("THE SECRET\n".utf8).write(to: URL(fileURLWithPath: secret))
        let outsideName = (container.outputs as NSString).lastPathComponent
        // Right after glance opens zzz.txt (a link to a1.txt) and a3.txt (a regular file), both
        // are replaced by links to the secret outside the container.
        for name in ["zzz.txt", "a3.txt"] {
            let result = try await GlanceProcess.run([
                "generate", container.path, "--jobs", "1", "--json", "--force", "--debug-swap-on",
                "\(name)=../\(outsideName)/secret.txt",
            ])
            #expect(result.status == 1, "\(result.standardError)")
            #expect(result.standardError.contains("\(name): cannot read the file: leads outside the container"))
        }
        let store = try container.store()
        for name in ["zzz.txt", "a3.txt"] {
            let record = try #require(try await store.document(at: name, includingImageData: true))
            #expect(record.record.state == .failed)
            #expect(record.thumbnails.count == 0)
        }
        #expect(try await store.document(at: "a2.txt", includingImageData: false)?.record.state == .fresh)
    }

    // MARK: 2, 3. Overwrites

    @Test("-o never writes through a symlink planted at a temporary name")
    func plantedTemporary() async throws {
        let container = try SampleContainer([:])
        let victim = container.output("victim.txt")
        try Data("precious".utf8).write(to: URL(fileURLWithPath: victim))
        let out = container.output("out.png")
        // The old temporary name was OUT.partial-PID: plant links for the next few hundred pids.
        let last =
            Int(
                (try? String(contentsOfFile: "/proc/sys/kernel/ns_last_pid", encoding: .utf8))?
                    .trimmingCharacters(in: .whitespacesAndNewlines) ?? "") ?? 0
        for pid in (last + 1)...(last + 400) { _ = symlink(victim, "\(out).partial-\(pid)") }
        let result = try await GlanceProcess.run(["thumbnail", CLIAssets.path("png/rgb8.png"), "-o", out])
        #expect(result.status == 0, "\(result.standardError)")
        #expect(try String(contentsOfFile: victim, encoding: .utf8) == "precious")
        var status = stat()
        #expect(lstat(out, &status) == 0 && (status.st_mode & S_IFMT) == S_IFREG)
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: container.outputs)
            .filter { $0.hasSuffix(".partial") }
        #expect(leftovers.isEmpty)
    }

    @Test("-o with a name of 250 bytes is written (its temporary name is cut to fit), nothing left beside it")
    func longOutputName() async throws {
        let folder = try CLIAssets.scratchFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let name = String(repeating: "n", count: 246) + ".png"
        let result = try await GlanceProcess.run([
            "thumbnail", CLIAssets.path("png/rgb8.png"), "-o", folder + "/" + name,
        ])
        #expect(result.status == 0, "\(result.standardError)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder) == [name])
    }

    @Test("-o that names a FIFO or a folder is refused and left as it is")
    func outputNotRegular() async throws {
        let container = try SampleContainer([:])
        let fifo = container.output("fifo.png")
        #expect(mkfifo(fifo, 0o644) == 0)
        let result = try await GlanceProcess.run(["thumbnail", CLIAssets.path("png/rgb8.png"), "-o", fifo])
        #expect(result.status == 1)
        #expect(result.errorLines.count == 1)
        #expect(result.standardError.contains("not a regular file"))
        var status = stat()
        #expect(lstat(fifo, &status) == 0 && (status.st_mode & S_IFMT) == S_IFIFO)
        try FileManager.default.createDirectory(atPath: container.output("dir.png"), withIntermediateDirectories: true)
        let folder = try await GlanceProcess.run([
            "thumbnail", CLIAssets.path("png/rgb8.png"), "-o", container.output("dir.png"),
        ])
        #expect(folder.status == 1 && folder.standardError.contains("a folder"))
    }

    @Test("the source document and the store are never overwritten: -o FILE itself, a hard link, export into either")
    func documentsNeverWritten() async throws {
        let container = try SampleContainer(["a.png": "png/rgb8.png", "doc.txt": "text/latin-utf8.txt"])
        let original = try Data(contentsOf: URL(fileURLWithPath: container.file("a.png")))
        let same = try await GlanceProcess.run(["thumbnail", container.file("a.png"), "-o", container.file("a.png")])
        #expect(same.status == 1)
        #expect(same.standardError.contains("it is the document itself"))
        #expect(link(container.file("a.png"), container.output("hard.png")) == 0)
        let hard = try await GlanceProcess.run([
            "thumbnail", container.file("a.png"), "-o", container.output("hard.png"),
        ])
        #expect(hard.status == 1)
        #expect(try Data(contentsOf: URL(fileURLWithPath: container.file("a.png"))) == original)

        _ = try await container.generate()
        let text = try Data(contentsOf: URL(fileURLWithPath: container.file("doc.txt")))
        let export = try await GlanceProcess.run(["export", container.path, "doc.txt", "-o", container.file("doc.txt")])
        #expect(export.status == 1)
        #expect(export.standardError.contains("lies inside the container"))
        let beside = try await GlanceProcess.run(["export", container.path, "doc.txt", "-o", container.file("new.png")])
        #expect(beside.status == 1)
        #expect(try Data(contentsOf: URL(fileURLWithPath: container.file("doc.txt"))) == text)
        #expect(!FileManager.default.fileExists(atPath: container.file("new.png")))
        let forced = try await GlanceProcess.run([
            "export", container.path, "doc.txt", "-o", container.file("new.png"), "--force",
        ])
        #expect(forced.status == 0, "\(forced.standardError)")
        #expect(forced.standardError.isEmpty)
        // Byte for byte, whatever OUT is called: a name that says another format is pointed out.
        let misnamed = try await GlanceProcess.run([
            "export", container.path, "doc.txt", "-o", container.output("doc.jpg"),
        ])
        #expect(misnamed.status == 0)
        #expect(misnamed.standardError.contains("doc.jpg: warning: the stored thumbnail is PNG, not .jpg"))
        // A destination that cannot be written: the document, then what could not be written.
        let missing = container.output("missing/doc.png")
        let unwritable = try await GlanceProcess.run(["export", container.path, "doc.txt", "-o", missing])
        #expect(unwritable.status == 1)
        #expect(unwritable.standardError == "glance: doc.txt: cannot write \(missing): No such file or directory\n")
        // The store's own files: never, --force or not (here and in a --store elsewhere).
        let database = container.file(".thumbnails/thumbnails.sqlite")
        let overDatabase = try await GlanceProcess.run(["export", container.path, "doc.txt", "-o", database, "--force"])
        #expect(overDatabase.status == 1)
        #expect(overDatabase.standardError.contains("lies inside the thumbnail store"), "\(overDatabase.standardError)")
        #expect(try await container.store().checkIntegrity())
        #expect(try await container.list()["doc.txt"]?["state"] as? String == "fresh")
        let elsewhere = container.output("store")
        #expect(try await GlanceProcess.run(["generate", container.path, "--store", elsewhere]).status == 0)
        let overElsewhere = try await GlanceProcess.run([
            "export", container.path, "doc.txt", "--store", elsewhere, "-o", elsewhere + "/thumbnails.sqlite",
        ])
        #expect(overElsewhere.status == 1)
        #expect(try await GlanceProcess.run(["list", container.path, "--store", elsewhere]).status == 0)
    }

    // MARK: 4. Numbers

    @Test("non-finite or out-of-range numbers are usage errors (exit 2), never a crash")
    func numericOptions() async throws {
        let container = try SampleContainer(["a.png": "png/rgb8.png"])
        for value in ["inf", "nan", "1e300", "-1", "0"] {
            let thumbnail = try await GlanceProcess.run([
                "thumbnail", container.file("a.png"), "-o", container.output("x.png"), "--timeout", value,
            ])
            #expect(thumbnail.status == 2, "--timeout \(value): \(thumbnail.standardError)")
            #expect(thumbnail.standardError.contains("--timeout"))
            let generate = try await GlanceProcess.run(["generate", container.path, "--timeout", value])
            #expect(generate.status == 2, "--timeout \(value)")
        }
        for arguments in [
            ["--size", "16384"], ["--size", "0"], ["--memory-limit", "99999999999999"], ["--max-pixels", "0"],
        ] {
            let result = try await GlanceProcess.run(
                ["thumbnail", container.file("a.png"), "-o", container.output("x.png")] + arguments)
            #expect(result.status == 2, "\(arguments): \(result.standardError)")
        }
        let small = try await GlanceProcess.run([
            "thumbnail", CLIAssets.path("jpeg/photo-baseline.jpg"), "-o", container.output("x.png"), "--max-pixels",
            "1",
        ])
        #expect(small.standardError.contains("exceeds the 1-pixel limit"))
        let quick = try await GlanceProcess.run([
            "thumbnail", container.file("a.png"), "-o", container.output("x.png"), "--timeout", "0.25",
            "--debug-hang-on", "*",
        ])
        #expect(quick.standardError.contains("timed out after 0.25 s (--timeout)"))
    }

    // MARK: 5. False success

    @Test("a second generate waits for the first one's documents, and renders them when the first is killed")
    func claimsOfAKilledBatch() async throws {
        let container = try SampleContainer([:])
        for index in 0..<12 {
            try Data("document \(index)\n".utf8).write(to: URL(fileURLWithPath: container.file("d\(index).txt")))
        }
        let first = Process()
        first.executableURL = URL(fileURLWithPath: GlanceProcess.executable)
        first.arguments = ["generate", container.path, "--jobs", "1", "--quiet", "--debug-slow-on", "*"]
        try first.run()
        // Wait until the first batch has claimed the documents.
        try await eventually("the first batch claimed its 12 documents", within: .seconds(30)) {
            container.claimCount() == 12
        }
        let second = Process()
        second.executableURL = URL(fileURLWithPath: GlanceProcess.executable)
        second.arguments = ["generate", container.path, "--jobs", "2", "--json"]
        let output = Pipe()
        second.standardOutput = output
        try second.run()
        // The second is under way (its store open, its plan next) before the first dies.
        try await eventually("the second batch handles SIGINT") { handlesSignal(SIGINT, pid: second.processIdentifier) }
        kill(first.processIdentifier, SIGKILL)
        #expect(await exited(first, within: .seconds(60)), "first ended")
        let summaryData = await readToEnd(output.fileHandleForReading)
        #expect(await exited(second, within: .seconds(60)), "second ended")
        #expect(second.terminationStatus == 0)
        let summary = try JSONSerialization.jsonObject(with: summaryData) as? [String: Any]
        #expect((summary?["rendered"] as? Int ?? 0) >= 1)
        let rows = try await container.list()
        #expect(rows.count == 12)
        #expect(rows.values.allSatisfy { $0["state"] as? String == "fresh" }, "\(rows.mapValues { $0["state"] ?? "" })")
    }

    // MARK: 6, 7. Names

    @Test("names that are not UTF-8, or hold control characters, stay exact and print escaped")
    func hostileNames() async throws {
        let container = try SampleContainer([:])
        let names: [[UInt8]] = [
            Array("x".utf8) + [0xFF] + Array(".txt".utf8),
            Array("x\u{FFFD}.txt".utf8),
            Array("evil\nglance: spoofed.txt".utf8),
            Array("esc\u{1B}[2J.txt".utf8),
        ]
        for (index, name) in names.enumerated() {
            let path = Array(container.path.utf8) + [0x2F] + name + [0]
            let descriptor = path.withUnsafeBufferPointer {
                $0.withMemoryRebound(to: CChar.self) { open($0.baseAddress!, O_WRONLY | O_CREAT, 0o644) }
            }
            #expect(descriptor >= 0)
            let text = Array("document number \(index)\n".utf8)
            _ = text.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
            close(descriptor)
        }
        // A corrupt PNG whose name tries to forge a second error line.
        try Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 1, 2, 3]).write(
            to: URL(fileURLWithPath: container.file("bad\nglance: forged.png: all fine.png")))
        let (summary, result) = try await container.generate()
        #expect(summary["rendered"] as? Int == 4)
        #expect(result.errorLines.count == 1, "\(result.standardError)")
        #expect(result.standardError.contains("bad\\nglance: forged.png"))

        let list = try await GlanceProcess.run(["list", container.path])
        #expect(list.status == 0)
        #expect(!list.standardOutput.contains("\u{1B}"))
        #expect(list.standardOutput.split(separator: "\n").count == 6)  // a header and five rows
        #expect(list.standardOutput.contains("x\\xFF.txt"))
        #expect(list.standardOutput.contains("evil\\nglance: spoofed.txt"))

        let rows = try await container.list()
        #expect(rows.count == 5)
        #expect(rows.values.filter { $0["state"] as? String == "fresh" }.count == 4)

        // show and export reach the document by its exact bytes.
        let show = try await RawGlanceProcess.run([
            Array("show".utf8), Array(container.path.utf8), names[0], Array("--json".utf8),
        ])
        #expect(show.status == 0)
        let object = try JSONSerialization.jsonObject(with: Data(show.standardOutput)) as? [String: Any]
        #expect(object?["state"] as? String == "fresh")
        let other = try await RawGlanceProcess.run([Array("show".utf8), Array(container.path.utf8), names[1]])
        #expect(other.status == 0)
        #expect(String(decoding: other.standardOutput, as: UTF8.self).contains("x\u{FFFD}.txt"))
        let export = try await RawGlanceProcess.run([
            Array("export".utf8), Array(container.path.utf8), names[0], Array("-o".utf8),
            Array(container.output("x.png").utf8),
        ])
        #expect(export.status == 0, "\(String(decoding: export.standardError, as: UTF8.self))")

        // The path as JSON gives it (byte 0xFF as U+10FFFF) is taken back to the bytes, by show,
        // export and hook; the name `x\u{FFFD}.txt` stays a document of its own.
        let jsonPath = try #require(
            rows.keys.first { $0.hasPrefix("x") && $0.unicodeScalars.contains { $0.value == 0x10_FFFF } })
        let shown = try await GlanceProcess.run(["show", container.path, jsonPath, "--json"])
        #expect(shown.status == 0, "\(shown.standardError)")
        let shownObject = try JSONSerialization.jsonObject(with: Data(shown.standardOutput.utf8)) as? [String: Any]
        #expect(shownObject?["path"] as? String == jsonPath)
        let exported = try await GlanceProcess.run([
            "export", container.path, jsonPath, "-o", container.output("j.png"),
        ])
        #expect(exported.status == 0, "\(exported.standardError)")
        #expect(
            FileManager.default.contents(atPath: container.output("j.png"))
                == FileManager.default.contents(atPath: container.output("x.png")))
        let hooked = try await GlanceProcess.run(["hook", container.path, jsonPath])
        #expect(hooked.status == 0)
        #expect(hooked.standardOutput.hasPrefix("x\\xFF.txt fresh"), "\(hooked.standardOutput)")
    }

    @Test("a sidecar that is a symbolic link (to another container's) is refused: gc cannot drop the other's records")
    func linkedSidecar() async throws {
        let first = try SampleContainer(["a.png": "png/rgb8.png", "b.txt": "text/latin-utf8.txt"])
        #expect(try await first.generate().1.status == 0)
        let second = try SampleContainer(["c.png": "png/gray8.png"])
        #expect(symlink(first.file(".thumbnails"), second.file(".thumbnails")) == 0)
        for command in [["gc"], ["generate"], ["list"], ["show", "c.png"]] {
            let result = try await GlanceProcess.run([command[0], second.path] + command.dropFirst())
            #expect(result.status == 2, "\(command)")
            #expect(result.standardError.contains(".thumbnails is a symbolic link"), "\(result.standardError)")
        }
        // The first container's records are untouched; named with --store, the store serves the
        // second one under a key of its own.
        #expect(try await first.list().values.allSatisfy { $0["state"] as? String == "fresh" })
        let named = try await GlanceProcess.run(["gc", second.path, "--store", first.file(".thumbnails")])
        #expect(named.status == 0, "\(named.standardError)")
        #expect(try await first.list().values.allSatisfy { $0["state"] as? String == "fresh" })
    }

    @Test("a folder that cannot be read is reported, not skipped in silence")
    func unreadableFolder() async throws {
        let container = try SampleContainer(["a.png": "png/rgb8.png", "locked/b.png": "png/rgb8.png"])
        chmod(container.file("locked"), 0)
        defer { chmod(container.file("locked"), 0o755) }
        // Root reads any folder: as root (CI), glance runs as nobody, with a store it may write.
        chmod(container.outputs, 0o777)
        var command = ["generate", container.path, "--store", container.output("store"), "--json"]
        if getuid() == 0 {
            command = ["--reuid=65534", "--regid=65534", "--clear-groups", GlanceProcess.executable] + command
        }
        let result = try await GlanceProcess.run(command, executable: getuid() == 0 ? "/usr/bin/setpriv" : nil)
        #expect(result.status == 1, "\(result.standardError)")
        #expect(result.standardError.contains("locked: cannot read the folder: Permission denied"))
        let summary = try JSONSerialization.jsonObject(with: Data(result.standardOutput.utf8)) as? [String: Any]
        #expect(summary?["rendered"] as? Int == 1)
    }

    // MARK: 8. Not regular files

    @Test("a FIFO is refused at once, not after the timeout")
    func fifo() async throws {
        let container = try SampleContainer([:])
        #expect(mkfifo(container.file("f.txt"), 0o644) == 0)
        let result = try await GlanceProcess.run([
            "thumbnail", container.file("f.txt"), "-o", container.output("o.png"), "--timeout", "60",
        ])
        #expect(result.status == 1)
        #expect(result.standardError.contains("not a regular file (a FIFO)"))
        #expect(!result.standardError.contains("timed out"))
    }

    // MARK: 9. The store's place

    @Test("--store equal to the container, or holding it, is refused; nothing is written among the documents")
    func storeInsideContainer() async throws {
        let container = try SampleContainer(["a.png": "png/rgb8.png"])
        for store in [container.path, (container.path as NSString).deletingLastPathComponent] {
            let result = try await GlanceProcess.run(["generate", container.path, "--store", store])
            #expect(result.status == 2)
            #expect(result.standardError.contains("the store cannot be the container"))
        }
        #expect(!FileManager.default.fileExists(atPath: container.file("CACHEDIR.TAG")))
        let device = try await GlanceProcess.run(["generate", container.path, "--store", "/dev/null"])
        #expect(device.status == 2)
        #expect(!device.standardError.contains("remove it"))
    }

    // MARK: 10. Wrong or unclear results

    @Test("a PDF page whose image cannot be drawn within the memory limit fails; it is never stored blank")
    func pdfImageOverMemoryLimit() async throws {
        let container = try SampleContainer(["big.pdf": "hostile/huge-image.pdf", "letter.pdf": "pdf/letter.pdf"])
        let (summary, result) = try await container.generate(["--memory-limit", "200"])
        #expect(result.status == 1)
        #expect(summary["rendered"] as? Int == 1)
        let rows = try await container.list()
        #expect(rows["big.pdf"]?["state"] as? String == "failed")
        #expect((rows["big.pdf"]?["error"] as? String)?.contains("--memory-limit") == true)
        // With room for its full-size surface, the same page renders.
        let roomy = try await GlanceProcess.run([
            "thumbnail", container.file("big.pdf"), "-o", container.output("big.png"), "--memory-limit", "1024",
        ])
        #expect(roomy.status == 0, "\(roomy.standardError)")
    }

    @Test("a forged worker reply fails the document, never the command")
    func forgedReply() async throws {
        let container = try SampleContainer(["a.png": "png/rgb8.png", "b.png": "png/gray8.png"])
        let thumbnail = try await GlanceProcess.run([
            "thumbnail", container.file("a.png"), "-o", container.output("a.png"), "--debug-forge-reply-on", "*",
        ])
        #expect(thumbnail.status == 1)
        #expect(thumbnail.standardError.contains("renderer sent an invalid reply"))
        let (summary, result) = try await container.generate(["--debug-forge-reply-on", "a.png"])
        #expect(result.status == 1)
        #expect(summary["rendered"] as? Int == 1)
    }

    @Test("export and show name what lies outside the container, and a link in it is its own document")
    func containment() async throws {
        let container = try SampleContainer(["letter.pdf": "pdf/letter.pdf"])
        #expect(symlink("letter.pdf", container.file("link.pdf")) == 0)
        _ = try await container.generate()
        let passwd = try await GlanceProcess.run([
            "export", container.path, "/etc/passwd", "-o", container.output("x.png"),
        ])
        #expect(passwd.status == 1)
        #expect(passwd.standardError.contains("not inside the container"))
        let missing = try await GlanceProcess.run(["show", container.path, "../../nowhere/file.pdf"])
        #expect(missing.standardError.contains("not inside the container"))
        let link = try await GlanceProcess.run(["show", container.path, "link.pdf", "--json"])
        let object = try JSONSerialization.jsonObject(with: Data(link.standardOutput.utf8)) as? [String: Any]
        #expect(object?["path"] as? String == "link.pdf")
    }

    // MARK: 11. Forged digests

    @Test("a file with the same size, CRC-32 and Adler-32 does not inherit a vanished document's thumbnail")
    func forgedFingerprint() async throws {
        let container = try SampleContainer(["first.txt": "collision/first.txt"])
        _ = try await container.generate()
        try FileManager.default.removeItem(atPath: container.file("first.txt"))
        try container.add("dropped.txt", from: "collision/second.txt")
        let (summary, _) = try await container.generate()
        #expect(summary["moved"] as? Int == 0)
        #expect(summary["rendered"] as? Int == 1)
        // A real copy and delete still follows by digest.
        try FileManager.default.copyItem(atPath: container.file("dropped.txt"), toPath: container.output("keep.txt"))
        try FileManager.default.removeItem(atPath: container.file("dropped.txt"))
        try FileManager.default.copyItem(atPath: container.output("keep.txt"), toPath: container.file("copied.txt"))
        let (again, _) = try await container.generate()
        #expect(again["moved"] as? Int == 1)
        #expect(again["rendered"] as? Int == 0)
    }

    // MARK: 12. Conveniences

    @Test("-o - writes the thumbnail to standard output; glance alone prints help and exits 2")
    func conveniences() async throws {
        let stdout = try await RawGlanceProcess.run([
            Array("thumbnail".utf8), Array(CLIAssets.path("png/rgb8.png").utf8), Array("-o".utf8), Array("-".utf8),
        ])
        #expect(stdout.status == 0)
        #expect(stdout.standardOutput.starts(with: [0x89, 0x50, 0x4E, 0x47]))
        let jpeg = try await RawGlanceProcess.run([
            Array("thumbnail".utf8), Array(CLIAssets.path("png/rgb8.png").utf8), Array("-o".utf8), Array("-".utf8),
            Array("--format".utf8), Array("jpeg".utf8),
        ])
        #expect(jpeg.standardOutput.starts(with: [0xFF, 0xD8, 0xFF]))
        let bare = try await GlanceProcess.run([])
        #expect(bare.status == 2)
        #expect(bare.standardError.contains("USAGE"))
    }
}
