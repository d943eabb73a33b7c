import GlanceAccounts

/// The one way a credential is checked, for the middleware (HTTP Basic, tokens) and the sign-in
/// form alike: failed attempts slow the next ones of their client and account
/// (``SignInThrottle``), and a success is remembered for a while (``VerifiedCredentials``), checked
/// against the current accounts on every use, so a grid's hundred thumbnails pay for one hash and
/// a new password or a revoked token ends it at once.
struct CredentialCheck: Sendable {
    /// A credential as a request presents it.
    enum Presented {
        /// An account's name and password (HTTP Basic, the sign-in form).
        case password(name: String, password: String)
        /// An access token's text (`Authorization: Bearer`).
        case token(String)

        /// What the throttle and the memory know it by: the account's name, or `token ID` (no
        /// account has a name with a space; a name that is no account's name stands for none).
        var key: String {
            switch self {
            case .password(let name, _): Accounts.isName(name) ? name : "not an account name"
            case .token(let text): "token " + (AccessToken.parts(of: text)?.id ?? "")
            }
        }

        var secret: String {
            switch self {
            case .password(_, let password): password
            case .token(let text): text
            }
        }
    }

    let throttle: SignInThrottle
    let verified: VerifiedCredentials

    /// The account `presented` proves in `accounts` for `client` (its address), or nil; throws
    /// ``ServerError/tooManyAttempts(retryAfter:)`` when the client or the account has made its
    /// most attempts of the minute.
    func account(for presented: Presented, client: String, in accounts: Accounts) async throws -> Account? {
        let key = presented.key
        let secret = presented.secret
        if let proof = verified.proof(name: key, secret: secret),
            let known = accounts.account(named: key, provenBy: proof)
        {
            return known
        }
        if let retry = throttle.admit(client: client, account: key) {
            throw ServerError.tooManyAttempts(retryAfter: retry)
        }
        let wait = throttle.delay(client: client, account: key)
        if wait > .zero { try await Task.sleep(for: wait) }
        let found: Account?
        switch presented {
        case .password: found = accounts.account(named: key, password: secret)
        case .token(let text): found = accounts.account(forToken: text)
        }
        guard let found, let proof = accounts.proof(named: key) else {
            throttle.failed(client: client, account: key)
            return nil
        }
        throttle.succeeded(client: client, account: key)
        throttle.refund(client: client, account: key)
        verified.remember(proof, name: key, secret: secret)
        return found
    }
}
