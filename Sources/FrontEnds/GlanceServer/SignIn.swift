import Foundation
import GlanceAccounts
import GlanceContainer
import GlanceCore
import HTTPTypes
import Hummingbird
import Synchronization

/// The middleware of the signed-in group of routes: every route but the public ones
/// (``PreviewSite/addPublicRoutes(to:)``) is behind an account of the users file, and a route
/// added later is too, unless it is put among the public ones. It says who the request is; what
/// that one may reach is said where the routes are grouped (``ContainerAccess``,
/// ``WholeContainerOnly``, ``SharedDocumentOnly``).
///
/// A request proves its account in one of three ways: the session cookie of the sign-in page
/// (browsers), `Authorization: Basic` (scripts, `curl -u`), or `Authorization: Bearer` with an
/// access token (scripts; read-only). Without them, or with wrong ones, a browser's navigation
/// is sent to the sign-in page and anything else gets `401`, never a document.
///
/// A failed attempt slows the next ones of its client and of its account (``SignInThrottle``).
/// Neither passwords nor tokens are logged: the request log has the method, the path and the
/// status.
struct SignIn: RouterMiddleware {
    typealias Context = ServerRequestContext
    let accounts: AccountBook
    let check: CredentialCheck
    /// The site's base path (where the sign-in page and the sign-out form are).
    let basePath: String
    /// Where the browser sessions are kept (to ask whether one still is).
    let sessions: any PersistDriver

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response)
        async throws -> Response
    {
        let path = request.uri.path
        let accounts = accounts.current
        let client = context.client
        var account: Account?
        var credential = Credential.session
        if let session = context.sessions.session {
            if let share = session.share(in: accounts) {
                account = share.account
                credential = .share(document: share.document)
            } else {
                account = session.account(in: accounts)
            }
            // A session whose account was removed or got a new password, or whose share link
            // was revoked or expired, is over.
            if account == nil { context.sessions.clearSession() }
        }
        var presented: CredentialCheck.Presented?
        if account == nil, let header = request.headers[.authorization] {
            if let token = Self.bearerToken(header) {
                credential = .token
                presented = .token(token)
            } else if let (name, password) = Self.basicCredentials(header) {
                credential = .password
                presented = .password(name: name, password: password)
            }
            if let presented { account = try await check.account(for: presented, client: client, in: accounts) }
        }
        guard let account else { return Self.unauthenticated(request, basePath: basePath) }
        // A token or a share link only reads: it cannot sign in a browser (a share link's
        // session may sign out).
        if credential.readsOnly, request.method != .get, request.method != .head,
            !(credential != .token && path == basePath + SignInPage.signOutPath)
        {
            throw ServerError.forbidden("an access token or a share link may only read (GET and HEAD)")
        }
        var context = context
        context.account = account
        context.credential = credential
        context.stillSignedIn = stillSignedIn(
            request, presented: presented.map { ($0.key, accounts.proof(named: $0.key) ?? "") })
        if case .share = credential {
            context.signOut = SignOutForm(action: basePath + SignInPage.signOutPath, name: "shared link")
        } else if credential == .session {
            context.signOut = SignOutForm(action: basePath + SignInPage.signOutPath, name: account.name)
        }
        return Self.keptPrivate(try await next(request, context))
    }

    /// `response` as an answer behind sign-in must go out: whatever the route said, no shared
    /// cache (a proxy, a CDN) may keep it, since it would hand it to anyone, for as long as its
    /// `max-age`, after the account or the share link is gone. A `public` answer becomes
    /// `private` (the browser that signed in still keeps it).
    static func keptPrivate(_ response: Response) -> Response {
        guard let policy = response.headers[.cacheControl], policy.contains("public") else { return response }
        var response = response
        let directives = policy.split(separator: ",").map { directive in
            let name = directive.trimmingSpaces
            return name.lowercased() == "public" ? "private" : String(name)
        }
        response.headers[.cacheControl] = directives.joined(separator: ", ")
        return response
    }

    /// What asks whether the request's credential still holds, for answers that outlast the
    /// check made when they began (``ServerRequestContext/stillSignedIn``): a session must still
    /// be stored (not signed out) and its account or share link still be in the users file as it
    /// was; a password or a token (`presented`: the name the accounts know it by, and the hash
    /// that proved it) must still be proven by the same hash.
    func stillSignedIn(_ request: Request, presented: (key: String, proof: String)?) -> @Sendable () async -> Bool {
        let book = accounts
        if let (key, proof) = presented {
            return { book.current.account(named: key, provenBy: proof) != nil }
        }
        let sessions = sessions
        // The cookie is read when asked (by an event stream), not for every request.
        return {
            guard let id = request.cookies[BrowserSession.cookieName]?.value,
                let session = try? await sessions.get(key: BrowserSession.keyPrefix + id, as: BrowserSession.self)
            else { return false }
            let current = book.current
            return session.share != nil ? session.share(in: current) != nil : session.account(in: current) != nil
        }
    }

    /// The answer to a request without a valid credential: a browser that navigates to a page is
    /// sent to the sign-in page (which brings it back); anything else gets `401`.
    static func unauthenticated(_ request: Request, basePath: String) -> Response {
        let navigates =
            request.headers[.secFetchMode].map { $0 == "navigate" }
            ?? (request.headers[.accept]?.contains("text/html") ?? false)
        if navigates, request.method == .get || request.method == .head {
            let back = request.uri.string
            return Response(
                status: .seeOther,
                headers: [
                    .location: basePath + SignInPage.path + "?next=" + PageQuery.percentEncoded(back),
                    .cacheControl: "no-store",
                ])
        }
        return challenge(browser: request.headers[.secFetchMode] != nil)
    }

    /// `401` asking for an account: HTTP Basic for scripts; a browser's own scripts and images get
    /// the Bearer scheme only, which does not open the browser's password dialog over the page.
    static func challenge(browser: Bool = false) -> Response {
        Response(
            status: .unauthorized,
            headers: [
                .wwwAuthenticate: browser ? "Bearer realm=\"Glance\"" : "Basic realm=\"Glance\", charset=\"UTF-8\"",
                .contentType: "text/plain; charset=utf-8", .cacheControl: "no-store",
            ],
            body: ResponseBody(byteBuffer: ByteBuffer(string: "sign in with an account of this server\n")))
    }

    /// The name and password of an `Authorization: Basic` header, or nil.
    static func basicCredentials(_ header: String?) -> (String, String)? {
        guard let header, header.count < 4096 else { return nil }
        let parts = header.split(separator: " ", maxSplits: 1)
        guard parts.count == 2, parts[0].lowercased() == "basic", let data = Data(base64Encoded: String(parts[1])),
            let text = String(data: data, encoding: .utf8), let colon = text.firstIndex(of: ":")
        else { return nil }
        return (String(text[..<colon]), String(text[text.index(after: colon)...]))
    }

    /// The token of an `Authorization: Bearer` header, or nil.
    static func bearerToken(_ header: String) -> String? {
        let parts = header.split(separator: " ", maxSplits: 1)
        guard parts.count == 2, parts[0].lowercased() == "bearer", parts[1].count < 256 else { return nil }
        return String(parts[1]).trimmingCharacters(in: .whitespaces)
    }
}

