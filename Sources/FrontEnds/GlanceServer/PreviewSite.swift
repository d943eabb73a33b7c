import Foundation
import GlanceAccounts
import GlanceOperations
import GlancePipeline
import Hummingbird
import HummingbirdAuth
import HummingbirdCore
import HummingbirdHTTP2
import Logging
import NIOCore

/// Everything one `glance serve` listens for: one container at `/`, or several, each under
/// `/c/NAME/` with `/` listing them; the pages' stylesheet and script under `/assets/`; a line
/// of log per request.
public struct PreviewSite: Sendable {
    /// The containers with their URL names, in the order given.
    public let containers: [(name: String, server: PreviewServer)]

    /// The policy every page is served with: this server's own script, styles, images and media only
    /// (inline `style` attributes carry the placeholder colours, which are checked hex values).
    static let contentSecurityPolicy =
        "default-src 'none'; script-src 'self'; style-src 'self'; style-src-attr 'unsafe-inline'; "
        + "img-src 'self'; media-src 'self'; connect-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"

    /// The path every URL of the site starts with: `""`, or `/glance` behind a reverse proxy
    /// that forwards that path.
    public let basePath: String

    /// A site for `containers`, under `basePath` (`""`, or a path such as `/glance`: checked by
    /// ``isBasePath(_:)``). With several containers, each gets a URL name from its folder's name
    /// (only letters, digits, `.`, `_` and `-`; a number appended when two folders share a name).
    /// The accounts every request needs one of (``SignIn``), or nil for none.
    public let accounts: AccountBook?
    /// The browser sessions of the sign-in page, in memory (a restart ends them): a service to
    /// run beside the server, which forgets expired sessions.
    public let sessionStore = MemoryPersistDriver()
    /// The slowing down of failed sign-ins, shared by all connections.
    let throttle: SignInThrottle
    /// What the site counts for `/metrics`, or nil for nothing.
    public let metrics: ProcessMetrics?
    /// What `/readyz` asks (the stores and a renderer), or nil: ready while the process answers.
    public var health: HealthCheck?
    /// How every credential is checked (with ``throttle`` and ``verified``).
    var credentialCheck: CredentialCheck { CredentialCheck(throttle: throttle, verified: verified) }
    /// Credentials checked a moment ago (a grid asks for a hundred thumbnails at once).
    let verified = VerifiedCredentials()

    public init(
        containers servers: [PreviewServer], basePath: String = "", accounts: AccountBook? = nil,
        metrics: ProcessMetrics? = nil
    ) {
        self.basePath = basePath
        self.accounts = accounts
        self.metrics = metrics
        throttle = SignInThrottle(onFailure: metrics.map { metrics in { @Sendable in metrics.signInFailed() } })
        var used: Set<String> = []
        var containers: [(String, PreviewServer)] = []
        for var server in servers {
            server.basePath = basePath
            guard servers.count > 1 else {
                server.links = PageLinks(prefix: basePath)
                containers.append(("", server))
                break
            }
            let base = Self.urlName(server.title)
            var name = base
            var number = 2
            while used.contains(name) {
                name = "\(base)-\(number)"
                number += 1
            }
            used.insert(name)
            server.links = PageLinks(prefix: basePath + "/c/" + name)
            server.siteURL = basePath + "/"
            containers.append((name, server))
        }
        self.containers = containers
    }

    /// Whether `path` can be a base path: `/` and one or more names of letters, digits, `.`, `_`,
    /// `~` and `-` (not `.` or `..`), no `/` at the end: `/glance`, `/team/docs`.
    public static func isBasePath(_ path: String) -> Bool {
        guard path.hasPrefix("/"), path.count > 1, !path.hasSuffix("/") else { return false }
        return path.dropFirst().split(separator: "/", omittingEmptySubsequences: false).allSatisfy { name in
            !name.isEmpty && name != "." && name != ".."
                && name.unicodeScalars.allSatisfy {
                    $0.isASCII && (CharacterSet.alphanumerics.contains($0) || "._~-".unicodeScalars.contains($0))
                }
        }
    }

