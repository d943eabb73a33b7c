internal import CFileAccess
internal import CProcess
import Foundation
import GlanceContainer
import GlanceCore

#if canImport(Glibc)
    import Glibc
#endif

/// How waiting for a worker's reply ended.
enum RendererReply {
    case outcome(RenderOutcome)
    /// No reply within the time limit; the worker has been killed.
    case timedOut
    /// The worker died; `reason` says how (`renderer crashed (signal 11)`), `limit` which limit
    /// ended it, if one did.
    case died(reason: String, limit: RenderLimit? = nil)
}

/// Why a renderer process could not be started; the job it was for fails with `reason`.
struct RendererStartError: Error {
    let reason: String
}

/// One supervised renderer process (`glance worker`), talked to over a Unix socket pair: its
/// greeting comes first (``RendererGreeting``), then jobs go down with the document's descriptor
/// attached and replies come back.
///
/// Owned by one pool thread; not shared. The process is killed when this object goes away.
final class RendererProcess {
    let pid: pid_t
    let launch: RendererLaunch
    /// The per-document CPU limit the worker runs under, for the reason of a death by it.
    private let cpuSeconds: Int
    /// Our end of the socket pair (the worker's is its standard input and output).
    private let channel: Int32
    private var replies = RendererReplyReader()
    /// Where `receive` reads the socket into: made once, not made and zeroed (64 KiB) for every
    /// read of every reply.
    private var readBuffer = [UInt8](repeating: 0, count: 1 << 16)
    /// How much of ``RendererGreeting/line`` has arrived.
    private var greetingBytes = 0
    /// How the process ended, once reaped.
    private var death: RendererDeath?
    /// Started under bubblewrap while the pool's probe did not know whether it works, and not
    /// yet heard from: its greeting, or bubblewrap's failure, is the probe's answer.
    var isSandboxTrial = false

    /// Whether the worker has greeted: it started and confined itself, and reads jobs.
    var greeted: Bool { greetingBytes == RendererGreeting.line.count }

    /// Whether the worker ended before its greeting with bubblewrap's failure status: bubblewrap
    /// could not make its sandbox (no document can cause that: none is read before the greeting).
    var bubblewrapFailed: Bool {
        launch.sandbox == .bubblewrapAndSeccomp && !greeted
            && death == .exited(RendererLaunch.bubblewrapFailureStatus)
    }