extension HTTPField.Name {
    /// What a browser fetches for (`navigate` for a page), sent by every current browser.
    static let secFetchMode = HTTPField.Name("Sec-Fetch-Mode")!
    /// Whose page started the request (`same-origin`, `cross-site`, `none`).
    static let secFetchSite = HTTPField.Name("Sec-Fetch-Site")!
}

/// Bounds guessing, in two ways that hold however the attempts arrive, one after another or a
/// hundred at once:
///
/// - **a rate**: each check of a credential that reaches the password hash counts against its
///   client and its account as it starts, at most ``attemptsPerAccount`` per account and
///   ``attemptsPerClient`` per client in any ``attemptWindow``; past that the attempt is refused
///   unchecked (`429` with `Retry-After`). A success takes its own attempt back. Credentials
///   checked a moment ago (``VerifiedCredentials``) reach no hash and count for nothing, so the
///   owner of an account keeps reading while someone guesses at it.
/// - **a delay**: after failed attempts, a client's and an account's next ones wait a quarter of
///   a second after the first failure, doubling with each failure in the last ten minutes, up to
///   eight seconds. A success clears the client's and the account's failures.
///
/// Bounded: at most 10,000 clients and accounts are remembered (the oldest forgotten first).
final class SignInThrottle: Sendable {
    private struct Record {
        var failures: Int
        var last: ContinuousClock.Instant
    }

    private let records = Mutex<[String: Record]>([:])
    /// The start of each recent attempt, by `client …` and `account …`.
    private let attempts = Mutex<[String: [ContinuousClock.Instant]]>([:])
    /// Told of each failure (the metrics' count), or nil.
    private let onFailure: (@Sendable () -> Void)?

    /// Where the throttle reads the time (a test moves its own).
    private let time: TimeSource

    init(onFailure: (@Sendable () -> Void)? = nil, time: TimeSource = .continuous) {
        self.onFailure = onFailure
        self.time = time
    }
    static let window = Duration.seconds(600)
    static let maximumDelay = Duration.seconds(8)
    static let capacity = 10_000

    /// The span over which attempts are counted.
    static let attemptWindow = Duration.seconds(60)
    /// The most attempts on one account in ``attemptWindow``, from all clients together.
    static let attemptsPerAccount = 10
    /// The most attempts from one client in ``attemptWindow``, on all accounts together.
    static let attemptsPerClient = 30

