import Foundation
import GlanceAccounts
import GlanceCore
import GlanceOperations
import GlanceTestSupport
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing

@testable import GlanceServer

/// The routes of a site with accounts, in process (`Application(router:).test(.router)`, no
/// socket, no `glance` process): HTTP Basic, the sign-in form and its browser sessions, access
/// tokens, share links, containers an account is limited to, and `/metrics`. Each test builds its
/// own sites (each site has its own sessions and its own throttle of failed attempts, so that a
/// failure in one test does not slow another). `glance serve --users` end to end is
/// `GlanceCLITests.SignInTests`.
@Suite("sign-in, sessions, tokens and share links, in process", .timeLimit(.minutes(10)))
struct SignInRouteTests {
    static let password = "a long password"

    /// One container (`photos`) or several, made by ``ServedContainer`` and served under those
    /// titles (so under those URL names, which accounts and share links name), and the sites
    /// built over them. Kept alive by every use in a test.
    final class Fixture: Sendable {
        let served: [ServedContainer]
        let servers: [PreviewServer]

        /// An owner-only folder for a users file (the server refuses one in a folder others may write).
        let usersFolder: String

        init(_ titles: [String] = ["photos"]) throws {
            served = try titles.map { _ in try ServedContainer() }
            servers = zip(served, titles).map { served, title in
                var server = served.server
                server.title = title
                return server
            }
            usersFolder =
                FileManager.default.temporaryDirectory.appendingPathComponent("users-\(UUID().uuidString)").path
            try FileManager.default.createDirectory(
                atPath: usersFolder, withIntermediateDirectories: false, attributes: [.posixPermissions: 0o700])
        }

        deinit { try? FileManager.default.removeItem(atPath: usersFolder) }

        func site(_ accounts: Accounts, basePath: String = "", metrics: ProcessMetrics? = nil) -> PreviewSite {
            site(AccountBook(accounts), basePath: basePath, metrics: metrics)
        }

        func site(_ book: AccountBook, basePath: String = "", metrics: ProcessMetrics? = nil) -> PreviewSite {
            PreviewSite(containers: servers, basePath: basePath, accounts: book, metrics: metrics)
        }

        /// The users file's path.
        var usersFile: String { usersFolder + "/users" }

        /// Writes `accounts` to the users file (replacing it as `glance user` does).
        func write(_ accounts: Accounts) throws { try accounts.write(to: usersFile) }

        /// A book following the users file, written first with `accounts`, that looks at the file
        /// again every `checkInterval` (zero: at every request, so a test sees a change at once),
        /// as `time` tells time.
        func followed(
            _ accounts: Accounts, checkInterval: Duration = .zero, time: TimeSource = .continuous
        ) throws -> AccountBook {
            try write(accounts)
            return try AccountBook(path: usersFile, checkInterval: checkInterval, time: time)
        }

        /// `body`'s value, with a client of `site`'s routes (cookies `Secure` when `secure`).
        func test<Value: Sendable>(
            _ site: PreviewSite, secure: Bool = false,
            _ body: @escaping @Sendable (any TestClientProtocol) async throws -> Value
        ) async throws -> Value {
            let value = try await Application(router: site.router(secure: secure)).test(.router) { client in
                try await body(client)
            }
            withExtendedLifetime(self) {}
            return value
        }
    }

    /// The session cookie a response sets, if it sets one.
    struct SetCookie: Sendable {
        /// `glance_session=VALUE`, what a browser sends back in `Cookie`.
        let pair: String
        let value: String
        /// The attributes by name (`HttpOnly`, `SameSite`, …), a flag's value empty.
        let attributes: [String: String]

        init?(_ response: TestResponse) {
            guard
                let header = response.headers[values: .setCookie].first(where: {
                    $0.hasPrefix(BrowserSession.cookieName + "=")
                })
            else { return nil }
            let parts = header.components(separatedBy: "; ")
            pair = parts[0]
            value = String(parts[0].dropFirst(BrowserSession.cookieName.count + 1))
            var attributes: [String: String] = [:]
            for part in parts.dropFirst() {
                let field = part.split(separator: "=", maxSplits: 1).map(String.init)
                attributes[field[0]] = field.count > 1 ? field[1] : ""
            }
            self.attributes = attributes
        }

        /// The cookie's `Expires`, read as an HTTP date.
        var expires: Date? {
            guard let text = attributes["Expires"] else { return nil }
            let formatter = DateFormatter()
            formatter.locale = Locale(identifier: "en_US_POSIX")
            formatter.timeZone = TimeZone(identifier: "GMT")
            formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss zzz"
            return formatter.date(from: text)
        }

        /// The request headers that send this cookie back.
        var headers: HTTPFields { [.cookie: pair] }
    }

    /// `Authorization: Basic` for `name` and `password`.
    /// The accounts of most tests: alice alone, who may see every container.
    static func aliceOnly() throws -> Accounts {
        Accounts([try Account(name: "alice", password: Self.password, containers: nil)])
    }

    static func basic(_ name: String, _ password: String = Self.password) -> HTTPFields {
        [.authorization: "Basic " + Data("\(name):\(password)".utf8).base64EncodedString()]
    }

    /// `Authorization: Bearer` with `token`.
    static func bearer(_ token: String) -> HTTPFields { [.authorization: "Bearer " + token] }

    /// What a browser sends with a form of this site's sign-in page (the test client's authority
    /// is `localhost`).
    static let sameOrigin: HTTPFields = [
        .contentType: "application/x-www-form-urlencoded", .origin: "http://localhost", .secFetchSite: "same-origin",
    ]

    /// The sign-in form's body.
    static func form(_ name: String, _ password: String, next: String = "/") -> ByteBuffer {
        func encoded(_ text: String) -> String {
            text.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? ""
        }
        return ByteBuffer(string: "name=\(encoded(name))&password=\(encoded(password))&next=\(encoded(next))")
    }

    /// Signs `name` in on the form, from this site's own page; the session cookie.
    static func signIn(
        _ client: some TestClientProtocol, _ name: String = "alice", password: String = Self.password,
        at path: String = "/sign-in"
    ) async throws -> SetCookie {
        try await client.execute(
            uri: path, method: .post, headers: sameOrigin, body: form(name, password)
        ) { response in
            #expect(response.status == .seeOther)
            return try #require(SetCookie(response))
        }
    }

    /// Opens the share link `token`, as a browser that typed it in; the session cookie.
    static func openShare(_ client: some TestClientProtocol, _ token: String) async throws -> SetCookie {
        try await client.execute(uri: "/share/" + token, method: .get) { response in
            #expect(response.status == .seeOther)
            return try #require(SetCookie(response))
        }
    }

