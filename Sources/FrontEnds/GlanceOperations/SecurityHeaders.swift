import HTTPTypes
import Hummingbird

/// The headers every answer carries, pages and errors, images and originals alike: no sniffing of
/// another type than the one sent, no framing by another site (clickjacking), no full URL in the
/// `Referer` sent elsewhere, and, for whatever is not a page, a policy that runs nothing (an
/// original opened in the browser is shown, never executed). On a site's listener and on an
/// operator's alike.
public struct SecurityHeaders<Context: RequestContext>: RouterMiddleware {
    public init() {}

    public func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response)
        async throws -> Response
    {
        var response: Response
        do {
            response = try await next(request, context)
        } catch let error as any HTTPResponseError {
            response = try error.response(from: request, context: context)
        }
        ResponseSecurity.add(to: &response.headers)
        return response
    }
}

/// The rule ``SecurityHeaders`` applies to every answer's headers.
public enum ResponseSecurity {
    /// The policy of answers that are not pages (pages set their own).
    public static let inertPolicy =
        "default-src 'none'; img-src 'self'; style-src 'unsafe-inline'; frame-ancestors 'none'; sandbox"

    /// Adds the headers to `headers`, keeping a policy already set.
    public static func add(to headers: inout HTTPFields) {
        headers[HTTPField.Name("X-Content-Type-Options")!] = "nosniff"
        headers[HTTPField.Name("X-Frame-Options")!] = "DENY"
        headers[HTTPField.Name("Referrer-Policy")!] = "same-origin"
        if headers[.contentSecurityPolicy] == nil { headers[.contentSecurityPolicy] = inertPolicy }
    }
}
