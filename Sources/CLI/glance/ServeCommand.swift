import ArgumentParser
import Foundation
import Glance
import GlanceAccounts
import GlanceCore
import GlanceOnSave
import GlanceOperations
import GlancePipeline
import GlanceServer
import Hummingbird
import Logging
import NIOCore
import ServiceLifecycle
import Synchronization
import UnixSignals

/// `glance serve CONTAINER...`: the preview listing over HTTP: the grid and preview pages, the
/// JSON API, thumbnails and originals; with `--watch`, kept fresh and live.
struct ServeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Serve containers' thumbnails, grid and preview pages over HTTP (loopback by default).",
        discussion: """
            Pages: / (the grid: filter by name, kind and state, sort by name, date or size, a page \
            of 120 at a time) and /preview/PATH (one document large; previous and next with the \
            arrow keys, Esc back to the grid). API: /api/items (the listing as JSON, with the \
            same filters and offset/limit), /api/items/PATH, /thumbnails/PATH (made on demand \
            when missing or stale; ETag, 304, ?v=DIGEST for an immutable URL), /documents/PATH \
            (the original, with Range), /events (changes, as Server-Sent Events). With several \
            containers each is under /c/NAME/ and / lists them. Only GET and HEAD (and, with \
            --users, the sign-in and sign-out forms, /sign-in and /sign-out); a path outside a \
            container, hidden or through a link that leads out answers 404. \
            SIGINT or SIGTERM stops it gracefully: renders under way are killed, connections get \
            ten seconds to finish. See docs/http-api.md.
            """)

    @Argument(help: "The containers: folders of documents (several are served side by side).")
    var containers: [String]

    @Option(
        help: ArgumentHelp(
            "Where the thumbnail store lives (one container only): a folder for the SQLite sidecar (default: "
                + "CONTAINER/.thumbnails) or a postgres:// address, as for 'glance generate'.",
            valueName: "DIR|URL"))
    var store: String?

    @Option(
        help: """
            The address to listen on. Anything but loopback (127.0.0.1, ::1, localhost) shows every \
            document to whoever can reach it, and needs --allow-anonymous.
            """)
    var host = "127.0.0.1"

    @Option(
        help: ArgumentHelp(
            "Serve every page and URL under this path (/glance), for a reverse proxy that forwards it as it is.",
            valueName: "PATH"))
    var basePath: String?

    @Option(
        help: ArgumentHelp(
            "Serve over TLS (and HTTP/2 where the browser offers it) with this PEM certificate chain; with "
                + "--tls-key. Read again on SIGHUP, so a renewed certificate is served without a restart.",
            valueName: "FILE"))
    var tlsCert: String?

    @Option(help: ArgumentHelp("The PEM private key of --tls-cert (no passphrase).", valueName: "FILE"))
    var tlsKey: String?

    @Option(
        help: ArgumentHelp(
            "Every request needs an account of this file (made with 'glance user add'): browsers get a sign-in "
                + "page and a session cookie (12 hours; a restart ends every session), scripts send HTTP Basic "
                + "credentials or a read-only token ('glance user token'). The file is read again within a second "
                + "of a change. Use it with --tls-cert, or behind a proxy that adds TLS.",
            valueName: "FILE"))
    var users: String?

    @Flag(
        help: """
            Serve on an address other than loopback with no sign-in: everyone who can reach the \
            port may read every document, thumbnail and listing. Said in the log at start.
            """)
    var allowAnonymous = false

    @Option(parsing: .unconditional, help: "The port to listen on (0: any free port).")
    var port = 8080

    @Option(
        name: .customLong("server-name"),
        help: ArgumentHelp(
            "A name this server answers for besides its address and localhost (repeat for several): the Host a "
                + "reverse proxy forwards, or the machine's name. Requests for any other name answer 421, so that a "
                + "web page on a rebinding domain cannot read the documents through a browser.", valueName: "NAME"))
    var serverNames: [String] = []

    @Flag(
        help: """
            Keep the thumbnails fresh as documents are saved (what 'glance watch' does, for each \
            container, answering 'glance hook' too) and update open pages as they change.
            """)
    var watch = false

    @OptionGroup var parallel: JobsOption
    var jobs: Int { parallel.jobs }

    @Option(
        parsing: .unconditional,
        help: """
            Seconds a request waits for an on-demand render before it answers 503 (the render goes \
            on, and a later request gets the thumbnail).
            """)
    var timeout: Double = 30

    @Option(
        parsing: .unconditional,
        help: "Seconds one document may take before its renderer is killed and the document failed.")
    var renderTimeout: Double = 120

    @Option(
        parsing: .unconditional,
        help: """
            Connections served at once; with this many open, the server accepts no more until one \
            closes (what clients that hold connections open can make it use is bounded by it).
            """)
    var maxConnections = 512

    @Option(
        parsing: .unconditional,
        help: ArgumentHelp(
            """
            Connections one client (an address, or an IPv6 /64) may hold at once; past it a new \
            one is closed as it is accepted, so that no host can take them all (default: a quarter \
            of --max-connections, at least 2).
            """, valueName: "N"))
    var maxConnectionsPerClient: Int?

    @Option(
        parsing: .unconditional,
        help: "Seconds a client may take none of an answer before it is disconnected (one that stopped reading).")
    var sendTimeout: Double = 60

    @Option(
        parsing: .unconditional,
        help: """
            Seconds a connection may send no complete request (over HTTP/2: hold no open stream) \
            before it is closed; a TLS handshake gets at most 10 of them.
            """)
    var idleTimeout: Double = 30

    @Option(parsing: .unconditional, help: "MiB of thumbnails each container keeps in memory, ready to send (0: none).")
    var memoryCache = 256

    @Option(
        parsing: .unconditional,
        help: "MiB of previews (pages drawn larger, /previews/) each container keeps in memory (0: none).")
    var previewCache = 128

    @OptionGroup var limits: DocumentLimitOptions

    @OptionGroup var metricsOptions: MetricsOptions

    @Flag(help: "Count nothing for /metrics (it then answers 404).")
    var noMetrics = false

    @OptionGroup var sandbox: SandboxOptions

    @Option(help: "Least important log level shown (info: one line per page or API request; debug: thumbnails too).")
    var logLevel: Logger.Level = .info

    @Option(help: "Log lines as text or json.")
    var logFormat: LineLogHandler.Format = .text

    @OptionGroup var debug: DebugTriggerOptions

    func validate() throws {
        guard !containers.isEmpty else { throw ValidationError("Name at least one container.") }
        guard store == nil || containers.count == 1 else {
            throw ValidationError("--store applies to one container; with several, each keeps its own sidecar.")
        }
        guard (0...65535).contains(port) else { throw ValidationError("--port must be between 0 and 65535.") }
        if let basePath, !PreviewSite.isBasePath(basePath) {
            throw ValidationError(
                "--base-path must be / and names of letters, digits, '.', '_', '~' or '-', with no / at the end "
                    + "(/glance, /team/docs).")
        }
        guard (tlsCert == nil) == (tlsKey == nil) else {
            throw ValidationError("--tls-cert and --tls-key go together: give both, or neither for plain HTTP.")
        }
        guard HostCheck.isLoopback(host) || allowAnonymous || users != nil else {
            throw ValidationError(
                "--host \(host) would show every document to anyone who can reach this machine: ask for accounts "
                    + "with --users FILE (glance user add), or serve on loopback (the default) behind a reverse proxy "
                    + "that signs people in, or add --allow-anonymous to serve everyone.")
        }
        try OptionChecks.timeout(timeout)
        try OptionChecks.timeout(renderTimeout, option: "--render-timeout")
        guard (1...1_000_000).contains(maxConnections) else {
            throw ValidationError("--max-connections must be between 1 and 1000000.")
        }
        if let maxConnectionsPerClient, !(1...maxConnections).contains(maxConnectionsPerClient) {
            throw ValidationError("--max-connections-per-client must be between 1 and --max-connections.")
        }
        try OptionChecks.timeout(sendTimeout, option: "--send-timeout")
        try OptionChecks.timeout(idleTimeout, option: "--idle-timeout")
        guard (0...1 << 20).contains(memoryCache) else {
            throw ValidationError("--memory-cache must be between 0 and 1048576 MiB.")
        }
        if noMetrics, metricsOptions.metricsAddress != nil {
            throw ValidationError("--no-metrics counts nothing for --metrics-address to show: give one or the other.")
        }
        guard (0...1 << 20).contains(previewCache) else {
            throw ValidationError("--preview-cache must be between 0 and 1048576 MiB.")
        }
    }

    func run() async throws {
        let level = logLevel
        let format = logFormat
        LoggingSystem.bootstrap { label in LineLogHandler(label: label, format: format, logLevel: level) }
        let logger = Logger(label: "glance.serve")
        if !HostCheck.isLoopback(host) && users == nil {
            logger.warning(
                "serving anonymously (--allow-anonymous): anyone who can reach this port may read every document",
                metadata: ["host": "\(host)"])
        }
        let metrics: ProcessMetrics? = noMetrics ? nil : ProcessMetrics()
        var poolConfiguration = try RendererLauncher.configuration(
            renderers: jobs, timeoutSeconds: renderTimeout, sandbox: sandbox, triggers: debug.triggers)
        if let metrics { poolConfiguration.metrics = metrics.render }
        let pool = RendererPool(configuration: poolConfiguration)
        defer { pool.stopBlocking() }
        var (servers, services) = try await openContainers(pool: pool, metrics: metrics, logger: logger)
        let accounts = try accountBook(logger: logger)
        var site = PreviewSite(containers: servers, basePath: basePath ?? "", accounts: accounts, metrics: metrics)
        let health = HealthCheck(pool: pool, stores: servers.map(\.indexer.store))
        site.health = health
        if let metrics, let listener = metricsOptions.listener(metrics: metrics, health: health, logger: logger) {
            services.append(listener)
        }
        if accounts != nil { services.append(site.sessionStore) }
        let names = containers.map(DisplayText.escaped).joined(separator: ", ")
        let host = host
        let port = port
        let limits = ConnectionLimits(
            maximumConnections: maxConnections, connectionsPerClient: maxConnectionsPerClient,
            idleTimeout: .milliseconds(Int(idleTimeout * 1000)), sendTimeout: .milliseconds(Int(sendTimeout * 1000)),
            handshakeTimeout: .milliseconds(Int(min(idleTimeout, 10) * 1000)))
        var certificate: ServerCertificate?
        if let tlsCert, let tlsKey {
            do {
                certificate = try ServerCertificate(certificateFile: tlsCert, keyFile: tlsKey)
            } catch {
                throw CommandFailure.unusable(error.description)
            }
            services.append(CertificateReload(certificate: certificate!, logger: logger))
        }
        let listening = Mutex(false)
        let application = try site.application(
            host: host, port: port, serverNames: serverNames, limits: limits, certificate: certificate, logger: logger
        ) { url in
            // Written at once (print's buffer would hold it while stdout is a pipe or a file).
            DescriptorWriter.writeAll(Array("serving \(names) at \(url)\n".utf8), to: 1)
            listening.withLock { $0 = true }
        }
        // systemd (Type=notify): ready once the listener is up and every watch is in place.
        let watchers = services.compactMap { ($0 as? LiveContainerService)?.live.watcher }
        services.append(
            SystemdNotifyService(
                status: "serving \(names)", isReady: { listening.withLock { $0 } && watchers.allSatisfy(\.isWatching) })
        )
        // One lifecycle, as watch's and worker's. Shut down in the reverse order: the renders in
        // flight are killed first (their requests answer 503, a catch-up ends), then the watchers
        // stop, then the server drains its connections, for at most ten seconds (a client that
        // stops reading its download could otherwise hold the process for as long as it likes).
        var lifecycle = ProcessLifecycle(logger: logger)
        lifecycle.add(application)
        for service in services { lifecycle.add(service) }
        lifecycle.stopOnShutdown(pool)
        do {
            try await lifecycle.run(maximumShutdown: .seconds(10))
        } catch let error as WatchError {
            throw CommandFailure.unusable(error.description)
        } catch {
            throw CommandFailure.unusable("cannot serve on \(host):\(port): \(Self.reason(error))")
        }
    }
}

