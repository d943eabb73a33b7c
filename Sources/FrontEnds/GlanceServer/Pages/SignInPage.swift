/// What the sign-in template shows: a form for an account's name and password, and why the last
/// attempt failed.
struct SignInPage: Sendable {
    /// The page's path under the site's base path; the form is sent back to it.
    static let path = "/sign-in"
    /// Where a signed-in browser signs out (a form, `POST`).
    static let signOutPath = "/sign-out"

    let title = "Sign in"
    let assets: PageAssets.Links
    let prefetch: [String] = []
    /// The form's target.
    let action: String
    /// Where to go once signed in (a path of this site, checked).
    let next: String
    /// The name tried last, to type the password again only.
    let name: String
    /// Why the last attempt failed, or nil.
    let error: String?
}

/// The sign-out button of a page's top bar, for a browser signed in with a session.
struct SignOutForm: Sendable {
    let action: String
    /// The account's name.
    let name: String
}