    /// Whether `response` is the `401` asking for an account, with the scheme `scheme`.
    static func isChallenge(_ response: TestResponse, scheme: String = "Basic") -> Bool {
        response.status == .unauthorized
            && response.headers[.wwwAuthenticate]?.hasPrefix(scheme + " realm=\"Glance\"") == true
            && String(buffer: response.body) == "sign in with an account of this server\n"
    }

    /// Whether `response` is a share link refused: 404, the reason, no session.
    static func isClosedLink(_ response: TestResponse) -> Bool {
        response.status == .notFound && String(buffer: response.body).hasPrefix("this share link does not open")
            && response.headers[.setCookie] == nil
    }

    /// Whether `cookie` is expired (an `Expires` of now or earlier): the browser drops it.
    static func isExpired(_ cookie: SetCookie?) -> Bool {
        guard let expires = cookie?.expires else { return false }
        return expires <= Date().addingTimeInterval(1)
    }

    // MARK: - HTTP Basic

    @Test("Basic with the right password reads, in any case of the scheme, a colon in the password too; no session")
    func basicRightPassword() async throws {
        let fixture = try Fixture()
        let alice = try Account(name: "alice", password: Self.password, containers: nil)
        let bob = try Account(name: "bob", password: "pass:word: with colons", containers: nil)
        let site = fixture.site(Accounts([alice, bob]))
        try await fixture.test(site) { client in
            try await client.execute(uri: "/api/items", method: .get, headers: Self.basic("alice")) { response in
                #expect(response.status == .ok)
                #expect(response.headers[HTTPField.Name("X-Total-Count")!] == "4")
                #expect(response.headers[.setCookie] == nil)
            }
            let lower = "basic " + Data("alice:\(Self.password)".utf8).base64EncodedString()
            try await client.execute(uri: "/api/items", method: .get, headers: [.authorization: lower]) {
                #expect($0.status == .ok)
            }
            try await client.execute(
                uri: "/api/items", method: .get, headers: Self.basic("bob", "pass:word: with colons")
            ) {
                #expect($0.status == .ok)
            }
            // No session, so no sign-out button on the pages.
            try await client.execute(uri: "/", method: .get, headers: Self.basic("alice")) { response in
                #expect(response.status == .ok)
                #expect(!String(buffer: response.body).contains("id=\"sign-out\""))
            }
        }
    }

    @Test(
        "behind sign-in, versioned thumbnails and previews are private to the browser, never public; assets stay public"
    )
    func signedInAnswersArePrivate() async throws {
        let fixture = try Fixture()
        let site = fixture.site(try Self.aliceOnly())
        try await fixture.test(site) { client in
            let tag = try await client.execute(uri: "/thumbnails/a.png", method: .get, headers: Self.basic("alice")) {
                #expect($0.status == .ok)
                return $0.headers[.eTag] ?? ""
            }
            let version = String(tag.dropFirst().prefix(64))
            try await client.execute(
                uri: "/thumbnails/a.png?v=\(version)", method: .get, headers: Self.basic("alice")
            ) { response in
                #expect(response.status == .ok)
                #expect(response.headers[.cacheControl] == "private, max-age=31536000, immutable")
            }
            let previewTag = try await client.execute(
                uri: "/previews/a.png?size=512", method: .get, headers: Self.basic("alice")
            ) {
                #expect($0.status == .ok)
                return $0.headers[.eTag] ?? ""
            }
            try await client.execute(
                uri: "/previews/a.png?size=512&v=\(previewTag.dropFirst().dropLast())", method: .get,
                headers: Self.basic("alice")
            ) { response in
                #expect(response.status == .ok)
                #expect(response.headers[.cacheControl] == "private, max-age=31536000, immutable")
            }
            // The pages' assets hold nothing of a container: any cache may keep them.
            let asset = PageAssets().links(under: "").stylesheet
            try await client.execute(uri: asset, method: .get) { response in
                #expect(response.status == .ok)
                #expect(response.headers[.cacheControl] == "public, max-age=31536000, immutable")
            }
        }
    }

    @Test("Basic with a wrong password is 401 with the Basic challenge, and no document")
    func basicWrongPassword() async throws {
        let fixture = try Fixture()
        let site = fixture.site(try Self.aliceOnly())
        try await fixture.test(site) { client in
            try await client.execute(
                uri: "/documents/notes.txt", method: .get, headers: Self.basic("alice", "a wrong password")
            ) { response in
                #expect(Self.isChallenge(response))
                #expect(response.headers[.wwwAuthenticate] == "Basic realm=\"Glance\", charset=\"UTF-8\"")
                #expect(response.headers[.cacheControl] == "no-store")
            }
        }
    }

    @Test("Basic with a name that is no account's is 401 as a wrong password is")
    func basicUnknownName() async throws {
        let fixture = try Fixture()
        let site = fixture.site(try Self.aliceOnly())
        try await fixture.test(site) { client in
            try await client.execute(uri: "/api/items", method: .get, headers: Self.basic("mallory")) {
                #expect(Self.isChallenge($0))
            }
        }
        // A name no account can have (a space) is checked against nothing, and refused the same.
        let other = fixture.site(try Self.aliceOnly())
        try await fixture.test(other) { client in
            try await client.execute(uri: "/api/items", method: .get, headers: Self.basic("no such name")) {
                #expect(Self.isChallenge($0))
            }
        }
    }

    @Test(
        "a malformed Authorization header is 401: no scheme, bad base64, no colon, not UTF-8, too long, another scheme")
    func basicMalformed() async throws {
        let fixture = try Fixture()
        let site = fixture.site(try Self.aliceOnly())
        let headers = [
            "Basic", "Basic ", "Basic !!!not base64!!!", "Basic " + Data("alice".utf8).base64EncodedString(),
            "Basic " + Data([0x61, 0x3A, 0xFF, 0xFE]).base64EncodedString(),
            "Basic " + Data("alice:\(Self.password)\(String(repeating: "x", count: 4000))".utf8).base64EncodedString(),
            "Digest username=\"alice\"", Data("alice:\(Self.password)".utf8).base64EncodedString(),
        ]
        try await fixture.test(site) { client in
            for header in headers {
                try await client.execute(uri: "/api/items", method: .get, headers: [.authorization: header]) {
                    #expect(Self.isChallenge($0), "\(header.prefix(40))")
                }
            }
        }
    }

    // MARK: - Without credentials

