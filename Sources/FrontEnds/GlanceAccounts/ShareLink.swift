import Foundation
import GlanceCore
import JWTKit

/// A share link's grant, as the users file records it: one container, or one document of it,
/// read-only, until a moment. The link itself is a JSON Web Token naming the grant, signed by the
/// users file's share key (``ShareLinks``); the grant's line in the file is what keeps it alive,
/// so `glance share revoke ID` ends one link and `glance share revoke --all` (a new key) every
/// link.
public struct Share: Sendable, Equatable {
    /// The grant's identifier (12 hexadecimal digits), which `glance share list` shows.
    public let id: String
    /// The container's URL name (`/c/NAME`), as `glance user add --container` takes it.
    public let container: String
    /// The one document shared (a path inside the container), or nil for the whole container.
    public let document: String?
    /// When the link stops opening, and the sessions it started end.
    public let expires: Date

    public init(id: String, container: String, document: String?, expires: Date) {
        self.id = id
        self.container = container
        self.document = document
        self.expires = expires
    }

    /// A new grant with a random identifier.
    public static func make(container: String, document: String?, expires: Date) -> Share {
        var generator = SystemRandomNumberGenerator()
        let id = (0..<6).map { _ in String(format: "%02x", UInt8.random(in: 0...255, using: &generator)) }.joined()
        // Whole seconds, as the users file and the token's `exp` keep it.
        let seconds = expires.timeIntervalSince1970.rounded(.down)
        return Share(id: id, container: container, document: document, expires: Date(timeIntervalSince1970: seconds))
    }

    /// Whether the grant still opens at `now`.
    public func isLive(at now: Date = Date()) -> Bool { now < expires }

    /// What a request holding this grant is, for the container check: an account that sees only
    /// the grant's container (its name, `share ID`, is no account's: names have no space).
    public var account: Account {
        Account(name: "share " + id, passwordHash: "", containers: [container])
    }

    /// The longest a link may live: a share is for a while, an account for good.
    public static let longestLifetime: TimeInterval = 90 * 24 * 60 * 60
}

/// What a share link carries, signed: the grant's identifier, container, document and expiry.
/// Checked against the users file after the signature, so a revoked grant does not open.
struct ShareLinkClaims: JWTPayload, Equatable {
    /// The grant's identifier (`jti`).
    var jti: IDClaim
    /// When the link expires (`exp`).
    var exp: ExpirationClaim
    /// The container's URL name (`sub`).
    var sub: SubjectClaim
    /// The document's path, when one document is shared.
    var doc: String?

    init(_ share: Share) {
        jti = IDClaim(value: share.id)
        exp = ExpirationClaim(value: share.expires)
        sub = SubjectClaim(value: share.container)
        doc = share.document
    }

    func verify(using algorithm: some JWTAlgorithm) async throws {
        try exp.verifyNotExpired()
    }
}

/// Signs share links and checks them, with the users file's share key (HMAC-SHA-256 through
/// jwt-kit: the token format, signature and expiry check are the library's).
public struct ShareLinks: Sendable {
    /// The signing key: 32 random bytes kept in the users file.
    let key: [UInt8]

    public init(key: [UInt8]) { self.key = key }

    /// A fresh random key.
    public static func makeKey() -> [UInt8] {
        var generator = SystemRandomNumberGenerator()
        return (0..<32).map { _ in UInt8.random(in: 0...255, using: &generator) }
    }

    private func keys() async -> JWTKeyCollection {
        let keys = JWTKeyCollection()
        await keys.add(hmac: HMACKey(from: key), digestAlgorithm: .sha256)
        return keys
    }

    /// The token of `share`'s link (the part after `/share/`).
    public func token(for share: Share) async throws -> String {
        try await keys().sign(ShareLinkClaims(share))
    }

    /// The grant `token` opens in `accounts`, or nil: a token with a wrong signature, an expired
    /// one, or one whose grant was revoked or differs from what it says.
    public func share(for token: String, in accounts: Accounts, now: Date = Date()) async -> Share? {
        guard token.utf8.count < 2048,
            let claims = try? await keys().verify(token, as: ShareLinkClaims.self),
            let share = accounts.shares[claims.jti.value], share.isLive(at: now),
            share.container == claims.sub.value, share.document == claims.doc
        else { return nil }
        return share
    }
}
