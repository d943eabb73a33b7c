import Hummingbird

/// What can go wrong serving a request, and the one place where it becomes an HTTP status: a
/// request that cannot be served is answered, never a 500.
enum ServerError: Error, HTTPResponseError {
    /// The path is not a document of the container (or escapes it, or is hidden).
    case notFound
    /// The document has no thumbnail: it failed (the reason) or is not a supported type.
    case noThumbnail(String)
    /// The document has no preview of the kind asked for (the reason: it failed, or it is text).
    case noPreview(String)
    /// The document has no such page (it has this many).
    case noSuchPage(pageCount: Int)
    /// An on-demand render did not end within the time limit.
    case renderTimedOut
    /// A query parameter has a value the server does not know.
    case badQuery(String)
    /// The store cannot be read (the reason).
    case storeUnavailable(String)
    /// The request's credential may not do this (the reason).
    case forbidden(String)
    /// A request body larger than the route takes (its limit in bytes).
    case bodyTooLarge(Int)
    /// A share link that does not open: mistyped, expired or revoked.
    case shareLinkClosed
    /// The account started its limit of sessions (the number) in the last ten minutes.
    case tooManySessions(Int)
    /// The client or the account made its most sign-in attempts of the minute: the next may
    /// start after this.
    case tooManyAttempts(retryAfter: Duration)
    /// The previews waiting to be drawn fill the server's queue, or this client's share of it.
    case previewQueueFull
    /// The client closed the connection while its answer was being made (logged as 499, as
    /// nginx does; nobody reads the answer).
    case clientGone

    var status: HTTPResponse.Status {
        switch self {
        case .notFound, .noThumbnail, .noPreview, .noSuchPage, .shareLinkClosed: .notFound
        case .renderTimedOut, .storeUnavailable: .serviceUnavailable
        case .badQuery: .badRequest
        case .forbidden: .forbidden
        case .bodyTooLarge: .contentTooLarge
        case .tooManySessions, .tooManyAttempts: .tooManyRequests
        case .previewQueueFull: .serviceUnavailable
        case .clientGone: HTTPResponse.Status(code: 499, reasonPhrase: "Client Closed Request")
        }
    }

    var message: String {
        switch self {
        case .notFound: "no such document"
        case .noThumbnail(let reason): "no thumbnail: \(reason)"
        case .noPreview(let reason): "no preview: \(reason)"
        case .noSuchPage(let count): "no such page: the document has \(count) page\(count == 1 ? "" : "s")"
        case .renderTimedOut: "the thumbnail is being made; try again shortly"
        case .badQuery(let name): "bad value for the query parameter '\(name)'"
        case .storeUnavailable(let reason): "the thumbnail store cannot be read: \(reason)"
        case .forbidden(let reason): reason
        case .bodyTooLarge(let limit): "the request's body is larger than \(limit) bytes"
        case .shareLinkClosed:
            "this share link does not open: it expired, was revoked, or is not complete; ask for a new one"
        case .tooManySessions(let limit):
            "\(limit) sessions were started with this account or share link in the last ten minutes; try again in a few minutes"
        case .tooManyAttempts(let wait):
            "too many sign-in attempts from here or on this account; try again in \(Self.seconds(wait)) s"
        case .previewQueueFull:
            "too many previews are waiting to be drawn; try again shortly"
        case .clientGone: "the client closed the connection"
        }
    }

    /// Whole seconds, rounded up: what `Retry-After` says.
    static func seconds(_ duration: Duration) -> Int {
        let (seconds, attoseconds) = duration.components
        return Int(seconds) + (attoseconds > 0 ? 1 : 0)
    }

    func response(from request: Request, context: some RequestContext) throws -> Response {
        var headers: HTTPFields = [.contentType: "text/plain; charset=utf-8"]
        switch self {
        case .renderTimedOut: headers[.retryAfter] = "5"
        case .previewQueueFull: headers[.retryAfter] = "2"
        case .tooManyAttempts(let wait): headers[.retryAfter] = String(Self.seconds(wait))
        default: break
        }
        return Response(
            status: status, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(string: message + "\n")))
    }
}