    @Test("a browser's navigation without credentials is sent to the sign-in page, with where it was going as next")
    func navigationGoesToSignIn() async throws {
        let fixture = try Fixture()
        let site = fixture.site(try Self.aliceOnly())
        try await fixture.test(site) { client in
            for (method, headers) in [
                (HTTPRequest.Method.get, [HTTPField.Name.secFetchMode: "navigate"] as HTTPFields),
                (.head, [.secFetchMode: "navigate"]),
                // A browser too old for Sec-Fetch-Mode says it wants a page.
                (.get, [.accept: "text/html,application/xhtml+xml;q=0.9,*/*;q=0.8"]),
            ] {
                try await client.execute(uri: "/preview/notes.txt?sort=size", method: method, headers: headers) {
                    response in
                    #expect(response.status == .seeOther, "\(method) \(headers)")
                    #expect(response.headers[.location] == "/sign-in?next=%2Fpreview%2Fnotes.txt%3Fsort%3Dsize")
                    #expect(response.headers[.cacheControl] == "no-store")
                    #expect(response.headers[.setCookie] == nil)
                }
            }
            // The page it is sent to holds the form, with next as a hidden field.
            try await client.execute(uri: "/sign-in?next=%2Fpreview%2Fnotes.txt%3Fsort%3Dsize", method: .get) {
                response in
                #expect(response.status == .ok)
                #expect(response.headers[.cacheControl] == "no-store")
                let page = String(buffer: response.body)
                #expect(page.contains("name=\"password\"") && page.contains("action=\"/sign-in\""))
                #expect(page.contains("name=\"next\" value=\"/preview/notes.txt?sort=size\""), "\(page)")
            }
        }
    }

    @Test("a script without credentials gets 401 with the Basic challenge; a browser's own fetch gets Bearer")
    func scriptsGetChallenged() async throws {
        let fixture = try Fixture()
        let site = fixture.site(try Self.aliceOnly())
        try await fixture.test(site) { client in
            for uri in ["/api/items", "/thumbnails/a.png", "/documents/notes.txt", "/"] {
                try await client.execute(uri: uri, method: .get) {
                    #expect(Self.isChallenge($0, scheme: "Basic"), "\(uri)")
                }
            }
            // Any Sec-Fetch-Mode but navigate: the browser's images and scripts, never its password
            // dialog; it wins over an Accept that asks for HTML.
            for mode in ["no-cors", "cors", "same-origin"] {
                try await client.execute(
                    uri: "/thumbnails/a.png", method: .get, headers: [.secFetchMode: mode, .accept: "text/html"]
                ) { response in
                    #expect(Self.isChallenge(response, scheme: "Bearer"), "\(mode)")
                    #expect(response.headers[.wwwAuthenticate] == "Bearer realm=\"Glance\"")
                }
            }
            // A navigation that posts is not sent anywhere either.
            try await client.execute(uri: "/sign-out", method: .post, headers: [.secFetchMode: "navigate"]) {
                #expect(Self.isChallenge($0, scheme: "Bearer"))
            }
        }
    }

