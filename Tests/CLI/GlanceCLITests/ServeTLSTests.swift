import Foundation
import GlanceTestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// `glance serve --tls-cert --tls-key`: real TLS with certificates made by `openssl req`, spoken to
/// by curl and `openssl s_client`.
@Suite("glance serve over TLS", .timeLimit(.minutes(10)))
struct ServeTLSTests {
    /// Runs `program` with `arguments`; its exit status and its output and errors together.
    static func run(_ program: String, _ arguments: [String], input: String = "") async throws -> (Int32, String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: program)
        process.arguments = arguments
        let output = Pipe()
        let standardInput = Pipe()
        process.standardOutput = output
        process.standardError = output
        process.standardInput = standardInput
        try process.run()
        standardInput.fileHandleForWriting.write(Data(input.utf8))
        try standardInput.fileHandleForWriting.close()
        let bytes = await readToEnd(output.fileHandleForReading)
        #expect(await exited(process, within: .seconds(60)), "process ended")
        return (process.terminationStatus, String(decoding: bytes, as: UTF8.self))
    }

    /// A self-signed certificate for localhost and 127.0.0.1 with common name `name`.
    static func makeCertificate(_ name: String, certificate: String, key: String) async throws {
        let (status, output) = try await run(
            "/usr/bin/openssl",
            [
                "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", key, "-out", certificate, "-days", "2",
                "-subj", "/CN=\(name)", "-addext", "subjectAltName=DNS:localhost,IP:127.0.0.1",
            ])
        try #require(status == 0, "\(output)")
    }

    /// The common name of the certificate the server at `port` presents, and the protocol agreed.
    static func handshake(port: Int, extra: [String] = []) async throws -> String {
        try await run("/usr/bin/openssl", ["s_client", "-connect", "127.0.0.1:\(port)"] + extra).1
    }

    @Test("HTTP/2 over TLS 1.2+, TLS 1.1 refused, a renewed certificate served after SIGHUP without a restart")
    func tls() async throws {
        let container = try SampleContainer(["a.png": "png/rgb8.png"])
        let (certificate, key) = (container.output("cert.pem"), container.output("key.pem"))
        try await Self.makeCertificate("first", certificate: certificate, key: key)
        let (serve, port, log) = try await ServeCommandTests.startServe([
            container.path, "--tls-cert", certificate, "--tls-key", key, "--jobs", "1",
        ])
        defer { if serve.isRunning { kill(serve.processIdentifier, SIGKILL) } }
        let logged = CollectedOutput(log.fileHandleForReading)
        try #require(port > 0)
        let url = "https://127.0.0.1:\(port)/"
        for (flag, version) in [("--http2", "2"), ("--http1.1", "1.1")] {
            let (status, output) = try await Self.run(
                "/usr/bin/curl",
                ["-sS", "--cacert", certificate, flag, "-o", "/dev/null", "-w", "%{http_code} %{http_version}", url])
            #expect(status == 0 && output == "200 \(version)", "\(flag): \(output)")
        }
        let (thumbnail, thumbnailOutput) = try await Self.run(
            "/usr/bin/curl",
            [
                "-sS", "--cacert", certificate, "--http2", "-o", "/dev/null", "-w", "%{http_code}",
                url + "thumbnails/a.png",
            ])
        #expect(thumbnail == 0 && thumbnailOutput == "200")
        // TLS 1.1 is refused by the server (the client is allowed it at security level 0).
        let old = try await Self.handshake(port: port, extra: ["-tls1_1", "-cipher", "DEFAULT:@SECLEVEL=0"])
        #expect(old.contains("alert protocol version"), "\(old)")
        #expect(try await Self.handshake(port: port, extra: ["-tls1_2"]).contains("subject=CN = first"))

        // Renewed: the files replaced, SIGHUP, and the next handshake gets the new certificate.
        try await Self.makeCertificate("renewed", certificate: certificate, key: key)
        kill(serve.processIdentifier, SIGHUP)
        try await eventually("the renewed certificate served", pollEvery: .milliseconds(100)) {
            try await Self.handshake(port: port).contains("subject=CN = renewed")
        }
        // A broken file is not taken: the pair in use stays.
        try Data("not a certificate\n".utf8).write(to: URL(fileURLWithPath: certificate))
        kill(serve.processIdentifier, SIGHUP)
        try await eventually("the broken certificate refused") {
            logged.text.contains("error kept the TLS certificate in use") || !serve.isRunning
        }
        #expect(serve.isRunning)
        #expect(try await Self.handshake(port: port).contains("subject=CN = renewed"))
        kill(serve.processIdentifier, SIGTERM)
        #expect(await exited(serve, within: .seconds(60)), "serve ended")
        #expect(serve.terminationStatus == 0)
        let text = await logged.all()
        #expect(text.contains("notice reloaded the TLS certificate"), "\(text)")
        #expect(text.contains("error kept the TLS certificate in use"), "\(text)")
    }

    @Test("a key that is not the certificate's, a missing file, or one of the two options alone: exit 2, said")
    func refusals() async throws {
        let container = try SampleContainer(["a.png": "png/rgb8.png"])
        let (first, firstKey) = (container.output("a.pem"), container.output("a.key"))
        let (second, secondKey) = (container.output("b.pem"), container.output("b.key"))
        try await Self.makeCertificate("a", certificate: first, key: firstKey)
        try await Self.makeCertificate("b", certificate: second, key: secondKey)
        let mismatched = try await GlanceProcess.run([
            "serve", container.path, "--tls-cert", first, "--tls-key", secondKey,
        ])
        #expect(mismatched.status == 2)
        #expect(
            mismatched.standardError.contains("is not the private key of the certificate in"),
            "\(mismatched.standardError)")
        let missing = try await GlanceProcess.run([
            "serve", container.path, "--tls-cert", first + ".gone", "--tls-key", firstKey,
        ])
        #expect(missing.status == 2)
        #expect(missing.standardError.contains("a.pem.gone: not a PEM certificate"), "\(missing.standardError)")
        let alone = try await GlanceProcess.run(["serve", container.path, "--tls-cert", first])
        #expect(alone.status == 2)
        #expect(alone.standardError.contains("--tls-cert and --tls-key go together"))
    }

    @Test("over TLS the session cookie is Secure, and a browser signed in on the page reads over HTTP/2")
    func secureSession() async throws {
        let container = try SampleContainer(["a.png": "png/rgb8.png"])
        let (certificate, key) = (container.output("cert.pem"), container.output("key.pem"))
        try await Self.makeCertificate("localhost", certificate: certificate, key: key)
        let users = container.output("users")
        #expect(try await SignInTests.addUser("alice", SignInTests.alicePassword, file: users).0 == 0)
        let (serve, port, _) = try await ServeCommandTests.startServe([
            container.path, "--tls-cert", certificate, "--tls-key", key, "--users", users, "--jobs", "1",
        ])
        defer { if serve.isRunning { kill(serve.processIdentifier, SIGKILL) } }
        try #require(port > 0)
        let url = "https://127.0.0.1:\(port)"
        let jar = container.output("cookies")
        let (signIn, headers) = try await Self.run(
            "/usr/bin/curl",
            [
                "-sS", "--cacert", certificate, "--http2", "-D", "-", "-o", "/dev/null", "-c", jar,
                "--data-urlencode", "name=alice", "--data-urlencode", "password=\(SignInTests.alicePassword)",
                url + "/sign-in",
            ])
        #expect(signIn == 0 && headers.hasPrefix("HTTP/2 303"), "\(headers)")
        let cookie = headers.components(separatedBy: "\r\n").first { $0.lowercased().hasPrefix("set-cookie:") } ?? ""
        #expect(cookie.contains("; Secure") && cookie.contains("HttpOnly") && cookie.contains("SameSite=Strict"))
        let (read, output) = try await Self.run(
            "/usr/bin/curl",
            [
                "-sS", "--cacert", certificate, "--http2", "-b", jar, "-o", "/dev/null", "-w",
                "%{http_code} %{http_version}", url + "/thumbnails/a.png",
            ])
        #expect(read == 0 && output == "200 2", "\(output)")
        kill(serve.processIdentifier, SIGTERM)
        #expect(await exited(serve, within: .seconds(60)), "serve ended")
    }
}
