import Foundation
import GlanceCore
import GlancePostgresStore
import GlanceTestSupport
import Testing

/// `sslmode` against a real PostgreSQL that speaks TLS with a certificate for `localhost` from an
/// authority of its own, and refuses every unencrypted connection.
@Suite("PostgreSQL store: sslmode", .timeLimit(.minutes(10)))
struct PostgresTLSTests {
    /// Opens a store at `address` and closes it; the error's words when it cannot.
    static func opens(_ address: String) async -> String? {
        do {
            let store = try await PostgresStore.open(try PostgresAddress(parsing: address), container: "tls")
            await store.close()
            return nil
        } catch {
            return error.description
        }
    }

    @Test("require encrypts without checking; verify-ca checks the authority; verify-full the host too")
    func modes() async throws {
        let server = try await PostgresServer.startPrivate(tls: true)
        let root = "sslrootcert=\(server.certificateAuthority)"
        func address(_ host: String, _ parameters: String) -> String {
            "postgres://\(server.user)@\(host):\(server.port)/postgres?\(parameters)"
        }
        // Encrypted, certificate not checked (as PostgreSQL's own clients do).
        #expect(await Self.opens(address("127.0.0.1", "sslmode=require")) == nil)
        #expect(await Self.opens(address("127.0.0.1", "sslmode=prefer")) == nil)
        // The server refuses the unencrypted connection: the modes above did encrypt.
        #expect(await Self.opens(address("127.0.0.1", "sslmode=disable")) != nil)
        // The authority checked: ours passes, the system's do not know it.
        #expect(await Self.opens(address("127.0.0.1", "sslmode=verify-ca&\(root)")) == nil)
        let unknownAuthority = await Self.opens(address("127.0.0.1", "sslmode=verify-ca"))
        #expect(
            unknownAuthority?.contains("failed the certificate check of sslmode=verify-ca: it is not signed") == true,
            "\(unknownAuthority ?? "opened")")
        // The host checked too: the certificate is for localhost, not for 127.0.0.1.
        #expect(await Self.opens(address("localhost", "sslmode=verify-full&\(root)")) == nil)
        let wrongHost = await Self.opens(address("127.0.0.1", "sslmode=verify-full&\(root)"))
        #expect(wrongHost?.contains("it was not issued for 127.0.0.1") == true, "\(wrongHost ?? "opened")")
        // require with an authority named checks it, as libpq does.
        let otherAuthority = try await PostgresServer.startPrivate(tls: true).certificateAuthority
        let checkedRequire = await Self.opens(address("127.0.0.1", "sslmode=require&sslrootcert=\(otherAuthority)"))
        #expect(
            checkedRequire?.contains("not signed by an authority in \(otherAuthority)") == true,
            "\(checkedRequire ?? "opened")")
    }

    @Test("sslmode and sslrootcert are read as PostgreSQL's clients read them; anything else is refused")
    func parsing() throws {
        let base = "postgres://me@db.example/photos?sslmode="
        #expect(try PostgresAddress(parsing: base + "verify-ca").tls == .verifyCA)
        #expect(try PostgresAddress(parsing: base + "verify-full").tls == .verifyFull)
        #expect(try PostgresAddress(parsing: base + "require").tls == .require)
        #expect(try PostgresAddress(parsing: base + "allow").tls == .prefer)
        #expect(
            try PostgresAddress(parsing: base + "require&sslrootcert=/etc/ca.pem").rootCertificateFile == "/etc/ca.pem")
        #expect(throws: StoreError.self) { try PostgresAddress(parsing: base + "require&sslrootcert=ca.pem") }
        #expect(throws: StoreError.self) { try PostgresAddress(parsing: base + "verify-everything") }
    }
}
