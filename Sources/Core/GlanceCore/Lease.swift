#if canImport(Glibc)
    import Glibc
#endif

/// The right to render some documents for a while: claims in a store are held under a lease,
/// which its holder renews while it works (a heartbeat) and which expires when it stops.
///
/// A token rather than a process id: a store shared by many machines cannot ask whether another
/// machine's process lives, but it can see that a lease was not renewed in time. On one machine a
/// dead holder is noticed at once as well: the lease names its host and process, and a claim whose
/// holder is on this host and gone counts as abandoned without waiting for the expiry.
public struct Lease: Sendable, Equatable, Hashable, Codable {
    /// Unique to this lease.
    public var token: String
    /// The machine holding it (`gethostname`).
    public var host: String
    /// The process holding it, on `host`.
    public var pid: Int32
    /// How long a claim lasts without renewal, in seconds.
    public var seconds: Double

    public init(token: String, host: String, pid: Int32, seconds: Double) {
        self.token = token
        self.host = host
        self.pid = pid
        self.seconds = seconds
    }

    /// A new lease for this process: a random token, this host, `seconds` long.
    public static func forThisProcess(seconds: Double = 60) -> Lease {
        var generator = SystemRandomNumberGenerator()
        let token = (0..<4).map { _ in String(generator.next(), radix: 16) }.joined(separator: "-")
        return Lease(token: token, host: thisHost, pid: getpid(), seconds: seconds)
    }

    /// This machine's host name.
    public static var thisHost: String {
        var buffer = [CChar](repeating: 0, count: 256)
        guard gethostname(&buffer, buffer.count - 1) == 0 else { return "localhost" }
        return String(nulTerminated: buffer)
    }

    /// Whether a claim held by process `pid` on `host` is known to be abandoned: `host` is this
    /// machine and no such process exists. (`kill(pid, 0)` sends nothing; EPERM means it exists
    /// under another user, which counts as alive.)
    public static func holderIsGone(host: String, pid: Int32) -> Bool {
        guard host == thisHost else { return false }
        guard pid > 0 else { return true }
        if kill(pid, 0) == 0 { return false }
        return errno == ESRCH
    }
}