    @Test("under a base path the sign-in page, next and the session cookie's Path are the base path's")
    func basePath() async throws {
        let fixture = try Fixture()
        let site = fixture.site(
            try Self.aliceOnly(), basePath: "/glance")
        try await fixture.test(site) { client in
            try await client.execute(uri: "/glance/", method: .get, headers: [.secFetchMode: "navigate"]) {
                #expect($0.status == .seeOther && $0.headers[.location] == "/glance/sign-in?next=%2Fglance%2F")
            }
            try await client.execute(
                uri: "/glance/sign-in", method: .post, headers: Self.sameOrigin,
                body: Self.form("alice", Self.password, next: "/glance/api/items")
            ) { response in
                #expect(response.status == .seeOther && response.headers[.location] == "/glance/api/items")
                #expect(SetCookie(response)?.attributes["Path"] == "/glance")
            }
            // A path outside the base path is no path of this site.
            try await client.execute(
                uri: "/glance/sign-in", method: .post, headers: Self.sameOrigin,
                body: Self.form("alice", Self.password, next: "/elsewhere")
            ) { #expect($0.headers[.location] == "/glance/") }
        }
    }

    // MARK: - The sign-in form and browser sessions

    @Test("POST /sign-in from this site's page starts a session: an HttpOnly, SameSite=Strict cookie for 12 hours")
    func signInStartsSession() async throws {
        let fixture = try Fixture()
        let site = fixture.site(try Self.aliceOnly())
        try await fixture.test(site) { client in
            try await client.execute(
                uri: "/sign-in", method: .post, headers: Self.sameOrigin,
                body: Self.form("alice", Self.password, next: "/preview/notes.txt?sort=size")
            ) { response in
                #expect(response.status == .seeOther)
                #expect(response.headers[.location] == "/preview/notes.txt?sort=size")
                #expect(response.headers[.cacheControl] == "no-store")
                #expect(response.headers[values: .setCookie].count == 1)
                let cookie = try #require(SetCookie(response))
                #expect(cookie.value.count >= 43, "32 random bytes: \(cookie.value)")
                #expect(cookie.attributes["HttpOnly"] == "")
                #expect(cookie.attributes["SameSite"] == "Strict")
                #expect(cookie.attributes["Path"] == "/")
                #expect(cookie.attributes["Secure"] == nil)
                let expires = try #require(cookie.expires)
                #expect(abs(expires.timeIntervalSinceNow - 12 * 60 * 60) < 60, "\(expires)")
            }
            // A script that sends neither Origin nor Sec-Fetch-Site is no browser tricked by
            // another page; Sec-Fetch-Site none is a browser's own (a bookmark).
            for headers in [
                [.contentType: "application/x-www-form-urlencoded"] as HTTPFields,
                [.contentType: "application/x-www-form-urlencoded", .secFetchSite: "none"],
            ] {
                try await client.execute(
                    uri: "/sign-in", method: .post, headers: headers, body: Self.form("alice", Self.password)
                ) { response in
                    #expect(response.status == .seeOther && SetCookie(response) != nil, "\(headers)")
                }
            }
        }
    }

    @Test("served over TLS (secure: true), the session cookie is Secure")
    func secureCookie() async throws {
        let fixture = try Fixture()
        let site = fixture.site(try Self.aliceOnly())
        try await fixture.test(site, secure: true) { client in
            let cookie = try await Self.signIn(client)
            #expect(cookie.attributes["Secure"] == "")
            #expect(cookie.attributes["HttpOnly"] == "" && cookie.attributes["SameSite"] == "Strict")
        }
    }

    @Test("a sign-in form from another site is refused (Sec-Fetch-Site or Origin), even with the right password")
    func crossOriginFormRefused() async throws {
        let fixture = try Fixture()
        let site = fixture.site(try Self.aliceOnly())
        let form: HTTPFields = [.contentType: "application/x-www-form-urlencoded"]
        let foreign: [HTTPFields] = [
            [.secFetchSite: "cross-site", .origin: "http://evil.example"],
            [.secFetchSite: "same-site", .origin: "http://other.localhost"],
            // Sec-Fetch-Site is trusted over an Origin that matches.
            [.secFetchSite: "cross-site", .origin: "http://localhost"],
            [.origin: "http://evil.example"],
            [.origin: "http://localhost:8080"],
            [.origin: "null"],
        ]
        try await fixture.test(site) { client in
            for extra in foreign {
                var headers = form
                headers.append(contentsOf: extra)
                try await client.execute(
                    uri: "/sign-in", method: .post, headers: headers, body: Self.form("alice", Self.password)
                ) { response in
                    #expect(response.status == .forbidden, "\(extra)")
                    #expect(String(buffer: response.body) == "a form of another site\n")
                    #expect(response.headers[.setCookie] == nil)
                }
            }
        }
    }

    @Test("a wrong password gives the form again, with the reason and the name, and no cookie; empty fields too")
    func wrongPasswordGivesFormAgain() async throws {
        let fixture = try Fixture()
        let site = fixture.site(try Self.aliceOnly())
        try await fixture.test(site) { client in
            try await client.execute(
                uri: "/sign-in", method: .post, headers: Self.sameOrigin,
                body: Self.form("alice", "a wrong password", next: "/preview/a.png")
            ) { response in
                #expect(response.status == .forbidden)
                #expect(response.headers[.setCookie] == nil)
                #expect(response.headers[.cacheControl] == "no-store")
                let page = String(buffer: response.body)
                #expect(page.contains("id=\"sign-in-error\"") && page.contains("Wrong name or password."))
                #expect(page.contains("name=\"name\" id=\"name\" value=\"alice\""), "\(page)")
                #expect(page.contains("name=\"next\" value=\"/preview/a.png\""))
                #expect(!page.contains("a wrong password"))
            }
            for body in [
                Self.form("alice", ""), Self.form("", Self.password), ByteBuffer(string: "password=x"),
                ByteBuffer(string: "%%%not a form"),
            ] {
                try await client.execute(uri: "/sign-in", method: .post, headers: Self.sameOrigin, body: body) {
                    response in
                    #expect(response.status == .forbidden, "\(String(buffer: body))")
                    #expect(String(buffer: response.body).contains("Type a name and a password."))
                    #expect(response.headers[.setCookie] == nil)
                }
            }
        }
    }

    @Test("next that leads off the site (//host, a scheme, a backslash, the sign-in page) is not followed")
    func unsafeNextNotFollowed() async throws {
        let fixture = try Fixture()
        let site = fixture.site(try Self.aliceOnly())
        let unsafe = [
            "//evil.example", "//evil.example/", "https://evil.example/", "/\\evil.example", "\\\\evil.example",
            "evil.example", "", "/sign-in?next=//evil.example", "/a b", "/\t/evil.example", "/é",
        ]
        try await fixture.test(site) { client in
            for next in unsafe {
                try await client.execute(
                    uri: "/sign-in", method: .post, headers: Self.sameOrigin,
                    body: Self.form("alice", Self.password, next: next)
                ) { response in
                    #expect(response.status == .seeOther)
                    #expect(response.headers[.location] == "/", "\(next)")
                }
            }
            // Nor does the page put it in its form, where it is written escaped in any case.
            try await client.execute(uri: "/sign-in?next=%2F%2Fevil.example", method: .get) {
                #expect(String(buffer: $0.body).contains("name=\"next\" value=\"/\""))
            }
            try await client.execute(uri: "/sign-in?next=%2Fx%22%3E%3Cscript%3E", method: .get) { response in
                let page = String(buffer: response.body)
                #expect(!page.contains("\"><script>"), "\(page)")
            }
        }
    }

    @Test("a sign-in form of 8,192 bytes is read; one byte more is refused with 413 and no session")
    func oversizedFormRefused() async throws {
        let fixture = try Fixture()
        let site = fixture.site(try Self.aliceOnly())
        let form = String(buffer: Self.form("alice", Self.password)) + "&padding="
        let fits = form + String(repeating: "x", count: PreviewSite.signInBodyLimit - form.utf8.count)
        try await fixture.test(site) { client in
            try await client.execute(
                uri: "/sign-in", method: .post, headers: Self.sameOrigin, body: ByteBuffer(string: fits)
            ) { response in
                #expect(response.status == .seeOther && SetCookie(response) != nil)
            }
            try await client.execute(
                uri: "/sign-in", method: .post, headers: Self.sameOrigin, body: ByteBuffer(string: fits + "x")
            ) { response in
                #expect(response.status == .contentTooLarge)
                #expect(response.headers[.setCookie] == nil)
            }
        }
    }

    @Test("the session cookie reads the pages, the listing and the documents, and shows who is signed in")
    func sessionReadsPages() async throws {
        let fixture = try Fixture()
        let site = fixture.site(try Self.aliceOnly())
        try await fixture.test(site) { client in
            let cookie = try await Self.signIn(client)
            try await client.execute(uri: "/", method: .get, headers: cookie.headers) { response in
                #expect(response.status == .ok)
                let page = String(buffer: response.body)
                #expect(page.contains("<span class=\"account\">alice</span>"), "\(page)")
                #expect(page.contains("action=\"/sign-out\"") && page.contains("id=\"sign-out\""))
                // The session already exists: no new cookie for each page.
                #expect(response.headers[.setCookie] == nil)
            }
            try await client.execute(uri: "/api/items", method: .get, headers: cookie.headers) {
                #expect($0.status == .ok && $0.headers[HTTPField.Name("X-Total-Count")!] == "4")
            }
            try await client.execute(uri: "/api/items", method: .head, headers: cookie.headers) {
                #expect($0.status == .ok)
            }
            try await client.execute(uri: "/documents/notes.txt", method: .get, headers: cookie.headers) {
                #expect($0.status == .ok && $0.body.readableBytes > 0)
            }
            try await client.execute(uri: "/preview/notes.txt", method: .get, headers: cookie.headers) {
                #expect($0.status == .ok)
            }
            // A cookie the server never made is no session.
            try await client.execute(
                uri: "/api/items", method: .get,
                headers: [.cookie: "glance_session=" + String(repeating: "A", count: 43)]
            ) { #expect(Self.isChallenge($0)) }
        }
    }

    @Test(
        "POST /sign-out ends the session: the cookie is expired and the same cookie then gets 401 or the sign-in page")
    func signOutEndsSession() async throws {
        let fixture = try Fixture()
        let site = fixture.site(try Self.aliceOnly())
        try await fixture.test(site) { client in
            let cookie = try await Self.signIn(client)
            // A form from another site does not sign out.
            var foreign = cookie.headers
            foreign[.origin] = "http://evil.example"
            try await client.execute(uri: "/sign-out", method: .post, headers: foreign) {
                #expect($0.status == .forbidden)
            }
            try await client.execute(uri: "/api/items", method: .get, headers: cookie.headers) {
                #expect($0.status == .ok)
            }
            var own = cookie.headers
            own[.origin] = "http://localhost"
            own[.secFetchSite] = "same-origin"
            try await client.execute(uri: "/sign-out", method: .post, headers: own) { response in
                #expect(response.status == .seeOther && response.headers[.location] == "/sign-in")
                let expired = SetCookie(response)
                #expect(expired?.value == cookie.value)
                #expect(Self.isExpired(expired), "\(String(describing: expired?.attributes))")
            }
            try await client.execute(uri: "/api/items", method: .get, headers: cookie.headers) {
                #expect(Self.isChallenge($0))
            }
            var navigation = cookie.headers
            navigation[.secFetchMode] = "navigate"
            try await client.execute(uri: "/", method: .get, headers: navigation) {
                #expect($0.status == .seeOther && $0.headers[.location] == "/sign-in?next=%2F")
            }
        }
    }

    @Test("a session ends when its account is removed or gets a new password, and its cookie is expired")
    func sessionEndsWithItsAccount() async throws {
        let alice = try Account(name: "alice", password: Self.password, containers: nil)
        let bob = try Account(name: "bob", password: "bob's password", containers: nil)
        let renewed = try Account(name: "alice", password: "a new password", containers: nil)
        for (change, accounts) in [("a new password", Accounts([renewed, bob])), ("removed", Accounts([bob]))] {
            let fixture = try Fixture()
            let site = fixture.site(try fixture.followed(Accounts([alice, bob])))
            try await fixture.test(site) { client in
                let cookie = try await Self.signIn(client)
                // The same accounts written again: the session holds.
                try fixture.write(Accounts([alice, bob]))
                try await client.execute(uri: "/api/items", method: .get, headers: cookie.headers) {
                    #expect($0.status == .ok, "\(change)")
                }
                try fixture.write(accounts)
                try await client.execute(uri: "/api/items", method: .get, headers: cookie.headers) { response in
                    #expect(Self.isChallenge(response), "\(change)")
                    #expect(Self.isExpired(SetCookie(response)), "\(change)")
                }
                // Ended, not only refused once: the session is gone from the store.
                try await client.execute(uri: "/api/items", method: .get, headers: cookie.headers) { response in
                    #expect(Self.isChallenge(response) && response.headers[.setCookie] == nil, "\(change)")
                }
            }
        }
    }

    @Test("a change to the users file is seen at the first request a check interval after the last look, not before")
    func usersFileCheckInterval() async throws {
        let alice = try Account(name: "alice", password: Self.password, containers: nil)
        let bob = try Account(name: "bob", password: "bob's password", containers: nil)
        // An hour's interval, on a time the test moves: bob, removed after the first look, still
        // reads a second before the hour is up, and is refused once it is.
        let fixture = try Fixture()
        let time = ManualTime()
        let hourly = fixture.site(
            try fixture.followed(Accounts([alice, bob]), checkInterval: .seconds(3600), time: time.source))
        try await fixture.test(hourly) { client in
            try fixture.write(Accounts([alice]))
            try await client.execute(uri: "/api/items", method: .get, headers: Self.basic("bob", "bob's password")) {
                #expect($0.status == .ok)
            }
            time.advance(by: .seconds(3599))
            try await client.execute(uri: "/api/items", method: .get, headers: Self.basic("bob", "bob's password")) {
                #expect($0.status == .ok, "a second before the hour is up")
            }
            time.advance(by: .seconds(1))
            try await client.execute(uri: "/api/items", method: .get, headers: Self.basic("bob", "bob's password")) {
                #expect(Self.isChallenge($0), "the hour is up: the file is read again")
            }
        }
        // No interval: the same change ends bob's access at his next request.
        let immediate = fixture.site(try fixture.followed(Accounts([alice, bob])))
        try await fixture.test(immediate) { client in
            try await client.execute(uri: "/api/items", method: .get, headers: Self.basic("bob", "bob's password")) {
                #expect($0.status == .ok)
            }
            try fixture.write(Accounts([alice]))
            try await client.execute(uri: "/api/items", method: .get, headers: Self.basic("bob", "bob's password")) {
                #expect(Self.isChallenge($0))
            }
        }
    }

    // MARK: - Access tokens

    @Test("an access token reads (GET and HEAD) and starts no session, but cannot POST (sign-out is 403)")
    func tokenReadsOnly() async throws {
        let fixture = try Fixture()
        var accounts = try Self.aliceOnly()
        let (token, text) = try AccessToken.make(for: "alice")
        accounts.add(token)
        let site = fixture.site(accounts)
        try await fixture.test(site) { client in
            for uri in ["/", "/api/items", "/documents/notes.txt", "/api/items/notes.txt"] {
                try await client.execute(uri: uri, method: .get, headers: Self.bearer(text)) { response in
                    #expect(response.status == .ok, "\(uri)")
                    #expect(response.headers[.setCookie] == nil)
                }
            }
            try await client.execute(uri: "/api/items", method: .head, headers: Self.bearer(text)) {
                #expect($0.status == .ok)
            }
            // The scheme's name in any case, as HTTP says.
            try await client.execute(uri: "/api/items", method: .get, headers: [.authorization: "bearer " + text]) {
                #expect($0.status == .ok)
            }
            var signOut = Self.bearer(text)
            signOut[.origin] = "http://localhost"
            try await client.execute(uri: "/sign-out", method: .post, headers: signOut) { response in
                #expect(response.status == .forbidden)
                #expect(String(buffer: response.body).contains("may only read"))
            }
            // Any other POST is refused before anyone is asked who they are.
            try await client.execute(uri: "/api/items", method: .post, headers: Self.bearer(text)) {
                #expect($0.status == .methodNotAllowed)
            }
        }
    }

    @Test("a wrong, malformed, revoked or orphaned token is 401, and a token is no password for Basic")
    func badTokensRefused() async throws {
        let fixture = try Fixture()
        let alice = try Account(name: "alice", password: Self.password, containers: nil)
        var accounts = Accounts([alice])
        let (token, text) = try AccessToken.make(for: "alice")
        accounts.add(token)
        let forged = String(text.dropLast()) + (text.hasSuffix("0") ? "1" : "0")
        var revoked = accounts
        revoked.revokeToken(token.id)
        var removed = accounts
        removed.remove("alice")
        removed.set(try Account(name: "bob", password: Self.password, containers: nil))
        // Each refusal on a site of its own: a failure slows the next attempt of the same client.
        let cases: [(String, Accounts, HTTPFields)] = [
            ("one digit changed", accounts, Self.bearer(forged)),
            ("not a token", accounts, Self.bearer("glance_nope")),
            ("revoked", revoked, Self.bearer(text)),
            ("its account removed", removed, Self.bearer(text)),
            ("as a Basic password", accounts, Self.basic("token \(token.id)", text)),
            ("as a Basic password of its account", accounts, Self.basic("alice", text)),
        ]
        for (name, accounts, headers) in cases {
            let site = fixture.site(accounts)
            try await fixture.test(site) { client in
                try await client.execute(uri: "/api/items", method: .get, headers: headers) {
                    #expect(Self.isChallenge($0), "\(name)")
                }
            }
        }
        // A browser's script with a stale token is not shown the password dialog either.
        let site = fixture.site(revoked)
        try await fixture.test(site) { client in
            var headers = Self.bearer(text)
            headers[.secFetchMode] = "cors"
            try await client.execute(uri: "/api/items", method: .get, headers: headers) {
                #expect(Self.isChallenge($0, scheme: "Bearer"))
            }
        }
    }

    // MARK: - Share links

    /// Accounts with alice and `share`, and the link's token.
    static func sharing(_ share: Share, with accounts: Accounts? = nil) async throws -> (Accounts, String) {
        var accounts = try accounts ?? Accounts([Account(name: "alice", password: Self.password, containers: nil)])
        accounts.add(share)
        let token = try await ShareLinks(key: try #require(accounts.shareKey)).token(for: share)
        return (accounts, token)
    }

    @Test("a share link of a container opens a session for it, until the link expires, with a sign-out of its own")
    func containerShareOpensSession() async throws {
        let fixture = try Fixture()
        let share = Share.make(container: "photos", document: nil, expires: Date().addingTimeInterval(3600))
        let (accounts, token) = try await Self.sharing(share)
        let site = fixture.site(accounts)
        try await fixture.test(site) { client in
            let cookie = try await client.execute(uri: "/share/" + token, method: .get) { response in
                #expect(response.status == .seeOther)
                #expect(response.headers[.location] == "/")
                #expect(response.headers[.cacheControl] == "no-store")
                return try #require(SetCookie(response))
            }
            #expect(cookie.attributes["HttpOnly"] == "" && cookie.attributes["SameSite"] == "Strict")
            // The session lasts as long as the link, not the 12 hours of an account's.
            let expires = try #require(cookie.expires)
            #expect(abs(expires.timeIntervalSince(share.expires)) <= 2, "\(expires) \(share.expires)")
            try await client.execute(uri: "/", method: .get, headers: cookie.headers) { response in
                #expect(response.status == .ok)
                #expect(String(buffer: response.body).contains("<span class=\"account\">shared link</span>"))
            }
            for uri in ["/api/items", "/documents/sub/letter.pdf", "/preview/notes.txt", "/api/items/a.png"] {
                try await client.execute(uri: uri, method: .get, headers: cookie.headers) {
                    #expect($0.status == .ok, "\(uri)")
                }
            }
            // A share link's session may sign out (its only POST).
            var own = cookie.headers
            own[.origin] = "http://localhost"
            try await client.execute(uri: "/sign-out", method: .post, headers: own) { response in
                #expect(response.status == .seeOther && Self.isExpired(SetCookie(response)))
            }
            try await client.execute(uri: "/api/items", method: .get, headers: cookie.headers) {
                #expect(Self.isChallenge($0))
            }
        }
    }

    @Test(
        "opening a link again with its session, or with HEAD, starts no other session: its holders cannot use up its sessions"
    )
    func reopenedShareKeepsItsSession() async throws {
        let fixture = try Fixture()
        let share = Share.make(container: "photos", document: nil, expires: Date().addingTimeInterval(3600))
        let (accounts, token) = try await Self.sharing(share)
        try await fixture.test(fixture.site(accounts)) { client in
            let cookie = try await Self.openShare(client, token)
            // More than the 60 sessions a link may start in ten minutes.
            for _ in 0..<SignInThrottle.sessionsPerWindow + 5 {
                try await client.execute(uri: "/share/" + token, method: .get, headers: cookie.headers) { response in
                    #expect(response.status == .seeOther && response.headers[.setCookie] == nil)
                }
                try await client.execute(uri: "/share/" + token, method: .head) { response in
                    #expect(response.status == .seeOther && response.headers[.setCookie] == nil)
                }
            }
            // Another browser still gets a session of its own.
            let other = try await Self.openShare(client, token)
            #expect(other.value != cookie.value)
        }
    }

    @Test("a share link of one document reaches that document's routes and nothing else of the container")
    func documentShareReachesItsDocumentOnly() async throws {
        let fixture = try Fixture()
        let share = Share.make(container: "photos", document: "sub/letter.pdf", expires: Date().addingTimeInterval(600))
        let (accounts, token) = try await Self.sharing(share)
        let site = fixture.site(accounts, metrics: ProcessMetrics())
        try await fixture.test(site) { client in
            let cookie = try await client.execute(uri: "/share/" + token, method: .get) { response in
                #expect(response.headers[.location] == "/preview/sub/letter.pdf")
                return try #require(SetCookie(response))
            }
            for uri in ["/preview/sub/letter.pdf", "/documents/sub/letter.pdf", "/api/items/sub/letter.pdf"] {
                try await client.execute(uri: uri, method: .get, headers: cookie.headers) {
                    #expect($0.status == .ok, "\(uri)")
                }
            }
            try await client.execute(uri: "/documents/sub/letter.pdf", method: .head, headers: cookie.headers) {
                #expect($0.status == .ok)
            }
            for uri in [
                "/", "/api/items", "/api/items?pattern=letter", "/events", "/metrics", "/documents/notes.txt",
                "/preview/a.png", "/thumbnails/a.png", "/previews/notes.txt", "/text/notes.txt", "/api/items/a.png",
                "/documents/sub/letter.pdf.txt", "/documents/sub", "/documents/sub%2Fletter.pdf",
            ] {
                try await client.execute(uri: uri, method: .get, headers: cookie.headers) {
                    #expect($0.status == .notFound, "\(uri)")
                }
            }
        }
    }

    @Test(
        "a share link of café.cbz (é one code point) does not open café.cbz written e + U+0301 beside it, nor its thumbnail"
    )
    func documentShareComparesBytes() async throws {
        let fixture = try Fixture()
        let composed = "caf\u{E9}.png"
        let decomposed = "cafe\u{301}.png"
        let root = fixture.served[0].root
        try FileManager.default.copyItem(atPath: root + "/a.png", toPath: root + "/" + composed)
        try FileManager.default.copyItem(atPath: TestLocations.asset("png/gray8.png"), toPath: root + "/" + decomposed)
        let share = Share.make(container: "photos", document: composed, expires: Date().addingTimeInterval(600))
        let (accounts, token) = try await Self.sharing(share)
        let site = fixture.site(accounts)
        try await fixture.test(site) { client in
            let cookie = try await client.execute(uri: "/share/" + token, method: .get) { try #require(SetCookie($0)) }
            let own = try await client.execute(
                uri: "/thumbnails/" + percentEncodedName(composed), method: .get, headers: cookie.headers
            ) {
                #expect($0.status == .ok)
                return Data(buffer: $0.body)
            }
            #expect(!own.isEmpty)
            for route in ["/thumbnails/", "/documents/", "/preview/", "/api/items/", "/previews/"] {
                try await client.execute(
                    uri: route + percentEncodedName(decomposed), method: .get, headers: cookie.headers
                ) {
                    #expect($0.status == .notFound, "\(route)")
                }
            }
        }
    }

    @Test("a share link that expired, was tampered with, signed by another key or revoked answers 404 and no session")
    func closedShareLinks() async throws {
        let fixture = try Fixture()
        let alice = try Account(name: "alice", password: Self.password, containers: nil)
        let live = Share.make(container: "photos", document: nil, expires: Date().addingTimeInterval(3600))
        let (accounts, token) = try await Self.sharing(live, with: Accounts([alice]))
        // Expired by its own signed date.
        let (expiredAccounts, expiredToken) = try await Self.sharing(
            Share.make(container: "photos", document: nil, expires: Date().addingTimeInterval(-60)),
            with: Accounts([alice]))
        // Signed to last, but the users file says the grant has expired.
        var shortened = accounts
        shortened.add(Share(id: live.id, container: "photos", document: nil, expires: Date().addingTimeInterval(-1)))
        // The signature's first character changed (its last carries padding bits a decoder may ignore).
        let signature = token.index(after: try #require(token.lastIndex(of: ".")))
        let tampered = token.replacingCharacters(in: signature...signature, with: token[signature] == "A" ? "B" : "A")
        let otherKey = try await ShareLinks(key: ShareLinks.makeKey()).token(for: live)
        var revoked = accounts
        revoked.revokeShare(live.id)
        var allRevoked = accounts
        allRevoked.revokeAllShares()
        allRevoked.add(live)
        // The grant of that identifier now names another container than the link says.
        var moved = accounts
        moved.add(Share(id: live.id, container: "scans", document: nil, expires: live.expires))
        let cases: [(String, Accounts, String)] = [
            ("expired", expiredAccounts, expiredToken), ("the grant expired", shortened, token),
            ("tampered", accounts, tampered), ("signed by another key", accounts, otherKey),
            ("revoked", revoked, token), ("every link revoked (a new key)", allRevoked, token),
            ("the grant moved", moved, token), ("made up", accounts, "not.a.token"),
            ("cut short", accounts, String(token.dropLast(5))),
        ]
        // Each on sites of its own: a link that does not open slows the client's next attempt.
        for (name, accounts, link) in cases {
            try await fixture.test(fixture.site(accounts)) { client in
                try await client.execute(uri: "/share/" + link, method: .get) {
                    #expect(Self.isClosedLink($0), "\(name)")
                }
            }
            // Followed from another site, a closed link is not reopened either.
            try await fixture.test(fixture.site(accounts)) { client in
                try await client.execute(uri: "/share/" + link, method: .get, headers: [.secFetchSite: "cross-site"]) {
                    #expect(Self.isClosedLink($0), "\(name), cross-site")
                }
            }
        }
        // The control: the same link, on the accounts it was made for, opens.
        let site = fixture.site(accounts)
        try await fixture.test(site) { client in _ = try await Self.openShare(client, token) }
    }

    @Test("a share link's session ends when its grant is revoked or has expired")
    func shareSessionEndsWithItsGrant() async throws {
        let share = Share.make(container: "photos", document: nil, expires: Date().addingTimeInterval(3600))
        let (accounts, token) = try await Self.sharing(share)
        var revoked = accounts
        revoked.revokeShare(share.id)
        var expired = accounts
        // Whole seconds, as the users file keeps them.
        let past = Date(timeIntervalSince1970: Date().timeIntervalSince1970.rounded(.down) - 1)
        expired.add(Share(id: share.id, container: "photos", document: nil, expires: past))
        for (change, changed, status) in [
            ("unchanged", accounts, HTTPResponse.Status.ok), ("revoked", revoked, .unauthorized),
            ("expired", expired, .unauthorized),
        ] {
            let fixture = try Fixture()
            let site = fixture.site(try fixture.followed(accounts))
            try await fixture.test(site) { client in
                let cookie = try await Self.openShare(client, token)
                try fixture.write(changed)
                try await client.execute(uri: "/api/items", method: .get, headers: cookie.headers) { response in
                    #expect(response.status == status, "\(change)")
                    #expect(Self.isExpired(SetCookie(response)) == (status != .ok), "\(change)")
                }
            }
        }
    }

    @Test("a share link followed from another site gets the page that reopens it from this site, and no session")
    func crossSiteShareIsReopened() async throws {
        let fixture = try Fixture()
        let share = Share.make(container: "photos", document: nil, expires: Date().addingTimeInterval(3600))
        let (accounts, token) = try await Self.sharing(share)
        let site = fixture.site(accounts)
        try await fixture.test(site) { client in
            for from in ["cross-site", "same-site"] {
                try await client.execute(uri: "/share/" + token, method: .get, headers: [.secFetchSite: from]) {
                    response in
                    #expect(response.status == .ok, "\(from)")
                    #expect(response.headers[.setCookie] == nil)
                    #expect(response.headers[.contentType] == "text/html; charset=utf-8")
                    #expect(response.headers[.cacheControl] == "no-store")
                    #expect(response.headers[.contentSecurityPolicy] == PreviewSite.contentSecurityPolicy)
                    let page = String(buffer: response.body)
                    #expect(page.contains("<meta http-equiv=\"refresh\" content=\"0;url=/share/\(token)\">"), "\(page)")
                    #expect(page.contains("<a href=\"/share/\(token)\">"))
                    #expect(page.contains("<meta name=\"referrer\" content=\"no-referrer\">"))
                }
            }
            // Reopened from this site's page, it opens.
            try await client.execute(uri: "/share/" + token, method: .get, headers: [.secFetchSite: "same-origin"]) {
                #expect($0.status == .seeOther && SetCookie($0) != nil)
            }
        }
    }

    @Test("a browser signed in with an account that opens a share link keeps its account's session")
    func signedInBrowserKeepsItsSession() async throws {
        let fixture = try Fixture()
        let share = Share.make(container: "photos", document: "notes.txt", expires: Date().addingTimeInterval(3600))
        let (accounts, token) = try await Self.sharing(share)
        let site = fixture.site(accounts)
        try await fixture.test(site) { client in
            let cookie = try await Self.signIn(client)
            try await client.execute(uri: "/share/" + token, method: .get, headers: cookie.headers) { response in
                #expect(response.status == .seeOther && response.headers[.location] == "/preview/notes.txt")
                #expect(response.headers[.setCookie] == nil)
            }
            // Still alice's, with the whole container.
            try await client.execute(uri: "/", method: .get, headers: cookie.headers) { response in
                #expect(response.status == .ok)
                #expect(String(buffer: response.body).contains("<span class=\"account\">alice</span>"))
            }
        }
    }

    // MARK: - Several containers, and /metrics

    @Test("an account limited to some containers sees only those, by password, session or token")
    func limitedAccountSeesItsContainers() async throws {
        let fixture = try Fixture(["photos", "scans"])
        var accounts = Accounts([try Account(name: "alice", password: Self.password, containers: ["photos"])])
        let (token, text) = try AccessToken.make(for: "alice")
        accounts.add(token)
        let site = fixture.site(accounts)
        try await fixture.test(site) { client in
            let cookie = try await Self.signIn(client)
            for credential in [Self.basic("alice"), cookie.headers, Self.bearer(text)] {
                try await client.execute(uri: "/", method: .get, headers: credential) { response in
                    #expect(response.status == .ok)
                    let page = String(buffer: response.body)
                    #expect(page.contains("href=\"/c/photos/\"") && !page.contains("/c/scans/"), "\(page)")
                }
                for uri in ["/c/photos/", "/c/photos/api/items", "/c/photos/documents/notes.txt"] {
                    try await client.execute(uri: uri, method: .get, headers: credential) {
                        #expect($0.status == .ok, "\(uri)")
                    }
                }
                // As for a name that is no container's: it cannot learn that scans exists.
                for uri in ["/c/scans/", "/c/scans/api/items", "/c/scans/documents/notes.txt", "/c/nope/"] {
                    try await client.execute(uri: uri, method: .get, headers: credential) {
                        #expect($0.status == .notFound && String(buffer: $0.body) == "no such document\n", "\(uri)")
                    }
                }
            }
        }
    }

    @Test("with two containers, a container's share link opens on its grid; the list shows it alone; the other is 404")
    func containerShareOfSeveral() async throws {
        let fixture = try Fixture(["photos", "scans"])
        let share = Share.make(container: "scans", document: nil, expires: Date().addingTimeInterval(3600))
        let (accounts, token) = try await Self.sharing(share)
        let site = fixture.site(accounts)
        try await fixture.test(site) { client in
            let cookie = try await client.execute(uri: "/share/" + token, method: .get) { response in
                #expect(response.headers[.location] == "/c/scans/")
                return try #require(SetCookie(response))
            }
            try await client.execute(uri: "/c/scans/api/items", method: .get, headers: cookie.headers) {
                #expect($0.status == .ok)
            }
            try await client.execute(uri: "/", method: .get, headers: cookie.headers) { response in
                let page = String(buffer: response.body)
                #expect(page.contains("/c/scans/") && !page.contains("/c/photos/"), "\(page)")
            }
            for uri in ["/c/photos/", "/c/photos/api/items", "/c/photos/documents/notes.txt"] {
                try await client.execute(uri: uri, method: .get, headers: cookie.headers) {
                    #expect($0.status == .notFound, "\(uri)")
                }
            }
        }
    }

    @Test("/metrics is for an account of every container: refused to a limited account and to share links")
    func metricsRefusedToLimitedAndShares() async throws {
        let fixture = try Fixture(["photos", "scans"])
        var accounts = Accounts([
            try Account(name: "root", password: Self.password, containers: nil),
            try Account(name: "alice", password: Self.password, containers: ["photos", "scans"]),
        ])
        let (rootToken, rootText) = try AccessToken.make(for: "root")
        accounts.add(rootToken)
        let container = Share.make(container: "photos", document: nil, expires: Date().addingTimeInterval(3600))
        let document = Share.make(container: "photos", document: "a.png", expires: Date().addingTimeInterval(3600))
        let (withContainer, containerLink) = try await Self.sharing(container, with: accounts)
        let (withBoth, documentLink) = try await Self.sharing(document, with: withContainer)
        let site = fixture.site(withBoth, metrics: ProcessMetrics())
        try await fixture.test(site) { client in
            for credential in [Self.basic("root"), Self.bearer(rootText)] {
                try await client.execute(uri: "/metrics", method: .get, headers: credential) { response in
                    #expect(response.status == .ok)
                    #expect(response.headers[.contentType] == "text/plain; version=0.0.4; charset=utf-8")
                }
            }
            // Limited, even to every container there is: a container added later is not its.
            try await client.execute(uri: "/metrics", method: .get, headers: Self.basic("alice")) { response in
                #expect(response.status == .forbidden)
                #expect(String(buffer: response.body).contains("/metrics counts for every container"))
            }
            let containerSession = try await Self.openShare(client, containerLink)
            try await client.execute(uri: "/metrics", method: .get, headers: containerSession.headers) {
                #expect($0.status == .forbidden)
            }
            let documentSession = try await Self.openShare(client, documentLink)
            try await client.execute(uri: "/metrics", method: .get, headers: documentSession.headers) {
                #expect($0.status == .notFound)
            }
            // And asking for it without an account is asking for an account.
            try await client.execute(uri: "/metrics", method: .get) { #expect(Self.isChallenge($0)) }
        }
    }
}
