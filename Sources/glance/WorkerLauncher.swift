import ArgumentParser
import GlanceCore
import GlancePipeline

#if canImport(Glibc)
    import Glibc
#endif

/// How `glance` starts its renderer processes: `glance-worker`, installed beside it, confined by
/// the strongest sandbox the machine allows.
enum WorkerLauncher {
    /// The worker executable: `glance-worker` in the folder of this executable (found once a
    /// process: a command asks for it for the sandbox's probe and again for its pool).
    static let executablePath: String = {
        var buffer = [CChar](repeating: 0, count: 4096)
        let length = readlink("/proc/self/exe", &buffer, buffer.count - 1)
        let own =
            length > 0
            ? FileName.decode(buffer[0..<length].map { UInt8(bitPattern: $0) }) : CommandLine.arguments[0]
        let folder = own.split(separator: "/", omittingEmptySubsequences: false).dropLast().joined(separator: "/")
        return (folder.isEmpty ? "." : folder) + "/glance-worker"
    }()

    /// How many workers a command that is about to render starts at once (`startingAhead`):
    /// enough for a small folder or a save to find its workers ready, not a machine's worth of
    /// processes for a folder that may hold three documents; the others start as jobs come.
    static let workersStartedAhead = 2

    /// The pool configuration for `workers` workers under these limits and sandbox options: the
    /// sandbox is found by trying (``SandboxProbe``), with `probe` when the command made one
    /// earlier (``SandboxOptions/startProbe()``). A probe that does not know yet whether
    /// bubblewrap works goes to the pool, whose first workers are its trial.
    /// `startingAhead`: the command is about to render, and its first ``workersStartedAhead``
    /// workers start when the pool is made, while it does its own start-up.
    static func configuration(
        workers: Int, timeoutSeconds: Double, memoryMiB: Int = WorkerLimits.defaultMemoryMiB,
        sandbox: SandboxOptions, probe: SandboxProbe? = nil, triggers: WorkerDebugTriggers = .init(),
        startingAhead: Bool = false
    ) throws -> WorkerPool.Configuration {
        let executable = executablePath
        let (resolved, pending) = try sandbox.resolve(probe, worker: executable)
        var configuration = WorkerPool.Configuration(
            executable: executable, arguments: triggers.arguments, workers: workers,
            limits: WorkerLimits(timeoutSeconds: timeoutSeconds, memoryMiB: memoryMiB, cpuSeconds: sandbox.cpuLimit),
            sandbox: resolved)
        configuration.pendingProbe = pending
        configuration.workersStartedAhead = startingAhead ? workersStartedAhead : 0
        return configuration
    }
}

/// `--no-sandbox` and `--cpu-limit`: the options every command that renders shares.
struct SandboxOptions: ParsableArguments {
    @Flag(
        help: """
            Run renderers without a sandbox (for debugging only). By default each renderer runs \
            under bubblewrap when it works here, and always under a seccomp filter that kills it \
            on a network socket, exec, or opening a file for writing.
            """)
    var noSandbox = false

    @Option(
        help: ArgumentHelp(
            "CPU seconds one document may use, over all of its renderer's threads (0: no limit).",
            valueName: "SECONDS"))
    var cpuLimit = WorkerLimits.defaultCPUSeconds

    func validate() throws {
        guard (0...86_400).contains(cpuLimit) else {
            throw ValidationError("--cpu-limit must be between 0 (no limit) and 86400 seconds.")
        }
    }

    /// Starts finding the sandbox renderers will run in, to be read by
    /// ``WorkerLauncher/configuration(workers:timeoutSeconds:memoryMiB:sandbox:probe:triggers:)``;
    /// nil with `--no-sandbox`, which needs no probe.
    func startProbe() -> SandboxProbe? {
        noSandbox ? nil : SandboxProbe(executable: WorkerLauncher.executablePath)
    }

    /// The sandbox to run `worker` in: none when asked, else the strongest that works, as `probe`
    /// (or a probe made now) finds it. While no worker has shown whether bubblewrap works,
    /// bubblewrap is the answer, tentatively, and the probe comes back with it for the pool.
    func resolve(_ probe: SandboxProbe?, worker: String) throws -> (WorkerSandbox, pending: SandboxProbe?) {
        if noSandbox {
            StandardError.write("glance: renderers run without a sandbox (--no-sandbox)")
            return (.none, nil)
        }
        let probe = probe ?? SandboxProbe(executable: worker)
        guard let known = probe.knownResult else { return (.bubblewrapAndSeccomp, probe) }
        // No sandbox works (a kernel without seccomp, or a filter above glance that forbids
        // one): documents are not read unconfined unless asked for.
        guard let sandbox = known else {
            throw CommandFailure.unusable(
                "renderers cannot be sandboxed here (seccomp is unavailable); --no-sandbox runs them without one")
        }
        return (sandbox, nil)
    }
}
