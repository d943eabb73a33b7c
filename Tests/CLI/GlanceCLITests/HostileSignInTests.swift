import Foundation
import GlanceTestSupport
import Synchronization
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// The server's limits the tests hold it to (``SignInThrottle``'s).
enum SignInTestsLimits {
    static let attemptsPerAccount = 10
}

/// A flag one thread raises and another reads.
final class StopFlag: Sendable {
    private let raised = Atomic<Bool>(false)
    func raise() { raised.store(true, ordering: .relaxed) }
    var isRaised: Bool { raised.load(ordering: .relaxed) }
}

/// What hostile testing of sign-in, share links and the command line found (issue 49), each
/// tried again as the attacker did, over real sockets against a real `glance serve`.
@Suite("glance serve and its commands against an attacker", .timeLimit(.minutes(10)))
struct HostileSignInTests {
    static let alice = SignInTests.alicePassword
    static let bob = SignInTests.bobPassword

    /// A users file in `folder` with alice (every container) and bob (`limited` only).
    static func users(in folder: SampleContainer, limited: String) async throws -> String {
        let file = folder.output("users")
        #expect(try await SignInTests.addUser("alice", alice, file: file).0 == 0)
        #expect(try await SignInTests.addUser("bob", bob, file: file, ["--container", limited]).0 == 0)
        return file
    }

    /// The `Authorization: Basic` header of `name` and `password` (``SignInTests/send`` names the host).
    static func basic(_ name: String, _ password: String) -> String {
        SignInTests.credentials(name, password).replacingOccurrences(of: "Host: 127.0.0.1\r\n", with: "")
    }

    /// The `Cookie:` header of the session an answer started.
    static func session(of answer: String) -> String {
        "Cookie: " + (SignInTests.header("Set-Cookie", in: answer)?.components(separatedBy: ";").first ?? "") + "\r\n"
    }

    @Test(
        "a one-document link's preview names no other document; /metrics is for whole-server accounts; no token is logged"
    )
    func shareLinksMetricsAndLog() async throws {
        let photos = try SampleContainer([
            "a.png": "png/rgb8.png", "b-neighbour.png": "png/rgba8.png", "c-secret-plans.txt": "text/latin-utf8.txt",
        ])
        let name = (photos.path as NSString).lastPathComponent
        let other = try SampleContainer(["x.txt": "text/latin-utf8.txt"])
        let file = try await Self.users(in: photos, limited: name)
        let document = try await SignInTests.share([name, "b-neighbour.png"], file: file)
        let container = try await SignInTests.share([name], file: file)
        let token = try await GlanceProcess.run(["user", "token", "alice", "--users", file]).standardOutput
            .trimmingCharacters(in: .whitespacesAndNewlines)
        let (serve, port, log) = try await ServeCommandTests.startServe([
            photos.path, other.path, "--users", file, "--base-path", "/glance", "--jobs", "1", "--log-level", "debug",
        ])
        defer { if serve.isRunning { kill(serve.processIdentifier, SIGKILL) } }
        try #require(port > 0)
        let base = "/glance/c/\(name)"
        // The document's link: its preview page knows of no other document, whatever the query.
        let opened = try await SignInTests.send("GET", "/glance" + document.path, port: port)
        #expect(SignInTests.header("Location", in: opened) == "\(base)/preview/b-neighbour.png")
        let documentSession = Self.session(of: opened)
        for query in ["", "?pattern=*", "?sort=size&reverse=1", "?type=text"] {
            let page = try await SignInTests.send(
                "GET", "\(base)/preview/b-neighbour.png\(query)", port: port, headers: documentSession)
            #expect(LiveExposureTests.status(page) == 200, "\(query)")
            #expect(page.contains("b-neighbour.png"), "\(query)")
            for leak in [
                "a.png", "c-secret-plans", "rel=\"prefetch\"", " of 3", "id=\"next\"", "id=\"previous\"", "id=\"up\"",
            ] {
                #expect(!page.contains(leak), "\(query): the page holds \(leak)")
            }
        }
        // An account's page still steps through the container.
        let full = try await SignInTests.send(
            "GET", "\(base)/preview/b-neighbour.png", port: port,
            headers: Self.basic("alice", Self.alice))
        #expect(full.contains("a.png") && full.contains("2 of 3") && full.contains("id=\"next\""))
        // /metrics: the whole server's counts, for accounts that see every container only.
        let containerSession = await Self.session(
            of: try SignInTests.send("GET", "/glance" + container.path, port: port))
        for (who, headers, expected) in [
            ("nobody", "", 401), ("a one-document link", documentSession, 404),
            ("a container link", containerSession, 403),
            ("an account of one container", Self.basic("bob", Self.bob), 403),
            ("an account of every container", Self.basic("alice", Self.alice), 200),
            ("its token", "Authorization: Bearer \(token)\r\n", 200),
        ] {
            let answer = try await SignInTests.send("GET", "/glance/metrics", port: port, headers: headers)
            #expect(LiveExposureTests.status(answer) == expected, "\(who)")
            #expect(answer.contains("glance_http_requests_total") == (expected == 200), "\(who)")
        }
        // The link as `glance share add` prints it (without the base path), and in other places:
        // never logged whole.
        let secret = String(container.path.dropFirst("/share/".count))
        for path in [container.path, "/glance/anything" + container.path, "/glance" + container.path + "/more"] {
            _ = try await SignInTests.send("GET", path, port: port)
        }
        kill(serve.processIdentifier, SIGTERM)
        #expect(await exited(serve, within: .seconds(60)), "serve ended")
        let text = String(decoding: await readToEnd(log.fileHandleForReading), as: UTF8.self)
        #expect(text.contains("GET /share/… 404") && text.contains("GET /glance/share/… 303"), "\(text)")
        #expect(!text.contains(secret) && !text.contains(String(secret.prefix(40))))
        #expect(!text.contains(String(document.path.dropFirst("/share/".count).prefix(40))))
    }