extension ServeCommand {
    /// Each container opened, its pages' server made, and with `--watch` its watcher and hook
    /// socket as services beside the HTTP server.
    private func openContainers(pool: RendererPool, metrics: ProcessMetrics?, logger: Logger) async throws -> (
        [PreviewServer], [any Service]
    ) {
        var servers: [PreviewServer] = []
        var services: [any Service] = []
        for container in containers {
            let location = ContainerLocation(container: container, store: store)
            let indexer = try await Container.open(location, pool: pool, options: limits.indexerOptions()).indexer
            let scanner = indexer.scanner
            var server = PreviewServer(
                indexer: indexer, renderTimeout: .milliseconds(Int(timeout * 1000)),
                memoryCacheBytes: memoryCache << 20,
                previewCacheBytes: previewCache << 20, metrics: metrics)
            server.liveUpdates = watch
            servers.append(server)
            guard watch else { continue }
            location.prepareHookFolder()
            do {
                let live = try LiveContainer(
                    indexer: indexer, excludingFolders: location.excludedFolders(of: scanner),
                    hookSocket: location.hookSocket, logger: logger, command: "glance serve")
                services.append(LiveContainerService(live: live))
            } catch {
                throw CommandFailure.unusable(error.message)
            }
        }
        return (servers, services)
    }