    /// Whether `name` can be a container's URL name (``ContainerName/isValid(_:)``).
    public static func isURLName(_ name: String) -> Bool { ContainerName.isValid(name) }

    /// A container's URL name from its title (``ContainerName/make(from:)``).
    static func urlName(_ title: String) -> String { ContainerName.make(from: title) }

    /// The routes of the whole site; with `hostCheck`, only for the `Host` values it accepts;
    /// session cookies marked `Secure` when `secure` (the server speaks TLS).
    public func router(hostCheck: HostCheck? = nil, secure: Bool = false) -> Router<ServerRequestContext> {
        router(hostCheck: hostCheck, secure: secure, addingSignedInRoutes: { _ in })
    }

    /// ``router(hostCheck:secure:)``, with `addingSignedInRoutes` given the signed-in group to add
    /// routes to (for tests: a route added there is behind sign-in).
    func router(
        hostCheck: HostCheck?, secure: Bool,
        addingSignedInRoutes: (SiteRoutes) -> Void
    ) -> Router<ServerRequestContext> {
        let router = Router(context: ServerRequestContext.self)
        let map = SiteRouteMap()
        router.add(middleware: SecurityHeaders())
        router.add(middleware: RequestRecorder(routes: map, metrics: metrics))
        if let hostCheck { router.add(middleware: HostFilter(check: hostCheck)) }
        if let accounts {
            router.add(
                middleware: SessionMiddleware(
                    storage: sessionStore,
                    configuration: BrowserSession.middlewareConfiguration(basePath: basePath, secure: secure)))
        }
        router.add(
            middleware: RequestFilter(
                basePath: basePath,
                formPaths: accounts == nil ? [] : [basePath + SignInPage.path, basePath + SignInPage.signOutPath]))
        // Inside the log and the metrics, which then see (and count) the bytes sent.
        router.add(middleware: ResponseCompression())
        // Every route lives under the base path; anything outside it answers 404.
        let site = SiteRoutes(router: router, basePath: basePath, map: map)
        addPublicRoutes(to: site)
        // Everything else is behind sign-in when the site has accounts: a route added to this
        // group (or to a container's, below) is private unless it is moved to the public ones.
        let signedIn = site.group()
        if let accounts {
            signedIn.add(
                middleware: SignIn(
                    accounts: accounts, check: credentialCheck, basePath: basePath, sessions: sessionStore))
            addSignOutRoute(to: signedIn)
        }
        addingSignedInRoutes(signedIn)
        let wholeSite = signedIn.group().add(middleware: WholeContainerOnly())
        if let metrics { OperatorRoutes.addMetrics(to: wholeSite, metrics: metrics, accountsRequired: accounts != nil) }
        signedIn.on(.nothingElse) { _, _ in throw ServerError.notFound }
        if containers.count == 1, let only = containers.first {
            let container = signedIn.group().add(middleware: ContainerAccess(name: Self.urlName(only.server.title)))
            only.server.addRoutes(to: container)
            return router
        }
        wholeSite.on(.containers) { request, context in
            try await self.sitePage(request, account: context.account, signOut: context.signOut)
        }
        // The router does not fall back from `/c/` to the catch-all above: a name that is no
        // container's needs one of its own, or it would answer 404 before sign-in while a real
        // one asks for an account, and anyone could list the containers by trying names.
        let containerNames = signedIn.group("c")
        containerNames.on(.nothingElse) { _, _ in throw ServerError.notFound }
        containerNames.on(.containerNames) { _, _ in throw ServerError.notFound }
        for (name, server) in containers {
            let container = signedIn.group("c/\(name)").add(middleware: ContainerAccess(name: name))
            server.addRoutes(to: container)
            container.on(.nothingElse) { _, _ in throw ServerError.notFound }
        }
        return router
    }

