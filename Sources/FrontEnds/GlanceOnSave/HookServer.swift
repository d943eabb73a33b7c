internal import CWatch
import Foundation
import GlanceCore
import GlancePipeline
import Logging
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// Why the hook socket could not be served or reached.
public struct HookError: Error, Sendable, CustomStringConvertible {
    /// What kind of trouble: a watcher refuses to start beside another one, and runs without a
    /// socket for any other.
    public enum Kind: Sendable, Equatable {
        /// Another watcher answers on this container's socket.
        case anotherWatcher
        /// The socket, its folder or the process answering on it is not this user's: nothing is
        /// sent to it.
        case untrusted
        /// Anything else: the socket could not be made, reached or read.
        case socket
    }

    public let kind: Kind
    public let message: String
    public var description: String { message }

    public init(_ kind: Kind = .socket, message: String) {
        self.kind = kind
        self.message = message
    }
}

/// The hook socket of a running watcher: `glance hook` connects, sends a ``HookRequest`` and
/// reads one ``HookAnswer`` per document, so a save pays neither a process start of the renderer
/// nor a cold worker. The socket is in the store's folder, owner-only (0600).
public final class HookServer: Sendable {
    let path: String
    let listener: Int32
    let indexer: Indexer
    let logger: Logger
    private let state = ThreadStop()
    private let activeConnections = Atomic<Int>(0)

    /// Binds the socket at `path`. A socket left by a watcher that died is replaced; one that a
    /// running watcher answers on is not (two watchers on one container would race).
    /// What a status request is answered with (``HookStatus``).
    let status: @Sendable () async -> HookStatus?

    public init(
        path: String, indexer: Indexer, logger: Logger, status: @escaping @Sendable () async -> HookStatus? = { nil }
    ) throws(HookError) {
        self.path = path
        self.indexer = indexer
        self.logger = logger
        self.status = status
        guard var address = Self.address(path) else {
            throw HookError(message: "\(path): the socket path is longer than a Unix socket allows")
        }
        try Self.checkFolder(of: path)
        if let probe = try? HookClient.connect(to: path) {
            close(probe)
            throw HookError(.anotherWatcher, message: "\(path): another glance watch is running on this container")
        }
        _ = FileName.withCString(path) { unlink($0) }
        let socket = Glibc.socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard socket >= 0 else { throw HookError(message: "socket: \(String(cString: strerror(errno)))") }
        // Owner-only from the start: Linux gives the file bind makes the socket's own mode (less
        // the umask), so the socket exists with mode 0600 before anyone can connect. Not by
        // changing the umask, which is the whole process's: a file another thread made meanwhile
        // (a test's folder, a thumbnail) came out 0700, unreadable to the user it was for.
        guard fchmod(socket, 0o600) == 0 else {
            let reason = String(cString: strerror(errno))
            close(socket)
            throw HookError(message: "\(path): cannot listen: \(reason)")
        }
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(socket, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        guard bound == 0, FileName.withCString(path, { chmod($0, 0o600) }) == 0, listen(socket, 64) == 0 else {
            let reason = String(cString: strerror(errno))
            close(socket)
            throw HookError(message: "\(path): cannot listen: \(reason)")
        }
        var boundStatus = stat()
        guard FileName.withCString(path, { lstat($0, &boundStatus) }) == 0 else {
            let reason = String(cString: strerror(errno))
            close(socket)
            throw HookError(message: "\(path): cannot listen: \(reason)")
        }
        listener = socket
        boundFile = (boundStatus.st_dev, boundStatus.st_ino)
    }

    /// Refuses a socket folder that is a link, another user's, or writable by any user: whoever
    /// may write it could swap the socket for their own and read the paths saved.
    static func checkFolder(of path: String) throws(HookError) {
        let folder = (path as NSString).deletingLastPathComponent
        var status = stat()
        guard FileName.withCString(folder.isEmpty ? "." : folder, { lstat($0, &status) }) == 0 else {
            throw HookError(message: "\(folder): \(String(cString: strerror(errno)))")
        }
        guard status.st_mode & S_IFMT == S_IFDIR, status.st_uid == geteuid(), status.st_mode & 0o002 == 0 else {
            throw HookError(
                message: "\(folder): the socket's folder is a link, another user's, or writable by anyone; "
                    + "no socket is made there")
        }
    }

    /// The device and inode of the socket file this server made: it removes that file only.
    private let boundFile: (dev_t, ino_t)

    deinit {
        close(listener)
        removeSocketFile()
    }

    /// Removes the socket file, if it is still the one this server bound (a file put there
    /// since, by anyone, is left alone).
    private func removeSocketFile() {
        var current = stat()
        guard FileName.withCString(path, { lstat($0, &current) }) == 0,
            current.st_dev == boundFile.0, current.st_ino == boundFile.1
        else { return }
        _ = FileName.withCString(path) { unlink($0) }
    }

    /// The `sockaddr_un` for `path`, or nil if the path does not fit.
    static func address(_ path: String) -> sockaddr_un? {
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = FileName.encode(path)
        let capacity = MemoryLayout.size(ofValue: address.sun_path)
        guard bytes.count < capacity else { return nil }
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            for (index, byte) in bytes.enumerated() { raw[index] = byte }
            raw[bytes.count] = 0
        }
        return address
    }

