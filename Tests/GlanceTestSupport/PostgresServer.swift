import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A real PostgreSQL server for tests: Debian's `postgres`, `initdb`'d into a temporary folder,
/// listening on a free loopback port, with user `glance` trusted (no password on loopback).
///
/// One server serves a whole test process (``shared``); tests keep apart by container keys or
/// databases of their own. It stops when the test process ends, however it ends: the server
/// runs under a small shell that waits on a pipe only this process holds open, and on end of
/// file (the process exited or was killed) stops PostgreSQL and deletes the folder. As root
/// (CI runs as root, and PostgreSQL refuses to), the server runs as user `postgres`.
public final class PostgresServer: Sendable {
    /// Why the server could not be started.
    public struct StartError: Error, CustomStringConvertible {
        public let description: String
    }

    /// The loopback port it listens on.
    public let port: Int
    /// The user tests connect as.
    public let user = "glance"
    /// The temporary folder holding the cluster, its socket and its log.
    public let folder: String
    /// The write end of the pipe that keeps the server alive; never written, closed by exiting.
    private let lifeline: FileHandle

    /// The server of this test process, started on first use.
    public static let shared: Result<PostgresServer, StartError> = Result { () throws(StartError) in
        try PostgresServer()
    }

    /// The server, or the reason it could not start (a test that needs it fails with that).
    /// (The first caller waits for the start on a thread of its own, as every wait here does: see
    /// ``onThreadOfItsOwn(_:)``.)
    public static func running() async throws -> PostgresServer { try await onThreadOfItsOwn { try shared.get() } }

    /// A server of the caller's own, for a test that restarts it (the shared one serves tests
    /// running meanwhile). It stops when the value is dropped or the process ends.
    ///
    /// `tls`: the server speaks TLS with a certificate for `localhost` (no IP address in it),
    /// signed by an authority made for it (``certificateAuthority``), and refuses every
    /// connection that is not encrypted.
    public static func startPrivate(tls: Bool = false) async throws -> PostgresServer {
        try await onThreadOfItsOwn { try PostgresServer(tls: tls) }
    }

    /// The PEM file of the authority that signed a TLS server's certificate.
    public var certificateAuthority: String { folder + "/ca.pem" }

    /// Stops the server as an operator's restart does (fast shutdown: sessions are cut) and
    /// starts it again on the same port after `seconds`; returns at once.
    public func restart(downFor seconds: Double) throws {
        try String(format: "%.2f", seconds).write(toFile: folder + "/pause", atomically: true, encoding: .utf8)
        let pidText = try String(contentsOfFile: folder + "/pid", encoding: .utf8)
        guard let pid = Int32(pidText.trimmingCharacters(in: .whitespacesAndNewlines)), kill(pid, SIGINT) == 0 else {
            throw StartError(description: "cannot stop the server (pid file: \(pidText))")
        }
    }

    /// Whether the server accepts connections now.
    public var isAccepting: Bool {
        get async {
            let port = port
            let status = try? await onThreadOfItsOwn {
                try Self.run(Self.binary("pg_isready"), ["-q", "-h", "127.0.0.1", "-p", "\(port)"]).0
            }
            return status == 0
        }
    }

    /// A `--store` address for `container` in `database`.
    public func address(container: String, database: String = "postgres") -> String {
        "postgres://\(user)@127.0.0.1:\(port)/\(database)?container=\(container)"
    }

    /// A `--store` address for `container` in `database` through the server's Unix-domain socket
    /// (in ``folder``), which needs no network.
    public func socketAddress(container: String, database: String = "postgres") -> String {
        "postgres://\(user)@/\(database)?host=\(folder)&port=\(port)&container=\(container)"
    }

    /// Runs SQL through `psql` as the trusted user and returns its output (unaligned, no headers).
    @discardableResult
    public func psql(_ sql: String, database: String = "postgres") async throws -> String {
        try await onThreadOfItsOwn { try self.psqlWaiting(sql, database: database) }
    }

