import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// Tells systemd how a service is doing (`Type=notify`), by its documented datagram protocol
/// (sd_notify(3)): `READY=1` once it serves, `WATCHDOG=1` from a healthy loop at half the
/// `WatchdogSec=` interval, `STOPPING=1` when it shuts down. The socket is `$NOTIFY_SOCKET` (a
/// path, or `@name` in the abstract namespace); without it, every call does nothing, so a
/// service run by hand is unchanged.
public struct ServiceNotifier: Sendable {
    /// The socket's address, or nil when not run by systemd with `Type=notify`.
    let socketPath: String?
    /// `WatchdogSec=`, from `$WATCHDOG_USEC` (for this process: `$WATCHDOG_PID`), or nil.
    public let watchdogInterval: Duration?

    /// The notifier that `environment` describes (the process's, by default).
    public init(environment: [String: String] = ProcessInfo.processInfo.environment) {
        let path = environment["NOTIFY_SOCKET"].flatMap { $0.isEmpty ? nil : $0 }
        socketPath = path.flatMap { $0.hasPrefix("/") || $0.hasPrefix("@") ? $0 : nil }
        let forThisProcess = environment["WATCHDOG_PID"].map { Int32($0) == getpid() } ?? true
        watchdogInterval =
            forThisProcess
            ? environment["WATCHDOG_USEC"].flatMap { UInt64($0) }.flatMap { $0 > 0 ? .microseconds($0) : nil } : nil
    }

    /// Whether systemd listens.
    public var isActive: Bool { socketPath != nil }

    /// Sends `state` (lines such as `READY=1`, `STATUS=…`); false when it could not be sent.
    @discardableResult
    public func notify(_ state: String) -> Bool {
        guard let socketPath else { return false }
        let descriptor = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else { return false }
        defer { close(descriptor) }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        var path = Array(socketPath.utf8)
        // An abstract socket's name starts with a NUL where the @ is.
        if path.first == UInt8(ascii: "@") { path[0] = 0 }
        let capacity = MemoryLayout.size(ofValue: address.sun_path)
        guard path.count < capacity else { return false }
        withUnsafeMutableBytes(of: &address.sun_path) { bytes in
            for (index, byte) in path.enumerated() { bytes[index] = byte }
        }
        let length = socklen_t(MemoryLayout<sa_family_t>.size + path.count + (path.first == 0 ? 0 : 1))
        let message = Array(state.utf8)
        let sent = withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { socketAddress in
                message.withUnsafeBytes { sendto(descriptor, $0.baseAddress, $0.count, 0, socketAddress, length) }
            }
        }
        return sent == message.count
    }

    /// `READY=1`, with a status line.
    public func ready(_ status: String) { notify("READY=1\nSTATUS=\(status)") }

    /// `STOPPING=1`.
    public func stopping() { notify("STOPPING=1") }

    /// Sends `WATCHDOG=1` at half the watchdog interval for as long as `isHealthy` says so and
    /// the task is not cancelled; returns at once when there is no watchdog.
    public func keepWatchdog(isHealthy: @escaping @Sendable () async -> Bool = { true }) async {
        guard isActive, let interval = watchdogInterval else { return }
        while !Task.isCancelled {
            if await isHealthy() { notify("WATCHDOG=1") }
            try? await Task.sleep(for: interval / 2)
        }
    }
}
