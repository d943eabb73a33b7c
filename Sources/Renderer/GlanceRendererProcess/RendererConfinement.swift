internal import CSandbox
import GlanceCore
import GlanceRender

#if canImport(Glibc)
    import Glibc
#endif

/// What a worker does to itself before it reads its first job: limits, a warm-up, then the
/// sandbox. Everything after this runs on untrusted bytes, so nothing after this may need a right
/// the sandbox takes away.
public struct RendererConfinement: Sendable {
    /// Enter the seccomp sandbox (`--sandbox seccomp`, the default) or not (`--sandbox none`).
    public var sandboxed: Bool
    /// The worker's address space in bytes; 0: no limit.
    public var memoryLimitBytes: Int
    /// CPU seconds one document may use (0: no limit). The worker's lifetime limit is twice this;
    /// the pool replaces a worker that has used this much, so a document always has at least
    /// `cpuSeconds` to itself and at most twice that.
    public var cpuSeconds: Int

    /// Whether the process runs LibreOffice (an office renderer): its filter is the office one
    /// (`glance_sandbox_enter_office`), for a program of many threads that writes its own
    /// temporary files in the renderer's private workspace.
    public var office = false

    public init(sandboxed: Bool, memoryLimitBytes: Int, cpuSeconds: Int, office: Bool = false) {
        self.sandboxed = sandboxed
        self.memoryLimitBytes = memoryLimitBytes
        self.cpuSeconds = cpuSeconds
        self.office = office
    }

    /// Sets the limits, runs `warmUp` (what must happen before the sandbox: LibreOffice's start),
    /// warms the libraries up and enters the sandbox. Returns false if the sandbox was asked for
    /// and could not be entered: the worker must then read no document.
    public func apply(warmUp: () -> Void = {}) -> Bool {
        // No core files: a crash costs the document only, and a core of a worker would hold the
        // document's decoded pixels (and dumping one can outlast the CPU limit's grace second).
        var noCore = rlimit(rlim_cur: 0, rlim_max: 0)
        setrlimit(Int32(RLIMIT_CORE.rawValue), &noCore)
        if memoryLimitBytes > 0 {
            var limit = rlimit(rlim_cur: rlim_t(memoryLimitBytes), rlim_max: rlim_t(memoryLimitBytes))
            setrlimit(Int32(RLIMIT_AS.rawValue), &limit)
        }
        if cpuSeconds > 0 {
            // Killed by the signal at the soft limit, whatever was set for it: a worker inherits
            // the signal mask of the pool thread that started it, which blocks most signals.
            signal(SIGXCPU, SIG_DFL)
            var unblock = sigset_t()
            sigemptyset(&unblock)
            sigaddset(&unblock, SIGXCPU)
            pthread_sigmask(SIG_UNBLOCK, &unblock, nil)
            // SIGXCPU at the soft limit, SIGKILL a second later if it is caught.
            let soft = rlim_t(2 * cpuSeconds)
            var limit = rlimit(rlim_cur: soft, rlim_max: soft + 1)
            setrlimit(Int32(RLIMIT_CPU.rawValue), &limit)
        }
        warmUp()
        guard sandboxed else { return true }
        // fontconfig reads its configuration and caches on first use, and writes a cache it finds
        // missing: do that now, while writing is allowed, by laying out a line of text.
        Thumbnailer.warmUp()
        // The Swift runtime's crash handler starts a backtracer process, which the sandbox
        // forbids: a crash would be reported as a violation. Crash with the plain signal instead.
        for crash in [SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGTRAP] { signal(crash, SIG_DFL) }
        return (office ? glance_sandbox_enter_office() : glance_sandbox_enter()) == 0
    }

