import GlanceAccounts
import Hummingbird
import HummingbirdAuth
import NIOCore

/// What a route knows of its request besides the request itself: Hummingbird's core context,
/// and the connection, so that a long answer is sent no faster than the client takes it.
public struct ServerRequestContext: RequestContext, SessionRequestContext {
    public var coreContext: CoreRequestContextStorage
    /// The browser session of the request, kept by hummingbird-auth's session middleware when
    /// the server has accounts (``BrowserSession``).
    public let sessions = SessionContext<BrowserSession>()
    /// The connection the request came on.
    let channel: any Channel
    /// The account the request was made with, when the server has accounts (``SignIn``).
    var account: Account?
    /// How the request was signed in, when it was.
    var credential: Credential?
    /// The sign-out button for the pages, when the request came with a browser session.
    var signOut: SignOutForm?

    /// What the request's client is counted by (``ClientKey``): its address, or its IPv6 /64.
    var client: String { ClientKey.of(channel.remoteAddress) }

    /// Whether the request's credential still holds (its session not ended, its account not
    /// removed and its password not changed, its token or share link not revoked), asked again
    /// by answers that last (the event stream); nil when the server has no accounts.
    var stillSignedIn: (@Sendable () async -> Bool)?

    /// The one document the request's share link opens, or nil (any other credential, or a link
    /// to a whole container).
    var sharedDocument: String? {
        if case .share(let document?) = credential { return document }
        return nil
    }

    public init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        channel = source.channel
    }

    /// Waits until what was written so far has reached the connection and the connection can
    /// take more (its client reads), or it closed.
    ///
    /// A body writer's `write` returns as soon as the piece is queued for the connection's event
    /// loop, and the connection's writability says nothing of the pieces still queued: with many
    /// clients on a busy loop, a writer that only awaited `write` ran ahead by a dozen pieces
    /// (1.5 MB a client that reads nothing). A round trip through the loop first makes the
    /// pieces queued before it reach the connection; then writability is current.
    func untilWritable() async throws {
        try await channel.eventLoop.submit {}.get()
        var pause = Duration.milliseconds(5)
        while !channel.isWritable {
            guard channel.isActive else { throw ChannelError.ioOnClosedChannel }
            try await Task.sleep(for: pause)
            pause = min(pause * 2, .milliseconds(100))
        }
    }
}
