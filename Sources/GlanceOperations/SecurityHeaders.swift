import HTTPTypes
import Hummingbird

/// The headers every answer carries, pages and errors, images and originals alike: no sniffing of
/// another type than the one sent, no framing by another site (clickjacking), no full URL in the
/// `Referer` sent elsewhere, and, for whatever is not a page, a policy that runs nothing (an
/// original opened in the browser is shown, never executed).
struct SecurityHeaders: RouterMiddleware {
    typealias Context = ServerRequestContext

    /// The policy of answers that are not pages (the pages set their own,
    /// ``PreviewSite/contentSecurityPolicy``).
    static let inertPolicy =
        "default-src 'none'; img-src 'self'; style-src 'unsafe-inline'; frame-ancestors 'none'; sandbox"

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response)
        async throws -> Response
    {
        var response: Response
        do {
            response = try await next(request, context)
        } catch let error as any HTTPResponseError {
            response = try error.response(from: request, context: context)
        }
        Self.add(to: &response.headers)
        return response
    }

    /// Adds the headers to `headers`, keeping a policy already set.
    static func add(to headers: inout HTTPFields) {
        headers[HTTPField.Name("X-Content-Type-Options")!] = "nosniff"
        headers[HTTPField.Name("X-Frame-Options")!] = "DENY"
        headers[HTTPField.Name("Referrer-Policy")!] = "same-origin"
        if headers[.contentSecurityPolicy] == nil { headers[.contentSecurityPolicy] = inertPolicy }
    }
}
