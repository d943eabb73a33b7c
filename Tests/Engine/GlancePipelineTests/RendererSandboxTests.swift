import Foundation
import GlanceCore
import GlanceTestSupport
import Testing

@testable import GlancePipeline

/// The bubblewrap layout and the pool under each sandbox. `make test` installs bubblewrap; the
/// machines it runs on allow its namespaces (the CLI's `--version` test says which sandbox won).
@Suite("Worker sandbox", .timeLimit(.minutes(10)))
struct RendererSandboxTests {
    @Test("a renderer is given the variables for programs, fonts, the locale and SIMD, never a password")
    func workerEnvironment() {
        let given = RendererLaunch.workerEnvironment(from: [
            "PATH=/usr/bin", "HOME=/home/u", "LC_ALL=C.UTF-8", "XDG_CACHE_HOME=/c", "PGPASSWORD=secret",
            "PGPASSFILE=/p", "AWS_SECRET_ACCESS_KEY=k", "PATHS=x", "odd", "GLANCE_SIMD_DISABLE=avx2",
            "JSIMD_FORCESSE2=1", "OPENSSL_ia32cap=:~0x20000000", "GLANCE_OTHER=1",
        ])
        #expect(
            given == [
                "PATH=/usr/bin", "HOME=/home/u", "LC_ALL=C.UTF-8", "XDG_CACHE_HOME=/c", "GLANCE_SIMD_DISABLE=avx2",
                "JSIMD_FORCESSE2=1", "OPENSSL_ia32cap=:~0x20000000",
            ])
    }

    /// Runs `script` with `sh -c` in the layout a worker gets, with `argument` as `$0`.
    func runInLayout(_ script: String, argument: String) async throws -> Int32 {
        let launch = RendererLaunch(
            executable: "/usr/bin/sh", arguments: ["-c", script, argument], sandbox: .bubblewrapAndSeccomp)
        let (program, argv) = launch.commandLine
        let process = Process()
        process.executableURL = URL(fileURLWithPath: program)
        process.arguments = Array(argv.dropFirst())
        try process.run()
        #expect(await exited(process, within: .seconds(60)), "process ended")
        return process.terminationStatus
    }

    @Test("an office renderer's private /tmp does not hide a worker that lives under /tmp (a clone built there)")
    func officeLayoutKeepsWorkerUnderTmp() async throws {
        // A copy of sh under /tmp stands for a worker built in a clone there: under the office
        // layout (a tmpfs on /tmp) it must still be found and run.
        let folder = "/tmp/glance-office-layout-\(getpid())"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let shell = folder + "/sh"
        try FileManager.default.copyItem(atPath: "/usr/bin/dash", toPath: shell)
        var launch = RendererLaunch(executable: shell, arguments: [], sandbox: .bubblewrapAndSeccomp)
        launch.officeProgramFolder = "/usr/lib/libreoffice/program"
        FileManager.default.createFile(atPath: "/tmp/outside", contents: Data())
        defer { try? FileManager.default.removeItem(atPath: "/tmp/outside") }
        let (program, argv) = launch.commandLine
        // The worker's options after `--` (--sandbox, --office) are for glance-renderer: run sh
        // with the script alone.
        let shellArguments =
            Array(argv.dropFirst().prefix { $0 != "--" }) + ["--", shell, "-c"]
            + ["test -x \"$0\" && ! test -e /tmp/outside", shell]
        let process = Process()
        process.executableURL = URL(fileURLWithPath: program)
        process.arguments = shellArguments
        try process.run()
        #expect(await exited(process, within: .seconds(60)), "process ended")
        #expect(process.terminationStatus == 0, "the worker under /tmp runs, and the host's /tmp is hidden")
    }

    @Test("the layout shows the system and the worker, and hides documents, homes, /tmp and /etc's secrets")
    func layoutHides() async throws {
        #expect(RendererLaunch.strongestSandbox(executable: rendererExecutable) == .bubblewrapAndSeccomp)
        let documents = FileManager.default.temporaryDirectory.appendingPathComponent("glance-sandbox-\(getpid())")
        try FileManager.default.createDirectory(at: documents, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: documents) }
        try Data("secret".utf8).write(to: documents.appendingPathComponent("letter.txt"))
        // Each check that fails exits with its own number.
        let script = """
            [ -e "$0/letter.txt" ] && exit 10
            [ -e /etc/shadow ] && exit 11
            [ -e "$HOME/.bashrc" ] || [ -e "$HOME/.profile" ] && exit 12
            [ -e /run/systemd ] && exit 13
            [ -r /usr/share/fonts ] || exit 20
            [ -r /etc/fonts/fonts.conf ] || exit 21
            touch /usr/glance-probe 2>/dev/null && exit 22
            exit 0
            """
        #expect(try await runInLayout(script, argument: documents.path) == 0)
        // The same script sees the file outside the sandbox: the check itself works.
        let outside = Process()
        outside.executableURL = URL(fileURLWithPath: "/usr/bin/sh")
        outside.arguments = ["-c", "[ -e \"$0/letter.txt\" ] && exit 10; exit 0", documents.path]
        try outside.run()
        #expect(await exited(outside, within: .seconds(60)), "outside ended")
        #expect(outside.terminationStatus == 10)
    }

    @Test(
        "the pool renders and reports crashes the same in every sandbox (bubblewrap passes a signal on as 128+N)",
        arguments: RendererSandbox.allCases)
    func poolUnderEachSandbox(sandbox: RendererSandbox) async throws {
        let pool = RendererPool(
            configuration: .init(
                executable: rendererExecutable, arguments: ["--debug-crash-on", "crash-*"], renderers: 1,
                limits: RendererLimits(timeoutSeconds: 30), sandbox: sandbox))
        try await pool.shuttingDown {
            let photo = assets + "/jpeg/photo-baseline.jpg"
            var results: [JobResult] = []
            for name in ["photo.jpg", "crash-me.jpg"] {
                results.append(
                    await pool.run(RenderJob(id: 1, name: name), file: try OpenFile.regularFile(atPath: photo)))
            }
            guard case .finished(let outcome) = results[0] else {
                Issue.record("\(sandbox): \(String(describing: results[0]))")
                return
            }
            #expect(outcome.status == .rendered)
            #expect(outcome.width == 1024)
            #expect((outcome.workerCPUMilliseconds ?? 0) > 0)
            guard case .crashed(let reason, _) = results[1] else {
                Issue.record("\(sandbox): \(String(describing: results[1]))")
                return
            }
            #expect(reason == "renderer crashed (signal 11)")
        }
    }

    @Test(
        "raw photos (LibRaw, its threads), e-books and comic books (libarchive's ZIP, RAR and 7-Zip readers) render in every sandbox; their hostile files fail in one line",
        arguments: RendererSandbox.allCases)
    func rawBooksAndComicsUnderEachSandbox(sandbox: RendererSandbox) async throws {
        let pool = RendererPool(
            configuration: .init(
                executable: rendererExecutable, renderers: 1, limits: RendererLimits(timeoutSeconds: 60),
                sandbox: sandbox))
        try await pool.shuttingDown {
            let expected: [(path: String, width: Int?, error: String?)] = [
                ("raw/preview.dng", 640, nil), ("raw/no-preview.dng", 640, nil), ("ebook/cover-meta.epub", 600, nil),
                ("ebook/text-only.epub", 724, nil), ("comics/natural.cbz", 683, nil), ("comics/natural.cbr", 683, nil),
                ("comics/natural-rar5.cbr", 683, nil), ("comics/natural.cb7", 683, nil),
                ("raw/truncated.dng", nil, "truncated dng raw photo data"),
                ("comics/bomb.cbz", nil, "refused before reading it"),
                ("comics/encrypted.cbz", nil, "needs a password"),
            ]
            for (index, item) in expected.enumerated() {
                let result = await pool.run(
                    RenderJob(id: index + 1, name: item.path),
                    file: try OpenFile.regularFile(atPath: assets + "/" + item.path))
                guard case .finished(let outcome) = result else {
                    Issue.record("\(sandbox) \(item.path): \(String(describing: result))")
                    continue
                }
                if let width = item.width {
                    #expect(outcome.status == .rendered, "\(sandbox) \(item.path): \(outcome.error ?? "")")
                    #expect(outcome.width == width, "\(sandbox) \(item.path)")
                } else {
                    #expect(outcome.status != .rendered, "\(sandbox) \(item.path)")
                    #expect(
                        outcome.error?.lowercased().contains(item.error ?? "") == true,
                        "\(sandbox) \(item.path): \(outcome.error ?? "")")
                    #expect(outcome.error?.contains("\n") == false)
                }
            }
        }
    }

    @Test(
        "with bubblewrap untried, the first worker starts under it and is the trial: its greeting confirms bubblewrap, or bubblewrap's failure before it sends the job to a worker under seccomp alone",
        arguments: [true, false])
    func pendingTrial(bubblewrapWorks: Bool) async throws {
        var configuration = RendererPool.Configuration(
            executable: rendererExecutable, arguments: ["--debug-slow-on", "slow-*"], renderers: 1,
            limits: RendererLimits(timeoutSeconds: 30), sandbox: .bubblewrapAndSeccomp)
        // bubblewrap fails to make a sandbox with a bind of a path that is not there, exiting with
        // its failure status before it starts the worker, as where user namespaces are not allowed.
        if !bubblewrapWorks {
            configuration.bubblewrapExtraArguments = [
                "--ro-bind", "/nonexistent/glance-test", "/nonexistent/glance-test",
            ]
        }
        let probe = SandboxProbe(executable: rendererExecutable)
        #expect(probe.knownResult == nil)
        configuration.pendingProbe = probe
        let pool = RendererPool(configuration: configuration)
        try await pool.shuttingDown {
            let photo = assets + "/jpeg/photo-baseline.jpg"
            let file = try OpenFile.regularFile(atPath: photo)
            async let result = pool.run(RenderJob(id: 1, name: "slow-photo.jpg"), file: file)
            // The worker waits a second before it reads the document: look at its process meanwhile,
            // once the probe has its answer (the first worker's greeting, or bubblewrap's failure).
            try await eventually("a renderer started and the probe answered") {
                !pool.rendererProcesses.isEmpty && probe.knownResult != nil
            }
            #expect(probe.knownResult == .some(bubblewrapWorks ? .bubblewrapAndSeccomp : .seccomp))
            // Where bubblewrap failed, the answer is known a moment before the worker that replaces
            // it is started (until then the pool still lists bubblewrap's process, gone): wait for it.
            var name = ""
            try await eventually("the renderer's process named") {
                if let renderer = pool.rendererProcesses.first {
                    name = String(decoding: Bubblewrap.readToEnd("/proc/\(renderer)/comm"), as: UTF8.self)
                }
                return !name.isEmpty
            }
            #expect(name == (bubblewrapWorks ? "bwrap\n" : "glance-renderer\n"))
            #expect(pool.sandbox == (bubblewrapWorks ? .bubblewrapAndSeccomp : .seccomp))
            guard case .finished(let outcome) = await result else {
                Issue.record("the job did not finish")
                return
            }
            #expect(outcome.status == .rendered)
        }
    }

    @Test("a worker that dies before its greeting never took its job: the job goes to a new worker, once")
    func deathBeforeGreeting() async throws {
        // A "worker" that exits at once, without a greeting, each time it is started.
        let pool = RendererPool(
            configuration: .init(
                executable: "/usr/bin/false", arguments: [], renderers: 1, limits: RendererLimits(timeoutSeconds: 30),
                sandbox: .seccomp))
        try await pool.shuttingDown {
            let file = try OpenFile.regularFile(atPath: assets + "/jpeg/photo-baseline.jpg")
            let result = await pool.run(RenderJob(id: 1, name: "photo.jpg"), file: file)
            guard case .crashed(let reason, _) = result else {
                Issue.record("\(result)")
                return
            }
            #expect(reason.hasPrefix("renderer exited"))
            #expect(pool.startedRenderers == 2)
        }
    }

    @Test("bubblewrap's exit status of 128+N is read as signal N; a plain worker's is its own")
    func deathMapping() {
        let wrapped = RendererLaunch(executable: rendererExecutable, arguments: [], sandbox: .bubblewrapAndSeccomp)
        let plain = RendererLaunch(executable: rendererExecutable, arguments: [], sandbox: .seccomp)
        #expect(wrapped.death(fromWaitStatus: (128 + 31) << 8) == .signalled(31))
        #expect(
            wrapped.death(fromWaitStatus: (128 + 31) << 8).reason(cpuLimitSeconds: 60).reason
                .hasPrefix("renderer violated its sandbox"))
        #expect(plain.death(fromWaitStatus: 31) == .signalled(31))
        #expect(plain.death(fromWaitStatus: (128 + 31) << 8) == .exited(159))
        let unconfined = plain.death(fromWaitStatus: 78 << 8).reason(cpuLimitSeconds: 60)
        #expect(unconfined.reason.hasPrefix("renderer could not enter its sandbox"))
        #expect(unconfined.limit == .sandbox)
        #expect(wrapped.death(fromWaitStatus: (128 + 24) << 8).reason(cpuLimitSeconds: 60).limit == .cpuTime)
    }

    @Test(
        "a probe starts no process of its own; asked before any worker showed bubblewrap, it tries it, once; a worker's answer is kept"
    )
    func probeAnswers() throws {
        let probe = SandboxProbe(executable: rendererExecutable)
        #expect(probe.knownResult == nil)
        #expect(probe.result() == .bubblewrapAndSeccomp)
        #expect(probe.knownResult == .some(.bubblewrapAndSeccomp))
        // A later worker that cannot start under bubblewrap does not change the answer.
        probe.record(bubblewrapWorks: false)
        #expect(probe.result() == .bubblewrapAndSeccomp)
        // A worker executable the layout cannot show: bubblewrap fails, seccomp alone remains.
        #expect(SandboxProbe(executable: "/nonexistent/glance-renderer").result() == .seccomp)
        // A worker's answer is taken without a trial (the layout shows this executable, and the
        // trial would have said bubblewrap).
        let told = SandboxProbe(executable: rendererExecutable)
        told.record(bubblewrapWorks: false)
        #expect(told.result() == .seccomp)
    }
}