    /// How many connections are served at once; more are closed at once (their `glance hook`
    /// then renders by itself).
    static let maximumConnections = 32
    /// How long a client has to send its whole request line, and to take each piece of the
    /// answer.
    static let clientTimeoutMilliseconds: Int32 = 5000

    /// Serves connections until the calling task is cancelled.
    ///
    /// A client's reads and writes block, so they run on threads of their own: a client that
    /// sends nothing, or never reads its answer, must not hold one of the few threads that the
    /// watcher and the HTTP server run their tasks on (two such clients stopped both).
    public func run() async {
        let (connections, continuation) = AsyncStream<Int32>.makeStream()
        let thread = Thread { [listener, state] in
            defer {
                continuation.finish()
                state.finished.signal()
            }
            while !state.stopping.load(ordering: .relaxed) {
                var poller = pollfd(fd: listener, events: Int16(POLLIN), revents: 0)
                guard poll(&poller, 1, 100) > 0 else { continue }
                let connection = glance_accept_cloexec(listener)
                if connection >= 0 { continuation.yield(connection) }
            }
        }
        thread.name = "glance-hook"
        thread.start()
        await withDiscardingTaskGroup { group in
            for await connection in connections {
                if activeConnections.add(1, ordering: .relaxed).newValue > Self.maximumConnections {
                    activeConnections.subtract(1, ordering: .relaxed)
                    close(connection)
                    logger.warning("hook: more than \(Self.maximumConnections) connections at once; one refused")
                } else {
                    group.addTask {
                        await self.serve(connection)
                        self.activeConnections.subtract(1, ordering: .relaxed)
                    }
                }
                if Task.isCancelled { break }
            }
            state.stopping.store(true, ordering: .relaxed)
        }
        state.stopping.store(true, ordering: .relaxed)
        state.finished.wait()
        // Gone as soon as nobody answers on it; the process may end before this object does
        // (serve's stop left the file behind when it waited for the deinitialiser).
        removeSocketFile()
    }

