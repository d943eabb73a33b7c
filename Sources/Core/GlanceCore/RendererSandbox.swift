/// How renderer processes are confined. The strongest one that works on the machine is chosen
/// when the first worker starts; `glance --version` and `generate --json` say which is active.
public enum RendererSandbox: String, Sendable, Codable, CaseIterable {
    /// bubblewrap (new mount, network, PID, IPC, UTS and user namespaces; the file system read-only,
    /// homes and temporary folders hidden) around a worker that then confines itself with seccomp.
    case bubblewrapAndSeccomp = "bubblewrap+seccomp"
    /// The worker confines itself: no_new_privs and a seccomp filter that kills it on any system
    /// call a renderer has no use for (sockets, exec, fork, writing files, ptrace).
    case seccomp
    /// No confinement beyond the time, CPU and memory limits (`--no-sandbox`, for debugging).
    case none

    /// The exit status of a worker that was asked to confine itself and could not: it never reads
    /// a document unconfined.
    public static let unavailableExitStatus: Int32 = 78
    /// The signal the kernel kills a worker with when it breaks its seccomp filter (SIGSYS).
    public static let violationSignal: Int32 = 31
    /// The signal of a worker past its CPU-time limit (SIGXCPU; SIGKILL a second later).
    public static let cpuLimitSignal: Int32 = 24
}

/// The limits a worker runs under, each with the option that sets it.
public struct RendererLimits: Sendable, Equatable {
    /// Seconds of wall-clock time one document may take (`--timeout`).
    public var timeoutSeconds: Double
    /// The worker's address space, in MiB (`--memory-limit`; 0: none).
    public var memoryMiB: Int
    /// Seconds of CPU time one document may take, counted over all of the worker's threads
    /// (`--cpu-limit`; 0: none).
    public var cpuSeconds: Int

    public static let defaultTimeoutSeconds = 30.0
    public static let defaultMemoryMiB = 1024
    public static let defaultCPUSeconds = 60

    public init(
        timeoutSeconds: Double = Self.defaultTimeoutSeconds, memoryMiB: Int = Self.defaultMemoryMiB,
        cpuSeconds: Int = Self.defaultCPUSeconds
    ) {
        self.timeoutSeconds = timeoutSeconds
        self.memoryMiB = memoryMiB
        self.cpuSeconds = cpuSeconds
    }
}

/// The earlier name of ``RendererSandbox``, kept for one release.
@available(*, deprecated, renamed: "RendererSandbox")
public typealias WorkerSandbox = RendererSandbox

/// The earlier name of ``RendererLimits``, kept for one release.
@available(*, deprecated, renamed: "RendererLimits")
public typealias WorkerLimits = RendererLimits
