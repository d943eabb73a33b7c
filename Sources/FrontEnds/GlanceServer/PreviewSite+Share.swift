import Foundation
import GlanceAccounts
import HTTPTypes
import Hummingbird

/// Where share links open: `GET /share/TOKEN` checks the link (its signature, its expiry, its
/// grant still in the users file), starts a read-only browser session for its container or its
/// one document, and sends the browser there.
enum SharePage {
    /// The links' path under the site's base path.
    static let pathPrefix = "/share/"
}

extension PreviewSite {
    func addShareRoutes(to site: SiteRoutes, accounts: AccountBook) {
        site.on(.share) { request, context in
            try await openShare(
                context.parameters.get("token") ?? "", request: request, context: context, accounts: accounts)
        }
    }

    /// `GET /share/TOKEN`: a browser already signed in with an account keeps its session; any
    /// other gets a session of the link's grant. A link that does not open answers 404, and
    /// slows the client's next attempts as a failed sign-in does.
    func openShare(_ token: String, request: Request, context: ServerRequestContext, accounts: AccountBook)
        async throws -> Response
    {
        let client = context.client
        let throttleKey = "share links from " + client
        if let retry = throttle.admit(client: client, account: throttleKey) {
            throw ServerError.tooManyAttempts(retryAfter: retry)
        }
        let wait = throttle.delay(client: client, account: throttleKey)
        if wait > .zero { try await Task.sleep(for: wait) }
        let current = accounts.current
        guard let key = current.shareKey, let share = await ShareLinks(key: key).share(for: token, in: current)
        else {
            throttle.failed(client: client, account: throttleKey)
            context.logger.notice("a share link did not open", metadata: ["client": "\(client)"])
            throw ServerError.shareLinkClosed
        }
        throttle.succeeded(client: client, account: throttleKey)
        throttle.refund(client: client, account: throttleKey)
        // Followed from another site's page, the browser sent no session cookie (SameSite=Strict),
        // though it may hold an account's: a session of the link's would replace that one. A page
        // of this site's own opens the link again, and with the cookie.
        if request.isFromAnotherSite {
            return Self.reopenFromThisSite(basePath + SharePage.pathPrefix + token)
        }
        let destination = self.destination(of: share)
        // A browser that already has a session of an account, or of this link, keeps it: opening
        // a link again starts no other session (each counts against the link's sessions in ten
        // minutes, and one holder opening it over and over would use them all up). A `HEAD`
        // (a link checker) learns whether the link opens, and starts none either.
        if let session = context.sessions.session, session.account(in: current) != nil || session.share == share.id {
            return Self.redirect(to: destination)
        }
        if request.method == .head { return Self.redirect(to: destination) }
        guard throttle.mayStartSession(account: "share " + share.id) else {
            throw ServerError.tooManySessions(SignInThrottle.sessionsPerWindow)
        }
        let left = share.expires.timeIntervalSinceNow
        context.sessions.createSession(
            BrowserSession(share: share.id),
            expiresIn: min(BrowserSession.lifetime, .milliseconds(Int64(max(1, left * 1000)))))
        return Self.redirect(to: destination)
    }

    /// A page that opens `path` (a share link checked to open, so of URL-safe characters only) at
    /// once from this site, so that the browser sends this site's cookies with it.
    static func reopenFromThisSite(_ path: String) -> Response {
        let safe = path.unicodeScalars.allSatisfy {
            $0.isASCII && (CharacterSet.alphanumerics.contains($0) || "/._-~".unicodeScalars.contains($0))
        }
        let target = safe ? path : "/"
        let body = """
            <!doctype html><html lang="en"><meta charset="utf-8"><meta name="referrer" content="no-referrer">\
            <meta http-equiv="refresh" content="0;url=\(target)"><title>Opening a shared link</title>\
            <p><a href="\(target)">Open the shared link</a></p></html>
            """
        var headers: HTTPFields = [
            .contentType: "text/html; charset=utf-8", .cacheControl: "no-store",
            .contentLength: String(body.utf8.count),
        ]
        headers[.contentSecurityPolicy] = PreviewSite.contentSecurityPolicy
        return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(string: body)))
    }

    /// The page a grant opens on: its document's preview, or its container's grid.
    func destination(of share: Share) -> String {
        let container = containers.count == 1 ? basePath : basePath + "/c/" + share.container
        guard let document = share.document else { return container + "/" }
        return container + "/preview/" + DocumentURL.encoded(document)
    }
}
