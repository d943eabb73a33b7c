import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// `glance user` and `glance serve --users`: every route behind an account, over real sockets.
@Suite("glance serve --users")
struct SignInTests {
    static let alicePassword = "correct horse battery staple"
    static let bobPassword = "Tr0ub4dor&3"

    /// `user add NAME` with `password` on standard input and `extra` options.
    static func addUser(_ name: String, _ password: String, file: String, _ extra: [String] = []) throws -> (
        Int32, String
    ) {
        try ServeTLSTests.run(
            GlanceProcess.executable, ["user", "add", name, "--users", file] + extra, input: password + "\n")
    }

    /// The headers of a request by `name` with `password`.
    static func credentials(_ name: String, _ password: String) -> String {
        "Host: 127.0.0.1\r\nAuthorization: Basic \(Data("\(name):\(password)".utf8).base64EncodedString())\r\n"
    }

    @Test("glance user writes an owner-only file of hashes; list and remove; a bad name or no password is refused")
    func users() throws {
        let folder = try SampleContainer([:])
        let file = folder.output("users")
        #expect(try Self.addUser("alice", Self.alicePassword, file: file, ["--container", "photos"]).0 == 0)
        #expect(try Self.addUser("bob", Self.bobPassword, file: file).0 == 0)
        #expect(LiveExposureTests.mode(file) == 0o600)
        let text = try String(contentsOfFile: file, encoding: .utf8)
        #expect(
            text.contains("alice:$y$") && text.hasSuffix("bob:" + (text.components(separatedBy: "bob:").last ?? "")))
        #expect(!text.contains(Self.alicePassword))
        let listed = try GlanceProcess.run(["user", "list", "--users", file])
        #expect(listed.standardOutput == "alice  photos\nbob  all containers\n")
        #expect(try GlanceProcess.run(["user", "remove", "bob", "--users", file]).status == 0)
        #expect(try GlanceProcess.run(["user", "list", "--users", file]).standardOutput == "alice  photos\n")
        let missing = try GlanceProcess.run(["user", "remove", "bob", "--users", file])
        #expect(missing.status == 2 && missing.standardError.contains("bob: no such account"))
        let (badName, badNameOutput) = try Self.addUser("no spaces", "x", file: file)
        #expect(badName == 2 && badNameOutput.contains("an account name is 1 to 64"))
        let (noPassword, noPasswordOutput) = try Self.addUser("carol", "", file: file)
        #expect(noPassword == 2 && noPasswordOutput.contains("no password on standard input"))
    }

    @Test(
        "every route needs an account; an account limited to one container gets 404 for another's; failures slow down")
    func serveWithAccounts() throws {
        let photos = try SampleContainer(["a.png": "png/rgb8.png"])
        let scans = try SampleContainer(["b.txt": "text/latin-utf8.txt"])
        let file = photos.output("users")
        let (photosName, scansName) = (
            (photos.path as NSString).lastPathComponent, (scans.path as NSString).lastPathComponent
        )
        #expect(try Self.addUser("alice", Self.alicePassword, file: file, ["--container", photosName]).0 == 0)
        #expect(try Self.addUser("bob", Self.bobPassword, file: file).0 == 0)
        // Accounts make an address other than loopback possible without --allow-anonymous.
        let (serve, port, log) = try ServeCommandTests.startServe([
            photos.path, scans.path, "--users", file, "--host", "0.0.0.0", "--jobs", "1", "--log-level", "debug",
        ])
        defer { if serve.isRunning { kill(serve.processIdentifier, SIGKILL) } }
        try #require(port > 0)
        let routes = [
            "/", "/c/\(photosName)/", "/c/\(photosName)/api/items", "/c/\(photosName)/api/items/a.png",
            "/c/\(photosName)/thumbnails/a.png", "/c/\(photosName)/documents/a.png", "/c/\(photosName)/preview/a.png",
        ]
        for route in routes {
            let anonymous = try LiveExposureTests.get(route, port: port)
            #expect(LiveExposureTests.status(anonymous) == 401, "\(route)")
            #expect(anonymous.contains("WWW-Authenticate: Basic realm=\"Glance\""), "\(route)")
            #expect(!anonymous.contains("PNG"), "\(route)")
            let right = try LiveExposureTests.get(
                route, port: port, headers: Self.credentials("alice", Self.alicePassword))
            #expect(LiveExposureTests.status(right) == 200, "\(route)")
        }
        // The pages' assets hold nothing of a container.
        let assets = try LiveExposureTests.get("/", port: port, headers: Self.credentials("bob", Self.bobPassword))
        let stylesheet = assets.components(separatedBy: "href=\"/assets/").dropFirst().first?.split(separator: "\"")
            .first
        #expect(LiveExposureTests.status(try LiveExposureTests.get("/assets/\(stylesheet ?? "")", port: port)) == 200)
        // Alice sees her container only: the other is not there for her (404, not 403).
        let site = try LiveExposureTests.get("/", port: port, headers: Self.credentials("alice", Self.alicePassword))
        #expect(site.contains("/c/\(photosName)/") && !site.contains("/c/\(scansName)/"))
        for route in ["/c/\(scansName)/", "/c/\(scansName)/documents/b.txt", "/c/\(scansName)/api/items"] {
            let hidden = try LiveExposureTests.get(
                route, port: port, headers: Self.credentials("alice", Self.alicePassword))
            #expect(LiveExposureTests.status(hidden) == 404, "\(route)")
            let shown = try LiveExposureTests.get(route, port: port, headers: Self.credentials("bob", Self.bobPassword))
            #expect(LiveExposureTests.status(shown) == 200, "\(route)")
        }
        // Wrong passwords, an unknown name: 401; after a failure, the next attempt waits.
        for (name, password) in [("alice", Self.bobPassword), ("mallory", Self.alicePassword)] {
            let wrong = try LiveExposureTests.get("/", port: port, headers: Self.credentials(name, password))
            #expect(LiveExposureTests.status(wrong) == 401, "\(name)")
        }
        // A name that is the client's own address is just another wrong name.
        let addressAsName = try LiveExposureTests.get("/", port: port, headers: Self.credentials("127.0.0.1", "x"))
        #expect(LiveExposureTests.status(addressAsName) == 401)
        let start = ContinuousClock.now
        let slowed = try LiveExposureTests.get("/", port: port, headers: Self.credentials("alice", "guess"))
        #expect(LiveExposureTests.status(slowed) == 401)
        #expect(ContinuousClock.now - start >= .milliseconds(250))
        kill(serve.processIdentifier, SIGTERM)
        serve.waitUntilExit()
        let text = String(decoding: log.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        #expect(text.contains(" 401 "), "\(text)")
        for secret in [Self.alicePassword, Self.bobPassword, "guess"] { #expect(!text.contains(secret)) }
        // A users file others may write, or another user's, is refused: its writer could add an account.
        chmod(file, 0o622)
        let writable = try GlanceProcess.run(["serve", photos.path, "--users", file, "--port", "0"])
        #expect(
            writable.status == 2 && writable.standardError.contains("others may write it"), "\(writable.standardError)")
        chmod(file, 0o600)
        if geteuid() == 0 {
            chown(file, 65534, 65534)
            let foreign = try GlanceProcess.run(["serve", photos.path, "--users", file, "--port", "0"])
            #expect(foreign.status == 2 && foreign.standardError.contains("belongs to another user"))
            chown(file, 0, 0)
        }
        // A file without accounts is refused.
        let empty = photos.output("empty-users")
        try Data("# nobody\n".utf8).write(to: URL(fileURLWithPath: empty))
        let refused = try GlanceProcess.run(["serve", photos.path, "--users", empty, "--port", "0"])
        #expect(refused.status == 2 && refused.standardError.contains("no accounts; add one with 'glance user add"))
    }
}
