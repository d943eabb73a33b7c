import Hummingbird

extension Request {
    /// Whether the request may have been made by another site's page: a browser says so in
    /// `Sec-Fetch-Site` (anything but `same-origin`, or `none` for what the user typed or
    /// bookmarked). A request without the header comes from no browser, or from one too old to
    /// say; the callers weigh that themselves. The one reading of the header.
    var isFromAnotherSite: Bool {
        guard let site = headers[.secFetchSite] else { return false }
        return site != "same-origin" && site != "none"
    }
}