/// The coordinator's reply reader on the worker-protocol fuzzer's seeds (`TestAssets/fuzz/`):
/// what a worker may send, whole or split, and what it must not.
@Suite("Renderer replies", .timeLimit(.minutes(10)))
struct RendererReplyReaderTests {
    func outcomes(of seed: String, splitAt split: Int? = nil) throws -> [RendererReplyReader.Next] {
        let seedPath = assets + "/fuzz/renderer-reply/" + seed
        let bytes = Array(try Data(contentsOf: URL(fileURLWithPath: seedPath)).dropFirst())
        let job = RenderJob(id: 7, name: "doc.png", renditions: [256, 128])
        var reader = RendererReplyReader()
        var results: [RendererReplyReader.Next] = []
        let cut = split ?? bytes.count
        for part in [bytes[..<cut], bytes[cut...]] {
            reader.append(part)
            while true {
                let next = reader.next(for: job)
                if next == .needMore { break }
                results.append(next)
                if next == .invalid { return results }
            }
        }
        return results
    }

    @Test(
        "a reply with renditions is read whole, in one piece or split anywhere, its image's start sent ahead or not",
        arguments: ["rendered-with-renditions.bin", "rendered-in-pieces.bin"])
    func rendered(seed: String) throws {
        for split in [nil, 1, 3, 5, 40, 300, 301] {
            let results = try outcomes(of: seed, splitAt: split)
            guard case .outcome(let outcome) = results.first, results.count == 1 else {
                Issue.record("split \(String(describing: split)): \(results)")
                continue
            }
            #expect(outcome.data == Array("PNG!".utf8))
            #expect(outcome.renditions.map(\.data) == [Array("abc".utf8), Array("de".utf8)])
            #expect(outcome.workerCPUMilliseconds == 12)
        }
        #expect(try outcomes(of: "two-replies.bin").count == 2)
        guard case .outcome(let failed) = try outcomes(of: "failed.bin").first else {
            Issue.record("failed.bin")
            return
        }
        #expect(failed.status == .failed)
    }

    @Test("a reply for another job, or with an impossible byte count, is invalid")
    func invalid() throws {
        #expect(try outcomes(of: "wrong-id.bin") == [.invalid])
        #expect(try outcomes(of: "oversized-count.bin") == [.invalid])
    }
}
