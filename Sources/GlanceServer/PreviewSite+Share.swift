import Foundation
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
    func addShareRoutes(to site: some RouterMethods<ServerRequestContext>, accounts: AccountBook) {
        for method in [HTTPRequest.Method.get, .head] {
            site.on("/share/:token", method: method) { request, context in
                try await openShare(context.parameters.get("token") ?? "", context: context, accounts: accounts)
            }
        }
    }

    /// `GET /share/TOKEN`: a browser already signed in with an account keeps its session; any
    /// other gets a session of the link's grant. A link that does not open answers 404, and
    /// slows the client's next attempts as a failed sign-in does.
    func openShare(_ token: String, context: ServerRequestContext, accounts: AccountBook) async throws -> Response {
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
        let destination = self.destination(of: share)
        if let session = context.sessions.session, session.account(in: current) != nil {
            return Self.redirect(to: destination)
        }
        guard throttle.mayStartSession(account: "share " + share.id) else {
            throw ServerError.tooManySessions(SignInThrottle.sessionsPerWindow)
        }
        let left = share.expires.timeIntervalSinceNow
        context.sessions.createSession(
            BrowserSession(share: share.id),
            expiresIn: min(BrowserSession.lifetime, .milliseconds(Int64(max(1, left * 1000)))))
        return Self.redirect(to: destination)
    }

    /// The page a grant opens on: its document's preview, or its container's grid.
    func destination(of share: Share) -> String {
        let container = containers.count == 1 ? basePath : basePath + "/c/" + share.container
        guard let document = share.document else { return container + "/" }
        return container + "/preview/" + DocumentURL.encoded(document)
    }
}