    /// The routes anyone may ask for, signed in or not: the pages' assets (which hold nothing
    /// of a container), the favicon, the health checks, and with accounts the sign-in page and
    /// the share links' door. The only list of public routes.
    func addPublicRoutes(to site: SiteRoutes) {
        let assets = PageAssets()
        site.on(.assets) { request, context in
            guard let name = context.parameters.get("name"), let asset = assets.asset(named: name[...]) else {
                throw ServerError.notFound
            }
            var headers: HTTPFields = [.contentType: asset.contentType]
            headers[.cacheControl] =
                try request.queryParameter("v") == asset.version ? "public, max-age=31536000, immutable" : "no-cache"
            return Response(
                status: .ok, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(string: asset.text)))
        }
        // Browsers ask for it on every site; an empty answer keeps their consoles quiet.
        site.on(.favicon) { _, _ in Response(status: .noContent) }
        OperatorRoutes.addHealth(to: site, health: health)
        if let accounts {
            addSignInRoutes(to: site, accounts: accounts)
            addShareRoutes(to: site, accounts: accounts)
        }
    }

    /// `GET /` with several containers: their names, links and totals.
    func sitePage(_ request: Request, account: Account? = nil, signOut: SignOutForm? = nil) async throws -> Response {
        var entries: [SitePage.Container] = []
        for (name, server) in containers where account?.maySee(container: name) ?? true {
            let totals = try await server.storeCall { try await server.indexer.store.totals() }
            entries.append(
                SitePage.Container(name: server.title, url: basePath + "/c/\(name)/", totals: totalsText(totals)))
        }
        let page = SitePage(
            title: "Glance", assets: PageAssets().links(under: basePath), signOut: signOut, containers: entries)
        return PreviewServer.html(PageTemplates.library.render(page, withTemplate: "site"))
    }

    /// An application serving the site on `host:port` (port 0 picks a free one), answering
    /// requests whose `Host` is that address, `localhost` or one of `serverNames` (see
    /// ``HostCheck``); `ready` is called with the address once it listens.
    public func application(
        host: String, port: Int, serverNames: [String] = [], limits: ConnectionLimits = .init(),
        certificate: ServerCertificate? = nil, logger: Logger,
        ready: @escaping @Sendable (String) async -> Void = { _ in }
    ) throws -> some ApplicationProtocol {
        let trimmer = MemoryTrimmer()
        // A connection that sends no complete request for the idle time (a slow or stalled
        // client) is closed; one that takes none of its answer for the send time too.
        let connection = HTTP1Channel.Configuration(
            additionalChannelHandlers: [StalledClientHandler(timeout: limits.sendTimeout, trimmer: trimmer)],
            idleTimeout: TimeAmount(limits.idleTimeout))
        let shares = ConnectionShares(perClient: limits.connectionsPerClient)
        // With a certificate: TLS, and HTTP/2 where the client offers it (ALPN), which loads a
        // grid's many small images over one connection; HTTP/1.1 otherwise. Either way with the
        // deadlines of GuardedTLSChannel.
        let server = HTTPServerBuilder { responder in
            if let certificate {
                return try GuardedTLSChannel(
                    certificate: certificate, connection: connection, limits: limits, shares: shares,
                    responder: responder)
            }
            return SharedHTTP1Channel(
                http1: HTTP1Channel(responder: responder, configuration: connection), shares: shares)
        }
        let scheme = certificate == nil ? "http" : "https"
        let basePath = basePath
        return Application(
            router: router(hostCheck: HostCheck(boundHost: host, serverNames: serverNames), secure: certificate != nil),
            server: server,
            configuration: .init(
                address: .hostname(host, port: port), serverName: "glance",
                availableConnectionsDelegate: MaximumAvailableConnections(limits.maximumConnections)),
            onServerRunning: { channel in
                let bound = channel.localAddress?.port ?? port
                await ready("\(scheme)://\(host.contains(":") ? "[\(host)]" : host):\(bound)\(basePath)/")
            },
            logger: logger)
    }
}
