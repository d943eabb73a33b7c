import Foundation
import GlanceAccounts
import Hummingbird
import HummingbirdAuth

/// What a browser's session remembers, on the server only (the cookie holds a random identifier
/// of 32 bytes, made by hummingbird-auth): the account, and its password hash when it signed in,
/// so that a new password or a removed account ends the session. Sessions live in the server's
/// memory: a restart ends them all.
public struct BrowserSession: Codable, Sendable, Equatable {
    /// The account's name.
    public let account: String
    /// The account's password hash at sign-in.
    public let passwordHash: String
    /// The share link's grant this session was opened by (instead of an account), or nil.
    public let share: String?

    /// A session of `account`, signed in with the password whose hash is `passwordHash`.
    public init(account: String, passwordHash: String) {
        self.account = account
        self.passwordHash = passwordHash
        share = nil
    }

    /// A session opened by the share link of grant `share`: no account.
    public init(share: String) {
        account = ""
        passwordHash = ""
        self.share = share
    }

    /// The account this session still belongs to in `accounts`, or nil when it was removed or its
    /// password changed (or the session is a share link's).
    func account(in accounts: Accounts) -> Account? {
        guard share == nil, let account = accounts.byName[account], account.passwordHash == passwordHash
        else { return nil }
        return account
    }

    /// The grant of a share link's session, while `accounts` still hold it and it has not expired.
    func share(in accounts: Accounts, now: Date = Date()) -> Share? {
        guard let share, let grant = accounts.shares[share], grant.isLive(at: now) else { return nil }
        return grant
    }

    /// How long a session lasts after sign-in.
    static let lifetime = Duration.seconds(12 * 60 * 60)
    /// The cookie's name.
    static let cookieName = "glance_session"
    /// What a session's key in the store starts with (the cookie's identifier follows).
    static let keyPrefix = "session."

    /// The session cookie: `HttpOnly`, `SameSite=Strict`, `Secure` when the server speaks TLS,
    /// limited to the site's base path, expiring with the session.
    static func middlewareConfiguration(basePath: String, secure: Bool) -> SessionMiddlewareConfiguration {
        SessionMiddlewareConfiguration(
            sessionCookieParameters: SessionCookieParameters(
                name: cookieName, path: basePath.isEmpty ? "/" : basePath, secure: secure, sameSite: .strict),
            keyPrefix: keyPrefix, defaultSessionExpiration: lifetime)
    }
}

/// How a request proved its account.
enum Credential: Sendable, Equatable {
    /// The browser session of the sign-in page.
    case session
    /// `Authorization: Basic`, a name and password.
    case password
    /// `Authorization: Bearer`, an access token: it may only read.
    case token
    /// A share link's session: it may only read, and only its container or its one document.
    case share(document: String?)

    /// Whether the credential may only read (GET and HEAD).
    var readsOnly: Bool {
        switch self {
        case .session, .password: false
        case .token, .share: true
        }
    }
}
