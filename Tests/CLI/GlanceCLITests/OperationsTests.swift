import Foundation
import GlanceTestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// What an operator sees of a running service: `/metrics` in Prometheus' text format, `/healthz`
/// and `/readyz`, on `--metrics-address` and on `glance serve`'s own listener.
@Suite("Metrics and health", .timeLimit(.minutes(10)))
struct OperationsTests {
    /// One metric line: a name, its labels, its value.
    struct Sample: Equatable {
        var name: String
        var labels: [String: String]
        var value: Double
    }

    /// The samples of a Prometheus text exposition; a line that is neither a comment nor a sample
    /// in the format fails the test (so does a sample of a family with no `# TYPE`).
    static func parse(_ text: String) -> [Sample] {
        var samples: [Sample] = []
        var typed: Set<String> = []
        for line in text.split(separator: "\n") {
            if line.hasPrefix("# TYPE ") {
                let parts = line.split(separator: " ")
                #expect(parts.count == 4 && ["counter", "gauge", "histogram", "summary"].contains(parts[3]), "\(line)")
                if parts.count >= 3 { typed.insert(String(parts[2])) }
                continue
            }
            if line.hasPrefix("#") { continue }
            guard
                let match = line.wholeMatch(
                    of:
                        /([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{((?:[a-zA-Z_][a-zA-Z0-9_]*="(?:[^"\\]|\\.)*",?)*)\})? (-?[0-9.eE+-]+|NaN|\+Inf|-Inf)/
                ), let value = Double(match.output.3 == "+Inf" ? "inf" : String(match.output.3))
            else {
                Issue.record("not a sample line: \(line)")
                continue
            }
            var labels: [String: String] = [:]
            if let body = match.output.2 {
                for pair in body.matches(of: /([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/) {
                    labels[String(pair.output.1)] = String(pair.output.2)
                }
            }
            let name = String(match.output.1)
            let family = ["_bucket", "_sum", "_count"].reduce(name) { family, suffix in
                family.hasSuffix(suffix) && typed.contains(String(family.dropLast(suffix.count)))
                    ? String(family.dropLast(suffix.count)) : family
            }
            #expect(typed.contains(family), "\(name) has no # TYPE")
            samples.append(Sample(name: name, labels: labels, value: value))
        }
        return samples
    }

    /// The sum of `name`'s samples whose labels include `labels`.
    static func total(_ samples: [Sample], _ name: String, _ labels: [String: String] = [:]) -> Double {
        samples.filter { sample in sample.name == name && labels.allSatisfy { sample.labels[$0.key] == $0.value } }
            .reduce(0) { $0 + $1.value }
    }

    /// Starts `glance ARGUMENTS` and waits for its line `metrics at URL`: (process, port, log).
    static func start(_ arguments: [String]) async throws -> (Process, Int, Pipe) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: GlanceProcess.executable)
        process.arguments = arguments
        let output = Pipe()
        let log = Pipe()
        process.standardOutput = output
        process.standardError = log
        try process.run()
        let reader = output.fileHandleForReading
        let text = try await onThreadOfItsOwn {
            var text = ""
            let deadline = ContinuousClock.now + .seconds(30)
            while !text.contains("metrics at "), ContinuousClock.now < deadline {
                let chunk = reader.availableData
                if chunk.isEmpty { break }
                text += String(decoding: chunk, as: UTF8.self)
            }
            return text
        }
        let line = text.split(separator: "\n").first { $0.hasPrefix("metrics at ") } ?? ""
        let port = line.split(separator: ":").last.flatMap { Int($0.prefix { $0.isNumber }) } ?? 0
        return (process, port, log)
    }

    @Test(
        "watch --metrics-address: /metrics parses, its render counts equal the catch-up's, no label holds a path; saves are counted"
    )
    func watchMetrics() async throws {
        let container = try SampleContainer.standard()
        let (watch, port, _) = try await Self.start([
            "watch", container.path, "--metrics-address", "127.0.0.1:0", "--jobs", "2",
        ])
        defer { if watch.isRunning { kill(watch.processIdentifier, SIGKILL) } }
        try #require(port > 0)
        // The catch-up renders the nine documents: eight pictures and one unsupported file.
        var samples: [Sample] = []
        try await eventually(
            "the nine renders of the catch-up counted", within: .seconds(30), pollEvery: .milliseconds(250)
        ) {
            samples = await Self.parse(
                try LiveExposureTests.get("/metrics", port: port).components(separatedBy: "\r\n\r\n").last ?? "")
            return Self.total(samples, "glance_renders_total") >= 9
        }
        #expect(Self.total(samples, "glance_renders_total", ["outcome": "rendered"]) == 8)
        #expect(Self.total(samples, "glance_renders_total", ["outcome": "unsupported"]) == 1)
        #expect(Self.total(samples, "glance_renders_total") == 9)
        #expect(Self.total(samples, "glance_renders_total", ["kind": "jpeg"]) == 2)
        #expect(Self.total(samples, "glance_render_duration_seconds_count") == 9)
        #expect(Self.total(samples, "glance_renderers_started_total") >= 1)
        #expect(Self.total(samples, "glance_store_call_duration_seconds_count", ["call": "save"]) == 9)
        // Low cardinality: no label value is a path or a document's name.
        let values = samples.flatMap { $0.labels.filter { $0.key != "le" }.values }
        for value in values {
            #expect(!value.contains("/") && !value.contains("."), "label value \(value)")
        }
        #expect(
            Set(samples.flatMap(\.labels.keys)).isSubset(of: [
                "kind", "outcome", "reason", "lane", "call", "event", "le",
            ]))
        // A save: an event and its time to fresh.
        try container.add("arrived.png", from: "png/rgba8.png")
        try await eventually("a save's time to fresh counted", within: .seconds(20), pollEvery: .milliseconds(250)) {
            samples = await Self.parse(
                try LiveExposureTests.get("/metrics", port: port).components(separatedBy: "\r\n\r\n").last ?? "")
            return Self.total(samples, "glance_save_to_fresh_seconds_count") >= 1
        }
        #expect(Self.total(samples, "glance_watcher_events_total", ["event": "saved"]) >= 1)
        #expect(Self.total(samples, "glance_save_to_fresh_seconds_count") >= 1)
        #expect(Self.total(samples, "glance_renders_total", ["outcome": "rendered"]) == 9)
        await #expect(LiveExposureTests.status(try LiveExposureTests.get("/healthz", port: port)) == 200)
        let ready = try await LiveExposureTests.get("/readyz", port: port)
        #expect(LiveExposureTests.status(ready) == 200 && ready.hasSuffix("ready\n"), "\(ready)")
        // Nothing else is served there.
        await #expect(LiveExposureTests.status(try LiveExposureTests.get("/thumbnails/photo.jpg", port: port)) == 404)
    }

    @Test("serve counts its requests by route class and status; /readyz turns unready while the store is down")
    func serveReadiness() async throws {
        let server = try await PostgresServer.startPrivate()
        let store = server.address(container: "ops")
        let container = try SampleContainer(["a.png": "png/rgb8.png"])
        let generated = try await GlanceProcess.run(["generate", container.path, "--store", store])
        #expect(generated.status == 0, "\(generated.standardError)")
        let (serve, port, _) = try await ServeCommandTests.startServe([container.path, "--store", store, "--jobs", "1"])
        defer { if serve.isRunning { kill(serve.processIdentifier, SIGKILL) } }
        try #require(port > 0)
        for path in ["/", "/thumbnails/a.png", "/thumbnails/a.png", "/thumbnails/missing.png"] {
            _ = try await LiveExposureTests.get(path, port: port)
        }
        let samples = await Self.parse(
            try LiveExposureTests.get("/metrics", port: port).components(separatedBy: "\r\n\r\n").last ?? "")
        #expect(Self.total(samples, "glance_http_requests_total", ["route": "thumbnails", "status": "200"]) == 2)
        #expect(Self.total(samples, "glance_http_requests_total", ["route": "thumbnails", "status": "404"]) == 1)
        #expect(Self.total(samples, "glance_http_requests_total", ["route": "page", "status": "200"]) == 1)
        #expect(Self.total(samples, "glance_cache_requests_total", ["cache": "thumbnails", "result": "hit"]) == 1)
        #expect(Self.total(samples, "glance_http_response_bytes_total", ["route": "thumbnails"]) > 0)
        await #expect(LiveExposureTests.status(try LiveExposureTests.get("/readyz", port: port)) == 200)
        // The store goes away for a while: unready, with the reason; ready again when it is back.
        let restart = Task.detached { try server.restart(downFor: 8) }
        var down = ""
        try await eventually(
            "/readyz says 503 while the store is down", within: .seconds(10), pollEvery: .milliseconds(250)
        ) {
            down = try await LiveExposureTests.get("/readyz", port: port)
            return LiveExposureTests.status(down) == 503
        }
        #expect(LiveExposureTests.status(down) == 503 && down.contains("not ready: store"), "\(down)")
        await #expect(LiveExposureTests.status(try LiveExposureTests.get("/healthz", port: port)) == 200)
        try await restart.value
        var up = ""
        try await eventually(
            "/readyz says 200 once the store is back", within: .seconds(20), pollEvery: .milliseconds(250)
        ) {
            up = try await LiveExposureTests.get("/readyz", port: port)
            return LiveExposureTests.status(up) == 200
        }
        #expect(LiveExposureTests.status(up) == 200, "\(up)")
    }

    /// A notify socket as systemd makes one: a Unix datagram socket at a path, read with a time-out.
    final class NotifySocket {
        let path: String
        let descriptor: Int32

        init(folder: String) throws {
            path = folder + "/notify.sock"
            descriptor = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue), 0)
            var address = sockaddr_un()
            address.sun_family = sa_family_t(AF_UNIX)
            withUnsafeMutableBytes(of: &address.sun_path) { bytes in
                for (index, byte) in path.utf8.enumerated() { bytes[index] = byte }
            }
            let bound = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
                }
            }
            guard bound == 0 else { throw POSIXError(.EADDRINUSE) }
        }

        deinit { close(descriptor) }

        /// The next datagram, or nil after `seconds` (waited for on a thread of its own).
        func receive(seconds: Double) async -> String? {
            let descriptor = descriptor
            return try? await onThreadOfItsOwn { Self.receive(from: descriptor, seconds: seconds) }
        }

        private static func receive(from descriptor: Int32, seconds: Double) -> String? {
            var poller = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
            guard poll(&poller, 1, Int32(seconds * 1000)) > 0 else { return nil }
            var buffer = [UInt8](repeating: 0, count: 4096)
            let count = recv(descriptor, &buffer, buffer.count, 0)
            return count > 0 ? String(decoding: buffer.prefix(count), as: UTF8.self) : nil
        }
    }

    @Test("systemd: READY=1 only once the watches are in place, WATCHDOG=1 at half WatchdogSec, STOPPING=1 on SIGTERM")
    func systemdNotify() async throws {
        let container = try SampleContainer(["a.png": "png/rgb8.png"])
        let notify = try NotifySocket(folder: container.outputs)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: GlanceProcess.executable)
        // No catch-up: a document saved right after READY=1 is rendered only if the watch
        // was in place to see it.
        process.arguments = ["watch", container.path, "--no-catch-up", "--jobs", "1"]
        process.environment = ProcessInfo.processInfo.environment.merging([
            "NOTIFY_SOCKET": notify.path, "WATCHDOG_USEC": "400000",
        ]) { $1 }
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        defer { if process.isRunning { kill(process.processIdentifier, SIGKILL) } }
        let first = await notify.receive(seconds: 30)
        #expect(first?.hasPrefix("READY=1\nSTATUS=watching ") == true, "\(first ?? "nothing")")
        try container.add("saved.png", from: "png/rgba8.png")
        var state = ""
        try await eventually("saved.png fresh", within: .seconds(20), pollEvery: .milliseconds(250)) {
            let shown = try await GlanceProcess.run(["show", container.path, "saved.png", "--json"])
            state =
                (try? JSONSerialization.jsonObject(with: Data(shown.standardOutput.utf8)) as? [String: Any])?["state"]
                as? String ?? ""
            return state == "fresh"
        }
        #expect(state == "fresh", "the document saved after READY=1 was seen by the watch")
        var watchdogs = 0
        for _ in 0..<10 where watchdogs < 2 {
            if await notify.receive(seconds: 1) == "WATCHDOG=1" { watchdogs += 1 }
        }
        #expect(watchdogs == 2)
        kill(process.processIdentifier, SIGTERM)
        var stopping = false
        for _ in 0..<20 where !stopping {
            guard let message = await notify.receive(seconds: 1) else { continue }
            stopping = message == "STOPPING=1"
        }
        #expect(stopping)
        #expect(await exited(process, within: .seconds(60)), "process ended")
        #expect(process.terminationStatus == 0)
    }

    @Test("glance status asks the watcher on its hook socket: ready, watching, its work; nothing running is exit 2")
    func status() async throws {
        let container = try SampleContainer(["a.png": "png/rgb8.png"])
        let nothing = try await GlanceProcess.run(["status", container.path])
        #expect(
            nothing.status == 2 && nothing.standardError.contains("no glance watch or glance serve --watch answers"))
        let watch = Process()
        watch.executableURL = URL(fileURLWithPath: GlanceProcess.executable)
        watch.arguments = ["watch", container.path, "--jobs", "1"]
        watch.standardOutput = FileHandle.nullDevice
        watch.standardError = FileHandle.nullDevice
        try watch.run()
        defer { if watch.isRunning { kill(watch.processIdentifier, SIGKILL) } }
        var said = GlanceProcess.Result(status: -1, standardOutput: "", standardError: "")
        try await eventually(
            "glance status says the watch watches every folder", within: .seconds(20), pollEvery: .milliseconds(250)
        ) {
            said = try await GlanceProcess.run(["status", container.path])
            return said.status == 0 && said.standardOutput.contains("watching every folder")
        }
        #expect(said.status == 0, "\(said.standardError)")
        #expect(
            said.standardOutput.hasPrefix("glance watch (pid \(watch.processIdentifier)) on "), "\(said.standardOutput)"
        )
        #expect(said.standardOutput.contains("ready (the store and a renderer answer)"))
        #expect(said.standardOutput.contains("watching every folder"))
        let json = try await GlanceProcess.run(["status", container.path, "--json"])
        let object = try JSONSerialization.jsonObject(with: Data(json.standardOutput.utf8)) as? [String: Any]
        #expect(object?["ready"] as? Bool == true && object?["watching"] as? Bool == true)
        #expect((object?["renderersStarted"] as? Int ?? 0) >= 1)
    }
}
