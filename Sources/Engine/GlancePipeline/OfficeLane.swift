import GlanceCore

#if canImport(Glibc)
    import Glibc
#endif

/// The office lane of a renderer pool: renderers that run LibreOffice (``RendererPool/Configuration/office``).
///
/// An office renderer holds far more than an image renderer (LibreOffice's libraries and its
/// document model: 230 MB resident for a letter, 390 MB after a 100,000-row sheet and a 200-slide
/// deck), takes 0.2 s to start (see `LibreOffice`), and a document can take seconds; so office
/// documents wait in a pool of their own, with limits of their own, and a folder of spreadsheets
/// never holds up the photos and PDFs beside it. The ordinary renderers
/// sniff and check an office document first (a bomb or a password costs them a millisecond, not
/// a LibreOffice load) and hand it on.
public struct OfficeLane: Sendable, Equatable {
    /// LibreOffice's program folder (`libmergedlo.so` is there).
    public var programFolder: String
    /// Office renderers running at once.
    public var renderers: Int
    /// Each office document's limits.
    public var limits: RendererLimits
    /// Arguments of the office renderers' own beside their limits (test hooks; the ordinary
    /// renderers' are not passed on).
    public var arguments: [String] = []
    /// Where a renderer outside bubblewrap gets its private workspace (a new folder in it, removed
    /// when the renderer ends); nil: `TMPDIR`, else `/tmp`. Under bubblewrap it has a `/tmp` of its
    /// own instead.
    public var workspaceParent: String?

    /// The defaults: a renderer a processor (at most four, and one a GiB of memory), two minutes
    /// a document, a 4 GiB
    /// address space (LibreOffice's reached 0.9 GB here with a 100,000-row sheet: the rest is
    /// room for the spreadsheets people keep), four minutes of CPU time.
    public static let defaultLimits = RendererLimits(timeoutSeconds: 120, memoryMiB: 4096, cpuSeconds: 240)

    public init(
        programFolder: String, renderers: Int = OfficeLane.defaultRenderers,
        limits: RendererLimits = OfficeLane.defaultLimits
    ) {
        self.programFolder = programFolder
        self.renderers = max(1, renderers)
        self.limits = limits
    }

    /// The earlier spelling of ``init(programFolder:renderers:limits:)``, kept for one release.
    @available(*, deprecated, renamed: "init(programFolder:renderers:limits:)")
    public init(programFolder: String, workers: Int, limits: RendererLimits = OfficeLane.defaultLimits) {
        self.init(programFolder: programFolder, renderers: workers, limits: limits)
    }

    /// The earlier name of ``renderers``, kept for one release.
    @available(*, deprecated, renamed: "renderers")
    public var workers: Int {
        get { renderers }
        set { renderers = newValue }
    }

    /// One office renderer a processor, at most four and one a GiB of memory. LibreOffice's load
    /// of a document is one thread's work (a 100,000-row sheet: 1.7 s here), so a folder of office
    /// documents goes as fast as it has renderers; they run at a lower priority than the others
    /// (nice 10), so photos beside them keep their pace (measured: 0.92 of their rate alone with
    /// one office renderer on two cores; `bench/office.py`).
    public static func defaultRenderers(processors: Int) -> Int {
        let gibibytes = (Int(sysconf(Int32(_SC_PHYS_PAGES))) * Int(sysconf(Int32(_SC_PAGESIZE)))) >> 30
        return max(1, min(processors, 4, gibibytes))
    }

    /// ``defaultRenderers(processors:)`` for this machine's processors.
    public static var defaultRenderers: Int {
        defaultRenderers(processors: Int(sysconf(Int32(_SC_NPROCESSORS_ONLN))))
    }

    /// The earlier name of ``defaultRenderers(processors:)``, kept for one release.
    @available(*, deprecated, renamed: "defaultRenderers(processors:)")
    public static func defaultWorkers(processors: Int) -> Int { defaultRenderers(processors: processors) }

    /// The earlier name of ``defaultRenderers``, kept for one release.
    @available(*, deprecated, renamed: "defaultRenderers")
    public static var defaultWorkers: Int { defaultRenderers }

    /// Where Debian installs LibreOffice's program folder (`libreoffice-core`).
    public static let defaultProgramFolder = "/usr/lib/libreoffice/program"

    /// The lane with the defaults, when LibreOffice is installed in `programFolder`; else nil.
    public static func installed(programFolder: String = defaultProgramFolder) -> OfficeLane? {
        access(programFolder + "/libmergedlo.so", R_OK) == 0 ? OfficeLane(programFolder: programFolder) : nil
    }
}
