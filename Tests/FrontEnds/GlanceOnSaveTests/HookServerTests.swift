import Foundation
import GlanceOnSave
import GlanceTestSupport
import Logging
import Synchronization
import Testing

#if canImport(Glibc)
    import Glibc
#endif

@Suite("The hook socket", .timeLimit(.minutes(10)))
struct HookServerTests {
    /// A hook server on a socket in a fresh scratch folder, over a watched container's indexer.
    static func server(in container: WatchedContainer) throws -> (HookServer, String) {
        let path = container.root + "/.thumbnails/" + HookSocket.fileName
        var logger = Logger(label: "test.hook")
        logger.logLevel = .critical
        return (try HookServer(path: path, indexer: container.indexer, logger: logger), path)
    }

    @Test("the socket file is gone once the server stops, while the server object still exists")
    func removedOnStop() async throws {
        let container = try await WatchedContainer(watching: false)
        let (server, path) = try Self.server(in: container)
        #expect(FileManager.default.fileExists(atPath: path))
        let serving = Task { await server.run() }
        // Serving: it has answered a request (for a document that is not there).
        let answers = try await onThreadOfItsOwn {
            try HookClient.ask(HookRequest(paths: ["none.png"]), at: path, timeoutSeconds: 10)
        }
        #expect(answers?.count == 1)
        serving.cancel()
        await serving.value
        // A process can end before its objects are released: the file must not wait for that.
        #expect(!FileManager.default.fileExists(atPath: path))
        withExtendedLifetime(server) {}
    }

    @Test("the socket is owner-only from the start, without touching the process's umask (which other threads use)")
    func ownerOnlyWithoutUmask() async throws {
        let container = try await WatchedContainer(watching: false)
        let before = umask(0o022)
        let (server, path) = try Self.server(in: container)
        let after = umask(before)
        #expect(after == 0o022, "the umask was changed and not restored")
        var status = stat()
        #expect(lstat(path, &status) == 0)
        #expect(status.st_mode & 0o777 == 0o600)
        withExtendedLifetime(server) {}
    }

    @Test("a file put at the socket's path by someone else is left alone when the server stops")
    func othersFileKept() async throws {
        let container = try await WatchedContainer(watching: false)
        let (server, path) = try Self.server(in: container)
        let serving = Task { await server.run() }
        try FileManager.default.removeItem(atPath: path)
        try Data("not ours\n".utf8).write(to: URL(fileURLWithPath: path))
        serving.cancel()
        await serving.value
        #expect(try String(contentsOfFile: path, encoding: .utf8) == "not ours\n")
        withExtendedLifetime(server) {}
    }

    @Test("clients that dribble their request a byte at a time hold up no one else's answer")
    func slowClientsHoldNoOne() async throws {
        let container = try await WatchedContainer(files: ["a.png": "png/rgb8.png"], watching: false)
        let (server, path) = try Self.server(in: container)
        let serving = Task { await server.run() }
        defer { serving.cancel() }
        // Rendered first (however long a machine busy with other tests takes), so that the answer
        // below is the server's own work, not a renderer's, which could outlast the dribblers' 5 s.
        guard case .recorded(let first) = await container.indexer.render("a.png") else {
            Issue.record("a.png was not rendered")
            return
        }
        #expect(first.record.state == .fresh)
        // More dribbling clients than Swift has cooperative threads on any machine this runs on:
        // each sends a space (JSON allows it before the request) every 200 ms until told to stop.
        let stop = StopFlag()
        // Threads, not tasks: a task that sleeps would hold a cooperative thread itself.
        let finished = DispatchSemaphore(value: 0)
        let dribblers = (0..<16).map { _ in
            Thread {
                defer { finished.signal() }
                guard let socket = try? HookClient.connect(to: path) else { return }
                defer { close(socket) }
                stop.opened.add(1, ordering: .relaxed)
                let start = ContinuousClock.now
                while !stop.raised.load(ordering: .relaxed), ContinuousClock.now - start < .seconds(20) {
                    var space: UInt8 = 0x20
                    guard write(socket, &space, 1) == 1 else { return }
                    usleep(200_000)
                }
                if stop.raised.load(ordering: .relaxed) { stop.connected.add(1, ordering: .relaxed) }
            }
        }
        for dribbler in dribblers { dribbler.start() }
        try await eventually("every dribbler has connected") { stop.opened.load(ordering: .relaxed) == 16 }
        // Asked from a thread of its own: a task blocked in `ask` would hold one of the two
        // cooperative threads a 2-core machine has, and the render it waits for needs them.
        let answers = await withCheckedContinuation { continuation in
            Thread {
                let answers = try? HookClient.ask(HookRequest(paths: ["a.png"]), at: path, timeoutSeconds: 30)
                continuation.resume(returning: answers)
            }.start()
        }
        // Answered while all of them still dribble (each has 5 s for its whole line, and keeps going).
        stop.raised.store(true, ordering: .relaxed)
        let count = dribblers.count
        try await onThreadOfItsOwn { for _ in 0..<count { finished.wait() } }
        let stillConnected = stop.connected.load(ordering: .relaxed)
        #expect(answers?.first?.state == .fresh)
        #expect(stillConnected == 16)
        withExtendedLifetime(server) {}
    }
}

/// A flag that the test and its client threads share.
final class StopFlag: Sendable {
    let raised = Atomic<Bool>(false)
    /// How many of the clients were still connected when the flag was raised.
    let connected = Atomic<Int>(0)
    /// How many dribblers have connected and are about to send their first byte.
    let opened = Atomic<Int>(0)
}