    /// The system's folders an office renderer may read once confined (``confineFiles(forOfficeIn:required:)``):
    /// programs, libraries, fonts and their caches, configuration, and the kernel's views of the
    /// process. Not `/home`, `/root`, `/tmp`, `/srv`, `/mnt`, `/media` or the rest of `/var`: where
    /// people's files are.
    static let systemFolders = [
        "/usr", "/etc", "/lib", "/lib32", "/lib64", "/libx32", "/bin", "/sbin", "/opt", "/proc", "/sys",
        "/var/cache/fontconfig",
        // LibreOffice's shared extensions (Debian links share/uno_packages and share/extensions there).
        "/var/spool/libreoffice", "/var/lib/libreoffice",
    ]

    /// Confines the file access of this process, and of LibreOffice which it is about to start,
    /// with Landlock: the system's folders (``systemFolders``), this program's own folder and the
    /// fontconfig caches read-only, the devices in `/dev`, and `workspace` for everything. A
    /// document that links a picture or a clip by a path elsewhere (`file:///home/…/photo.jpg`, an
    /// RTF's INCLUDEPICTURE) then cannot make LibreOffice read it, with or without bubblewrap.
    ///
    /// Where the kernel has no Landlock it throws only when `required` (an office renderer outside
    /// bubblewrap, whose file system is the machine's own); under bubblewrap the private root is
    /// the confinement.
    static func confineFiles(forOfficeIn workspace: String, required: Bool) throws(ThumbnailError) {
        var readable = systemFolders
        var executable = [CChar](repeating: 0, count: 4096)
        let length = readlink("/proc/self/exe", &executable, executable.count - 1)
        if length > 0 {
            let path = String(decoding: executable[0..<length].map { UInt8(bitPattern: $0) }, as: UTF8.self)
            readable.append(String(path[..<(path.lastIndex(of: "/") ?? path.endIndex)]))
        }
        for name in ["XDG_CACHE_HOME", "HOME"] {
            guard let value = getenv(name).map({ String(cString: $0) }), value.hasPrefix("/") else { continue }
            readable.append(value + (name == "HOME" ? "/.cache/fontconfig" : "/fontconfig"))
        }
        let status = withCStrings(readable) { readable in
            withCStrings([workspace]) { writable in
                withCStrings(["/dev"]) { devices in
                    glance_landlock_confine(
                        readable.baseAddress, readable.count, writable.baseAddress, writable.count,
                        devices.baseAddress, devices.count)
                }
            }
        }
        guard status != 0 else { return }
        if required || (status != -ENOSYS && status != -EOPNOTSUPP) {
            throw .unsupported(
                detail: "office documents need bubblewrap or the kernel's Landlock to keep LibreOffice from reading "
                    + "files a document links to, and neither is available here (\(String(cString: strerror(-status))))"
            )
        }
    }

    /// `strings` as C strings, for the length of `body`.
    private static func withCStrings<Result>(
        _ strings: [String], _ body: (UnsafeBufferPointer<UnsafePointer<CChar>?>) -> Result
    ) -> Result {
        let copies = strings.map { strdup($0) }
        defer { copies.forEach { free($0) } }
        return copies.map { UnsafePointer($0) }.withUnsafeBufferPointer(body)
    }

    /// The address space this process uses, in bytes (`/proc/self/statm`'s first field), if it
    /// can be read.
    static func addressSpaceBytes() -> Int? {
        guard let file = try? OpenFile.regularFile(atPath: "/proc/self/statm"),
            let bytes = try? file.read(count: 128, at: 0),
            let pages = bytes.split(separator: UInt8(ascii: " ")).first.flatMap({
                Int(String(decoding: $0, as: UTF8.self))
            })
        else { return nil }
        return pages * Int(sysconf(Int32(_SC_PAGESIZE)))
    }

    /// The CPU time this process has used, all threads together, in milliseconds.
    static func cpuMillisecondsUsed() -> Int {
        var usage = rusage()
        guard getrusage(RUSAGE_SELF.rawValue, &usage) == 0 else { return 0 }
        func milliseconds(_ time: timeval) -> Int { time.tv_sec * 1000 + Int(time.tv_usec) / 1000 }
        return milliseconds(usage.ru_utime) + milliseconds(usage.ru_stime)
    }
}
