import Foundation
import GlanceCore
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// Finds the strongest sandbox that works on this machine for a worker executable, by trying it:
/// bubblewrap and seccomp, seccomp alone (no bubblewrap installed, or user namespaces not allowed,
/// as inside another sandbox), or none at all when a worker cannot even confine itself.
///
/// Trying bubblewrap means running `true` in the worker's layout (about 10 ms). The probe starts
/// that child as soon as it is made and waits for it only when ``result()`` is asked, so that a
/// command can open its store and scan its container meanwhile.
public final class SandboxProbe: Sendable {
    private enum State {
        /// bubblewrap's trial is running as this process.
        case trying(pid_t)
        case decided(WorkerSandbox?)
    }

    private let state: Mutex<State>

    /// Starts finding the sandbox for `executable`.
    public init(executable: String) {
        state = Mutex(Self.start(executable: executable))
    }

    /// The strongest sandbox that works here, or nil when a worker cannot confine itself; waits
    /// for bubblewrap's trial if it is still running.
    public func result() -> WorkerSandbox? {
        state.withLock { state in
            if case .trying(let child) = state {
                state = .decided(Self.finish(child))
            }
            guard case .decided(let sandbox) = state else { return nil }
            return sandbox
        }
    }

    /// Whether the answer is known without waiting: seccomp's check is instant, bubblewrap's
    /// trial takes a process; nil while that trial runs.
    public var knownResult: WorkerSandbox?? {
        state.withLock { state in
            guard case .decided(let sandbox) = state else { return nil }
            return .some(sandbox)
        }
    }

    /// bubblewrap's trial process while it has not been waited for (for tests).
    var trialProcess: pid_t? {
        state.withLock { state in
            guard case .trying(let child) = state else { return nil }
            return child
        }
    }

    deinit {
        // A probe nobody asked: reap its child all the same.
        _ = result()
    }

    /// The first step: the answer when no trial is needed, else bubblewrap's trial started.
    private static func start(executable: String) -> State {
        // seccomp: the kernel has it (a filter above us that forbids adding one makes the worker
        // exit with WorkerSandbox.unavailableExitStatus, and its documents fail saying so).
        let processStatus = String(decoding: Bubblewrap.readToEnd("/proc/self/status"), as: UTF8.self)
        guard processStatus.contains("\nSeccomp:") else { return .decided(nil) }
        guard let bubblewrap = Bubblewrap.executable, let trueProgram = Bubblewrap.trueProgram else {
            return .decided(.seccomp)
        }
        let argv = [bubblewrap] + Bubblewrap.arguments(worker: executable) + ["--", trueProgram]
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        for descriptor: Int32 in [0, 1, 2] {
            posix_spawn_file_actions_addopen(
                &actions, descriptor, "/dev/null", descriptor == 0 ? O_RDONLY : O_WRONLY, 0)
        }
        var child: pid_t = 0
        guard WorkerLaunch.spawn(&child, bubblewrap, argv, &actions, nil) == 0 else { return .decided(.seccomp) }
        return .trying(child)
    }

    /// Waits for bubblewrap's trial: bubblewrap when `true` ran in the layout, seccomp otherwise.
    private static func finish(_ child: pid_t) -> WorkerSandbox {
        var status: Int32 = 0
        while waitpid(child, &status, 0) < 0 {
            if errno != EINTR { return .seccomp }
        }
        // A wait status of 0 is an exit with status 0, not a signal: `true` ran.
        return status == 0 ? .bubblewrapAndSeccomp : .seccomp
    }
}
