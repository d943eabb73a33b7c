import NIOSSL
import Synchronization

/// The server's TLS certificate and key, read from PEM files, and read again on demand (`glance
/// serve` does on SIGHUP): every handshake uses the pair read last, so a renewed certificate is
/// served without a restart and without dropping a connection. A pair that cannot be read, or
/// whose key is not the certificate's, is refused and the previous one kept.
public final class ServerCertificate: Sendable {
    /// The PEM file of the certificate chain, the server's first.
    public let certificateFile: String
    /// The PEM file of its private key.
    public let keyFile: String
    private let current: Mutex<Pair>

    /// A certificate chain and its key, read together.
    struct Pair: Sendable {
        let chain: [NIOSSLCertificate]
        let key: NIOSSLPrivateKey
    }

    /// Reads the pair, or says what is wrong with it.
    public init(certificateFile: String, keyFile: String) throws(ServerCertificateError) {
        self.certificateFile = certificateFile
        self.keyFile = keyFile
        current = Mutex(try Self.read(certificateFile: certificateFile, keyFile: keyFile))
    }

    /// Reads the files again; from now on new handshakes use what they hold. On an error the
    /// pair in use stays.
    public func reload() throws(ServerCertificateError) {
        let pair = try Self.read(certificateFile: certificateFile, keyFile: keyFile)
        current.withLock { $0 = pair }
    }

    /// The server's TLS settings: TLS 1.2 and 1.3 only, the pair in use given to each handshake.
    public var tlsConfiguration: TLSConfiguration {
        let pair = current.withLock { $0 }
        var configuration = TLSConfiguration.makeServerConfiguration(
            certificateChain: pair.chain.map { .certificate($0) }, privateKey: .privateKey(pair.key))
        configuration.minimumTLSVersion = .tlsv12
        configuration.sslContextCallback = { [self] _, promise in
            let pair = current.withLock { $0 }
            var change = NIOSSLContextConfigurationOverride()
            change.certificateChain = pair.chain.map { .certificate($0) }
            change.privateKey = .privateKey(pair.key)
            promise.succeed(change)
        }
        return configuration
    }

    private static func read(certificateFile: String, keyFile: String) throws(ServerCertificateError) -> Pair {
        let chain: [NIOSSLCertificate]
        do {
            chain = try NIOSSLCertificate.fromPEMFile(certificateFile)
        } catch {
            throw .unreadable(file: certificateFile, reason: "not a PEM certificate (\(error))")
        }
        guard !chain.isEmpty else { throw .unreadable(file: certificateFile, reason: "holds no certificate") }
        let key: NIOSSLPrivateKey
        do {
            key = try NIOSSLPrivateKey(file: keyFile, format: .pem)
        } catch {
            throw .unreadable(file: keyFile, reason: "not a PEM private key without a passphrase (\(error))")
        }
        // BoringSSL checks that the key is the certificate's when a context is made with both.
        do {
            _ = try NIOSSLContext(
                configuration: .makeServerConfiguration(
                    certificateChain: chain.map { .certificate($0) }, privateKey: .privateKey(key)))
        } catch {
            throw .mismatched(certificateFile: certificateFile, keyFile: keyFile)
        }
        return Pair(chain: chain, key: key)
    }
}

/// Why a certificate and key cannot be served.
public enum ServerCertificateError: Error, Sendable, CustomStringConvertible {
    /// A file is missing, unreadable, or not PEM of the right kind.
    case unreadable(file: String, reason: String)
    /// The key is not the certificate's.
    case mismatched(certificateFile: String, keyFile: String)

    public var description: String {
        switch self {
        case .unreadable(let file, let reason): "\(file): \(reason)"
        case .mismatched(let certificate, let key): "\(key) is not the private key of the certificate in \(certificate)"
        }
    }
}
