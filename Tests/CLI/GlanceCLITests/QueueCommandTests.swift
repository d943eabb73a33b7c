import Foundation
import GlanceTestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// The PostgreSQL job queue end to end: `generate --enqueue`, `glance worker` processes (hosts),
/// `glance queue`, against a real PostgreSQL server.
@Suite("Job queue: generate --enqueue, worker, queue", .timeLimit(.minutes(10)))
struct QueueCommandTests {
    /// A container of `count` copies of small test images, named `doc-NN.png`, plus `slow-NN.png`
    /// copies that a worker told `--debug-slow-on 'slow-*'` renders slowly.
    static func container(documents count: Int, slow: Int = 0) throws -> SampleContainer {
        var files: [String: String] = [:]
        for index in 0..<count { files[String(format: "doc-%02d.png", index)] = "png/gray8.png" }
        for index in 0..<slow { files[String(format: "slow-%02d.png", index)] = "png/rgba8.png" }
        return try SampleContainer(files)
    }

    /// Starts `executable` with `arguments`, its standard error collected.
    static func launch(_ executable: String, _ arguments: [String]) throws -> (Process, Pipe) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        let errors = Pipe()
        process.standardError = errors
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        return (process, errors)
    }

    /// The folder every test's containers are made in (resolved): the `--root` of the workers
    /// that are not about roots.
    static let scratchRoot: String = {
        let folder = FileManager.default.temporaryDirectory.path
        guard let resolved = realpath(folder, nil) else { return folder }
        defer { free(resolved) }
        return String(cString: resolved)
    }()

    /// Starts `glance worker` as a separate process (a host of its own), its output collected;
    /// it renders beneath the scratch folder unless `arguments` name a `--root`.
    static func startWorker(_ arguments: [String]) throws -> (Process, Pipe) {
        try launch(GlanceProcess.executable, ["worker"] + withRoot(arguments))
    }

    /// `arguments`, with `--root` the scratch folder unless they name one.
    static func withRoot(_ arguments: [String]) -> [String] {
        arguments.contains("--root") ? arguments : arguments + ["--root", scratchRoot]
    }

    /// Starts `glance worker` as host `host` in new `namespaces` (`unshare` options) and a UTS
    /// namespace named `host`, so that its leases name that host; `prepare` is a shell command run
    /// in them first. As root `unshare` makes them directly; otherwise it needs an unprivileged
    /// user namespace.
    static func startNamespaced(
        _ host: String, _ namespaces: [String], prepare: String = "true", _ arguments: [String]
    ) throws -> (Process, Pipe) {
        let asUser = getuid() == 0 ? [] : ["--user", "--map-root-user"]
        return try launch(
            "/usr/bin/unshare",
            asUser + namespaces + [
                "--uts", "--", "/bin/sh", "-c", "\(prepare) && hostname \"$0\" && exec \"$@\"", host,
                GlanceProcess.executable, "worker",
            ] + withRoot(arguments))
    }

    /// A host of its own: a new network namespace (no network at all, not even loopback).
    static func startHost(_ host: String, _ arguments: [String]) throws -> (Process, Pipe) {
        try startNamespaced(host, ["--net"], arguments)
    }

    /// A host whose shared storage is not mounted: in a mount namespace of its own, an empty
    /// tmpfs covers `hidden` (what an absent network share's mount point looks like).
    static func startBlindHost(_ host: String, hiding hidden: String, _ arguments: [String]) throws -> (Process, Pipe) {
        let quoted = "'" + hidden.replacingOccurrences(of: "'", with: "'\\''") + "'"
        return try startNamespaced(host, ["--mount"], prepare: "mount -t tmpfs glance-test \(quoted)", arguments)
    }

    /// What a process wrote to the pipe it was given for standard error.
    static func said(_ errors: Pipe) async -> String {
        String(decoding: await readToEnd(errors.fileHandleForReading), as: UTF8.self)
    }

    /// Waits for `process` to end (at most `seconds`), killing it if it does not.
    static func finish(_ process: Process, within seconds: Double) async -> Bool {
        await endProcess(process, within: .milliseconds(Int(seconds * 1000))) != nil
    }

    /// Waits (at most a minute) until the job of `path` is leased; whether it was.
    static func waitUntilLeased(_ path: String, server: PostgresServer, database: String) async throws -> Bool {
        do {
            try await eventually("the job of \(path) leased", within: .seconds(60)) {
                try await server.psql(
                    "SELECT count(*) FROM glance.job WHERE path = '\(path)' AND state = 'leased'", database: database)
                    == "1"
            }
            return true
        } catch is NotSeenInTime {
            return false
        }
    }

    @Test("two worker processes drain the queue: every document fresh, every job done exactly once")
    func twoWorkers() async throws {
        let (server, database) = try await PostgresStoreCommandTests.freshDatabase()
        let store = server.address(container: "shared", database: database)
        let container = try Self.container(documents: 16)
        let queued = try await GlanceProcess.run(["generate", container.path, "--store", store, "--enqueue", "--json"])
        #expect(queued.status == 0, "\(queued.standardError)")
        #expect(queued.standardOutput.contains("\"queued\":16"), "\(queued.standardOutput)")
        // Enqueueing again adds nothing: one waiting job per document.
        let again = try await GlanceProcess.run(["generate", container.path, "--store", store, "--enqueue", "--json"])
        #expect(again.standardOutput.contains("\"queued\":0,\"alreadyQueued\":16"), "\(again.standardOutput)")
        #expect(!FileManager.default.fileExists(atPath: container.file(".thumbnails")))

        let workerStore = "postgres://\(server.user)@127.0.0.1:\(server.port)/\(database)"
        let workers = try (0..<2).map { _ in
            try Self.startWorker(["--store", workerStore, "--jobs", "1", "--exit-when-idle"])
        }
        for (process, _) in workers {
            #expect(await Self.finish(process, within: 120), "the worker ends when the queue is empty")
        }
        for (process, _) in workers { #expect(process.terminationStatus == 0) }

        let rows = try await container.list(["--store", store])
        #expect(rows.count == 16)
        #expect(rows.values.allSatisfy { $0["state"] as? String == "fresh" })
        await #expect(
            try server.psql("SELECT count(*) FROM glance.job WHERE state = 'done'", database: database) == "16")
        #expect(try await server.psql("SELECT count(*) FROM glance.job WHERE attempts <> 1", database: database) == "0")

        let queue = try await GlanceProcess.run(["queue", container.path, "--store", store, "--json"])
        #expect(queue.status == 0, "\(queue.standardError)")
        let counts = try JSONSerialization.jsonObject(with: Data(queue.standardOutput.utf8)) as? [String: Any]
        #expect((counts?["byState"] as? [String: Int])?["done"] == 16)
        #expect(((counts?["lastMinuteByHost"] as? [String: Int])?.values.reduce(0, +)) == 16)

        // Finished jobs are kept until pruned.
        let pruned = try await GlanceProcess.run(["queue", container.path, "--store", store, "--prune-hours", "0"])
        #expect(pruned.standardOutput.contains("dropped 16 finished job(s)"), "\(pruned.standardOutput)")
        #expect(try await server.psql("SELECT count(*) FROM glance.job", database: database) == "0")
    }

    @Test(
        "a worker whose thumbnail folder is unmounted under it stops taking jobs, saying why in one line; the jobs wait"
    )
    func thumbnailFolderUnmounted() async throws {
        let (server, database) = try await PostgresStoreCommandTests.freshDatabase()
        let container = try Self.container(documents: 6)
        let folder = container.output("thumbnail-files")
        let store = server.address(container: "shared", database: database) + "&thumbnails=\(folder)"
        let workerStore = "postgres://\(server.user)@127.0.0.1:\(server.port)/\(database)?thumbnails=\(folder)"
        // The folder made and marked; the worker waits for jobs.
        #expect(try await GlanceProcess.run(["queue", container.path, "--store", store]).status == 0)
        let (worker, errors) = try Self.startWorker(["--store", workerStore, "--jobs", "1"])
        // Its folder attached, it polls the queue (the lease is its session's last statement).
        try await eventually("the worker polls the queue", within: .seconds(60)) {
            try await server.psql(
                "SELECT count(*) FROM pg_stat_activity WHERE datname = '\(database)' AND query LIKE '%lease_token%'")
                != "0"
        }
        try FileManager.default.moveItem(atPath: folder, toPath: folder + "-elsewhere")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: false)
        // Enqueued from a host that does not write thumbnails (no folder on its address).
        let plain = server.address(container: "shared", database: database)
        let queued = try await GlanceProcess.run(["generate", container.path, "--store", plain, "--enqueue"])
        #expect(queued.status == 0, "\(queued.standardError)")
        #expect(await Self.finish(worker, within: 120), "the worker stops by itself")
        #expect(worker.terminationStatus != 0)
        let said = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        #expect(said.contains("unmounted"), "\(said)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder).isEmpty, "nothing on the mount point")
        let waiting = try await server.psql(
            "SELECT count(*) FROM glance.job WHERE state IN ('pending', 'leased')", database: database)
        #expect(waiting == "6", "no job failed for good")
    }

    @Test("--enqueue with --xdg is refused: this run renders nothing to put in the desktop cache")
    func enqueueRefusesXDG() async throws {
        let container = try Self.container(documents: 1)
        let cache = container.output("xdg")
        let result = try await GlanceProcess.run(
            ["generate", container.path, "--store", "postgres://me@127.0.0.1:1/db", "--enqueue", "--xdg"],
            environment: ["XDG_CACHE_HOME": cache])
        #expect(result.status == 2)
        #expect(result.standardError.contains("--enqueue and --xdg exclude each other"), "\(result.standardError)")
        #expect(!FileManager.default.fileExists(atPath: cache))
    }

    @Test("--prune-hours out of range, infinite or not a number is bad usage, not a database error")
    func pruneHoursChecked() async throws {
        let container = try Self.container(documents: 1)
        for hours in ["1e308", "9999999999", "inf", "nan", "-1"] {
            let result = try await GlanceProcess.run([
                "queue", container.path, "--store", "postgres://me@127.0.0.1:1/db", "--prune-hours", hours,
            ])
            #expect(result.status == 2, "\(hours)")
            #expect(
                result.standardError.contains("--prune-hours must be a number of hours from 0 to 876000"), "\(hours)")
        }
    }

    @Test("worker -v writes each finished document as it finishes, also into a pipe")
    func verboseLinesAtOnce() async throws {
        let (server, database) = try await PostgresStoreCommandTests.freshDatabase()
        let store = server.address(container: "shared", database: database)
        let container = try Self.container(documents: 2)
        #expect(try await GlanceProcess.run(["generate", container.path, "--store", store, "--enqueue"]).status == 0)
        let worker = Process()
        worker.executableURL = URL(fileURLWithPath: GlanceProcess.executable)
        worker.arguments = [
            "worker", "--store", "postgres://\(server.user)@127.0.0.1:\(server.port)/\(database)", "-v",
            "--root", Self.scratchRoot,
        ]
        let output = Pipe()
        worker.standardOutput = output
        worker.standardError = FileHandle.nullDevice
        try worker.run()
        defer {
            if worker.isRunning { kill(worker.processIdentifier, SIGKILL) }
        }
        // Read while the worker still runs (it waits for more jobs): lines held in a buffer
        // until it exits never come.
        let reader = output.fileHandleForReading
        let text = try await onThreadOfItsOwn {
            var text = ""
            let deadline = ContinuousClock.now + .seconds(60)
            while text.split(separator: "\n").count < 2, ContinuousClock.now < deadline {
                var poller = pollfd(fd: reader.fileDescriptor, events: Int16(POLLIN), revents: 0)
                guard poll(&poller, 1, 100) > 0 else { continue }
                text += String(decoding: reader.availableData, as: UTF8.self)
            }
            return text
        }
        #expect(worker.isRunning)
        #expect(text.split(separator: "\n").count == 2, "\(text)")
        kill(worker.processIdentifier, SIGTERM)
        #expect(await Self.finish(worker, within: 30))
    }

    @Test(
        "workers as separate hosts (a network namespace and host name each) reach the server through its socket"
    )
    func namespacedHosts() async throws {
        let (server, database) = try await PostgresStoreCommandTests.freshDatabase()
        let store = server.address(container: "shared", database: database)
        let container = try Self.container(documents: 2, slow: 6)
        #expect(try await GlanceProcess.run(["generate", container.path, "--store", store, "--enqueue"]).status == 0)

        // The namespace is real: the server's TCP port on loopback is out of reach in it.
        let (cutOff, cutOffErrors) = try Self.startHost("cut-off", ["--store", store, "--exit-when-idle"])
        #expect(await Self.finish(cutOff, within: 60))
        let refused = await Self.said(cutOffErrors)
        #expect(cutOff.terminationStatus == 2, "\(refused)")
        #expect(refused.contains("cannot reach the PostgreSQL server at 127.0.0.1:\(server.port)"), "\(refused)")

        let socketStore = server.socketAddress(container: "shared", database: database)
        let hosts = try ["host-a", "host-b"].map { name in
            try Self.startHost(
                name, ["--store", socketStore, "--jobs", "1", "--exit-when-idle", "--debug-slow-on", "slow-*"])
        }
        for (process, errors) in hosts {
            #expect(await Self.finish(process, within: 120), "the host ends when the queue is empty")
            let said = await Self.said(errors)
            #expect(process.terminationStatus == 0, "\(said)")
        }
        let rows = try await container.list(["--store", store])
        #expect(rows.count == 8)
        #expect(rows.values.allSatisfy { $0["state"] as? String == "fresh" })
        await #expect(
            try server.psql("SELECT count(*) FROM glance.job WHERE state = 'done' AND attempts = 1", database: database)
                == "8")
        // Both hosts rendered (each holds at most two jobs; six take a second each), under their own names.
        let byHost = try await server.psql(
            "SELECT DISTINCT finished_by FROM glance.job ORDER BY 1", database: database)
        #expect(byHost == "host-a\nhost-b", "\(byHost)")
    }

    @Test("generate --force --enqueue renders fresh documents again; a plain --enqueue of them queues nothing")
    func forcedJobs() async throws {
        let (server, database) = try await PostgresStoreCommandTests.freshDatabase()
        let store = server.address(container: "again", database: database)
        let container = try Self.container(documents: 3)
        #expect(try await GlanceProcess.run(["generate", container.path, "--store", store, "--quiet"]).status == 0)
        let before = try await server.psql(
            "SELECT path, generated_at FROM glance.document ORDER BY 1", database: database)
        let plain = try await GlanceProcess.run(["generate", container.path, "--store", store, "--enqueue", "--json"])
        #expect(plain.standardOutput.contains("\"queued\":0"), "\(plain.standardOutput)")

        let forced = try await GlanceProcess.run([
            "generate", container.path, "--store", store, "--enqueue", "--force", "--json",
        ])
        #expect(forced.standardOutput.contains("\"queued\":3"), "\(forced.standardOutput)")
        let (worker, errors) = try Self.startWorker(["--store", store, "--exit-when-idle"])
        #expect(await Self.finish(worker, within: 120))
        let said = await Self.said(errors)
        #expect(worker.terminationStatus == 0, "\(said)")
        let after = try await server.psql(
            "SELECT path, generated_at FROM glance.document ORDER BY 1", database: database)
        let pairs = zip(before.split(separator: "\n"), after.split(separator: "\n"))
        #expect(pairs.count(where: { $0.0 != $0.1 }) == 3, "every record rendered again:\n\(before)\n\(after)")
        await #expect(
            try server.psql("SELECT count(*) FROM glance.job WHERE state = 'done'", database: database) == "3")
    }

    @Test("a host without the shared storage gives jobs back and keeps the records; a host with it does them")
    func hostWithoutStorage() async throws {
        let (server, database) = try await PostgresStoreCommandTests.freshDatabase()
        let store = server.address(container: "share", database: database)
        let container = try Self.container(documents: 3)
        #expect(try await GlanceProcess.run(["generate", container.path, "--store", store, "--quiet"]).status == 0)
        #expect(
            try await GlanceProcess.run(["generate", container.path, "--store", store, "--enqueue", "--force"]).status
                == 0)

        let (blind, blindErrors) = try Self.startBlindHost(
            "blind", hiding: container.path, ["--store", store, "--lease-seconds", "30", "--exit-when-idle"])
        // Every job is tried once by the blind host, given back, and left to others meanwhile.
        try await eventually("the blind host gave every job back", within: .seconds(60)) {
            try await server.psql(
                "SELECT count(*) FROM glance.job WHERE state = 'pending' AND refused_by = 'blind'", database: database)
                == "3"
        }
        #expect(try await container.list(["--store", store]).count == 3, "no record was dropped")

        let (sighted, sightedErrors) = try Self.startHost(
            "sighted", ["--store", server.socketAddress(container: "share", database: database), "--exit-when-idle"])
        #expect(await Self.finish(sighted, within: 120))
        let sightedSaid = await Self.said(sightedErrors)
        #expect(sighted.terminationStatus == 0, "\(sightedSaid)")
        #expect(await Self.finish(blind, within: 60), "the blind host ends once the queue is empty")
        let blindSaid = await Self.said(blindErrors)
        #expect(
            blindSaid.contains("is empty on this host (is the shared storage mounted?); given back"), "\(blindSaid)")
        await #expect(
            try server.psql("SELECT state, attempts, finished_by FROM glance.job ORDER BY id", database: database)
                == "done|2|sighted\ndone|2|sighted\ndone|2|sighted")
        let rows = try await container.list(["--store", store])
        #expect(rows.count == 3 && rows.values.allSatisfy { $0["state"] as? String == "fresh" })
    }

    @Test("queue --failed lists failed jobs with the reasons; --retry-failed queues them again")
    func failedJobs() async throws {
        let (server, database) = try await PostgresStoreCommandTests.freshDatabase()
        let store = server.address(container: "moved", database: database)
        let container = try Self.container(documents: 2)
        #expect(try await GlanceProcess.run(["generate", container.path, "--store", store, "--enqueue"]).status == 0)
        // The folder is not where the jobs say: every host gives them back, and one attempt is all
        // they are allowed.
        let away = container.path + "-away"
        #expect(rename(container.path, away) == 0)
        let (worker, _) = try Self.startWorker(["--store", store, "--max-attempts", "1", "--exit-when-idle"])
        #expect(await Self.finish(worker, within: 60))
        #expect(worker.terminationStatus == 0)

        let listed = try await GlanceProcess.run(["queue", container.path, "--store", store, "--failed"])
        #expect(listed.status == 0, "\(listed.standardError)")
        let failures = listed.standardOutput.split(separator: "\n").filter { $0.hasPrefix("failed: ") }
        #expect(failures.count == 2, "\(listed.standardOutput)")
        #expect(failures.allSatisfy { $0.contains("(1 attempts,") && $0.contains("cannot open the container folder") })
        let json = try await GlanceProcess.run(["queue", container.path, "--store", store, "--failed", "--json"])
        let object = try JSONSerialization.jsonObject(with: Data(json.standardOutput.utf8)) as? [String: Any]
        #expect((object?["byState"] as? [String: Int])?["failed"] == 2, "\(json.standardOutput)")
        let jobs = object?["failedJobs"] as? [[String: Any]]
        #expect(Set(jobs?.compactMap { $0["path"] as? String } ?? []) == ["doc-00.png", "doc-01.png"])

        // Fixed: the folder is back. The failed jobs are queued again and done.
        #expect(rename(away, container.path) == 0)
        let retried = try await GlanceProcess.run(["queue", container.path, "--store", store, "--retry-failed"])
        #expect(retried.standardOutput.contains("queued 2 failed job(s) again"), "\(retried.standardOutput)")
        #expect(retried.standardOutput.contains("pending  2"), "\(retried.standardOutput)")
        let (again, _) = try Self.startWorker(["--store", store, "--exit-when-idle"])
        #expect(await Self.finish(again, within: 60))
        await #expect(
            try server.psql("SELECT state, attempts FROM glance.job ORDER BY id", database: database)
                == "done|1\ndone|1")
        let none = try await GlanceProcess.run(["queue", container.path, "--store", store, "--failed"])
        #expect(none.standardOutput.contains("no failed jobs"), "\(none.standardOutput)")
    }

    @Test("a worker killed with -9 mid-job: its job is taken over after the lease expires and completes")
    func killedWorker() async throws {
        let (server, database) = try await PostgresStoreCommandTests.freshDatabase()
        let store = server.address(container: "crash", database: database)
        let container = try Self.container(documents: 3, slow: 1)
        #expect(try await GlanceProcess.run(["generate", container.path, "--store", store, "--enqueue"]).status == 0)
        // The batch is queued largest file first, as a local batch renders it, so that hosts
        // finish together: the slow document (the larger image) leads.
        await #expect(
            try server.psql("SELECT path FROM glance.job ORDER BY id LIMIT 1", database: database) == "slow-00.png")
        // Host A takes jobs in queue order, renders the slow one for a second, and is killed
        // while it holds that lease.
        let (doomed, _) = try Self.startWorker([
            "--store", store, "--jobs", "1", "--lease-seconds", "2", "--debug-slow-on", "slow-*",
        ])
        let holding = try await Self.waitUntilLeased("slow-00.png", server: server, database: database)
        #expect(holding, "host A leased the slow document")
        kill(doomed.processIdentifier, SIGKILL)
        #expect(await exited(doomed, within: .seconds(60)), "doomed ended")
        let (rescuer, errors) = try Self.startWorker(["--store", store, "--jobs", "1", "--exit-when-idle"])
        #expect(await Self.finish(rescuer, within: 120))
        let said = await Self.said(errors)
        #expect(rescuer.terminationStatus == 0, "\(said)")
        #expect(try await container.list(["--store", store])["slow-00.png"]?["state"] as? String == "fresh")
        await #expect(
            try server.psql("SELECT state, attempts FROM glance.job WHERE path = 'slow-00.png'", database: database)
                == "done|2")
        await #expect(
            try server.psql("SELECT count(*) FROM glance.job WHERE state <> 'done'", database: database) == "0")
    }

    @Test("SIGTERM stops a worker at once: exit 0, its unfinished job given back, none lost")
    func stoppedWorker() async throws {
        let (server, database) = try await PostgresStoreCommandTests.freshDatabase()
        let store = server.address(container: "stop", database: database)
        let container = try Self.container(documents: 2, slow: 1)
        #expect(try await GlanceProcess.run(["generate", container.path, "--store", store, "--enqueue"]).status == 0)
        // The worker's renderer hangs on the slow document (until --timeout): it is stopped holding it.
        let (worker, errors) = try Self.startWorker(["--store", store, "--jobs", "1", "--debug-hang-on", "slow-*"])
        let holding = try await Self.waitUntilLeased("slow-00.png", server: server, database: database)
        #expect(holding, "the worker leased the slow document")
        let signalled = ContinuousClock.now
        kill(worker.processIdentifier, SIGTERM)
        let stopped = await Self.finish(worker, within: 20)
        let took = ContinuousClock.now - signalled
        #expect(stopped, "still running 20 s after SIGTERM")
        // Under the hanging render's 30 s time limit: the stop did not wait for it.
        #expect(took < .seconds(20), "stopped after \(took)")
        let said = await Self.said(errors)
        #expect(worker.terminationStatus == 0, "\(said)")
        // The slow document is queued first (the larger file): the worker holds it, and may hold
        // the next one waiting behind it; both go back.
        #expect(said.contains(" given back; "), "\(said)")
        #expect(said.contains("slow-00.png: the worker was stopped; given back"), "\(said)")
        // Given back, it is pending again (one attempt counted) for another host; nothing is leased.
        await #expect(
            try server.psql("SELECT state FROM glance.job WHERE path = 'slow-00.png'", database: database) == "pending")
        await #expect(
            try server.psql("SELECT count(*) FROM glance.job WHERE state = 'leased'", database: database) == "0")
    }

    @Test("an idle worker looks at the queue less and less often, and takes a job queued meanwhile at once")
    func idleWorkerWaitsForWord() async throws {
        let (server, database) = try await PostgresStoreCommandTests.freshDatabase()
        let store = server.address(container: "quiet", database: database)
        let container = try Self.container(documents: 0)
        let (worker, errors) = try Self.startWorker(["--store", store, "--jobs", "1"])
        defer { if worker.isRunning { kill(worker.processIdentifier, SIGKILL) } }
        // Idle for 13 s: it looks at once, then after 0.2, 0.4, 0.8, 1.6, 3.2 and 6.4 s (12.6 s in
        // all), then waits 10 s (at five looks a second it made 65 looks).
        try await Task.sleep(for: .seconds(13))
        try container.add("saved.png", from: "png/rgba8.png")
        let queued = ContinuousClock.now
        let hook = try await GlanceProcess.run(["hook", container.path, "saved.png", "--store", store, "--enqueue"])
        #expect(hook.status == 0, "\(hook.standardError)")
        try await eventually("the idle worker rendered the queued document", within: .seconds(60)) {
            try await server.psql("SELECT state FROM glance.job WHERE path = 'saved.png'", database: database)
                == "done"
        }
        // Woken by the database's notification, not by its next look (about 9.5 s away).
        #expect(ContinuousClock.now - queued < .seconds(5))
        kill(worker.processIdentifier, SIGTERM)
        #expect(await Self.finish(worker, within: 10), "the worker stops at once while it waits")
        let said = await Self.said(errors)
        let looks = said.firstMatch(of: /(\d+) lease round trips?/).flatMap { Int($0.1) }
        #expect((looks ?? 100) <= 20, "\(said)")
    }

    @Test(
        "a flood of notifications on the jobs channel (any user of the database may send them) gets an idle worker no more than five looks a second"
    )
    func notificationFloodBounded() async throws {
        let (server, database) = try await PostgresStoreCommandTests.freshDatabase()
        let store = server.address(container: "quiet", database: database)
        let (worker, errors) = try Self.startWorker(["--store", store, "--jobs", "1"])
        defer { if worker.isRunning { kill(worker.processIdentifier, SIGKILL) } }
        try await Task.sleep(for: .seconds(1))
        // 2,000 notifications, each committed on its own (one transaction's are delivered once),
        // over about two seconds.
        let started = ContinuousClock.now
        _ = try await server.psql(
            """
            DO $$ BEGIN FOR i IN 1..2000 LOOP PERFORM pg_notify('glance_jobs', ''); COMMIT;
            PERFORM pg_sleep(0.001); END LOOP; END $$
            """, database: database)
        let flooded = (ContinuousClock.now - started) / .seconds(1)
        kill(worker.processIdentifier, SIGTERM)
        #expect(await Self.finish(worker, within: 10))
        let said = await Self.said(errors)
        let looks = said.firstMatch(of: /(\d+) lease round trips?/).flatMap { Int($0.1) }
        // Five a second over the flood, and the second before it, with room for the start.
        #expect((looks ?? 10_000) <= Int((flooded + 1) * 5) + 10, "\(said) over \(flooded) s")
    }

    @Test("hook --enqueue puts a saved document first in line; watch --enqueue queues saves as they happen")
    func onSaveFirst() async throws {
        let (server, database) = try await PostgresStoreCommandTests.freshDatabase()
        let store = server.address(container: "live", database: database)
        let container = try Self.container(documents: 3)
        #expect(try await GlanceProcess.run(["generate", container.path, "--store", store, "--enqueue"]).status == 0)
        try container.add("saved.png", from: "png/rgba8.png")
        let hook = try await GlanceProcess.run(["hook", container.path, "saved.png", "--store", store, "--enqueue"])
        #expect(hook.status == 0, "\(hook.standardError)")
        #expect(hook.standardOutput.contains("queued 1 document(s)"))
        let next = "SELECT path FROM glance.job WHERE state = 'pending' ORDER BY priority, id LIMIT 1"
        #expect(try await server.psql(next, database: database) == "saved.png")

        // A watcher hands saves to the queue, urgent, instead of rendering them.
        let watch = Process()
        watch.executableURL = URL(fileURLWithPath: GlanceProcess.executable)
        watch.arguments = ["watch", container.path, "--store", store, "--enqueue", "--no-catch-up"]
        watch.standardOutput = FileHandle.nullDevice
        watch.standardError = FileHandle.nullDevice
        try watch.run()
        // Stopped on the way out, whatever happens (the normal way waits for its exit, below).
        defer { if watch.isRunning { kill(watch.processIdentifier, SIGKILL) } }
        var attempt = 0
        try await eventually(
            "the watcher queued the saved document at on-save priority", within: .seconds(60),
            pollEvery: .milliseconds(50)
        ) {
            // Saved again until the watcher (which may still be starting) has seen it.
            if attempt % 20 == 0 {
                try Data("a line\n".utf8).write(to: URL(fileURLWithPath: container.file("note.txt")))
            }
            attempt += 1
            return try await server.psql(
                "SELECT priority FROM glance.job WHERE path = 'note.txt' AND state = 'pending'", database: database)
                == "0"
        }
        #expect(!FileManager.default.fileExists(atPath: container.file(".thumbnails/thumbnails.sqlite")))
        kill(watch.processIdentifier, SIGTERM)
        #expect(await Self.finish(watch, within: 10), "the watcher stops on SIGTERM")

        let worker = try await GlanceProcess.run([
            "worker", "--store", store, "--jobs", "2", "--exit-when-idle", "--root", Self.scratchRoot,
        ])
        #expect(worker.status == 0, "\(worker.standardError)")
        let rows = try await container.list(["--store", store])
        #expect(rows["saved.png"]?["state"] as? String == "fresh")
        #expect(rows["note.txt"]?["state"] as? String == "fresh")
        #expect(rows["doc-02.png"]?["state"] as? String == "fresh")
    }

    @Test(
        "PostgreSQL restarted mid-run: the worker waits for it, reconnects and finishes the queue (bytes in rows, in files)",
        arguments: [false, true])
    func serverRestart(files: Bool) async throws {
        // A server of this test's own: restarting the shared one would disturb other tests.
        let server = try await PostgresServer.startPrivate()
        try await server.psql("CREATE DATABASE restart")
        let container = try Self.container(documents: 4, slow: 4)
        let folder = container.output("thumbnail-files")
        let store = server.address(container: "r", database: "restart") + (files ? "&thumbnails=\(folder)" : "")
        #expect(try await GlanceProcess.run(["generate", container.path, "--store", store, "--enqueue"]).status == 0)
        let (worker, errors) = try Self.startWorker([
            "--store", store, "--jobs", "1", "--exit-when-idle", "--lease-seconds", "3", "--debug-slow-on", "slow-*",
        ])
        // Restart once the worker is into the slow documents (a second each; the batch queues
        // them first, as the larger files).
        try await eventually("a job done", within: .seconds(60)) {
            try await server.psql("SELECT count(*) FROM glance.job WHERE state = 'done'", database: "restart") != "0"
        }
        try server.restart(downFor: 2)
        try await eventually("the server is down for a while") { await !server.isAccepting }
        #expect(await Self.finish(worker, within: 120))
        let said = await Self.said(errors)
        // Either way is right: the pool waits for the server to take connections again, and a
        // statement cut off by the shutdown is retried by the worker ("trying again").
        #expect(worker.terminationStatus == 0, "\(said)")
        #expect(said.contains("8 done, 0 given back"), "\(said)")
        // Under load the worker may end before the test saw the server go down: the reads
        // below wait for it to be back.
        try await eventually("the server is back", within: .seconds(60)) { await server.isAccepting }
        let rows = try await container.list(["--store", store])
        #expect(rows.count == 8)
        #expect(rows.values.allSatisfy { $0["state"] as? String == "fresh" })
        await #expect(
            try server.psql("SELECT count(*) FROM glance.job WHERE state <> 'done'", database: "restart") == "0")
        if files {
            // Every thumbnail reads back whole from its file.
            for path in rows.keys {
                let export = try await GlanceProcess.run([
                    "export", container.path, path, "-o", container.output(path + ".thumb"), "--store", store,
                ])
                #expect(export.status == 0, "\(export.standardError)")
            }
            await #expect(
                try server.psql("SELECT count(*) FROM glance.thumbnail WHERE data IS NOT NULL", database: "restart")
                    == "0")
        }
    }

    @Test(
        "a job row cannot choose what a worker reads: a folder outside --root, another container's, or no document path"
    )
    func queueRowsAreNotTrusted() async throws {
        let (server, database) = try await PostgresStoreCommandTests.freshDatabase()
        let store = server.address(container: "shared", database: database)
        let container = try Self.container(documents: 1)
        #expect(try await GlanceProcess.run(["generate", container.path, "--store", store, "--enqueue"]).status == 0)
        // A private file outside the container, and a second container keyed by its path.
        let outside = try SampleContainer(["secret.txt": "text/latin-utf8.txt"])
        chmod(outside.file("secret.txt"), 0o600)
        let other = try Self.container(documents: 1)
        let otherStore = "postgres://\(server.user)@127.0.0.1:\(server.port)/\(database)"
        #expect(try await GlanceProcess.run(["generate", other.path, "--store", otherStore, "--enqueue"]).status == 0)
        let root = try #require(
            realpath(container.path, nil).map { pointer in
                defer { free(pointer) }
                return String(cString: pointer)
            })
        let otherRoot = try #require(
            realpath(other.path, nil).map { pointer in
                defer { free(pointer) }
                return String(cString: pointer)
            })
        let secretRoot = try #require(
            realpath(outside.path, nil).map { pointer in
                defer { free(pointer) }
                return String(cString: pointer)
            })
        for (key, folder, path) in [
            ("shared", secretRoot, "secret.txt"),
            ("shared", root, "../\((secretRoot as NSString).lastPathComponent)/secret.txt"),
            ("shared", root, secretRoot + "/secret.txt"), ("shared", root, ".thumbnails/thumbnails.sqlite"),
            (otherRoot, root, "extra.png"),
        ] {
            _ = try await server.psql(
                "INSERT INTO glance.job(container, root, path, priority) VALUES ('\(key)', '\(folder)', '\(path)', 1)",
                database: database)
        }
        // The worker renders beneath the two containers only.
        let worker = try await GlanceProcess.run([
            "worker", "--store", otherStore, "--root", root, "--root", otherRoot, "--max-attempts", "1",
            "--lease-seconds", "1", "--exit-when-idle",
        ])
        #expect(worker.status == 0, "\(worker.standardError)")
        #expect(worker.standardError.contains("not inside this worker's --root folders"), "\(worker.standardError)")
        #expect(worker.standardError.contains("not a document path"), "\(worker.standardError)")
        #expect(worker.standardError.contains("is not its container's"), "\(worker.standardError)")
        // Nothing recorded under a refused path, nor the secret under any name.
        await #expect(
            try server.psql(
                "SELECT count(*) FROM glance.document WHERE path LIKE '%secret%' OR path LIKE '.%' OR path LIKE '/%'",
                database: database) == "0")
        await #expect(
            try server.psql(
                "SELECT count(*) FROM glance.document WHERE container = '\(otherRoot)'", database: database) == "1")
        await #expect(
            try server.psql(
                "SELECT count(*) FROM glance.job WHERE state = 'failed' AND root <> '\(otherRoot)'", database: database)
                == "5")
        // The documents queued the ordinary way were rendered.
        let rows = try await container.list(["--store", store])
        #expect(rows["doc-00.png"]?["state"] as? String == "fresh")
    }

    @Test("--enqueue without a PostgreSQL store, and queue on a sidecar: exit 2 with the reason")
    func misuse() async throws {
        let container = try Self.container(documents: 1)
        let enqueue = try await GlanceProcess.run(["generate", container.path, "--enqueue"])
        #expect(enqueue.status == 2)
        #expect(enqueue.standardError.contains("--enqueue needs a PostgreSQL --store"))
        let queue = try await GlanceProcess.run(["queue", container.path])
        #expect(queue.status == 2)
        #expect(queue.standardError.contains("PostgreSQL store"))
        let worker = try await GlanceProcess.run(["worker", "--store", "some/folder"])
        #expect(worker.status == 2)
        #expect(worker.standardError.contains("--store must be a PostgreSQL address"))
        let rootless = try await GlanceProcess.run(["worker", "--store", "postgres://glance@127.0.0.1:1/glance"])
        #expect(rootless.status == 2)
        #expect(rootless.standardError.contains("--root DIR"), "\(rootless.standardError)")
    }
}
