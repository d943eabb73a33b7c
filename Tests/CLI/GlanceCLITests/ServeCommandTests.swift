import Foundation
import GlanceTestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// A plain TCP connection to a server on loopback: requests written by hand, the answer read as
/// it comes (a stream of events never ends, so reading stops at a marker or a time limit).
final class LoopbackConnection {
    let socket: Int32

    init(port: Int) throws {
        socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(socket, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard connected == 0 else {
            close(socket)
            throw POSIXError(.ECONNREFUSED)
        }
    }

    /// A connection to the Unix socket at `path` (a watcher's hook socket).
    init(unixSocket path: String) throws {
        socket = Glibc.socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            for (index, byte) in path.utf8.enumerated() { raw[index] = byte }
        }
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(socket, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        guard connected == 0 else {
            close(socket)
            throw POSIXError(.ECONNREFUSED)
        }
    }

    deinit { close(socket) }

    func send(_ text: String) { send(bytes: Array(text.utf8)) }

    /// Sends all of `bytes` (a long request goes in as many pieces as the peer takes), or as much
    /// as the peer took before it closed.
    func send(bytes: [UInt8]) {
        var sent = 0
        while sent < bytes.count {
            let count = bytes[sent...].withUnsafeBytes {
                Glibc.send(socket, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL))
            }
            guard count > 0 else { break }
            sent += count
        }
    }

    /// Everything read until `marker` shows up in it, the peer closes, or `seconds` pass.
    /// (Read on a thread of its own: see ``onThreadOfItsOwn(_:)``.)
    func read(until marker: String?, seconds: Double) async -> String {
        let socket = socket
        return (try? await onThreadOfItsOwn { Self.read(socket, until: marker, seconds: seconds) }) ?? ""
    }

    private static func read(_ socket: Int32, until marker: String?, seconds: Double) -> String {
        var received: [UInt8] = []
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            var poller = pollfd(fd: socket, events: Int16(POLLIN), revents: 0)
            guard poll(&poller, 1, 100) > 0 else { continue }
            var buffer = [UInt8](repeating: 0, count: 65536)
            let count = recv(socket, &buffer, buffer.count, 0)
            if count <= 0 { break }
            received += buffer[..<count]
            if let marker, String(decoding: received, as: UTF8.self).contains(marker) { break }
        }
        return String(decoding: received, as: UTF8.self)
    }

    /// One `GET` on a connection of its own; the whole answer.
    static func get(_ path: String, port: Int) async throws -> String {
        let connection = try LoopbackConnection(port: port)
        connection.send("GET \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
        return await connection.read(until: nil, seconds: 10)
    }
}

