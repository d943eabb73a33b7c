import Foundation
import GlanceTestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// Runs the built `glance` executable as a real child process and collects what it did.
struct GlanceProcess {
    /// The `glance` executable next to the test bundle.
    static let executable = TestLocations.glance

    /// The outcome of one run.
    struct Result: Sendable {
        let status: Int32
        let standardOutput: String
        let standardError: String
        var errorLines: [String] { standardError.split(separator: "\n").map(String.init) }
    }

    /// Runs `glance` (or `executable`, which starts it) with `arguments` in `folder` and waits
    /// for its end on a thread of its own (see ``onThreadOfItsOwn(_:)``); `environment` adds to
    /// (or replaces) this process's variables.
    static func run(
        _ arguments: [String], in folder: String? = nil, executable: String? = nil,
        environment: [String: String] = [:]
    ) async throws -> Result {
        try await onThreadOfItsOwn {
            try runWaiting(arguments, in: folder, executable: executable, environment: environment)
        }
    }

    /// ``run(_:in:executable:environment:)`` on the calling thread, which it blocks.
    private static func runWaiting(
        _ arguments: [String], in folder: String?, executable: String?, environment: [String: String]
    ) throws -> Result {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable ?? Self.executable)
        process.arguments = arguments
        if let folder { process.currentDirectoryURL = URL(fileURLWithPath: folder) }
        if !environment.isEmpty {
            process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        }
        let output = Pipe()
        let error = Pipe()
        process.standardOutput = output
        process.standardError = error
        try process.run()
        let outputData = output.fileHandleForReading.readDataToEndOfFile()
        let errorData = error.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return Result(
            status: process.terminationStatus,
            standardOutput: String(decoding: outputData, as: UTF8.self),
            standardError: String(decoding: errorData, as: UTF8.self))
    }
}

/// Paths of the repository's test assets and a scratch folder.
enum CLIAssets {
    static let root = TestLocations.assets

    static func path(_ relative: String) -> String { root + "/" + relative }

    static func scratchFolder() throws -> String {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("glance-cli-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        return folder.path
    }
}

/// Runs `glance` with arguments given as raw bytes (names that are not UTF-8 cannot pass through
/// `Process`, which encodes Swift strings), collecting raw output.
enum RawGlanceProcess {
    struct Result: Sendable {
        let status: Int32
        let standardOutput: [UInt8]
        let standardError: [UInt8]
    }

    /// Runs `glance` with `arguments` and waits for its end on a thread of its own.
    static func run(_ arguments: [[UInt8]]) async throws -> Result {
        try await onThreadOfItsOwn { try runWaiting(arguments) }
    }

    private static func runWaiting(_ arguments: [[UInt8]]) throws -> Result {
        let folder = try CLIAssets.scratchFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let outPath = folder + "/out"
        let errPath = folder + "/err"
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 1, outPath, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        posix_spawn_file_actions_addopen(&actions, 2, errPath, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        let all = [Array(GlanceProcess.executable.utf8)] + arguments
        let argv: [UnsafeMutablePointer<CChar>?] =
            all.map { bytes in
                let pointer = UnsafeMutablePointer<CChar>.allocate(capacity: bytes.count + 1)
                for (index, byte) in bytes.enumerated() { pointer[index] = CChar(bitPattern: byte) }
                pointer[bytes.count] = 0
                return pointer
            } + [nil]
        defer { argv.forEach { $0?.deallocate() } }
        var pid: pid_t = 0
        let spawned = posix_spawn(&pid, GlanceProcess.executable, &actions, nil, argv, environ)
        guard spawned == 0 else { throw POSIXError(POSIXErrorCode(rawValue: spawned) ?? .EIO) }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        let output = try [UInt8](Data(contentsOf: URL(fileURLWithPath: outPath)))
        let error = try [UInt8](Data(contentsOf: URL(fileURLWithPath: errPath)))
        return Result(status: (status >> 8) & 0xFF, standardOutput: output, standardError: error)
    }
}

/// The processes whose parent is `pid` (read from /proc): a stopped glance must leave none.
func childProcesses(of pid: Int32) throws -> [Int32] {
    try FileManager.default.contentsOfDirectory(atPath: "/proc").compactMap(Int32.init).filter {
        ((try? String(contentsOfFile: "/proc/\($0)/status", encoding: .utf8)) ?? "").contains("PPid:\t\(pid)\n")
    }
}

/// Where each thread of process `pid` is (its name, state and kernel wait channel, from /proc):
/// what a test that gave up waiting on a process says about it.
func threadStates(of pid: Int32) -> String {
    let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task")) ?? []
    return tasks.sorted().map { task in
        func read(_ name: String) -> String {
            ((try? String(contentsOfFile: "/proc/\(pid)/task/\(task)/\(name)", encoding: .utf8)) ?? "?")
                .trimmingCharacters(in: .whitespacesAndNewlines)
        }
        // The state is the field after the parenthesised name in stat.
        let stat = read("stat")
        let state = stat.range(of: ") ").map { String(stat[$0.upperBound...].prefix(1)) } ?? "?"
        return "\(task) \(read("comm")) \(state) \(read("wchan"))"
    }.joined(separator: "; ")
}

/// Whether process `pid` handles `signal` itself now (its SigCgt mask in /proc lists it): glance
/// installs its handlers for SIGINT and SIGTERM once it is ready to stop in order, so a test
/// that signals it waits for this instead of guessing how long that takes.
func handlesSignal(_ signal: Int32, pid: Int32) -> Bool {
    let status = (try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)) ?? ""
    guard let line = status.split(separator: "\n").first(where: { $0.hasPrefix("SigCgt:") }),
        let mask = UInt64(line.dropFirst("SigCgt:".count).trimmingCharacters(in: .whitespaces), radix: 16)
    else { return false }
    return mask & (1 << UInt64(signal - 1)) != 0
}

/// ``endProcess(_:within:overdue:)`` for async tests, which holds no task's thread; when the
/// process ended, or nil if it was overdue (and killed).
func endProcess(_ process: Process, within limit: Duration, overdue: (Process) -> Void = { _ in }) async
    -> ContinuousClock.Instant?
{
    if let ended = await exitInstant(of: process, within: limit) { return ended }
    overdue(process)
    kill(process.processIdentifier, SIGKILL)
    _ = await exited(process, within: .seconds(10))
    return nil
}

/// ``waitForExit(_:within:)`` for async tests: when the process ended, or nil (the issue recorded).
func exitInstant(ofGlance process: Process, within limit: Duration) async -> ContinuousClock.Instant? {
    await endProcess(process, within: limit) { process in
        Issue.record("glance still running after \(limit); threads: \(threadStates(of: process.processIdentifier))")
    }
}

/// ``waitForExit(_:within:)`` for async tests, which holds no task's thread.
func waitForExit(_ process: Process, within limit: Duration) async -> Bool {
    await exitInstant(ofGlance: process, within: limit) != nil
}

/// ``stopWithSIGTERM(_:within:)`` for async tests, which holds no task's thread; the time taken
/// is to the exit itself, however late this task resumes.
func stopWithSIGTERM(_ process: Process, within limit: Duration) async -> (stopped: Bool, seconds: Double) {
    let start = ContinuousClock.now
    kill(process.processIdentifier, SIGTERM)
    let ended = await exitInstant(ofGlance: process, within: limit)
    let took = (ended ?? .now) - start
    return (ended != nil, Double(took.components.seconds) + Double(took.components.attoseconds) / 1e18)
}
