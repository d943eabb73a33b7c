import Foundation
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

    /// The account this session still belongs to in `accounts`, or nil when it was removed or its
    /// password changed.
    func account(in accounts: Accounts) -> Account? {
        guard let account = accounts.byName[account], account.passwordHash == passwordHash else { return nil }
        return account
    }

    /// How long a session lasts after sign-in.
    static let lifetime = Duration.seconds(12 * 60 * 60)
    /// The cookie's name.
    static let cookieName = "glance_session"

    /// The session cookie: `HttpOnly`, `SameSite=Strict`, `Secure` when the server speaks TLS,
    /// limited to the site's base path, expiring with the session.
    static func middlewareConfiguration(basePath: String, secure: Bool) -> SessionMiddlewareConfiguration {
        SessionMiddlewareConfiguration(
            sessionCookieParameters: SessionCookieParameters(
                name: cookieName, path: basePath.isEmpty ? "/" : basePath, secure: secure, sameSite: .strict),
            keyPrefix: "session.", defaultSessionExpiration: lifetime)
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
}
