import Foundation
import GlanceAccounts
import HTTPTypes
import Hummingbird

/// The sign-in page of a server with accounts: `GET /sign-in` shows the form, `POST /sign-in`
/// checks it and starts a browser session (hummingbird-auth's session middleware sets the
/// cookie), `POST /sign-out` ends the session. Both forms are taken from this site's own pages
/// only (`Origin` and `Sec-Fetch-Site` checked; the cookie is `SameSite=Strict` as well).
extension PreviewSite {
    /// The fields of the sign-in form.
    struct SignInForm: Decodable {
        var name: String?
        var password: String?
        var next: String?
    }

    /// The most a sign-in form may send: a name, a password and a path fit in far less.
    static let signInBodyLimit = 8192

    func addSignInRoutes(to site: SiteRoutes, accounts: AccountBook) {
        site.on(.signIn) { request, context in
            if request.method == .post { return try await signIn(request, context: context, accounts: accounts) }
            let next = safeNext(try request.queryParameter("next"))
            return signInPage(request, next: next, name: "", error: nil, status: .ok)
        }
    }

    /// `POST /sign-out`, for a signed-in browser (in the signed-in group).
    func addSignOutRoute(to signedIn: SiteRoutes) {
        signedIn.on(.signOut) { request, context in
            guard isSameOrigin(request) else { throw ServerError.forbidden("a form of another site") }
            context.sessions.clearSession()
            return Self.redirect(to: basePath + SignInPage.path)
        }
    }

    /// `POST /sign-in`: the form's name and password checked (slowed down after failures, as
    /// every other way in), a new session on success.
    func signIn(_ request: Request, context: ServerRequestContext, accounts: AccountBook) async throws -> Response {
        guard isSameOrigin(request) else { throw ServerError.forbidden("a form of another site") }
        let body: ByteBuffer
        do {
            var request = request
            body = try await request.collectBody(upTo: Self.signInBodyLimit)
        } catch {
            throw ServerError.bodyTooLarge(Self.signInBodyLimit)
        }
        let form = (try? URLEncodedFormDecoder().decode(SignInForm.self, from: String(buffer: body))) ?? SignInForm()
        let next = safeNext(form.next)
        let name = form.name ?? ""
        guard !name.isEmpty, let password = form.password, !password.isEmpty else {
            return signInPage(request, next: next, name: name, error: "Type a name and a password.", status: .forbidden)
        }
        let client = context.client
        let checked: Account?
        do {
            checked = try await credentialCheck.account(
                for: .password(name: name, password: password), client: client, in: accounts.current)
        } catch ServerError.tooManyAttempts(let wait) {
            context.logger.notice("sign-in attempts refused: too many", metadata: ["client": "\(client)"])
            var response = signInPage(
                request, next: next, name: name,
                error: "Too many attempts. Try again in \(ServerError.seconds(wait)) seconds.", status: .tooManyRequests
            )
            response.headers[.retryAfter] = String(ServerError.seconds(wait))
            return response
        }
        guard let account = checked else {
            context.logger.notice("a sign-in failed", metadata: ["client": "\(client)"])
            return signInPage(request, next: next, name: name, error: "Wrong name or password.", status: .forbidden)
        }
        // Each session is kept in memory until it expires: one account cannot make them without end.
        guard throttle.mayStartSession(account: account.name) else {
            throw ServerError.tooManySessions(SignInThrottle.sessionsPerWindow)
        }
        context.sessions.createSession(
            BrowserSession(account: account.name, passwordHash: account.passwordHash),
            expiresIn: BrowserSession.lifetime)
        return Self.redirect(to: next)
    }

    /// The sign-in page, with `error` when the last attempt failed.
    func signInPage(_ request: Request, next: String, name: String, error: String?, status: HTTPResponse.Status)
        -> Response
    {
        let page = SignInPage(
            assets: PageAssets().links(under: basePath), action: basePath + SignInPage.path, next: next,
            name: name, error: error)
        var response = PreviewServer.html(PageTemplates.library.render(page, withTemplate: "sign-in"))
        response.status = status
        response.headers[.cacheControl] = "no-store"
        return response
    }

    /// `next` if it is a path of this site (so that the form cannot send a browser elsewhere),
    /// else the site's first page.
    func safeNext(_ next: String?) -> String {
        let home = basePath + "/"
        guard let next, next.hasPrefix(home), !next.hasPrefix("//"), !next.hasPrefix(basePath + SignInPage.path),
            next.unicodeScalars.allSatisfy({ $0.isASCII && $0.value > 0x20 && $0 != "\\" })
        else { return home }
        return next
    }

    /// Whether a form came from a page of this site: a browser says where it came from in
    /// `Sec-Fetch-Site` and `Origin`; a script that sends neither is not a browser tricked by
    /// another page.
    func isSameOrigin(_ request: Request) -> Bool {
        if request.isFromAnotherSite { return false }
        guard let origin = request.headers[.origin] else { return true }
        guard let authority = request.head.authority, let range = origin.range(of: "://") else { return false }
        return origin[range.upperBound...] == authority[...]
    }

    /// `303 See Other` to `location`, never kept by a cache.
    static func redirect(to location: String) -> Response {
        Response(status: .seeOther, headers: [.location: location, .cacheControl: "no-store"])
    }
}