/// `glance serve` as an operator runs it: a real process on a real loopback port.
@Suite("glance serve", .timeLimit(.minutes(10)))
struct ServeCommandTests {
    /// Starts `glance serve` with `arguments`; returns it, its port (from the line it prints) and
    /// its log.
    static func startServe(_ arguments: [String]) async throws -> (Process, Int, Pipe) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: GlanceProcess.executable)
        process.arguments = ["serve", "--port", "0"] + arguments
        let output = Pipe()
        let log = Pipe()
        process.standardOutput = output
        process.standardError = log
        try process.run()
        let reader = output.fileHandleForReading
        let line = try await onThreadOfItsOwn {
            var line: [UInt8] = []
            while !line.contains(UInt8(ascii: "\n")) {
                let chunk = reader.availableData
                if chunk.isEmpty { break }
                line += chunk
            }
            return line
        }
        let text = String(decoding: line, as: UTF8.self)
        let port = text.split(separator: ":").last.flatMap { Int($0.prefix { $0.isNumber }) } ?? 0
        return (process, port, log)
    }

    @Test("--watch: a saved document reaches an open event stream and the grid; hooks go through serve's socket")
    func watchAndEvents() async throws {
        let container = try SampleContainer(["a.png": "png/rgb8.png", "notes.txt": "text/latin-utf8.txt"])
        let (serve, port, log) = try await Self.startServe([
            container.path, "--watch", "--jobs", "2", "--log-level", "debug",
        ])
        defer {
            if serve.isRunning { kill(serve.processIdentifier, SIGKILL) }
        }
        #expect(port > 0)
        let events = try LoopbackConnection(port: port)
        events.send("GET /events HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
        let opening = await events.read(until: ": connected", seconds: 10)
        #expect(opening.contains("text/event-stream"))
        // The catch-up renders the two documents; then a document arrives as a store saves it.
        try container.add("arrived.png", from: "png/rgba8.png")
        let stream = await events.read(until: "\"path\":\"arrived.png\"", seconds: 20)
        #expect(stream.contains("event: change\ndata: {\"kind\":\"refreshed\",\"path\":\"arrived.png\"}"))
        let grid = try await LoopbackConnection.get("/", port: port)
        #expect(grid.contains("data-path=\"arrived.png\""))
        #expect(grid.contains("data-events=\"/events\""))
        // glance hook finds serve's socket, as it finds glance watch's.
        try Data("written by the store\n".utf8).write(to: URL(fileURLWithPath: container.file("hooked.txt")))
        let hook = try await GlanceProcess.run(["hook", container.path, "hooked.txt"])
        #expect(hook.status == 0, "\(hook.standardError)")
        #expect(hook.standardOutput == "hooked.txt fresh 724x1024 png\n")
        // SIGTERM with the event stream still open: a graceful stop, within 2 seconds.
        let start = Date()
        kill(serve.processIdentifier, SIGTERM)
        #expect(await exited(serve, within: .seconds(60)), "serve ended")
        #expect(Date().timeIntervalSince(start) < 2)
        #expect(serve.terminationStatus == 0)
        let messages = String(decoding: await readToEnd(log.fileHandleForReading), as: UTF8.self)
        #expect(messages.contains("hook served"))
        #expect(messages.contains("GET / 200"))
        #expect(messages.contains("GET /events 200"))
        #expect(!FileManager.default.fileExists(atPath: container.file(".thumbnails/hook.sock")))
    }

    @Test(
        "serve on PostgreSQL with ?thumbnails=DIR: a GET reads the file; a damaged file is never served, the document is drawn again"
    )
    func thumbnailFilesServed() async throws {
        let (server, database) = try await PostgresStoreCommandTests.freshDatabase()
        let container = try SampleContainer(["a.png": "png/rgb8.png"])
        let folder = container.output("thumbnail-files")
        let store = server.address(container: "sample", database: database) + "&thumbnails=\(folder)"
        #expect(try await container.generate(["--store", store]).result.status == 0)
        let files = (FileManager.default.enumerator(atPath: folder)?.allObjects as? [String] ?? []).filter {
            $0.split(separator: "/").count == 3
        }
        #expect(!files.isEmpty, "the thumbnails are files")
        // The standard thumbnail's file: the one the PNG signature starts.
        let standard = try #require(
            files.first { name in
                (try? Data(contentsOf: URL(fileURLWithPath: folder + "/" + name)))?.starts(with: [0x89, 0x50]) == true
            })
        let (serve, port, log) = try await Self.startServe([container.path, "--store", store, "--jobs", "1"])
        defer {
            if serve.isRunning { kill(serve.processIdentifier, SIGKILL) }
        }
        let first = try await LoopbackConnection.get("/thumbnails/a.png", port: port)
        #expect(first.hasPrefix("HTTP/1.1 200"), "\(first.prefix(200))")
        #expect(first.contains("content-type: image/png") || first.contains("Content-Type: image/png"))
        // The file damaged under the server (a fresh server: no cached copy).
        kill(serve.processIdentifier, SIGTERM)
        #expect(await exited(serve, within: .seconds(60)))
        let original = try [UInt8](Data(contentsOf: URL(fileURLWithPath: folder + "/" + standard)))
        var bytes = original
        bytes[bytes.count / 2] ^= 0x55
        try Data(bytes).write(to: URL(fileURLWithPath: folder + "/" + standard))
        let (again, port2, log2) = try await Self.startServe([container.path, "--store", store, "--jobs", "1"])
        defer {
            if again.isRunning { kill(again.processIdentifier, SIGKILL) }
        }
        let redrawn = try await LoopbackConnection.get("/thumbnails/a.png", port: port2)
        #expect(redrawn.hasPrefix("HTTP/1.1 200"), "\(redrawn.prefix(200))")
        #expect(redrawn.lowercased().contains("content-length: \(original.count)\r\n"))
        let restored = try [UInt8](Data(contentsOf: URL(fileURLWithPath: folder + "/" + standard)))
        #expect(restored == original, "drawn again and written again, whole")
        kill(again.processIdentifier, SIGTERM)
        #expect(await exited(again, within: .seconds(60)))
        let said = String(decoding: await readToEnd(log2.fileHandleForReading), as: UTF8.self)
        #expect(said.contains("is damaged"), "\(said)")
        _ = log
    }

    @Test("past --timeout a request answers 503 and the render goes on: the document is not failed")
    func requestTimeoutIsNotRenderTimeout() async throws {
        let container = try SampleContainer([:])
        try container.add("hang-0.png", from: "png/rgb8.png")
        // The worker hangs on the document until it is killed: at --render-timeout, not --timeout.
        let (serve, port, _) = try await Self.startServe([
            container.path, "--jobs", "1", "--timeout", "1", "--render-timeout", "60", "--debug-hang-on", "hang-*",
        ])
        defer {
            if serve.isRunning { kill(serve.processIdentifier, SIGKILL) }
        }
        let waited = try await LoopbackConnection.get("/thumbnails/hang-0.png", port: port)
        #expect(waited.hasPrefix("HTTP/1.1 503"), "\(waited.prefix(200))")
        // A duration, not an event: what is looked for must not happen (the render failed when
        // the request timed out), and would have happened by now.
        try await Task.sleep(for: .milliseconds(1500))
        let item = try await LoopbackConnection.get("/api/items/hang-0.png", port: port)
        #expect(!item.contains("\"failed\""), "\(item)")
        #expect(item.contains("\"missing\""), "\(item)")
        // A second server on the same port: said in words, not in NIO's function names.
        let second = try await GlanceProcess.run(["serve", container.path, "--port", String(port)])
        #expect(second.status == 2)
        #expect(
            second.standardError
                == "glance: cannot serve on 127.0.0.1:\(port): the port is in use by another program (--port, or --port 0 for any free one)\n"
        )
        kill(serve.processIdentifier, SIGTERM)
        #expect(await waitForExit(serve, within: .seconds(20)))
    }

    @Test("a stop kills the renders in flight at once and keeps what was saved; the catch-up is not an error")
    func stopDuringCatchUp() async throws {
        // Two workers: one renders the small documents, the other hangs on one (until --timeout):
        // the catch-up is still under way when the stop comes.
        let container = try SampleContainer([:])
        for index in 0..<11 { try container.add("small-\(index).png", from: "png/rgb8.png") }
        try container.add("hang-0.png", from: "png/rgb8.png")
        let (serve, _, log) = try await Self.startServe([
            container.path, "--watch", "--jobs", "2", "--debug-hang-on", "hang-*",
        ])
        defer {
            if serve.isRunning { kill(serve.processIdentifier, SIGKILL) }
        }
        // Stopped once the small ones are saved, the hanging render still in flight.
        try await eventually("the 11 small documents saved", within: .seconds(20), pollEvery: .milliseconds(50)) {
            try await container.list().values.filter({ $0["state"] as? String == "fresh" }).count >= 11
        }
        let (stopped, took) = await stopWithSIGTERM(serve, within: .seconds(20))
        // Under the hanging render's 30 s time limit: the stop did not wait for it (its document
        // is left missing, below).
        #expect(stopped && took < 20, "stopped after \(took) s")
        #expect(serve.terminationStatus == 0)
        let messages = String(decoding: await readToEnd(log.fileHandleForReading), as: UTF8.self)
        #expect(!messages.contains("catch-up failed"), "\(messages)")
        #expect(messages.contains("catch-up"))
        #expect(try await container.store().checkIntegrity())
        // What was rendered is saved; a killed render leaves its document missing, not failed.
        let rows = try await container.list()
        #expect(rows["hang-0.png"]?["state"] as? String == "missing")
        #expect(rows.values.filter { $0["state"] as? String == "fresh" }.count == 11, "\(rows)")
    }

    @Test("a client that stops reading its download holds a stop for ten seconds at most")
    func stopWithAStalledClient() async throws {
        let container = try SampleContainer([:])
        // Larger than every buffer between the server and the client.
        try Data(repeating: 0x61, count: 64 << 20).write(to: URL(fileURLWithPath: container.file("big.txt")))
        let (serve, port, _) = try await Self.startServe([container.path])
        defer {
            if serve.isRunning { kill(serve.processIdentifier, SIGKILL) }
        }
        let stalled = try LoopbackConnection(port: port)
        stalled.send("GET /documents/big.txt HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
        await #expect(stalled.read(until: "\r\n\r\n", seconds: 10).hasPrefix("HTTP/1.1 200"))
        let (stopped, took) = await stopWithSIGTERM(serve, within: .seconds(30))
        // A hang guard: the client that stops reading is let go after --send-timeout (10 s), not
        // waited for.
        #expect(stopped && took < 60, "stopped after \(took) s")
        #expect(serve.terminationStatus == 0)
        withExtendedLifetime(stalled) {}
    }

    @Test("several containers side by side; --store with several, a bad port and a busy port are refused")
    func containersAndRefusals() async throws {
        let first = try SampleContainer(["a.png": "png/rgb8.png"])
        let second = try SampleContainer(["b.txt": "text/latin-utf8.txt"])
        let (serve, port, _) = try await Self.startServe([first.path, second.path])
        defer {
            if serve.isRunning { kill(serve.processIdentifier, SIGKILL) }
        }
        let site = try await LoopbackConnection.get("/", port: port)
        let names = [first.path, second.path].map { ($0 as NSString).lastPathComponent }
        for name in names { #expect(site.contains("href=\"/c/\(name)/\"")) }
        await #expect(
            try LoopbackConnection.get("/c/\(names[1])/api/items/b.txt", port: port).contains("\"name\" : \"b.txt\""))
        // Bounded requests: a huge header or URI is a 400, and the server goes on.
        let hugeHeader = try LoopbackConnection(port: port)
        hugeHeader.send("GET / HTTP/1.1\r\nHost: x\r\nX-Big: \(String(repeating: "a", count: 200_000))\r\n\r\n")
        await #expect(hugeHeader.read(until: "\r\n", seconds: 10).hasPrefix("HTTP/1.1 400"))
        let hugeURI = try LoopbackConnection(port: port)
        hugeURI.send("GET /\(String(repeating: "a", count: 100_000)) HTTP/1.1\r\nHost: x\r\n\r\n")
        await #expect(hugeURI.read(until: "\r\n", seconds: 10).hasPrefix("HTTP/1.1 400"))
        #expect(try await LoopbackConnection.get("/", port: port).hasPrefix("HTTP/1.1 200"))
        let busy = try await GlanceProcess.run(["serve", first.path, "--port", String(port)])
        #expect(busy.status == 2)
        #expect(busy.standardError.contains("cannot serve on 127.0.0.1:\(port)"))
        kill(serve.processIdentifier, SIGINT)
        #expect(await exited(serve, within: .seconds(60)), "serve ended")
        #expect(serve.terminationStatus == 0)
        let shared = try await GlanceProcess.run(["serve", first.path, second.path, "--store", first.output("store")])
        #expect(shared.status != 0)
        #expect(shared.standardError.contains("--store applies to one container"))
        let badPort = try await GlanceProcess.run(["serve", first.path, "--port", "70000"])
        #expect(badPort.status != 0)
        #expect(badPort.standardError.contains("--port must be between 0 and 65535"))
    }
}
