import Foundation
import GlanceCore

#if canImport(Glibc)
    import Glibc
#endif

/// How a renderer process is started under a sandbox: the command line that runs `glance-renderer`,
/// wrapped in bubblewrap when that is the sandbox, and told to confine itself with seccomp.
public struct RendererLaunch: Sendable, Equatable {
    /// The `glance-renderer` executable and its arguments (limits, test hooks).
    public var executable: String
    public var arguments: [String]
    public var sandbox: RendererSandbox
    /// Arguments added to bubblewrap's own (for tests: binding a path that does not exist makes
    /// bubblewrap fail as it does where it cannot make a sandbox).
    var bubblewrapExtraArguments: [String] = []
    /// For an office renderer: LibreOffice's program folder.
    public var officeProgramFolder: String?
    /// For an office renderer outside bubblewrap: the private folder it writes in, which its
    /// ``RendererProcess`` made and removes when the renderer ends. Under bubblewrap the renderer
    /// writes in a `/tmp` of its own (a tmpfs that goes with its sandbox), and this is not used.
    var officeWorkspace: String?
    /// Where that folder is made (nil: `TMPDIR`, else `/tmp`).
    var officeWorkspaceParent: String?
    /// The size of an office renderer's private `/tmp` under bubblewrap (``Bubblewrap/officeTemporaryBytes(memoryMiB:)``).
    var officeTemporaryBytes = Bubblewrap.officeTemporaryBytes(memoryMiB: RendererLimits.defaultMemoryMiB)

    /// bubblewrap's exit status when it cannot make the sandbox or start the program in it. The
    /// worker never exits with it before its greeting (see ``RendererGreeting``).
    static let bubblewrapFailureStatus: Int32 = 1

    public init(executable: String, arguments: [String], sandbox: RendererSandbox) {
        self.executable = executable
        self.arguments = arguments
        self.sandbox = sandbox
    }

    /// The program to start and its whole argument vector (`argv[0]` first).
    public var commandLine: (program: String, argv: [String]) {
        var worker = [executable] + arguments + ["--sandbox", sandbox == .none ? "none" : "seccomp"]
        let bubblewrap = sandbox == .bubblewrapAndSeccomp ? Bubblewrap.executable : nil
        if let folder = officeProgramFolder {
            worker += ["--office", folder, "--workspace", bubblewrap != nil ? "/tmp" : officeWorkspace ?? "/tmp"]
            // Outside bubblewrap the renderer sees the machine's files: Landlock must hide them.
            if bubblewrap == nil && sandbox != .none { worker += ["--confine-files", "required"] }
        }
        guard let bubblewrap else { return (executable, worker) }
        return (
            bubblewrap,
            [bubblewrap]
                + Bubblewrap.arguments(
                    worker: executable, officeTemporaryBytes: officeProgramFolder != nil ? officeTemporaryBytes : nil)
                + bubblewrapExtraArguments + ["--"] + worker
        )
    }

    /// Whether the renderer this launches needs a workspace made for it (an office renderer
    /// outside bubblewrap).
    var needsOfficeWorkspace: Bool {
        officeProgramFolder != nil && !(sandbox == .bubblewrapAndSeccomp && Bubblewrap.executable != nil)
    }

    /// How a worker started by this launch ended, from its wait status: bubblewrap passes a
    /// worker's exit status on, and a signal that killed it as 128 + the signal.
    func death(fromWaitStatus status: Int32) -> RendererDeath {
        // WIFSIGNALED / WTERMSIG / WEXITSTATUS are macros; this is what they compute.
        let signal = status & 0x7F
        if signal != 0 && signal != 0x7F { return .signalled(signal) }
        let code = (status >> 8) & 0xFF
        if sandbox == .bubblewrapAndSeccomp && code > 128 { return .signalled(code - 128) }
        return .exited(code)
    }

    /// posix_spawn with `argv` as C strings, in this process's environment cut down to
    /// ``workerEnvironment(from:)``; 0 or an error number.
    static func spawn(
        _ child: inout pid_t, _ program: String, _ argv: [String], _ actions: inout posix_spawn_file_actions_t,
        _ attributes: UnsafePointer<posix_spawnattr_t>?
    ) -> Int32 {
        var inherited: [String] = []
        var entry = environ
        while let variable = entry.pointee {
            inherited.append(String(cString: variable))
            entry += 1
        }
        let pointers: [UnsafeMutablePointer<CChar>?] = argv.map { strdup($0) } + [nil]
        let variables: [UnsafeMutablePointer<CChar>?] = workerEnvironment(from: inherited).map { strdup($0) } + [nil]
        defer {
            pointers.forEach { free($0) }
            variables.forEach { free($0) }
        }
        return posix_spawn(&child, program, &actions, attributes, pointers, variables)
    }