    /// Counts an attempt by `client` on `account` and returns nil, or, when either has made its
    /// most attempts in the window, counts nothing and returns how long until one more may start.
    func admit(client: String, account: String) -> Duration? {
        let now = time.now()
        let keys = [("client " + client, Self.attemptsPerClient), ("account " + account, Self.attemptsPerAccount)]
        return attempts.withLock { attempts in
            var wait = Duration.zero
            for (key, limit) in keys {
                let recent = (attempts[key] ?? []).filter { now - $0 < Self.attemptWindow }
                attempts[key] = recent
                if recent.count >= limit, let oldest = recent.first {
                    wait = max(wait, Self.attemptWindow - (now - oldest))
                }
            }
            guard wait == .zero else { return max(wait, .seconds(1)) }
            for (key, _) in keys { attempts[key, default: []].append(now) }
            if attempts.count > Self.capacity {
                attempts = attempts.filter { $0.value.contains { now - $0 < Self.attemptWindow } }
                if attempts.count > Self.capacity {
                    let oldest = attempts.sorted { ($0.value.last ?? now) < ($1.value.last ?? now) }
                        .prefix(attempts.count - Self.capacity)
                    for (key, _) in oldest { attempts.removeValue(forKey: key) }
                }
            }
            return nil
        }
    }

    /// Takes back an attempt that succeeded (the latest one of the client and of the account).
    func refund(client: String, account: String) {
        attempts.withLock { attempts in
            for key in ["client " + client, "account " + account] where attempts[key]?.isEmpty == false {
                attempts[key]?.removeLast()
            }
        }
    }

    /// The most sessions one account may start in ``window``.
    static let sessionsPerWindow = 60
    private let sessionStarts = Mutex<[String: [ContinuousClock.Instant]]>([:])

    /// Whether `account` may start another session now (fewer than ``sessionsPerWindow`` in the
    /// last ten minutes), counting it if so. At most ``capacity`` accounts are remembered.
    func mayStartSession(account: String) -> Bool {
        let now = time.now()
        return sessionStarts.withLock { starts in
            var recent = (starts[account] ?? []).filter { now - $0 < Self.window }
            guard recent.count < Self.sessionsPerWindow else { return false }
            recent.append(now)
            if starts[account] == nil, starts.count >= Self.capacity {
                starts = starts.filter { $0.value.contains { now - $0 < Self.window } }
                if starts.count >= Self.capacity { return false }
            }
            starts[account] = recent
            return true
        }
    }

    /// How long an attempt by `client` for `account` waits before it is checked.
    func delay(client: String, account: String) -> Duration {
        let now = time.now()
        let failures = records.withLock { records in
            ["client " + client, "account " + account].map { key in
                guard let record = records[key], now - record.last < Self.window else { return 0 }
                return record.failures
            }.max() ?? 0
        }
        guard failures > 0 else { return .zero }
        return min(Self.maximumDelay, .milliseconds(250 * (1 << min(failures - 1, 10))))
    }

    /// Counts a failed attempt.
    func failed(client: String, account: String) {
        onFailure?()
        let now = time.now()
        records.withLock { records in
            for key in ["client " + client, "account " + account] {
                var record =
                    records[key].flatMap { now - $0.last < Self.window ? $0 : nil } ?? Record(failures: 0, last: now)
                record.failures += 1
                record.last = now
                records[key] = record
            }
            if records.count > Self.capacity {
                let oldest = records.sorted { $0.value.last < $1.value.last }.prefix(records.count - Self.capacity)
                for (key, _) in oldest { records.removeValue(forKey: key) }
            }
        }
    }

    /// Clears the counts after a success.
    func succeeded(client: String, account: String) {
        records.withLock { records in
            records.removeValue(forKey: "client " + client)
            records.removeValue(forKey: "account " + account)
        }
    }
}

/// Credentials checked a moment ago, so that a grid's hundred thumbnail requests do not each pay
/// for a slow password hash (yescrypt: about 20 ms of CPU here). Kept for five minutes, at most
/// 10,000, under a keyed SHA-256 of name and secret (the key random for each process): the
/// memory holds neither a password nor anything that checks one outside this process. Each entry
/// keeps the hash its secret matched (``Accounts/proof(named:)``), which the caller compares with
/// the current accounts.
final class VerifiedCredentials: Sendable {
    private let key: [UInt8] = {
        var generator = SystemRandomNumberGenerator()
        return (0..<32).map { _ in UInt8.random(in: 0...255, using: &generator) }
    }()
    private let entries = Mutex<[[UInt8]: (proof: String, until: ContinuousClock.Instant)]>([:])
    static let lifetime = Duration.seconds(300)
    static let capacity = 10_000

    private func digest(name: String, secret: String) -> [UInt8] {
        ContentDigest.sha256(of: key + Array(name.utf8) + [0] + Array(secret.utf8))
    }

    /// The hash `secret` matched for `name`, if that was less than five minutes ago.
    func proof(name: String, secret: String) -> String? {
        let digest = digest(name: name, secret: secret)
        let now = ContinuousClock.now
        return entries.withLock { entries in
            guard let entry = entries[digest] else { return nil }
            guard entry.until > now else {
                entries.removeValue(forKey: digest)
                return nil
            }
            return entry.proof
        }
    }

    /// Remembers that `secret` matched `proof` for `name` (an account's name, or `token ID`).
    func remember(_ proof: String, name: String, secret: String) {
        let digest = digest(name: name, secret: secret)
        let now = ContinuousClock.now
        entries.withLock { entries in
            if entries.count >= Self.capacity { entries = entries.filter { $0.value.until > now } }
            if entries.count >= Self.capacity { entries.removeAll() }
            entries[digest] = (proof, now + Self.lifetime)
        }
    }
}
