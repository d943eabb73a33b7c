import Foundation
import GlanceContainer
import HTTPTypes
import Hummingbird
import Synchronization

/// Every route behind an account of the users file, except the pages' assets: a request without
/// credentials, or with wrong ones, gets `401` and `WWW-Authenticate: Basic`, never a document;
/// one with an account's name and password goes on, with the account in its context. HTTP Basic
/// serves scripts (`curl -u`) and browsers (their own sign-in dialog) alike; only over TLS (or on
/// loopback behind a proxy that adds it) does it keep the password from the network.
///
/// A failed attempt slows the next ones of its client and of its account (``SignInThrottle``).
/// The password is never logged: the request log has the method, the path and the status.
struct SignIn: RouterMiddleware {
    typealias Context = ServerRequestContext
    let accounts: Accounts
    let throttle: SignInThrottle
    let verified: VerifiedCredentials
    /// The site's base path: its assets are served to anyone (they hold nothing of a container).
    let basePath: String
    /// The URL name of the only container, when the site has one (else containers are `/c/NAME/`).
    let onlyContainer: String?

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response)
        async throws -> Response
    {
        let path = request.uri.path
        if path.hasPrefix(basePath + "/assets/") || path == basePath + "/favicon.ico" {
            return try await next(request, context)
        }
        let client = context.channel.remoteAddress?.ipAddress ?? "unknown"
        guard let (name, password) = Self.basicCredentials(request.headers[.authorization]) else {
            return Self.challenge
        }
        let account: Account
        if let known = verified.account(name: name, password: password) {
            account = known
        } else {
            let wait = throttle.delay(client: client, account: name)
            if wait > .zero { try await Task.sleep(for: wait) }
            guard let checked = accounts.account(named: name, password: password) else {
                throttle.failed(client: client, account: name)
                return Self.challenge
            }
            throttle.succeeded(client: client, account: name)
            verified.remember(checked, password: password)
            account = checked
        }
        // A container the account may not see does not exist for it: 404, as for any other
        // name, so that it cannot learn which containers there are.
        if let container = container(of: path), !account.maySee(container: container) {
            throw ServerError.notFound
        }
        var context = context
        context.account = account
        return try await next(request, context)
    }

    /// The URL name of the container `path` is about, or nil for the site's own pages.
    func container(of path: String) -> String? {
        if let onlyContainer { return onlyContainer }
        let inner = path.dropFirst(basePath.count).split(separator: "/", omittingEmptySubsequences: true)
        guard inner.count >= 2, inner[0] == "c" else { return nil }
        return String(inner[1])
    }

    /// `401` asking for an account.
    static var challenge: Response {
        Response(
            status: .unauthorized,
            headers: [
                .wwwAuthenticate: "Basic realm=\"Glance\", charset=\"UTF-8\"",
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
}

/// Slows down guessing: after failed sign-ins, a client's and an account's next attempts wait,
/// a quarter of a second after the first failure, doubling with each failure in the last ten
/// minutes, up to eight seconds. A success clears the client's and the account's count. Bounded:
/// at most 10,000 clients and accounts are remembered (the oldest forgotten first).
final class SignInThrottle: Sendable {
    private struct Record {
        var failures: Int
        var last: ContinuousClock.Instant
    }

    private let records = Mutex<[String: Record]>([:])
    static let window = Duration.seconds(600)
    static let maximumDelay = Duration.seconds(8)
    static let capacity = 10_000

    /// How long an attempt by `client` for `account` waits before it is checked.
    func delay(client: String, account: String) -> Duration {
        let now = ContinuousClock.now
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
        let now = ContinuousClock.now
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
/// 10,000, under a keyed SHA-256 of name and password (the key random for each process): the
/// memory holds neither a password nor anything that checks one outside this process.
final class VerifiedCredentials: Sendable {
    private let key: [UInt8] = {
        var generator = SystemRandomNumberGenerator()
        return (0..<32).map { _ in UInt8.random(in: 0...255, using: &generator) }
    }()
    private let entries = Mutex<[[UInt8]: (account: Account, until: ContinuousClock.Instant)]>([:])
    static let lifetime = Duration.seconds(300)
    static let capacity = 10_000

    private func digest(name: String, password: String) -> [UInt8] {
        ContentDigest.sha256(of: key + Array(name.utf8) + [0] + Array(password.utf8))
    }

    /// The account these credentials were found to be, if that was less than five minutes ago.
    func account(name: String, password: String) -> Account? {
        let digest = digest(name: name, password: password)
        let now = ContinuousClock.now
        return entries.withLock { entries in
            guard let entry = entries[digest] else { return nil }
            guard entry.until > now else {
                entries.removeValue(forKey: digest)
                return nil
            }
            return entry.account
        }
    }

    /// Remembers that `password` is `account`'s.
    func remember(_ account: Account, password: String) {
        let digest = digest(name: account.name, password: password)
        let now = ContinuousClock.now
        entries.withLock { entries in
            if entries.count >= Self.capacity { entries = entries.filter { $0.value.until > now } }
            if entries.count >= Self.capacity { entries.removeAll() }
            entries[digest] = (account, now + Self.lifetime)
        }
    }
}