    /// The accounts of `--users` (nil without it), refusing a file that holds none.
    private func accountBook(logger: Logger) throws -> AccountBook? {
        guard let users else { return nil }
        let accounts: AccountBook
        do {
            accounts = try AccountBook(path: users, logger: logger)
        } catch {
            throw CommandFailure.unusable(error.description)
        }
        if accounts.current.byName.isEmpty {
            throw CommandFailure.unusable("\(users): no accounts; add one with 'glance user add NAME --users \(users)'")
        }
        return accounts
    }
}

extension ServeCommand {
    /// Why the server could not start, in words an operator can act on (NIO's errors name its
    /// own functions: `bind(descriptor:ptr:bytes:): Address already in use) (errno: 98)`).
    static func reason(_ error: any Error) -> String {
        if let system = error as? IOError {
            switch system.errnoCode {
            case EADDRINUSE: return "the port is in use by another program (--port, or --port 0 for any free one)"
            case EADDRNOTAVAIL: return "no interface of this machine has that address (--host)"
            case EACCES: return "not allowed to listen there (ports below 1024 need privileges)"
            default: return String(cString: strerror(system.errnoCode))
            }
        }
        return "\(error)"
    }
}

/// Reads the certificate and key again on each SIGHUP (after a renewal), until the server stops:
/// new connections get the new pair, open ones keep theirs. A pair that cannot be read is
/// logged and the old one kept.
struct CertificateReload: Service {
    let certificate: ServerCertificate
    let logger: Logger

    func run() async throws {
        let signals = await UnixSignalsSequence(trapping: .sighup)
        for await _ in signals.cancelOnGracefulShutdown() {
            do {
                try certificate.reload()
                logger.notice("reloaded the TLS certificate", metadata: ["file": "\(certificate.certificateFile)"])
            } catch {
                logger.error("kept the TLS certificate in use: \(error)")
            }
        }
    }
}