    @Test("a share link followed from another site's page does not replace the session of an account")
    func shareLinkFromAnotherSite() async throws {
        let photos = try SampleContainer(["a.png": "png/rgb8.png"])
        let name = (photos.path as NSString).lastPathComponent
        let file = try await Self.users(in: photos, limited: name)
        let link = try await SignInTests.share([name, "a.png"], file: file)
        let (serve, port, _) = try await ServeCommandTests.startServe([photos.path, "--users", file, "--jobs", "1"])
        defer { if serve.isRunning { kill(serve.processIdentifier, SIGKILL) } }
        try #require(port > 0)
        let alice = await Self.session(
            of: try SignInTests.send("POST", "/sign-in", port: port, body: SignInTests.form("alice", Self.alice)))
        // From another site the browser sends no SameSite=Strict cookie: the link is opened again
        // from a page of the server's own, and nothing is set yet.
        let bounced = try await SignInTests.send(
            "GET", link.path, port: port, headers: "Sec-Fetch-Site: cross-site\r\nSec-Fetch-Mode: navigate\r\n")
        #expect(LiveExposureTests.status(bounced) == 200)
        #expect(bounced.contains("http-equiv=\"refresh\" content=\"0;url=\(link.path)\""), "\(bounced)")
        #expect(SignInTests.header("Set-Cookie", in: bounced) == nil)
        // Opened from the server's page, with the account's cookie: the account's session stays.
        let reopened = try await SignInTests.send(
            "GET", link.path, port: port, headers: alice + "Sec-Fetch-Site: same-origin\r\nSec-Fetch-Mode: navigate\r\n"
        )
        #expect(LiveExposureTests.status(reopened) == 303)
        #expect(SignInTests.header("Set-Cookie", in: reopened) == nil)
        let grid = try await SignInTests.send("GET", "/", port: port, headers: alice)
        #expect(LiveExposureTests.status(grid) == 200 && grid.contains("<span class=\"account\">alice</span>"))
        // A browser with no account's session gets the link's.
        let fresh = try await SignInTests.send("GET", link.path, port: port, headers: "Sec-Fetch-Site: same-origin\r\n")
        #expect(LiveExposureTests.status(fresh) == 303 && SignInTests.header("Set-Cookie", in: fresh) != nil)
    }