    /// The variables (`NAME=value`) a renderer is given: what finds programs, fonts, caches and
    /// the locale, and the switches that choose SIMD code (see ``ProcessorFeatures``), and
    /// nothing else. A renderer parses hostile documents; the secrets this process may hold
    /// (PGPASSWORD for a PostgreSQL store, a cloud token) stay out of its reach.
    public static func workerEnvironment(from variables: [String]) -> [String] {
        let names: Set<Substring> = [
            "PATH", "HOME", "LANG", "LANGUAGE", "TZ", "TMPDIR", "SWIFT_BACKTRACE",
            Substring(ProcessorFeatures.disableVariable), "OPENSSL_ia32cap",
        ]
        let prefixes = ["LC_", "XDG_", "FONTCONFIG_", "JSIMD_"]
        return variables.filter { variable in
            guard let equals = variable.firstIndex(of: "=") else { return false }
            let name = variable[..<equals]
            return names.contains(name) || prefixes.contains { name.hasPrefix($0) }
        }
    }

    /// The strongest sandbox that works on this machine for `executable` (see ``SandboxProbe``),
    /// or nil when a worker cannot even confine itself.
    public static func strongestSandbox(executable: String) -> RendererSandbox? {
        SandboxProbe(executable: executable).result()
    }
}

/// How a renderer process ended.
enum RendererDeath: Equatable {
    case exited(Int32)
    case signalled(Int32)

    /// The reason a document fails with when its worker, run under this CPU limit (0: none),
    /// ended this way, and the limit that ended it, if one did.
    func reason(cpuLimitSeconds: Int) -> (reason: String, limit: RenderLimit?) {
        let error: ThumbnailError
        switch self {
        case .signalled(RendererSandbox.violationSignal): error = .sandboxViolated
        case .signalled(RendererSandbox.cpuLimitSignal) where cpuLimitSeconds > 0:
            error = .cpuLimitExceeded(seconds: cpuLimitSeconds)
        case .signalled(let signal): error = .rendererCrashed(signal: signal)
        case .exited(RendererSandbox.unavailableExitStatus): error = .sandboxUnavailable
        case .exited(let code): return ("renderer exited unexpectedly (status \(code))", nil)
        }
        return (error.description, error.limit)
    }
}

/// The bubblewrap command line a worker runs under: a new, empty root holding only what a
/// renderer reads (the system's programs and libraries, font configuration and caches, the worker
/// and the Swift runtime it links), all read-only; every namespace unshared (no network, its own
/// PID numbers), no capabilities. Documents are not in it: they arrive
/// as open descriptors. Nothing of the user's home, `/tmp`, `/run` or the document folders shows.
enum Bubblewrap {
    /// `bwrap` on the search path, if installed (looked up once a process).
    static let executable: String? = {
        let path = environmentVariable("PATH") ?? "/usr/bin:/bin"
        for folder in path.split(separator: ":") where !folder.isEmpty {
            let candidate = "\(folder)/bwrap"
            if access(candidate, X_OK) == 0 { return candidate }
        }
        return nil
    }()

    /// `true`, as the layout shows it: a program that is certain to be there.
    static var trueProgram: String? {
        ["/usr/bin/true", "/bin/true"].first { access($0, X_OK) == 0 }
    }

    /// What an office renderer's sandbox adds: a private, empty `/tmp` of `temporaryBytes` (a
    /// tmpfs that goes with the sandbox, so nothing LibreOffice writes outlives it, whatever ends
    /// it) that is also its home, and LibreOffice's configuration in `/etc/libreoffice`, read-only.
    static func officeArguments(temporaryBytes: Int) -> [String] {
        [
            "--size", String(temporaryBytes), "--tmpfs", "/tmp", "--setenv", "HOME", "/tmp",
            "--ro-bind-try", "/etc/libreoffice", "/etc/libreoffice",
        ]
    }

    /// The size of an office renderer's private `/tmp`, for a renderer of `memoryMiB`: half as
    /// much again, at least 64 MiB. A tmpfs is memory outside the address-space limit, and an
    /// unbounded one let a 0.4 MB `.docx` (one 100 MiB part named as twelve objects) take 2.5 GB
    /// of shared memory, and the fonts documents embedded pile up: bounded, LibreOffice's writes
    /// past it fail (the document fails in one line) and a renderer costs at most 1.5 times its
    /// limit. (0: no memory limit, and a 2 GiB `/tmp`.)
    public static func officeTemporaryBytes(memoryMiB: Int) -> Int {
        memoryMiB > 0 ? max(64, memoryMiB / 2) << 20 : 2 << 30
    }