    /// ``psql(_:database:)`` on the calling thread, which it blocks.
    private func psqlWaiting(_ sql: String, database: String) throws -> String {
        let (status, output) = try Self.run(
            Self.binary("psql"),
            [
                "-X", "-q", "-A", "-t", "-v", "ON_ERROR_STOP=1", "-h", "127.0.0.1", "-p", "\(port)", "-U", user,
                "-d", database, "-c", sql,
            ])
        guard status == 0 else { throw StartError(description: "psql failed (\(status)): \(output)") }
        return output.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    private init(tls: Bool = false) throws(StartError) {
        let binaries = try Self.serverBinaries()
        var template = Array((NSTemporaryDirectory() + "/glance-postgres-XXXXXX").utf8CString)
        guard let made = mkdtemp(&template) else { throw StartError(description: "cannot make a temporary folder") }
        folder = String(cString: made)
        let asRoot = geteuid() == 0
        if asRoot {
            guard let account = getpwnam("postgres") else {
                throw StartError(description: "running as root needs the user 'postgres' (apt-get install postgresql)")
            }
            chown(folder, account.pointee.pw_uid, account.pointee.pw_gid)
        }
        let data = folder + "/data"
        // As root, every server program runs as postgres: setpriv execs it in place, so the pid
        // the shell waits on is the server's own.
        let prefix = asRoot ? ["/usr/bin/setpriv", "--reuid=postgres", "--regid=postgres", "--init-groups"] : []
        let initdb =
            prefix + [
                binaries + "/initdb", "-D", data, "-U", user, "--auth=trust", "--encoding=UTF8", "--no-locale",
                "--no-sync",
            ]
        let (status, output): (Int32, String)
        do { (status, output) = try Self.run(initdb[0], Array(initdb.dropFirst())) } catch {
            throw StartError(description: "initdb could not run: \(error)")
        }
        guard status == 0 else { throw StartError(description: "initdb failed (\(status)): \(output)") }
        if tls { try Self.prepareTLS(folder: folder, data: data, asRoot: asRoot) }

        var lastError = "no attempt"
        for _ in 0..<5 {
            let port = Self.freePort()
            let server =
                (prefix + [
                    binaries + "/postgres", "-D", data, "-p", "\(port)", "-k", folder, "-c",
                    "listen_addresses=127.0.0.1", "-c", "fsync=off", "-c", "full_page_writes=off", "-c",
                    "synchronous_commit=off", "-c", "max_connections=200",
                ]).map(Self.quoted).joined(separator: " ")
            // The server runs in a loop (``restart(downFor:)`` stops it and the loop starts it
            // again) until the pipe's end of file, which a background reader turns into a stop.
            let f = Self.quoted(folder)
            let script = """
                exec 3<&0
                ( read _ <&3; touch \(f)/stop; kill -INT "$(cat \(f)/pid)" 2>/dev/null ) &
                while [ ! -e \(f)/stop ]; do
                    \(server) >>\(Self.quoted(folder + "/server.log")) 2>&1 &
                    echo $! > \(f)/pid
                    wait $!
                    if [ -e \(f)/pause ]; then sleep "$(cat \(f)/pause)"; rm -f \(f)/pause; fi
                    [ -e \(f)/stop ] || sleep 0.1
                done
                rm -rf \(f)
                """
            var ends: [Int32] = [0, 0]
            guard pipe(&ends) == 0 else { throw StartError(description: "cannot make a pipe") }
            // Only the shell may hold the read end, and only this process the write end.
            _ = fcntl(ends[0], F_SETFD, FD_CLOEXEC)
            _ = fcntl(ends[1], F_SETFD, FD_CLOEXEC)
            let shell: pid_t
            do { shell = try Self.spawnShell(script, standardInput: ends[0]) } catch {
                close(ends[0])
                close(ends[1])
                throw error
            }
            close(ends[0])
            if Self.waitUntilAccepting(port: port, while: shell) {
                self.port = port
                self.lifeline = FileHandle(fileDescriptor: ends[1], closeOnDealloc: true)
                return
            }
            close(ends[1])
            var status: Int32 = 0
            waitpid(shell, &status, 0)
            lastError = (try? String(contentsOfFile: folder + "/server.log", encoding: .utf8)) ?? "no log"
        }
        throw StartError(description: "PostgreSQL did not start: \(lastError)")
    }

    /// Makes an authority and a server certificate for `localhost` signed by it (openssl), and
    /// configures the cluster in `data` to speak TLS and to refuse connections without it.
    private static func prepareTLS(folder: String, data: String, asRoot: Bool) throws(StartError) {
        let steps: [[String]] = [
            [
                "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", folder + "/ca.key", "-out",
                folder + "/ca.pem",
                "-days", "2", "-subj", "/CN=Glance test authority",
            ],
            [
                "req", "-newkey", "rsa:2048", "-nodes", "-keyout", data + "/server.key", "-out", folder + "/server.csr",
                "-subj", "/CN=localhost",
            ],
            [
                "x509", "-req", "-in", folder + "/server.csr", "-CA", folder + "/ca.pem", "-CAkey", folder + "/ca.key",
                "-CAcreateserial", "-out", data + "/server.pem", "-days", "2", "-extfile", folder + "/san.cnf",
            ],
        ]
        do {
            try "subjectAltName=DNS:localhost\n".write(toFile: folder + "/san.cnf", atomically: true, encoding: .utf8)
            for step in steps {
                let (status, output) = try run(binary("openssl"), step)
                guard status == 0 else { throw StartError(description: "openssl \(step[0]) failed: \(output)") }
            }
            let configuration = try String(contentsOfFile: data + "/postgresql.conf", encoding: .utf8)
            try (configuration + "\nssl = on\nssl_cert_file = 'server.pem'\nssl_key_file = 'server.key'\n")
                .write(toFile: data + "/postgresql.conf", atomically: false, encoding: .utf8)
            // The first line that matches decides: nothing unencrypted gets in.
            let access = try String(contentsOfFile: data + "/pg_hba.conf", encoding: .utf8)
            try ("hostnossl all all 0.0.0.0/0 reject\nhostnossl all all ::/0 reject\n" + access)
                .write(toFile: data + "/pg_hba.conf", atomically: false, encoding: .utf8)
        } catch let error as StartError {
            throw error
        } catch {
            throw StartError(description: "cannot set up TLS: \(error)")
        }
        chmod(data + "/server.key", 0o600)
        chmod(folder + "/ca.pem", 0o644)
        if asRoot, let account = getpwnam("postgres") {
            for file in ["server.key", "server.pem", "postgresql.conf", "pg_hba.conf"] {
                chown(data + "/" + file, account.pointee.pw_uid, account.pointee.pw_gid)
            }
        }
    }

    /// The folder of Debian's server programs, newest version first.
    private static func serverBinaries() throws(StartError) -> String {
        let root = "/usr/lib/postgresql"
        let versions = ((try? FileManager.default.contentsOfDirectory(atPath: root)) ?? [])
            .compactMap(Int.init).sorted(by: >)
        for version in versions where FileManager.default.isExecutableFile(atPath: "\(root)/\(version)/bin/postgres") {
            return "\(root)/\(version)/bin"
        }
        throw StartError(
            description: "PostgreSQL's server is not installed (apt-get install postgresql; make test does)")
    }

    /// A client program (`psql`) from the PATH.
    private static func binary(_ name: String) -> String {
        for folder in ["/usr/bin", "/usr/local/bin"]
        where FileManager.default.isExecutableFile(atPath: "\(folder)/\(name)") {
            return "\(folder)/\(name)"
        }
        return name
    }

    /// Starts `/bin/sh -c script` reading `standardInput`, its output discarded, with every
    /// signal unblocked and at its default. (Foundation's
    /// `Process` passes on the spawning thread's signal mask; a shell started with SIGCHLD
    /// blocked would never return from `wait`.)
    private static func spawnShell(_ script: String, standardInput: Int32) throws(StartError) -> pid_t {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, standardInput, 0)
        posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
        posix_spawn_file_actions_adddup2(&actions, 1, 2)
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var none = sigset_t()
        sigemptyset(&none)
        var all = sigset_t()
        sigfillset(&all)
        posix_spawnattr_setsigmask(&attributes, &none)
        posix_spawnattr_setsigdefault(&attributes, &all)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
        var pid: pid_t = 0
        let arguments = ["/bin/sh", "-c", script]
        var pointers: [UnsafeMutablePointer<CChar>?] = arguments.map { strdup($0) } + [nil]
        defer { for pointer in pointers { free(pointer) } }
        let result = posix_spawn(&pid, "/bin/sh", &actions, &attributes, &pointers, environ)
        guard result == 0 else {
            throw StartError(description: "cannot start /bin/sh: \(String(cString: strerror(result)))")
        }
        return pid
    }

