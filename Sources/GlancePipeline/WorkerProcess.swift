internal import CProcess
import Foundation
import GlanceRender

#if canImport(Glibc)
    import Glibc
#endif

/// How waiting for a worker's reply ended.
enum WorkerReply {
    case outcome(RenderOutcome)
    /// No reply within the time limit; the worker has been killed.
    case timedOut
    /// The worker died; `reason` says how (`renderer crashed (signal 11)`).
    case died(reason: String)
}

/// One supervised renderer process (`glance worker`), talked to over two pipes.
///
/// Owned by one pool thread; not shared. The process is killed when this object goes away.
final class WorkerProcess {
    let pid: pid_t
    private let toWorker: Int32
    private let fromWorker: Int32
    private var buffer: [UInt8] = []
    private var exited = false

    /// Starts `executable` with `arguments`; its stdin/stdout are our pipes, stderr is discarded
    /// (a dying C library's last words would break the one-line-per-failure promise).
    init(executable: String, arguments: [String]) throws(ContainerError) {
        var input: [Int32] = [0, 0]
        var output: [Int32] = [0, 0]
        // Close-on-exec, so that no other worker inherits these ends: a worker's death must
        // close the pipe, which is how its death is noticed.
        guard glance_pipe_cloexec(&input) == 0 else { throw Self.failure("pipe") }
        guard glance_pipe_cloexec(&output) == 0 else {
            close(input[0])
            close(input[1])
            throw Self.failure("pipe")
        }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, input[0], 0)
        posix_spawn_file_actions_adddup2(&actions, output[1], 1)
        posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
        let argv: [UnsafeMutablePointer<CChar>?] = ([executable] + arguments).map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var child: pid_t = 0
        let status = posix_spawn(&child, executable, &actions, nil, argv, environ)
        close(input[0])
        close(output[1])
        guard status == 0 else {
            close(input[1])
            close(output[0])
            throw ContainerError(
                path: executable, reason: "cannot start a worker: \(String(cString: strerror(status)))")
        }
        pid = child
        toWorker = input[1]
        fromWorker = output[0]
    }

    deinit {
        terminate()
        close(toWorker)
        close(fromWorker)
    }

    private static func failure(_ call: String) -> ContainerError {
        ContainerError(path: call, reason: String(cString: strerror(errno)))
    }

    /// Sends a job; false if the worker is gone.
    func send(_ job: RenderJob) -> Bool {
        guard var line = try? JSONEncoder().encode(job).map({ $0 }) else { return false }
        line.append(0x0A)
        return DescriptorIO.writeAll(line, to: toWorker)
    }

    /// Waits up to `timeout` seconds for the reply to the job just sent.
    func receive(timeout: Double) -> WorkerReply {
        let deadline = DispatchTime.now().uptimeNanoseconds + UInt64(timeout * 1e9)
        var header: RenderOutcome?
        while true {
            if header == nil, let newline = buffer.firstIndex(of: 0x0A) {
                guard let decoded = try? JSONDecoder().decode(RenderOutcome.self, from: Data(buffer[..<newline])) else {
                    terminate()
                    return .died(reason: "renderer sent an unreadable reply")
                }
                buffer.removeFirst(newline + 1)
                header = decoded
            }
            if var outcome = header, buffer.count >= outcome.byteCount {
                outcome.data = Array(buffer[..<outcome.byteCount])
                buffer.removeFirst(outcome.byteCount)
                return .outcome(outcome)
            }
            let now = DispatchTime.now().uptimeNanoseconds
            guard now < deadline else {
                terminate()
                return .timedOut
            }
            var poller = pollfd(fd: fromWorker, events: Int16(POLLIN), revents: 0)
            let ready = poll(&poller, 1, Int32(min(UInt64(Int32.max), (deadline - now) / 1_000_000 + 1)))
            if ready < 0 && errno == EINTR { continue }
            if ready <= 0 { continue }
            var chunk = [UInt8](repeating: 0, count: 1 << 16)
            let count = chunk.withUnsafeMutableBytes { read(fromWorker, $0.baseAddress!, $0.count) }
            if count < 0 && errno == EINTR { continue }
            if count <= 0 { return .died(reason: reap()) }
            buffer.append(contentsOf: chunk[0..<count])
        }
    }

    /// Kills the worker (if still running) and reaps it.
    func terminate() {
        guard !exited else { return }
        kill(pid, SIGKILL)
        _ = reap()
    }

    /// Waits for the worker to end and describes how it ended.
    private func reap() -> String {
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        exited = true
        // WIFSIGNALED / WTERMSIG / WEXITSTATUS are macros; this is what they compute.
        let signal = status & 0x7F
        if signal != 0 && signal != 0x7F { return ThumbnailError.rendererCrashed(signal: signal).description }
        return "renderer exited unexpectedly (status \((status >> 8) & 0xFF))"
    }
}
