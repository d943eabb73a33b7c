import GlanceCore

#if canImport(Glibc)
    import Glibc
#endif

/// The office lane of a renderer pool: renderers that run LibreOffice (``RendererPool/Configuration/office``).
///
/// An office renderer holds far more than an image renderer (LibreOffice's libraries and its
/// document model: 230 MB resident for a letter, 390 MB after a 100,000-row sheet and a 200-slide
/// deck), takes 1.5 s to start, and a document can take seconds; so office documents wait in a pool of their own, with limits of their own, and a
/// folder of spreadsheets never holds up the photos and PDFs beside it. The ordinary renderers
/// sniff and check an office document first (a bomb or a password costs them a millisecond, not
/// a LibreOffice load) and hand it on.
public struct OfficeLane: Sendable, Equatable {
    /// LibreOffice's program folder (`libmergedlo.so` is there).
    public var programFolder: String
    /// Office renderers running at once.
    public var workers: Int
    /// Each office document's limits.
    public var limits: RendererLimits
    /// Arguments of the office renderers' own beside their limits (test hooks; the ordinary
    /// renderers' are not passed on).
    public var arguments: [String] = []
    /// Where a renderer outside bubblewrap gets its private workspace (a new folder in it, removed
    /// when the renderer ends); nil: `TMPDIR`, else `/tmp`. Under bubblewrap it has a `/tmp` of its
    /// own instead.
    public var workspaceParent: String?

    /// The defaults: one renderer (two from eight processors), two minutes a document, a 4 GiB
    /// address space (LibreOffice's reached 0.9 GB here with a 100,000-row sheet: the rest is
    /// room for the spreadsheets people keep), four minutes of CPU time.
    public static let defaultLimits = RendererLimits(timeoutSeconds: 120, memoryMiB: 4096, cpuSeconds: 240)

    public init(
        programFolder: String, workers: Int = OfficeLane.defaultWorkers,
        limits: RendererLimits = OfficeLane.defaultLimits
    ) {
        self.programFolder = programFolder
        self.workers = max(1, workers)
        self.limits = limits
    }

    /// One office renderer, two on a machine of eight processors or more.
    public static var defaultWorkers: Int {
        sysconf(Int32(_SC_NPROCESSORS_ONLN)) >= 8 ? 2 : 1
    }

    /// Where Debian installs LibreOffice's program folder (`libreoffice-core`).
    public static let defaultProgramFolder = "/usr/lib/libreoffice/program"

    /// The lane with the defaults, when LibreOffice is installed in `programFolder`; else nil.
    public static func installed(programFolder: String = defaultProgramFolder) -> OfficeLane? {
        access(programFolder + "/libmergedlo.so", R_OK) == 0 ? OfficeLane(programFolder: programFolder) : nil
    }
}
