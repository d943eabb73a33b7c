import Foundation
import GlanceCore
import GlanceListing
import Hummingbird

/// The filter, sort and page of a listing as URL query parameters, so that a link can be shared:
/// `pattern`, `type`, `status`, `sort` (`name`, `date`, `size`), `reverse`, `offset`, `limit`.
///
/// The API and the pages read the same parameters; the pages also write them back into every
/// link (the next page, a preview, previous / next) so that browsing keeps the view.
struct PageQuery: Sendable, Equatable {
    /// Documents on one grid page unless `limit` says otherwise.
    static let defaultPageSize = 120
    /// The most a page or an API call returns at once.
    static let maximumPageSize = 1000

    var pattern: String?
    var contentType: ContentType?
    var state: ThumbnailState?
    var order: ListingQuery.Order = .name
    var reversed = false
    var offset = 0
    /// Nil: the caller's default (a page of the grid; everything for the API).
    var limit: Int?

    init() {}

    /// The parameters of a URL's query string, decoded the way HTML forms encode them (`+` is a
    /// space, `%2B` a plus); a malformed escape is a 400.
    ///
    /// Split on the bytes `&` and `=`, as URLs are (splitting the string's characters cost a
    /// thumbnail GET 2% of the server's time, perf under wrk: a `&` before a combining mark is
    /// one character with it).
    static func parameters(_ query: String?) throws(ServerError) -> [String: String] {
        var parameters: [String: String] = [:]
        guard let query, !query.isEmpty else { return parameters }
        for pair in query.utf8.split(separator: UInt8(ascii: "&")) {
            let parts = pair.split(separator: UInt8(ascii: "="), maxSplits: 1, omittingEmptySubsequences: false)
            let name = Substring(parts[0])
            guard let key = formDecoded(name), let value = formDecoded(parts.count > 1 ? Substring(parts[1]) : "")
            else { throw .badQuery(String(name.prefix(40))) }
            parameters[key] = value
        }
        return parameters
    }

    /// `text` as a form encodes it decoded (``PercentDecoding``, `+` a space).
    static func formDecoded(_ text: Substring) -> String? {
        PercentDecoding.decoded(text, plusIsSpace: true)
    }

    /// The query of a request; a value the server does not know is a 400, not a guess.
    init(query: String?) throws(ServerError) {
        try self.init(Self.parameters(query))
    }

    /// The query for decoded parameters.
    init(_ parameters: [String: String]) throws(ServerError) {
        if let pattern = parameters["pattern"], !pattern.isEmpty { self.pattern = String(pattern) }
        if let type = parameters["type"], !type.isEmpty {
            guard let parsed = ContentType(rawValue: String(type)) else { throw .badQuery("type") }
            contentType = parsed
        }
        if let status = parameters["status"], !status.isEmpty {
            guard let parsed = ThumbnailState(rawValue: String(status)) else { throw .badQuery("status") }
            state = parsed
        }
        if let sort = parameters["sort"], !sort.isEmpty {
            guard let parsed = ListingQuery.Order(rawValue: String(sort)) else { throw .badQuery("sort") }
            order = parsed
        }
        if let reverse = parameters["reverse"] {
            guard let flag = ["1": true, "true": true, "0": false, "false": false, "": false][String(reverse)] else {
                throw .badQuery("reverse")
            }
            reversed = flag
        }
        if let offset = parameters["offset"] {
            guard let value = Int(offset), value >= 0 else { throw .badQuery("offset") }
            self.offset = value
        }
        if let limit = parameters["limit"] {
            guard let value = Int(limit), (1...Self.maximumPageSize).contains(value) else { throw .badQuery("limit") }
            self.limit = value
        }
    }

    /// The listing's query for the whole filtered, sorted sequence (no paging). A pattern
    /// without `*`, `?` or `[` matches anywhere in the path, as a search box would.
    var listingQuery: ListingQuery {
        let glob = pattern.map { $0.contains(where: { "*?[".contains($0) }) ? $0 : "*\($0)*" }
        return ListingQuery(pattern: glob, contentType: contentType, state: state, order: order, reversed: reversed)
    }

    /// The query string (without `?`) that names this view, leaving out what is the default, so
    /// that links stay short; every value is percent-encoded.
    func queryString(offset: Int? = nil, includingPage: Bool = true) -> String {
        var pairs: [(String, String)] = []
        if let pattern { pairs.append(("pattern", pattern)) }
        if let contentType { pairs.append(("type", contentType.rawValue)) }
        if let state { pairs.append(("status", state.rawValue)) }
        if order != .name { pairs.append(("sort", order.rawValue)) }
        if reversed { pairs.append(("reverse", "1")) }
        if includingPage {
            let offset = offset ?? self.offset
            if offset > 0 { pairs.append(("offset", String(offset))) }
            if let limit { pairs.append(("limit", String(limit))) }
        }
        return pairs.map { "\($0.0)=\(Self.percentEncoded($0.1))" }.joined(separator: "&")
    }

    /// `value` percent-encoded for a query: only unreserved characters stay as they are.
    static func percentEncoded(_ value: String) -> String {
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._~")
        // `alphanumerics` holds non-ASCII letters too; encode everything beyond ASCII.
        return value.unicodeScalars.map { scalar in
            scalar.isASCII && allowed.contains(scalar)
                ? String(scalar) : String(scalar).utf8.map { String(format: "%%%02X", $0) }.joined()
        }.joined()
    }
}

/// `?` and the query, or nothing when the query is empty.
func withQuery(_ path: String, _ query: String) -> String {
    query.isEmpty ? path : path + "?" + query
}

extension Request {
    /// The value of the query parameter `name`, decoded as ``PageQuery/parameters(_:)`` decodes
    /// every query of the site (a malformed escape anywhere in the query is a 400), or nil.
    func queryParameter(_ name: String) throws(ServerError) -> String? {
        try PageQuery.parameters(uri.query)[name]
    }
}