    /// Answers one connection: a request line in, an answer line per document out.
    private func serve(_ connection: Int32) async {
        defer { close(connection) }
        var timeout = timeval(tv_sec: Int(Self.clientTimeoutMilliseconds / 1000), tv_usec: 0)
        _ = setsockopt(connection, SOL_SOCKET, SO_SNDTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        let line = await Self.onOwnThread {
            HookClient.readLine(from: connection, within: .milliseconds(Self.clientTimeoutMilliseconds))
        }
        guard let line, let request = try? JSONDecoder().decode(HookRequest.self, from: Data(line)) else {
            logger.warning("hook: unreadable request")
            return
        }
        if request.status == true {
            guard let status = await status(), var line = try? JSONEncoder().encode(status).map({ $0 }) else {
                return
            }
            line.append(0x0A)
            _ = await Self.onOwnThread { [line] in DescriptorWriter.writeAll(line, to: connection) }
            return
        }
        guard request.paths.count <= HookSocket.maximumPathsPerRequest else {
            logger.warning("hook: a request of \(request.paths.count) paths refused")
            let refusal = HookAnswer(
                path: "", state: .error,
                error: "too many paths in one request: at most \(HookSocket.maximumPathsPerRequest)")
            _ = await Self.send([refusal], to: connection)
            return
        }
        // Answered a batch at a time, in the order asked, each batch sent before the next is
        // looked at: what one request holds is a batch's answers, not all of them.
        var start = 0
        while start < request.paths.count {
            let batch = request.paths[start..<min(start + HookSocket.answerBatch, request.paths.count)]
            start = batch.endIndex
            var answers = [HookAnswer?](repeating: nil, count: batch.count)
            var valid: [(Int, String)] = []
            for (index, path) in batch.enumerated() {
                if let checked = HookSocket.checkedPath(path) {
                    valid.append((index, checked))
                } else {
                    answers[index] = HookAnswer(
                        path: path, state: .error,
                        error: "not a document path of the container (absolute, '..', hidden or holding a NUL)")
                }
            }
            let outcomes = await indexer.refresh(valid.map(\.1))
            for ((index, _), outcome) in zip(valid, outcomes) { answers[index] = HookAnswer(outcome) }
            // A client that stops reading is dropped after the send timeout.
            guard await Self.send(answers.compactMap { $0 }, to: connection) else {
                logger.warning("hook: the client did not take its answer")
                return
            }
        }
        logger.debug("hook served", metadata: ["documents": .stringConvertible(request.paths.count)])
    }

    /// Writes `answers`, a JSON line each; false when the client did not take them in time.
    private static func send(_ answers: [HookAnswer], to connection: Int32) async -> Bool {
        let encoder = JSONEncoder()
        var reply: [UInt8] = []
        for answer in answers {
            guard let bytes = try? encoder.encode(answer) else { continue }
            reply.append(contentsOf: bytes)
            reply.append(0x0A)
        }
        return await onOwnThread { [reply] in DescriptorWriter.writeAll(reply, to: connection) }
    }

    /// Runs blocking `work` on a thread of its own and waits for it without blocking a thread.
    static func onOwnThread<Result: Sendable>(_ work: @escaping @Sendable () -> Result) async -> Result {
        await withCheckedContinuation { continuation in
            let thread = Thread { continuation.resume(returning: work()) }
            thread.name = "glance-hook-client"
            thread.start()
        }
    }
}

/// The client side of the hook socket, for `glance hook` and `glance status`.
///
/// A socket is only spoken to when it is this user's own, in a folder that is this user's own
/// and no one else may write, and the process answering on it runs as this user (its
/// credentials, `SO_PEERCRED`): in a shared container, a neighbour could make the store's folder
/// first and listen there, to read the names of the documents saved and answer that they are
/// fresh. Such a socket is refused (``HookError/Kind/untrusted``), not silently skipped.
public enum HookClient {
    /// Connects to the socket at `path`, after the checks above; throws when nobody listens
    /// there (``HookError/Kind/socket``) or when the socket is not to be trusted
    /// (``HookError/Kind/untrusted``).
    public static func connect(to path: String) throws(HookError) -> Int32 {
        guard var address = HookServer.address(path) else { throw HookError(message: "socket path too long") }
        try checkOwnership(of: path)
        let socket = Glibc.socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard socket >= 0 else { throw HookError(message: String(cString: strerror(errno))) }
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                Glibc.connect(socket, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        guard connected == 0 else {
            let reason = String(cString: strerror(errno))
            close(socket)
            throw HookError(message: reason)
        }
        var peer: UInt32 = 0
        guard glance_peer_uid(socket, &peer) == 0, peer == geteuid() else {
            close(socket)
            throw HookError(
                .untrusted,
                message: "\(DisplayText.escaped(path)): the process answering on the hook socket runs as another "
                    + "user (uid \(peer)); nothing was sent to it")
        }
        return socket
    }

    /// Refuses a socket that is not this user's, or whose folder another user owns or anyone may
    /// write (the same rule the watcher makes its socket under); a missing socket is no watcher.
    static func checkOwnership(of path: String) throws(HookError) {
        var status = stat()
        guard FileName.withCString(path, { lstat($0, &status) }) == 0 else {
            throw HookError(message: String(cString: strerror(errno)))
        }
        guard status.st_mode & S_IFMT == S_IFSOCK, status.st_uid == geteuid() else {
            throw HookError(
                .untrusted,
                message: "\(DisplayText.escaped(path)): the hook socket is another user's (uid \(status.st_uid)) "
                    + "or not a socket; nothing was sent to it")
        }
        do {
            try HookServer.checkFolder(of: path)
        } catch {
            throw HookError(.untrusted, message: error.message + "; nothing was sent to the socket")
        }
    }

    /// Sends `request` to the watcher at `path` and returns its answers, or nil when no watcher
    /// answers there (no socket, a stale one, or a watcher that stopped mid-way); throws when the
    /// socket is not to be trusted.
    public static func ask(_ request: HookRequest, at path: String, timeoutSeconds: Double) throws(HookError)
        -> [HookAnswer]?
    {
        let deadline = ContinuousClock.now + .milliseconds(Int(min(timeoutSeconds, 86_400 * 365) * 1000))
        var answers: [HookAnswer] = []
        // A long list goes as several requests, each within the watcher's limit.
        var start = 0
        repeat {
            let part = Array(request.paths[start..<min(start + HookSocket.maximumPathsPerRequest, request.paths.count)])
            guard let partAnswers = try ask(paths: part, at: path, until: deadline) else { return nil }
            answers += partAnswers
            start += part.count
        } while start < request.paths.count
        return answers
    }

    /// How the watcher answering at `path` does, or nil when none answers there; throws when the
    /// socket is not to be trusted.
    public static func status(at path: String, timeoutSeconds: Double) throws(HookError) -> HookStatus? {
        guard let socket = try connectedOrNil(path) else { return nil }
        defer { close(socket) }
        guard var line = try? JSONEncoder().encode(HookRequest(paths: [], status: true)).map({ $0 }) else { return nil }
        line.append(0x0A)
        guard DescriptorWriter.writeAll(line, to: socket),
            let reply = readLine(from: socket, within: .milliseconds(Int(timeoutSeconds * 1000)))
        else { return nil }
        return try? JSONDecoder().decode(HookStatus.self, from: Data(reply))
    }

    /// A connection to `path`, nil when nobody listens there; an untrusted socket throws.
    private static func connectedOrNil(_ path: String) throws(HookError) -> Int32? {
        do {
            return try connect(to: path)
        } catch  where error.kind == .untrusted {
            throw error
        } catch {
            return nil
        }
    }

    /// One request of at most ``HookSocket/maximumPathsPerRequest`` paths.
    private static func ask(paths: [String], at path: String, until deadline: ContinuousClock.Instant)
        throws(HookError) -> [HookAnswer]?
    {
        guard let socket = try connectedOrNil(path) else { return nil }
        defer { close(socket) }
        guard var line = try? JSONEncoder().encode(HookRequest(paths: paths)).map({ $0 }) else { return nil }
        line.append(0x0A)
        guard line.count <= HookSocket.maximumRequestBytes, DescriptorWriter.writeAll(line, to: socket) else {
            return nil
        }
        var answers: [HookAnswer] = []
        while answers.count < paths.count {
            guard let reply = readLine(from: socket, within: deadline - ContinuousClock.now),
                let answer = try? JSONDecoder().decode(HookAnswer.self, from: Data(reply))
            else { return nil }
            answers.append(answer)
        }
        return answers
    }

    /// One newline-terminated line from `socket` (without the newline), whole within `time`; nil
    /// on a timeout, the end, or a line over ``HookSocket/maximumRequestBytes``. Reading a byte at a time is too slow for
    /// images but fine for these short lines.
    static func readLine(from socket: Int32, within time: Duration) -> [UInt8]? {
        let deadline = ContinuousClock.now + time
        var line: [UInt8] = []
        var byte: UInt8 = 0
        while true {
            // The whole line within the time, not each byte: a client sending a byte a second
            // would otherwise be waited for without end.
            let left = deadline - ContinuousClock.now
            let milliseconds = left.components.seconds * 1000 + left.components.attoseconds / 1_000_000_000_000_000
            guard milliseconds > 0 else { return nil }
            var poller = pollfd(fd: socket, events: Int16(POLLIN), revents: 0)
            let ready = poll(&poller, 1, Int32(min(milliseconds, Int64(Int32.max))))
            if ready < 0 && errno == EINTR { continue }
            guard ready > 0 else { return nil }
            let count = read(socket, &byte, 1)
            if count < 0 && errno == EINTR { continue }
            guard count == 1 else { return nil }
            if byte == 0x0A { return line }
            line.append(byte)
            if line.count > HookSocket.maximumRequestBytes { return nil }
        }
    }
}