    /// Whether the server came to accept TCP connections on `port` (within 30 s) while `shell`
    /// kept running.
    private static func waitUntilAccepting(port: Int, while shell: pid_t) -> Bool {
        var accepting = false
        var status: Int32 = 0
        _ = holdsSoon(within: .seconds(30)) {
            accepting = (try? run(binary("pg_isready"), ["-q", "-h", "127.0.0.1", "-p", "\(port)"]))?.0 == 0
            return accepting || waitpid(shell, &status, WNOHANG) != 0
        }
        return accepting
    }

    /// A loopback port nobody listens on now (the kernel's choice for port 0).
    public static func freePort() -> Int {
        let socketDescriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(socketDescriptor) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { pointer in
                bind(socketDescriptor, pointer, length)
                return getsockname(socketDescriptor, pointer, &length)
            }
        }
        return Int(UInt16(bigEndian: address.sin_port))
    }

    /// `text` quoted for the shell.
    private static func quoted(_ text: String) -> String {
        "'" + text.replacingOccurrences(of: "'", with: "'\\''") + "'"
    }

    /// Runs a program to its end; its exit status and its output and errors together.
    private static func run(_ program: String, _ arguments: [String]) throws -> (Int32, String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: program)
        process.arguments = arguments
        let output = Pipe()
        process.standardOutput = output
        process.standardError = output
        process.standardInput = FileHandle.nullDevice
        try process.run()
        let bytes = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: bytes, as: UTF8.self))
    }
}