    /// `count` requests sent at once, each on a connection of its own; the answers in order.
    static func atOnce(_ count: Int, _ request: @escaping @Sendable (Int) async throws -> String) async -> [String] {
        await withTaskGroup(of: (Int, String).self) { group in
            for index in 0..<count {
                group.addTask { (index, (try? await request(index)) ?? "") }
            }
            var answers = [String](repeating: "", count: count)
            for await (index, answer) in group { answers[index] = answer }
            return answers
        }
    }

    @Test("guesses made all at once are refused past the minute's attempts (429), and the owner keeps reading")
    func parallelGuesses() async throws {
        let photos = try SampleContainer(["a.png": "png/rgb8.png"])
        let file = try await Self.users(in: photos, limited: "elsewhere")
        let (serve, port, _) = try await ServeCommandTests.startServe([photos.path, "--users", file, "--jobs", "1"])
        defer { if serve.isRunning { kill(serve.processIdentifier, SIGKILL) } }
        try #require(port > 0)
        // Alice signed in a moment ago: her credential is known, and costs no attempt.
        let owner = Self.basic("alice", Self.alice)
        await #expect(
            LiveExposureTests.status(try SignInTests.send("GET", "/api/items", port: port, headers: owner)) == 200)
        // 40 guesses at once: at most the minute's ten are judged, the others refused unchecked.
        let answers = await Self.atOnce(40) { index in
            try await SignInTests.send("GET", "/api/items", port: port, headers: Self.basic("alice", "guess \(index)"))
        }
        let statuses = answers.map(LiveExposureTests.status)
        let judged = statuses.filter { $0 == 401 }.count
        let refused = answers.filter { LiveExposureTests.status($0) == 429 }
        #expect(judged <= SignInTestsLimits.attemptsPerAccount, "\(statuses)")
        #expect(judged + refused.count == 40, "\(statuses)")
        #expect(refused.allSatisfy { SignInTests.header("Retry-After", in: $0).flatMap(Int.init) ?? 0 >= 1 })
        #expect(refused.allSatisfy { $0.contains("too many sign-in attempts") })
        // The sign-in form says so too, for the account and for the client.
        let form = try await SignInTests.send(
            "POST", "/sign-in", port: port, body: SignInTests.form("alice", "one more"))
        #expect(LiveExposureTests.status(form) == 429 && form.contains("Too many attempts"), "\(form.prefix(300))")
        // The owner's known credential still reads.
        await #expect(
            LiveExposureTests.status(try SignInTests.send("GET", "/api/items", port: port, headers: owner)) == 200)
    }

    /// Opens `/events` with `headers`; the connection, once the stream said it is connected.
    static func openEvents(port: Int, headers: String) async throws -> LoopbackConnection {
        let connection = try LoopbackConnection(port: port)
        connection.send("GET /events HTTP/1.1\r\nHost: 127.0.0.1\r\n\(headers)Connection: close\r\n\r\n")
        let opening = await connection.read(until: ": connected", seconds: 10)
        #expect(opening.contains("text/event-stream"), "\(opening.prefix(200))")
        return connection
    }

    /// Seconds until the server ends `stream`, or nil when it is still open after `limit`.
    static func secondsUntilEnded(_ stream: LoopbackConnection, limit: Double) async -> Double? {
        let start = ContinuousClock.now
        _ = await stream.read(until: nil, seconds: limit)
        let elapsed = ContinuousClock.now - start
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        return seconds < limit - 0.05 ? seconds : nil
    }

    @Test(
        "an open event stream ends within a second or two of its link revoked, its account removed, its password changed, its token revoked, its session signed out"
    )
    func eventStreamsEndWithTheirCredential() async throws {
        let photos = try SampleContainer(["a.png": "png/rgb8.png"])
        let name = (photos.path as NSString).lastPathComponent
        let file = try await Self.users(in: photos, limited: name)
        #expect(try await SignInTests.addUser("carol", "carol's password", file: file).0 == 0)
        let link = try await SignInTests.share([name], file: file)
        let token = try await GlanceProcess.run(["user", "token", "alice", "--users", file]).standardOutput
            .trimmingCharacters(in: .whitespacesAndNewlines)
        let tokenID = String(token.dropFirst("glance_".count).prefix(12))
        let (serve, port, _) = try await ServeCommandTests.startServe([photos.path, "--users", file, "--jobs", "1"])
        defer { if serve.isRunning { kill(serve.processIdentifier, SIGKILL) } }
        try #require(port > 0)
        let signedIn = try await SignInTests.send(
            "POST", "/sign-in", port: port, body: SignInTests.form("alice", Self.alice))
        let aliceSession = Self.session(of: signedIn)
        let linkSession = await Self.session(of: try SignInTests.send("GET", link.path, port: port))
        // Each stream, and what ends its right to read.
        let cases: [(String, String, () async throws -> Void)] = [
            (
                "a share link revoked", linkSession,
                { () async throws -> Void in
                    #expect(try await GlanceProcess.run(["share", "revoke", link.id, "--users", file]).status == 0)
                }
            ),
            (
                "an account removed", Self.basic("bob", Self.bob),
                { () async throws -> Void in
                    #expect(try await GlanceProcess.run(["user", "remove", "bob", "--users", file]).status == 0)
                }
            ),
            (
                "a token revoked", "Authorization: Bearer \(token)\r\n",
                { () async throws -> Void in
                    #expect(
                        try await GlanceProcess.run(["user", "token", "alice", "--users", file, "--revoke", tokenID])
                            .status
                            == 0)
                }
            ),
            (
                "a password changed", Self.basic("carol", "carol's password"),
                { () async throws -> Void in
                    #expect(try await SignInTests.addUser("carol", "a new one", file: file).0 == 0)
                }
            ),
            (
                "a session signed out", aliceSession,
                { () async throws -> Void in
                    let out = try await SignInTests.send("POST", "/sign-out", port: port, headers: aliceSession)
                    #expect(LiveExposureTests.status(out) == 303)
                }
            ),
        ]
        for (what, headers, end) in cases {
            let stream = try await Self.openEvents(port: port, headers: headers)
            try await end()
            // The users file is looked at once a second; the stream asks four times a second.
            let seconds = await Self.secondsUntilEnded(stream, limit: 4)
            #expect(seconds != nil, "\(what): the stream went on")
        }
    }

    @Test("the users file is opened once, not through a link, in a folder no one else may write")
    func usersFileOpening() async throws {
        let photos = try SampleContainer(["a.png": "png/rgb8.png"])
        let file = try await Self.users(in: photos, limited: "x")
        let folder = try CLIAssets.scratchFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        // A link to a good users file is refused: what it points at may change under the server.
        let link = folder + "/users"
        #expect(symlink(file, link) == 0)
        let linked = try await GlanceProcess.run(["serve", photos.path, "--users", link, "--port", "0"])
        #expect(linked.status == 2 && linked.standardError.contains("is a symbolic link"), "\(linked.standardError)")
        #expect(unlink(link) == 0)
        // A folder anyone may write: someone could swap the file between two looks at it.
        try FileManager.default.copyItem(atPath: file, toPath: link)
        chmod(link, 0o600)
        chmod(folder, 0o777)
        let open = try await GlanceProcess.run(["serve", photos.path, "--users", link, "--port", "0"])
        #expect(
            open.status == 2 && open.standardError.contains("its folder may be written by others"),
            "\(open.standardError)")
        let listed = try await GlanceProcess.run(["user", "list", "--users", link])
        #expect(listed.status == 2 && listed.standardError.contains("its folder may be written by others"))
        // Sticky, as /tmp: no one else may rename or remove the file there.
        chmod(folder, 0o1777)
        #expect(try await GlanceProcess.run(["user", "list", "--users", link]).standardOutput.contains("alice"))
    }

    @Test(
        "the users file cannot be swapped between its read and its owner check (as root: the attacker's file is another user's)",
        .enabled(if: geteuid() == 0, "only root can make a file that belongs to another user"))
    func usersFileSwap() async throws {
        let photos = try SampleContainer(["a.png": "png/rgb8.png"])
        let folder = try CLIAssets.scratchFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let real = folder + "/users"
        #expect(try await SignInTests.addUser("alice", Self.alice, file: real).0 == 0)
        // The attacker's own file: an account of theirs, the file theirs (uid 65534).
        let forged = folder + "/forged"
        #expect(try await SignInTests.addUser("mallory", "mallory's", file: forged).0 == 0)
        let keep = folder + "/kept"
        try FileManager.default.copyItem(atPath: real, toPath: keep)
        chown(forged, 65534, 65534)
        let attackerCopy = folder + "/attacker"
        // Swapped in and out as fast as two renames go, while the server starts again and again.
        let stop = StopFlag()
        let swapper = Thread {
            while !stop.isRaised {
                _ = link(forged, attackerCopy)
                _ = rename(attackerCopy, real)
                _ = link(keep, attackerCopy)
                _ = rename(attackerCopy, real)
            }
        }
        swapper.start()
        defer { stop.raise() }
        var started = 0
        for _ in 0..<12 {
            let (serve, port, _) = try await ServeCommandTests.startServe([photos.path, "--users", real, "--jobs", "1"])
            if port > 0 {
                started += 1
                let mallory = try await SignInTests.send(
                    "GET", "/api/items", port: port, headers: Self.basic("mallory", "mallory's"))
                #expect(LiveExposureTests.status(mallory) == 401, "the attacker's account signed in")
                kill(serve.processIdentifier, SIGKILL)
            }
            #expect(await exited(serve, within: .seconds(60)), "serve ended")
        }
        stop.raise()
        // Some starts read the real file; none read the attacker's as the server's.
        #expect(started > 0)
    }

    @Test("glance hook and glance status send nothing to a socket another user planted, and say so in one line")
    func plantedHookSocket() async throws {
        let container = try SampleContainer(["a.png": "png/rgb8.png"])
        let store = container.file(".thumbnails")
        #expect(mkdir(store, 0o777) == 0)
        chmod(store, 0o777)
        let received = container.output("received")
        // A listener that records what it is sent and answers that every document is fresh.
        let listener = Process()
        listener.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        let script = """
            import socket, sys
            server = socket.socket(socket.AF_UNIX); server.bind(sys.argv[1]); server.listen(8)
            open(sys.argv[2] + ".ready", "w").close()
            while True:
                connection, _ = server.accept()
                data = connection.recv(65536)
                with open(sys.argv[2], "ab") as out: out.write(data)
                connection.sendall(b'{"path":"a.png","state":"fresh","width":1,"height":1,"format":"png"}\\n')
                connection.close()
            """
        var arguments = ["-c", script, store + "/hook.sock", received]
        if geteuid() == 0 {
            // As root, the neighbour is really another user, with a folder and a socket of its own.
            chmod(container.outputs, 0o777)
            chown(store, 65534, 65534)
            chmod(store, 0o755)
            listener.executableURL = URL(fileURLWithPath: "/usr/bin/setpriv")
            arguments = ["--reuid", "65534", "--regid", "65534", "--clear-groups", "/usr/bin/python3"] + arguments
        }
        listener.arguments = arguments
        try listener.run()
        defer { kill(listener.processIdentifier, SIGKILL) }
        try await eventually("the listener ready") { FileManager.default.fileExists(atPath: received + ".ready") }
        let hook = try await GlanceProcess.run(["hook", container.path, "a.png"])
        #expect(hook.status == 2, "\(hook.standardOutput)\(hook.standardError)")
        #expect(!hook.standardOutput.contains("fresh"))
        #expect(hook.standardError.contains("nothing was sent"), "\(hook.standardError)")
        #expect(hook.standardError.split(separator: "\n").count == 1, "\(hook.standardError)")
        let status = try await GlanceProcess.run(["status", container.path])
        #expect(status.status == 2 && !status.standardOutput.contains("ready"), "\(status.standardOutput)")
        #expect(status.standardError.contains("nothing was sent"), "\(status.standardError)")
        #expect(!FileManager.default.fileExists(atPath: received), "the planted socket was sent a request")
    }

    @Test("glance show escapes every value the store hands it")
    func showEscapesStoredValues() async throws {
        let container = try SampleContainer(["notes.txt": "text/latin-utf8.txt"])
        #expect(try await container.generate().result.status == 0)
        let hostile = "\u{1B}]0;pwned\u{07}\u{1B}]52;c;ZXZpbA==\u{07}\u{1B}[2J\r\u{9B}31m"
        let quoted = hostile.replacingOccurrences(of: "'", with: "''")
        let database = container.file(".thumbnails/thumbnails.sqlite")
        // Every text the show command prints from the store, written as another process might.
        let sql = """
            UPDATE document SET generatorVersion = '1.0\(quoted)',
              details = json_set(coalesce(details, '{}'), '$.textEncoding', 'UTF-8\(quoted)');
            UPDATE thumbnail SET sizeKey = sizeKey || '\(quoted)' WHERE sizeKey <> '1024x1024';
            """
        let python = try await ServeTLSTests.run(
            "/usr/bin/python3",
            [
                "-c",
                "import sqlite3, sys; db = sqlite3.connect(sys.argv[1]); db.executescript(sys.argv[2]); db.commit()",
                database, sql,
            ])
        #expect(python.0 == 0, "\(python.1)")
        let shown = try await GlanceProcess.run(["show", container.path, "notes.txt"])
        #expect(shown.status == 0, "\(shown.standardError)")
        #expect(shown.standardOutput.contains("by glance 1.0\\x1B]0;pwned\\x07"), "\(shown.standardOutput)")
        for control in ["\u{1B}", "\u{07}", "\u{9B}", "\r"] {
            #expect(!shown.standardOutput.contains(control), "\(shown.standardOutput.debugDescription)")
        }
    }

    @Test("glance user takes container names as the server does, and every line user, share and token write reads back")
    func usersFileLinesReadBack() async throws {
        let photos = try SampleContainer(["a.png": "png/rgb8.png"])
        let file = photos.output("users")
        #expect(try await SignInTests.addUser("alice", Self.alice, file: file, ["--container", "photos"]).0 == 0)
        let before = try Data(contentsOf: URL(fileURLWithPath: file))
        for bad in ["photos\nmallory:$y$x:*", "", " ", "a:b", "a,b", "..", "näme"] {
            let (status, output) = try await SignInTests.addUser("carol", "x", file: file, ["--container", bad])
            #expect(
                status == 2 && output.contains("a container is named by its URL name"),
                "\(bad.debugDescription): \(output)")
            #expect(try Data(contentsOf: URL(fileURLWithPath: file)) == before, "\(bad.debugDescription)")
        }
        // Every kind of line, with the characters a line could trip on where they are allowed.
        await #expect(
            try SignInTests.addUser(
                "bob@example.org", Self.bob, file: file, ["--container", "a.b_c-d", "--container", "e"]
            )
            .0 == 0)
        #expect(try await GlanceProcess.run(["user", "token", "bob@example.org", "--users", file]).status == 0)
        let shared = try await SignInTests.share(["photos", "folder: one/a file, 100% done?.png"], file: file)
        _ = try await SignInTests.share(["a.b_c-d", "--expires", "30m"], file: file)
        let listed = try await GlanceProcess.run(["user", "list", "--users", file])
        #expect(listed.status == 0 && listed.standardOutput.contains("bob@example.org  a.b_c-d, e  tokens: "))
        let shares = try await GlanceProcess.run(["share", "list", "--users", file])
        #expect(
            shares.status == 0
                && shares.standardOutput.contains("\(shared.id)  photos  folder: one/a file, 100% done?.png"),
            "\(shares.standardOutput)")
        // And the server reads it all.
        let (serve, port, _) = try await ServeCommandTests.startServe([photos.path, "--users", file, "--jobs", "1"])
        defer { if serve.isRunning { kill(serve.processIdentifier, SIGKILL) } }
        #expect(port > 0)
    }
}