    /// The whole layout: the system's, an office renderer's `/tmp` of `officeTemporaryBytes` (before
    /// the binds of the worker and its runtime, which may be under `/tmp` and would be hidden by a
    /// tmpfs mounted after them), then those binds.
    static func arguments(worker: String, officeTemporaryBytes: Int? = nil) -> [String] {
        systemLayout + (officeTemporaryBytes.map { officeArguments(temporaryBytes: $0) } ?? []) + runtimeLayout
            + ["--ro-bind", worker, worker]
    }

    /// The folders of the Swift runtime this process loaded from outside `/usr`, bound read-only.
    private static let runtimeLayout: [String] = runtimeLibraryFolders().flatMap { ["--ro-bind", $0, $0] }

    /// Everything of the layout but the worker and its runtime's folders. Made once a process: it reads the mount
    /// points and `/proc/self/maps`, which cost a command about 1.5 ms of CPU each time, and a
    /// command starts two workers at once, while it is starting up itself.
    private static let systemLayout: [String] = {
        // No --new-session: the worker must stay in the process group the pool kills (the
        // seccomp filter forbids the terminal ioctl that a new session guards against).
        var arguments = ["--unshare-all", "--die-with-parent", "--cap-drop", "ALL"]
        arguments += ["--ro-bind", "/usr", "/usr", "--proc", "/proc", "--dev", "/dev"]
        // Usr-merged systems have these as links into /usr; older ones as folders.
        for top in ["/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32"] {
            if let target = symbolicLinkTarget(top) {
                arguments += ["--symlink", target, top]
            } else if isFolder(top) {
                arguments += ["--ro-bind", top, top]
            }
        }
        let etc = [
            "/etc/fonts", "/etc/ld.so.cache", "/etc/alternatives", "/etc/localtime", "/etc/passwd", "/etc/group",
            "/etc/nsswitch.conf",
        ]
        for path in etc + ["/var/cache/fontconfig"] + userFontCaches() {
            arguments += ["--ro-bind-try", path, path]
        }
        return arguments
    }()

    /// fontconfig's per-user cache, which holds the caches of fonts the system cache lacks.
    private static func userFontCaches() -> [String] {
        var caches: [String] = []
        if let cache = environmentVariable("XDG_CACHE_HOME"), cache.hasPrefix("/") {
            caches.append(cache + "/fontconfig")
        }
        if let home = environmentVariable("HOME"), home.hasPrefix("/") { caches.append(home + "/.cache/fontconfig") }
        return caches
    }

    /// One variable of this process's environment (without building Foundation's dictionary of
    /// them all).
    private static func environmentVariable(_ name: String) -> String? {
        getenv(name).map { String(cString: $0) }
    }

    /// Folders of the shared libraries this process has loaded from outside /usr (the Swift
    /// runtime of a toolchain in /opt, say): the worker links the same ones.
    static func runtimeLibraryFolders() -> [String] {
        // Read to the end: Foundation's file reading stops at the first page of a /proc file,
        // whose size says 0.
        let maps = String(decoding: readToEnd("/proc/self/maps"), as: UTF8.self)
        var folders: Set<String> = []
        for line in maps.split(separator: "\n") {
            guard let slash = line.firstIndex(of: "/") else { continue }
            let path = String(line[slash...])
            guard path.contains(".so"), !path.hasPrefix("/usr/"), !path.hasPrefix("/lib"),
                let last = path.lastIndex(of: "/")
            else { continue }
            folders.insert(String(path[..<last]))
        }
        return folders.sorted()
    }

    /// The whole of a file, read until its end (for /proc files, whose size says 0).
    static func readToEnd(_ path: String) -> [UInt8] {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return [] }
        defer { close(descriptor) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65536)
        while true {
            let count = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { return bytes }
            bytes += chunk[0..<count]
        }
    }

    private static func symbolicLinkTarget(_ path: String) -> String? {
        var buffer = [CChar](repeating: 0, count: 4096)
        let length = readlink(path, &buffer, buffer.count - 1)
        guard length > 0 else { return nil }
        return String(decoding: buffer[0..<length].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    private static func isFolder(_ path: String) -> Bool {
        var information = stat()
        return stat(path, &information) == 0 && (information.st_mode & S_IFMT) == S_IFDIR
    }
}

/// The earlier name of ``RendererLaunch``, kept for one release.
@available(*, deprecated, renamed: "RendererLaunch")
public typealias WorkerLaunch = RendererLaunch
