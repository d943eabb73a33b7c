import GlanceAccounts
import GlanceCore
import Hummingbird

/// What a signed-in request may reach, said where the routes are grouped: each rule is the
/// middleware of the group it guards, and reads the route's own parameters, not the path again.

/// A container's routes: an account limited to other containers finds nothing here. `404`, as
/// for any name that is no container, so that it cannot learn which containers there are.
struct ContainerAccess: RouterMiddleware {
    typealias Context = ServerRequestContext
    /// The container's URL name (`/c/NAME`).
    let name: String

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response)
        async throws -> Response
    {
        if let account = context.account, !account.maySee(container: name) { throw ServerError.notFound }
        return try await next(request, context)
    }
}

/// Routes about more than one document (a grid, the listing, the event stream, the site's list
/// of containers, the server's metrics): a share link of one document does not reach them.
struct WholeContainerOnly: RouterMiddleware {
    typealias Context = ServerRequestContext

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response)
        async throws -> Response
    {
        if context.sharedDocument != nil { throw ServerError.notFound }
        return try await next(request, context)
    }
}

/// Routes about one document (`/preview/`, `/thumbnails/`, `/previews/`, `/text/`,
/// `/documents/`, `/api/items/` and its path): a share link of one document reaches its own
/// document's only; the route's path parameter names the document.
struct SharedDocumentOnly: RouterMiddleware {
    typealias Context = ServerRequestContext

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response)
        async throws -> Response
    {
        // Compared as bytes: a canonically equal name is another file (``PathKey``).
        if let shared = context.sharedDocument,
            !(DocumentURL.from(components: context.parameters.getCatchAll())?.isSameName(as: shared) ?? false)
        {
            throw ServerError.notFound
        }
        return try await next(request, context)
    }
}
