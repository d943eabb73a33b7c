import Foundation
import GlanceCore
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// Finds the strongest sandbox that works on this machine for a worker executable: bubblewrap and
/// seccomp, seccomp alone (no bubblewrap installed, or user namespaces not allowed, as inside
/// another sandbox), or none at all when a worker cannot even confine itself.
///
/// Whether seccomp is there is read at once. Whether bubblewrap works is learned from the first
/// worker a pool starts under it (``record(bubblewrapWorks:)``): its greeting
/// (``RendererGreeting``) shows that bubblewrap made the sandbox, and bubblewrap's own exit status 1
/// before it shows that it could not. Only when an answer is asked for before any worker
/// showed one (``result()``: `glance --version`, a batch with nothing to render) does the probe
/// try bubblewrap itself, by running `true` in the worker's layout (a process start, about 5 ms
/// of CPU time, that a batch no longer spends while its own workers start).
public final class SandboxProbe: Sendable {
    private enum State {
        /// bubblewrap is installed, and neither a worker nor a trial has tried it yet.
        case untried
        case decided(RendererSandbox?)
    }

    private let executable: String
    private let state: Mutex<State>

    /// Starts finding the sandbox for `executable`.
    public init(executable: String) {
        self.executable = executable
        state = Mutex(Self.start())
    }

    /// The strongest sandbox that works here, or nil when a worker cannot confine itself; tries
    /// bubblewrap (and waits for it) if no worker has shown yet whether it works.
    public func result() -> RendererSandbox? {
        state.withLock { state in
            if case .untried = state {
                state = .decided(Self.trial(executable: executable))
            }
            guard case .decided(let sandbox) = state else { return nil }
            return sandbox
        }
    }

    /// The answer if it is known without trying anything: seccomp's check is instant, bubblewrap's
    /// answer comes from the first worker started under it; nil until then.
    public var knownResult: RendererSandbox?? {
        state.withLock { state in
            guard case .decided(let sandbox) = state else { return nil }
            return .some(sandbox)
        }
    }

    /// Records what a worker started under bubblewrap showed, if nothing was known yet: it
    /// greeted (bubblewrap works), or bubblewrap exited with its own failure status before the
    /// worker ran (seccomp alone remains). The first answer stays.
    public func record(bubblewrapWorks: Bool) {
        state.withLock { state in
            guard case .untried = state else { return }
            state = .decided(bubblewrapWorks ? .bubblewrapAndSeccomp : .seccomp)
        }
    }

    /// The first step: the answer when no trial is needed, else bubblewrap still to be tried.
    private static func start() -> State {
        // seccomp: the kernel has it (a filter above us that forbids adding one makes the worker
        // exit with RendererSandbox.unavailableExitStatus, and its documents fail saying so).
        let processStatus = String(decoding: Bubblewrap.readToEnd("/proc/self/status"), as: UTF8.self)
        guard processStatus.contains("\nSeccomp:") else { return .decided(nil) }
        guard Bubblewrap.executable != nil, Bubblewrap.trueProgram != nil else { return .decided(.seccomp) }
        return .untried
    }

    /// Runs `true` in the worker's layout: bubblewrap when it ran, seccomp otherwise.
    private static func trial(executable: String) -> RendererSandbox {
        guard let bubblewrap = Bubblewrap.executable, let trueProgram = Bubblewrap.trueProgram else { return .seccomp }
        let argv = [bubblewrap] + Bubblewrap.arguments(worker: executable) + ["--", trueProgram]
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        for descriptor: Int32 in [0, 1, 2] {
            posix_spawn_file_actions_addopen(
                &actions, descriptor, "/dev/null", descriptor == 0 ? O_RDONLY : O_WRONLY, 0)
        }
        var child: pid_t = 0
        guard RendererLaunch.spawn(&child, bubblewrap, argv, &actions, nil) == 0 else { return .seccomp }
        var status: Int32 = 0
        while waitpid(child, &status, 0) < 0 {
            if errno != EINTR { return .seccomp }
        }
        // A wait status of 0 is an exit with status 0, not a signal: `true` ran.
        return status == 0 ? .bubblewrapAndSeccomp : .seccomp
    }
}
