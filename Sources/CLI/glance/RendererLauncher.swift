import ArgumentParser
import Glance
import GlanceCore
import GlancePipeline

#if canImport(Glibc)
    import Glibc
#endif

/// How `glance` starts its renderer processes: `glance-renderer`, installed beside it, confined by
/// the strongest sandbox the machine allows.
enum RendererLauncher {
    /// The worker executable: `glance-renderer` in the folder of this executable (found once a
    /// process: a command asks for it for the sandbox's probe and again for its pool).
    static let executablePath = RendererSettings.rendererBesideExecutable

    /// How many renderers a command that is about to render starts at once (`startingAhead`):
    /// enough for a small folder or a save to find its renderers ready, not a machine's worth of
    /// processes for a folder that may hold three documents; the others start as jobs come.
    static let renderersStartedAhead = 2

    /// The pool configuration for `renderers` renderers under these limits and sandbox options: the
    /// sandbox is found by trying (``SandboxProbe``), with `probe` when the command made one
    /// earlier (``SandboxOptions/startProbe()``). A probe that does not know yet whether
    /// bubblewrap works goes to the pool, whose first renderers are its trial.
    /// `startingAhead`: the command is about to render, and its first ``renderersStartedAhead``
    /// renderers start when the pool is made, while it does its own start-up.
    static func configuration(
        renderers: Int, timeoutSeconds: Double, memoryMiB: Int = RendererLimits.defaultMemoryMiB,
        sandbox: SandboxOptions, probe: SandboxProbe? = nil, triggers: RendererDebugTriggers = .init(),
        startingAhead: Bool = false
    ) throws -> RendererPool.Configuration {
        if sandbox.noSandbox { StandardError.write("glance: renderers run without a sandbox (--no-sandbox)") }
        var settings = RendererSettings(
            rendererExecutable: executablePath, renderers: renderers,
            limits: RendererLimits(timeoutSeconds: timeoutSeconds, memoryMiB: memoryMiB, cpuSeconds: sandbox.cpuLimit),
            sandbox: sandbox.noSandbox ? .none : .strongest)
        settings.office = sandbox.office.lane(jobs: renderers, cpuSeconds: sandbox.cpuLimit)
        return try settings.poolConfiguration(
            probe: probe, arguments: triggers.arguments,
            renderersStartedAhead: startingAhead ? renderersStartedAhead : 0)
    }

    /// The same, with a command's `--timeout` and `--memory-limit`.
    static func configuration(
        renderers: Int, limits: RendererLimitOptions, sandbox: SandboxOptions, probe: SandboxProbe? = nil,
        triggers: RendererDebugTriggers = .init(), startingAhead: Bool = false
    ) throws -> RendererPool.Configuration {
        try configuration(
            renderers: renderers, timeoutSeconds: limits.timeout, memoryMiB: limits.memoryLimit, sandbox: sandbox,
            probe: probe, triggers: triggers, startingAhead: startingAhead)
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
        parsing: .unconditional,
        help: ArgumentHelp(
            "CPU seconds one document may use, over all of its renderer's threads (0: no limit).",
            valueName: "SECONDS"))
    var cpuLimit = RendererLimits.defaultCPUSeconds

    @OptionGroup(title: "Office documents") var office: OfficeOptions

    func validate() throws {
        guard (0...86_400).contains(cpuLimit) else {
            throw ValidationError("--cpu-limit must be between 0 (no limit) and 86400 seconds.")
        }
    }

    /// Starts finding the sandbox renderers will run in, to be read by
    /// ``RendererLauncher/configuration(renderers:timeoutSeconds:memoryMiB:sandbox:probe:triggers:)``;
    /// nil with `--no-sandbox`, which needs no probe.
    func startProbe() -> SandboxProbe? {
        noSandbox ? nil : SandboxProbe(executable: RendererLauncher.executablePath)
    }
}

/// `--office-renderers`, `--office-timeout` and `--office-memory-limit`: the office lane, the
/// renderers that run LibreOffice (part of ``SandboxOptions``, so every command that renders has
/// them).
struct OfficeOptions: ParsableArguments {
    @Option(
        parsing: .unconditional,
        help: ArgumentHelp(
            """
            LibreOffice renderers for office documents (Word, Excel, PowerPoint, OpenDocument, RTF), \
            beside the others and at a lower priority (default: as many as --jobs, at most 4 and one \
            a GiB of memory). 0: none; office documents are then drawn from the thumbnail they \
            carry, when they have one.
            """, valueName: "N"))
    var officeRenderers: Int?

    @Option(
        parsing: .unconditional,
        help: ArgumentHelp("Seconds one office document may take.", valueName: "SECONDS"))
    var officeTimeout: Double = OfficeLane.defaultLimits.timeoutSeconds

    @Option(
        parsing: .unconditional,
        help: ArgumentHelp("Memory limit of each office renderer, in MiB (address space).", valueName: "MIB"))
    var officeMemoryLimit: Int = OfficeLane.defaultLimits.memoryMiB

    func validate() throws {
        if let officeRenderers, !(0...16).contains(officeRenderers) {
            throw ValidationError("--office-renderers must be between 0 and 16.")
        }
        try OptionChecks.timeout(officeTimeout, option: "--office-timeout")
        guard (1024...OptionChecks.maximumMemoryLimit).contains(officeMemoryLimit) else {
            throw ValidationError(
                "--office-memory-limit must be between 1024 and \(OptionChecks.maximumMemoryLimit) (MiB): "
                    + "LibreOffice maps close to a GiB drawing a large sheet.")
        }
    }

    /// The office lane these options ask for beside `jobs` renderers, when LibreOffice is
    /// installed; nil with
    /// `--office-renderers 0`. Its CPU limit is four times the others' (`cpuSeconds`), as its
    /// time limit is by default.
    func lane(jobs: Int, cpuSeconds: Int) -> OfficeLane? {
        guard officeRenderers != 0, var lane = OfficeLane.installed() else { return nil }
        lane.renderers = officeRenderers ?? OfficeLane.defaultRenderers(processors: jobs)
        lane.limits = RendererLimits(
            timeoutSeconds: officeTimeout, memoryMiB: officeMemoryLimit,
            cpuSeconds: cpuSeconds == 0 ? 0 : cpuSeconds * 4)
        return lane
    }
}