    /// Starts the worker `launch` describes; its stdin and stdout are the other end of our socket
    /// pair, stderr is discarded (a dying C library's last words would break the
    /// one-line-per-failure promise).
    init(launch: RendererLaunch, cpuSeconds: Int) throws(RendererStartError) {
        var launch = launch
        if launch.needsOfficeWorkspace {
            launch.officeWorkspace = try Self.makeWorkspace(in: launch.officeWorkspaceParent)
        }
        self.launch = launch
        self.cpuSeconds = cpuSeconds
        let (executable, commandLine) = launch.commandLine
        var ends: [Int32] = [0, 0]
        // Close-on-exec, so that no other worker inherits these ends: a worker's death must
        // close the socket, which is how its death is noticed.
        guard glance_socketpair_cloexec(&ends) == 0 else {
            Self.removeWorkspace(launch.officeWorkspace)
            throw Self.failure("socketpair")
        }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, ends[1], 0)
        posix_spawn_file_actions_adddup2(&actions, ends[1], 1)
        posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
        // Nothing else crosses into the worker (see glance_spawn_close_from).
        _ = glance_spawn_close_from(&actions, 3)
        // A process group of its own: under bubblewrap the worker is a grandchild, which killing
        // the bwrap we started does not reach (its parent-death signal is lost when it enters its
        // user namespace); killing the group does. It also keeps the terminal's Ctrl-C for glance.
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETPGROUP))
        posix_spawnattr_setpgroup(&attributes, 0)
        var child: pid_t = 0
        let status = RendererLaunch.spawn(&child, executable, commandLine, &actions, &attributes)
        close(ends[1])
        guard status == 0 else {
            close(ends[0])
            Self.removeWorkspace(launch.officeWorkspace)
            throw RendererStartError(reason: "cannot start \(executable): \(String(cString: strerror(status)))")
        }
        pid = child
        channel = ends[0]
    }

    deinit {
        terminate()
        close(channel)
    }

    /// A new folder, this user's alone, for an office renderer outside bubblewrap to write in
    /// (in `parent`, else under `TMPDIR`, else `/tmp`).
    private static func makeWorkspace(in parent: String?) throws(RendererStartError) -> String {
        let parent =
            parent ?? ProcessInfo.processInfo.environment["TMPDIR"].flatMap { $0.hasPrefix("/") ? $0 : nil } ?? "/tmp"
        var template = Array((parent + "/glance-office-XXXXXX").utf8CString)
        guard let made = mkdtemp(&template) else { throw failure("mkdtemp in \(parent)") }
        return String(cString: made)
    }

    /// Removes an office renderer's workspace and all LibreOffice left in it.
    private static func removeWorkspace(_ folder: String?) {
        guard let folder else { return }
        try? FileManager.default.removeItem(atPath: folder)
    }

    private static func failure(_ call: String) -> RendererStartError {
        RendererStartError(reason: "cannot start a renderer: \(call): \(String(cString: strerror(errno)))")
    }

    /// Sends a job with the document's descriptor; false if the worker is gone.
    func send(_ job: RenderJob, file: OpenFile) -> Bool {
        guard var line = try? JSONEncoder().encode(job).map({ $0 }) else { return false }
        line.append(0x0A)
        // The descriptor rides on the first part; the rest of a long line follows without one.
        let first = line.withUnsafeBytes {
            glance_send_with_descriptor(channel, $0.baseAddress, $0.count, file.descriptor)
        }
        guard first > 0 else { return false }
        return first == line.count || DescriptorWriter.writeAll(Array(line[first...]), to: channel)
    }

    /// Waits up to `timeout` seconds for the reply to `job`, and checks it: a reply that does
    /// not answer this job, or claims an impossible image, kills the worker (it is not to be
    /// believed about anything else either).
    func receive(for job: RenderJob, timeout: Double) -> RendererReply {
        // Options are checked to be finite and at most a day; clamp anyway, as a conversion of
        // an infinite Double to an integer traps.
        let nanoseconds = UInt64(min(max(timeout, 0), 86_400) * 1e9)
        let deadline = DispatchTime.now().uptimeNanoseconds + nanoseconds
        while true {
            switch replies.next(for: job) {
            case .outcome(let outcome): return .outcome(outcome)
            case .invalid:
                terminate()
                return .died(reason: "renderer sent an invalid reply")
            case .needMore: break
            }
            let now = DispatchTime.now().uptimeNanoseconds
            guard now < deadline else {
                terminate()
                return .timedOut
            }
            var poller = pollfd(fd: channel, events: Int16(POLLIN), revents: 0)
            let ready = poll(&poller, 1, Int32(min(UInt64(Int32.max), (deadline - now) / 1_000_000 + 1)))
            if ready < 0 && errno == EINTR { continue }
            if ready <= 0 { continue }
            let count = readBuffer.withUnsafeMutableBytes { read(channel, $0.baseAddress!, $0.count) }
            if count < 0 && errno == EINTR { continue }
            if count <= 0 {
                let (reason, limit) = reap()
                return .died(reason: reason, limit: limit)
            }
            guard let reply = afterGreeting(readBuffer[0..<count]) else {
                terminate()
                return .died(reason: "renderer sent an invalid reply")
            }
            replies.append(reply)
        }
    }

    /// The part of `bytes` after the greeting, matching what of the greeting they hold; nil if
    /// they do not start as the rest of the greeting does.
    private func afterGreeting(_ bytes: ArraySlice<UInt8>) -> ArraySlice<UInt8>? {
        let expected = RendererGreeting.line
        let count = min(expected.count - greetingBytes, bytes.count)
        guard bytes.prefix(count).elementsEqual(expected[greetingBytes..<(greetingBytes + count)]) else { return nil }
        greetingBytes += count
        return bytes.dropFirst(count)
    }

    /// Kills the worker (if still running) and reaps it.
    func terminate() {
        guard death == nil else { return }
        kill(-pid, SIGKILL)
        _ = reap()
    }

    /// Waits for the worker to end and describes how it ended.
    private func reap() -> (reason: String, limit: RenderLimit?) {
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        let ended = launch.death(fromWaitStatus: status)
        death = ended
        Self.removeWorkspace(launch.officeWorkspace)
        return ended.reason(cpuLimitSeconds: cpuSeconds)
    }
}
