import Foundation
import GlanceTestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// `glance user` and `glance serve --users`: every route behind an account, over real sockets.
@Suite("glance serve --users", .timeLimit(.minutes(10)))
struct SignInTests {
    static let alicePassword = "correct horse battery staple"
    static let bobPassword = "Tr0ub4dor&3"

    /// `user add NAME` with `password` on standard input and `extra` options.
    static func addUser(_ name: String, _ password: String, file: String, _ extra: [String] = []) async throws -> (
        Int32, String
    ) {
        try await ServeTLSTests.run(
            GlanceProcess.executable, ["user", "add", name, "--users", file] + extra, input: password + "\n")
    }

    /// The headers of a request by `name` with `password`.
    static func credentials(_ name: String, _ password: String) -> String {
        "Host: 127.0.0.1\r\nAuthorization: Basic \(Data("\(name):\(password)".utf8).base64EncodedString())\r\n"
    }

    @Test("glance user writes an owner-only file of hashes; list and remove; a bad name or no password is refused")
    func users() async throws {
        let folder = try SampleContainer([:])
        let file = folder.output("users")
        #expect(try await Self.addUser("alice", Self.alicePassword, file: file, ["--container", "photos"]).0 == 0)
        #expect(try await Self.addUser("bob", Self.bobPassword, file: file).0 == 0)
        #expect(LiveExposureTests.mode(file) == 0o600)
        let text = try String(contentsOfFile: file, encoding: .utf8)
        #expect(
            text.contains("alice:$y$") && text.hasSuffix("bob:" + (text.components(separatedBy: "bob:").last ?? "")))
        #expect(!text.contains(Self.alicePassword))
        let listed = try await GlanceProcess.run(["user", "list", "--users", file])
        #expect(listed.standardOutput == "alice  photos\nbob  all containers\n")
        #expect(try await GlanceProcess.run(["user", "remove", "bob", "--users", file]).status == 0)
        #expect(try await GlanceProcess.run(["user", "list", "--users", file]).standardOutput == "alice  photos\n")
        let missing = try await GlanceProcess.run(["user", "remove", "bob", "--users", file])
        #expect(missing.status == 2 && missing.standardError.contains("bob: no such account"))
        let (badName, badNameOutput) = try await Self.addUser("no spaces", "x", file: file)
        #expect(badName == 2 && badNameOutput.contains("an account name is 1 to 64"))
        let (noPassword, noPasswordOutput) = try await Self.addUser("carol", "", file: file)
        #expect(noPassword == 2 && noPasswordOutput.contains("no password on standard input"))
    }

    @Test(
        "every route needs an account; an account limited to one container gets 404 for another's; failures slow down")
    func serveWithAccounts() async throws {
        let photos = try SampleContainer(["a.png": "png/rgb8.png"])
        let scans = try SampleContainer(["b.txt": "text/latin-utf8.txt"])
        let file = photos.output("users")
        let (photosName, scansName) = (
            (photos.path as NSString).lastPathComponent, (scans.path as NSString).lastPathComponent
        )
        #expect(try await Self.addUser("alice", Self.alicePassword, file: file, ["--container", photosName]).0 == 0)
        #expect(try await Self.addUser("bob", Self.bobPassword, file: file).0 == 0)
        // Accounts make an address other than loopback possible without --allow-anonymous.
        let (serve, port, log) = try await ServeCommandTests.startServe([
            photos.path, scans.path, "--users", file, "--host", "0.0.0.0", "--jobs", "1", "--log-level", "debug",
        ])
        defer { if serve.isRunning { kill(serve.processIdentifier, SIGKILL) } }
        try #require(port > 0)
        let routes = [
            "/", "/c/\(photosName)/", "/c/\(photosName)/api/items", "/c/\(photosName)/api/items/a.png",
            "/c/\(photosName)/thumbnails/a.png", "/c/\(photosName)/documents/a.png", "/c/\(photosName)/preview/a.png",
        ]
        for route in routes {
            let anonymous = try await LiveExposureTests.get(route, port: port)
            #expect(LiveExposureTests.status(anonymous) == 401, "\(route)")
            #expect(anonymous.contains("WWW-Authenticate: Basic realm=\"Glance\""), "\(route)")
            #expect(!anonymous.contains("PNG"), "\(route)")
            let right = try await LiveExposureTests.get(
                route, port: port, headers: Self.credentials("alice", Self.alicePassword))
            #expect(LiveExposureTests.status(right) == 200, "\(route)")
        }
        // The pages' assets hold nothing of a container.
        let assets = try await LiveExposureTests.get(
            "/", port: port, headers: Self.credentials("bob", Self.bobPassword))
        let stylesheet = assets.components(separatedBy: "href=\"/assets/").dropFirst().first?.split(separator: "\"")
            .first
        await #expect(
            LiveExposureTests.status(try LiveExposureTests.get("/assets/\(stylesheet ?? "")", port: port)) == 200)
        // Alice sees her container only: the other is not there for her (404, not 403).
        let site = try await LiveExposureTests.get(
            "/", port: port, headers: Self.credentials("alice", Self.alicePassword))
        #expect(site.contains("/c/\(photosName)/") && !site.contains("/c/\(scansName)/"))
        for route in ["/c/\(scansName)/", "/c/\(scansName)/documents/b.txt", "/c/\(scansName)/api/items"] {
            let hidden = try await LiveExposureTests.get(
                route, port: port, headers: Self.credentials("alice", Self.alicePassword))
            #expect(LiveExposureTests.status(hidden) == 404, "\(route)")
            let shown = try await LiveExposureTests.get(
                route, port: port, headers: Self.credentials("bob", Self.bobPassword))
            #expect(LiveExposureTests.status(shown) == 200, "\(route)")
        }
        // Wrong passwords, an unknown name: 401; after a failure, the next attempt waits.
        for (name, password) in [("alice", Self.bobPassword), ("mallory", Self.alicePassword)] {
            let wrong = try await LiveExposureTests.get("/", port: port, headers: Self.credentials(name, password))
            #expect(LiveExposureTests.status(wrong) == 401, "\(name)")
        }
        // A name that is the client's own address is just another wrong name.
        let addressAsName = try await LiveExposureTests.get(
            "/", port: port, headers: Self.credentials("127.0.0.1", "x"))
        #expect(LiveExposureTests.status(addressAsName) == 401)
        let start = ContinuousClock.now
        let slowed = try await LiveExposureTests.get("/", port: port, headers: Self.credentials("alice", "guess"))
        #expect(LiveExposureTests.status(slowed) == 401)
        #expect(ContinuousClock.now - start >= .milliseconds(250))
        kill(serve.processIdentifier, SIGTERM)
        #expect(await exited(serve, within: .seconds(60)), "serve ended")
        let text = String(decoding: await readToEnd(log.fileHandleForReading), as: UTF8.self)
        #expect(text.contains(" 401 "), "\(text)")
        for secret in [Self.alicePassword, Self.bobPassword, "guess"] { #expect(!text.contains(secret)) }
        // A users file others may write, or another user's, is refused: its writer could add an account.
        chmod(file, 0o622)
        let writable = try await GlanceProcess.run(["serve", photos.path, "--users", file, "--port", "0"])
        #expect(
            writable.status == 2 && writable.standardError.contains("others may write it"), "\(writable.standardError)")
        chmod(file, 0o600)
        if geteuid() == 0 {
            chown(file, 65534, 65534)
            let foreign = try await GlanceProcess.run(["serve", photos.path, "--users", file, "--port", "0"])
            #expect(foreign.status == 2 && foreign.standardError.contains("belongs to another user"))
            chown(file, 0, 0)
        }
        // A file without accounts is refused.
        let empty = photos.output("empty-users")
        try Data("# nobody\n".utf8).write(to: URL(fileURLWithPath: empty))
        let refused = try await GlanceProcess.run(["serve", photos.path, "--users", empty, "--port", "0"])
        #expect(refused.status == 2 && refused.standardError.contains("no accounts; add one with 'glance user add"))
    }

    /// One request of any method over a fresh connection; the whole answer.
    static func send(_ method: String, _ path: String, port: Int, headers: String = "", body: String = "") async throws
        -> String
    {
        let connection = try LoopbackConnection(port: port)
        let length =
            body.isEmpty
            ? "" : "Content-Type: application/x-www-form-urlencoded\r\nContent-Length: \(body.utf8.count)\r\n"
        connection.send(
            "\(method) \(path) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\n\(headers)\(length)Connection: close\r\n\r\n\(body)"
        )
        return await connection.read(until: nil, seconds: 10)
    }

    /// How long these tests wait for a running server to follow its users file: it reads the file
    /// again about a second after it changed; this is a hang guard, not a speed mark (a loaded
    /// machine may take longer, and what is judged is that the change is followed).
    static let followsTheFile = Duration.seconds(30)

    /// Waits until a GET of `route` with `headers` answers `status` (as the server reads its users
    /// file again), asking every `pollEvery` for no longer than `within`; fails naming `awaited`
    /// otherwise.
    static func waitFor(
        _ status: Int, from route: String, port: Int, headers: String = "", within: Duration = followsTheFile,
        pollEvery: Duration = .milliseconds(20), _ awaited: String
    ) async throws {
        var last = 0
        try await eventually(
            "\(awaited): GET \(route) answers \(status), not \(last)", within: within, pollEvery: pollEvery
        ) {
            last = await LiveExposureTests.status(try send("GET", route, port: port, headers: headers))
            return last == status
        }
    }

    /// The value of header `name` in an answer, or nil.
    static func header(_ name: String, in answer: String) -> String? {
        answer.components(separatedBy: "\r\n\r\n").first?.components(separatedBy: "\r\n")
            .first { $0.lowercased().hasPrefix(name.lowercased() + ":") }
            .map { String($0.dropFirst(name.count + 1)).trimmingCharacters(in: .whitespaces) }
    }

    /// The form body that signs `name` in with `password`.
    static func form(_ name: String, _ password: String, next: String = "/") -> String {
        let allowed = CharacterSet.alphanumerics
        func encoded(_ text: String) -> String { text.addingPercentEncoding(withAllowedCharacters: allowed) ?? "" }
        return "name=\(encoded(name))&password=\(encoded(password))&next=\(encoded(next))"
    }

    @Test(
        "a browser signs in on the page: an HttpOnly, SameSite=Strict session cookie; sign-out, a new password or removal ends it"
    )
    func browserSessions() async throws {
        let photos = try SampleContainer(["a.png": "png/rgb8.png"])
        let file = photos.output("users")
        #expect(try await Self.addUser("alice", Self.alicePassword, file: file).0 == 0)
        let (serve, port, log) = try await ServeCommandTests.startServe([
            photos.path, "--users", file, "--jobs", "1", "--log-level", "debug",
        ])
        defer { if serve.isRunning { kill(serve.processIdentifier, SIGKILL) } }
        try #require(port > 0)
        // A browser that opens a page unsigned is sent to the sign-in page, which brings it back.
        let navigation = try await Self.send(
            "GET", "/preview/a.png?sort=size", port: port, headers: "Sec-Fetch-Mode: navigate\r\n")
        #expect(LiveExposureTests.status(navigation) == 303)
        #expect(Self.header("Location", in: navigation) == "/sign-in?next=%2Fpreview%2Fa.png%3Fsort%3Dsize")
        // Its images and scripts get 401 without the Basic scheme (no password dialog over the page).
        let image = try await Self.send("GET", "/thumbnails/a.png", port: port, headers: "Sec-Fetch-Mode: no-cors\r\n")
        #expect(
            LiveExposureTests.status(image) == 401
                && Self.header("WWW-Authenticate", in: image) == "Bearer realm=\"Glance\"")
        let page = try await Self.send("GET", "/sign-in?next=%2Fpreview%2Fa.png", port: port)
        #expect(LiveExposureTests.status(page) == 200)
        #expect(page.contains("name=\"password\"") && page.contains("value=\"/preview/a.png\""))
        // The right password: a session cookie, and back where the browser was going.
        let signedIn = try await Self.send(
            "POST", "/sign-in", port: port, body: Self.form("alice", Self.alicePassword, next: "/preview/a.png"))
        #expect(LiveExposureTests.status(signedIn) == 303)
        #expect(Self.header("Location", in: signedIn) == "/preview/a.png")
        let cookie = try #require(Self.header("Set-Cookie", in: signedIn))
        let attributes = Set(
            cookie.components(separatedBy: "; ").dropFirst().map { $0.components(separatedBy: "=")[0] })
        #expect(attributes.isSuperset(of: ["HttpOnly", "SameSite", "Expires", "Path"]), "\(cookie)")
        #expect(cookie.contains("SameSite=Strict") && !cookie.contains("Secure"), "\(cookie)")
        let session = "Cookie: " + (cookie.components(separatedBy: ";").first ?? "") + "\r\n"
        for route in ["/", "/api/items", "/thumbnails/a.png", "/documents/a.png", "/preview/a.png", "/api/items/a.png"]
        {
            await #expect(
                LiveExposureTests.status(try Self.send("GET", route, port: port, headers: session)) == 200, "\(route)")
        }
        let grid = try await Self.send("GET", "/", port: port, headers: session)
        #expect(grid.contains("id=\"sign-out\"") && grid.contains("<span class=\"account\">alice</span>"))
        // A form from another site is refused, and does not sign out.
        let foreign = try await Self.send(
            "POST", "/sign-out", port: port, headers: session + "Origin: http://elsewhere.example\r\n")
        #expect(LiveExposureTests.status(foreign) == 403)
        await #expect(LiveExposureTests.status(try Self.send("GET", "/api/items", port: port, headers: session)) == 200)
        // Signing out ends the session: its cookie no longer opens anything.
        let signedOut = try await Self.send("POST", "/sign-out", port: port, headers: session)
        #expect(LiveExposureTests.status(signedOut) == 303 && Self.header("Location", in: signedOut) == "/sign-in")
        await #expect(LiveExposureTests.status(try Self.send("GET", "/api/items", port: port, headers: session)) == 401)
        // A wrong password: the page again, with the reason; the next attempt waits.
        let wrong = try await Self.send("POST", "/sign-in", port: port, body: Self.form("alice", "guess"))
        #expect(LiveExposureTests.status(wrong) == 403 && wrong.contains("Wrong name or password."))
        #expect(Self.header("Set-Cookie", in: wrong) == nil)
        let start = ContinuousClock.now
        _ = try await Self.send("POST", "/sign-in", port: port, body: Self.form("alice", "guess again"))
        #expect(ContinuousClock.now - start >= .milliseconds(250))
        // `next` cannot send the browser to another site.
        let away = try await Self.send(
            "POST", "/sign-in", port: port, body: Self.form("alice", Self.alicePassword, next: "//elsewhere.example/"))
        #expect(Self.header("Location", in: away) == "/")
        // A new password ends the sessions of the old one within a second, without a restart.
        let kept = "Cookie: " + (Self.header("Set-Cookie", in: away)?.components(separatedBy: ";").first ?? "") + "\r\n"
        await #expect(LiveExposureTests.status(try Self.send("GET", "/api/items", port: port, headers: kept)) == 200)
        #expect(try await Self.addUser("alice", "a new password", file: file).0 == 0)
        try await Self.waitFor(401, from: "/api/items", port: port, headers: kept, "the old password's session ends")
        kill(serve.processIdentifier, SIGTERM)
        #expect(await waitForExit(serve, within: .seconds(20)))
        let text = String(decoding: await readToEnd(log.fileHandleForReading), as: UTF8.self)
        #expect(text.contains("POST /sign-in 303"), "\(text)")
        for secret in [Self.alicePassword, "guess", "a new password", cookie.components(separatedBy: ";")[0]] {
            #expect(!text.contains(secret))
        }
    }

    @Test("a token reads what its account may see and nothing more; revoked, it is refused within a second")
    func accessTokens() async throws {
        let photos = try SampleContainer(["a.png": "png/rgb8.png"])
        let file = photos.output("users")
        #expect(try await Self.addUser("alice", Self.alicePassword, file: file).0 == 0)
        let made = try await GlanceProcess.run(["user", "token", "alice", "--users", file])
        #expect(made.status == 0 && made.standardError.contains("it is not shown again"), "\(made.standardError)")
        let token = made.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(token.hasPrefix("glance_") && token.count == 84, "\(token)")
        let id = String(token.dropFirst(7).prefix(12))
        let users = try String(contentsOfFile: file, encoding: .utf8)
        #expect(users.contains("token:\(id):alice:$y$") && !users.contains(token.suffix(64)))
        #expect(
            try await GlanceProcess.run(["user", "list", "--users", file]).standardOutput
                == "alice  all containers  tokens: \(id)\n")
        let (serve, port, log) = try await ServeCommandTests.startServe([photos.path, "--users", file, "--jobs", "1"])
        defer { if serve.isRunning { kill(serve.processIdentifier, SIGKILL) } }
        try #require(port > 0)
        let bearer = "Authorization: Bearer \(token)\r\n"
        for route in ["/", "/api/items", "/thumbnails/a.png", "/documents/a.png"] {
            await #expect(
                LiveExposureTests.status(try Self.send("GET", route, port: port, headers: bearer)) == 200, "\(route)")
        }
        // Read-only: it cannot sign a browser in or out.
        let post = try await Self.send("POST", "/sign-out", port: port, headers: bearer)
        #expect(LiveExposureTests.status(post) == 403 && post.contains("may only read"))
        // A token is no password: Basic credentials that carry one are refused.
        let asBasic = "Authorization: Basic \(Data("token \(id):\(token)".utf8).base64EncodedString())\r\n"
        await #expect(LiveExposureTests.status(try Self.send("GET", "/api/items", port: port, headers: asBasic)) == 401)
        // A token with one digit changed is no token.
        let forged = String(token.dropLast()) + (token.hasSuffix("0") ? "1" : "0")
        await #expect(
            LiveExposureTests.status(
                try Self.send("GET", "/api/items", port: port, headers: "Authorization: Bearer \(forged)\r\n")) == 401)
        let revoked = try await GlanceProcess.run(["user", "token", "alice", "--users", file, "--revoke", id])
        #expect(revoked.status == 0, "\(revoked.standardError)")
        try await Self.waitFor(401, from: "/api/items", port: port, headers: bearer, "the revoked token is refused")
        let unknown = try await GlanceProcess.run(["user", "token", "alice", "--users", file, "--revoke", id])
        #expect(unknown.status == 2 && unknown.standardError.contains("no such token of alice"))
        kill(serve.processIdentifier, SIGTERM)
        #expect(await waitForExit(serve, within: .seconds(20)))
        let text = String(decoding: await readToEnd(log.fileHandleForReading), as: UTF8.self)
        #expect(!text.contains(token.suffix(64)) && !text.contains(forged.suffix(64)))
    }

    /// The token of a link `glance share add` printed, and the grant's identifier.
    static func share(_ arguments: [String], file: String) async throws -> (path: String, id: String) {
        let made = try await GlanceProcess.run(["share", "add"] + arguments + ["--users", file])
        #expect(made.status == 0, "\(made.standardError)")
        let path = made.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines)
        let id = made.standardError.components(separatedBy: " ").dropFirst().first ?? ""
        return (path, id)
    }

    @Test(
        "a share link opens its container or its one document read-only without an account; a forged, revoked or expired one does not"
    )
    func shareLinks() async throws {
        let photos = try SampleContainer(["a.png": "png/rgb8.png", "sub/b.txt": "text/latin-utf8.txt"])
        let scans = try SampleContainer(["c.txt": "text/latin-utf8.txt"])
        let file = photos.output("users")
        let (photosName, scansName) = (
            (photos.path as NSString).lastPathComponent, (scans.path as NSString).lastPathComponent
        )
        #expect(try await Self.addUser("alice", Self.alicePassword, file: file).0 == 0)
        let document = try await Self.share([photosName, "a.png", "--expires", "2h"], file: file)
        let container = try await Self.share([photosName, "--expires", "30m"], file: file)
        #expect(document.path.hasPrefix("/share/ey") && document.id.count == 12, "\(document)")
        let listed = try await GlanceProcess.run(["share", "list", "--users", file]).standardOutput
        #expect(listed.contains("\(document.id)  \(photosName)  a.png  until "), "\(listed)")
        #expect(listed.contains("\(container.id)  \(photosName)  (the whole container)  until "), "\(listed)")
        for (arguments, reason) in [
            (["no spaces"], "a container's URL name"), ([photosName, "../a.png"], "not a document path"),
            ([photosName, "--expires", "91d"], "at most 90d"), ([photosName, "--expires", "soon"], "at most 90d"),
        ] {
            let refused = try await GlanceProcess.run(["share", "add"] + arguments + ["--users", file])
            #expect(refused.status == 2 && refused.standardError.contains(reason), "\(refused.standardError)")
        }
        let (serve, port, log) = try await ServeCommandTests.startServe([
            photos.path, scans.path, "--users", file, "--jobs", "1", "--log-level", "debug",
        ])
        defer { if serve.isRunning { kill(serve.processIdentifier, SIGKILL) } }
        try #require(port > 0)
        let base = "/c/\(photosName)"
        // The document's link: a session for that document's routes and nothing else.
        let opened = try await Self.send("GET", document.path, port: port)
        #expect(LiveExposureTests.status(opened) == 303)
        #expect(Self.header("Location", in: opened) == "\(base)/preview/a.png")
        let cookie = try #require(Self.header("Set-Cookie", in: opened))
        #expect(cookie.contains("HttpOnly") && cookie.contains("SameSite=Strict"), "\(cookie)")
        let session = "Cookie: " + (cookie.components(separatedBy: ";").first ?? "") + "\r\n"
        for route in ["preview", "thumbnails", "documents", "api/items"].map({ "\(base)/\($0)/a.png" }) {
            await #expect(
                LiveExposureTests.status(try Self.send("GET", route, port: port, headers: session)) == 200, "\(route)")
        }
        for route in [
            "\(base)/", "\(base)/api/items", "\(base)/documents/sub/b.txt", "\(base)/preview/sub/b.txt", "/",
            "/c/\(scansName)/documents/c.txt",
        ] {
            await #expect(
                LiveExposureTests.status(try Self.send("GET", route, port: port, headers: session)) == 404, "\(route)")
        }
        // The container's link: its container, read-only, and not the other one.
        let whole = try await Self.send("GET", container.path, port: port)
        #expect(Self.header("Location", in: whole) == "\(base)/")
        let containerSession =
            "Cookie: " + (Self.header("Set-Cookie", in: whole)?.components(separatedBy: ";").first ?? "") + "\r\n"
        for route in ["\(base)/", "\(base)/api/items", "\(base)/documents/sub/b.txt", "/"] {
            await #expect(
                LiveExposureTests.status(try Self.send("GET", route, port: port, headers: containerSession)) == 200,
                "\(route)")
        }
        let site = try await Self.send("GET", "/", port: port, headers: containerSession)
        #expect(site.contains(photosName) && !site.contains(scansName))
        await #expect(
            LiveExposureTests.status(
                try Self.send("GET", "/c/\(scansName)/documents/c.txt", port: port, headers: containerSession)) == 404)
        // A link with its signature changed, or a made-up one, opens nothing, and slows the client.
        // (Its first character: the last one of a base64url signature carries padding bits
        // that a decoder may ignore, so changing it does not always change the signature.)
        let signature = container.path.index(after: try #require(container.path.lastIndex(of: ".")))
        let forged = container.path.replacingCharacters(
            in: signature...signature, with: container.path[signature] == "A" ? "B" : "A")
        let refused = try await Self.send("GET", forged, port: port)
        #expect(LiveExposureTests.status(refused) == 404 && refused.contains("this share link does not open"))
        #expect(Self.header("Set-Cookie", in: refused) == nil)
        let start = ContinuousClock.now
        _ = try await Self.send("GET", "/share/not.a.token", port: port)
        #expect(ContinuousClock.now - start >= .milliseconds(250))
        // Revoked: the link no longer opens and its sessions end within a second.
        #expect(try await GlanceProcess.run(["share", "revoke", container.id, "--users", file]).status == 0)
        try await Self.waitFor(
            401, from: "\(base)/", port: port, headers: containerSession, "the revoked link's session ends")
        await #expect(LiveExposureTests.status(try Self.send("GET", container.path, port: port)) == 404)
        // Revoking all of them ends the document's link too, and the new key signs new ones.
        #expect(try await GlanceProcess.run(["share", "revoke", "--all", "--users", file]).status == 0)
        try await Self.waitFor(
            401, from: "\(base)/preview/a.png", port: port, headers: session, "every link's session ends")
        // An expired grant does not open, even with a good signature: the users file's expiry is
        // moved into the past for it. (It opens first: the server has read the grant, so its 404
        // afterwards comes from the expiry, not from a file not read again yet. Until then each
        // try is a failed link, after which the server makes the next one wait a second or more:
        // hence not the bound of a users file followed.)
        let late = try await Self.share([photosName, "--expires", "1m"], file: file)
        try await Self.waitFor(303, from: late.path, port: port, within: .seconds(20), "the new link opens")
        let users = try String(contentsOfFile: file, encoding: .utf8)
        let past = users.components(separatedBy: "\n").map { line in
            line.hasPrefix("share:\(late.id):") ? "share:\(late.id):\(photosName):1000:*" : line
        }.joined(separator: "\n")
        try Data(past.utf8).write(to: URL(fileURLWithPath: file))
        // Each try that still opens starts a session of the grant (at most 60 in ten minutes).
        try await Self.waitFor(
            404, from: late.path, port: port, pollEvery: .milliseconds(100), "the expired link no longer opens")
        kill(serve.processIdentifier, SIGTERM)
        #expect(await waitForExit(serve, within: .seconds(20)))
        let text = String(decoding: await readToEnd(log.fileHandleForReading), as: UTF8.self)
        #expect(text.contains("GET /share/… 303"), "\(text)")
        for secret in [document.path, container.path, forged].map({ String($0.dropFirst(7)) }) {
            #expect(!text.contains(secret))
        }
    }
}
