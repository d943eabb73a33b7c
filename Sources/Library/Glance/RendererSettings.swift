import GlanceCore
import GlancePipeline

#if canImport(Glibc)
    import Glibc
#endif

/// How a container's renderers run: how many `glance-renderer` processes at once, their limits, and
/// their sandbox. The defaults are the command line's.
public struct RendererSettings: Sendable {
    /// How the renderers are confined.
    public enum Sandbox: Sendable, Equatable {
        /// The strongest sandbox that works here (bubblewrap and seccomp, or seccomp alone); an
        /// error (``OpeningError/noSandbox``) when none does.
        case strongest
        /// No sandbox: for debugging only.
        case none
    }

    /// The renderer executable.
    public var rendererExecutable: String
    /// Renderers running at once.
    public var renderers: Int
    /// Each document's wall-clock, memory and CPU limits.
    public var limits: RendererLimits
    public var sandbox: Sandbox
    /// The office lane (renderers running LibreOffice), when LibreOffice is installed; nil: office
    /// documents are drawn from the thumbnail they carry, or unsupported.
    public var office: OfficeLane? = OfficeLane.installed()

    /// Settings with `glance-renderer` found as ``defaultRendererExecutable`` finds it, one renderer
    /// per processor, and the default limits.
    public init(
        rendererExecutable: String = RendererSettings.defaultRendererExecutable,
        renderers: Int = RendererSettings.defaultRenderers, limits: RendererLimits = RendererLimits(),
        sandbox: Sandbox = .strongest
    ) {
        self.rendererExecutable = rendererExecutable
        self.renderers = renderers
        self.limits = limits
        self.sandbox = sandbox
    }

    /// The earlier spelling of ``init(rendererExecutable:renderers:limits:sandbox:)``, kept for one release.
    @available(*, deprecated, renamed: "init(rendererExecutable:renderers:limits:sandbox:)")
    public init(
        workerExecutable: String, workers: Int = RendererSettings.defaultRenderers,
        limits: RendererLimits = RendererLimits()
    ) {
        self.init(rendererExecutable: workerExecutable, renderers: workers, limits: limits)
    }

    /// The earlier name of ``renderers``, kept for one release.
    @available(*, deprecated, renamed: "renderers")
    public var workers: Int {
        get { renderers }
        set { renderers = newValue }
    }

    /// The earlier name of ``rendererExecutable``, kept for one release.
    @available(*, deprecated, renamed: "rendererExecutable")
    public var workerExecutable: String {
        get { rendererExecutable }
        set { rendererExecutable = newValue }
    }

    /// The earlier name of ``defaultRenderers``, kept for one release.
    @available(*, deprecated, renamed: "defaultRenderers")
    public static var defaultWorkers: Int { defaultRenderers }

    /// The earlier name of ``defaultRendererExecutable``, kept for one release.
    @available(*, deprecated, renamed: "defaultRendererExecutable")
    public static var defaultWorkerExecutable: String { defaultRendererExecutable }

    /// One renderer per processor this process may use.
    public static var defaultRenderers: Int { max(1, Int(sysconf(Int32(_SC_NPROCESSORS_ONLN)))) }

    /// `glance-renderer` in the folder of the running executable (where `swift build` and
    /// `make install` put it beside `glance` and beside a program built in the same package),
    /// else the first `glance-renderer` on `PATH`, else the name beside the executable (whose
    /// absence the first render reports).
    public static var defaultRendererExecutable: String {
        let beside = rendererBesideExecutable
        if access(beside, X_OK) == 0 { return beside }
        let path = getenv("PATH").map { String(cString: $0) } ?? ""
        for folder in path.split(separator: ":") where folder.hasPrefix("/") {
            let candidate = String(folder) + "/glance-renderer"
            if access(candidate, X_OK) == 0 { return candidate }
        }
        return beside
    }

    /// `glance-renderer` in the folder of the running executable (whether or not it is there).
    public static var rendererBesideExecutable: String { besideExecutable("glance-renderer") }

    /// `name` in the folder of the running executable.
    static func besideExecutable(_ name: String) -> String {
        var buffer = [CChar](repeating: 0, count: 4096)
        let length = readlink("/proc/self/exe", &buffer, buffer.count - 1)
        let own =
            length > 0
            ? FileName.decode(buffer[0..<length].map { UInt8(bitPattern: $0) }) : CommandLine.arguments[0]
        let folder = own.split(separator: "/", omittingEmptySubsequences: false).dropLast().joined(separator: "/")
        return (folder.isEmpty ? "." : folder) + "/" + name
    }

    /// The pool configuration: the sandbox found by trying (`SandboxProbe`), with `probe` when
    /// the caller started one earlier. While no worker has shown whether bubblewrap works,
    /// bubblewrap is the answer, tentatively, and the probe goes to the pool, whose first
    /// workers are its trial.
    public func poolConfiguration(
        probe: SandboxProbe? = nil, arguments: [String] = [], renderersStartedAhead: Int = 0
    ) throws(OpeningError) -> RendererPool.Configuration {
        var resolved: RendererSandbox = .none
        var pending: SandboxProbe?
        if sandbox == .strongest {
            let probe = probe ?? SandboxProbe(executable: rendererExecutable)
            if let known = probe.knownResult {
                // No sandbox works (a kernel without seccomp, or a filter above this process
                // that forbids one): documents are not read unconfined unless asked for.
                guard let known else { throw .noSandbox }
                resolved = known
            } else {
                resolved = .bubblewrapAndSeccomp
                pending = probe
            }
        }
        var configuration = RendererPool.Configuration(
            executable: rendererExecutable, arguments: arguments, renderers: renderers, limits: limits,
            sandbox: resolved)
        configuration.pendingProbe = pending
        configuration.renderersStartedAhead = renderersStartedAhead
        configuration.office = office
        return configuration
    }

    /// The earlier spelling of ``poolConfiguration(probe:arguments:renderersStartedAhead:)``, kept
    /// for one release.
    @available(*, deprecated, renamed: "poolConfiguration(probe:arguments:renderersStartedAhead:)")
    public func poolConfiguration(
        probe: SandboxProbe? = nil, arguments: [String] = [], workersStartedAhead: Int
    ) throws(OpeningError) -> RendererPool.Configuration {
        try poolConfiguration(probe: probe, arguments: arguments, renderersStartedAhead: workersStartedAhead)
    }
}
