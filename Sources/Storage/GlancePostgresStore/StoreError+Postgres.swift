import GlanceCore
import NIOCore
import NIOPosix
import NIOSSL
import PostgresNIO

#if canImport(Glibc)
    import Glibc
#endif

extension StoreError {
    /// A ``StoreError`` for any error met while using the PostgreSQL store at `location`, in words
    /// a user can act on. A ``StoreError`` thrown from inside a transaction passes through.
    init(postgres error: any Error, location: String, address: PostgresAddress) {
        if let storeError = error as? StoreError {
            self = storeError
            return
        }
        // A transaction's failure: what went wrong first (beginning, the work, or committing).
        if let transaction = error as? PostgresTransactionError,
            let cause = transaction.beginError ?? transaction.closureError ?? transaction.commitError
        {
            self.init(postgres: cause, location: location, address: address)
            return
        }
        if let decoding = error as? PostgresDecodingError {
            self.init(
                .invalid, message: "unreadable record: column \(decoding.columnName) is not what this Glance expects",
                location: location)
            return
        }
        // The pool's own errors are not public API; known by name. After 15 s without a single
        // connection the pool "trips" and fails requests at once while it goes on trying to
        // connect: the server is unreachable, not the request wrong, so it is `unavailable`
        // (waited out by the patient callers: it stopped every worker for good).
        if String(reflecting: error).contains("connectionCreationCircuitBreakerTripped") {
            self.init(
                .unavailable,
                message:
                    "cannot reach the PostgreSQL server at \(address.serverDescription) (no connection for 15 s or more)",
                location: location)
            return
        }
        guard let error = error as? PSQLError else {
            self.init(.invalid, message: "unexpected error: \(error)", location: location)
            return
        }
        let server = address.serverDescription
        switch error.code {
        case .server:
            let state = error.serverInfo?[.sqlState] ?? ""
            let text = error.serverInfo?[.message] ?? "no message"
            let (kind, message) = Self.meaning(ofSQLState: state, message: text, address: address)
            self.init(kind, message: message, location: location)
        case .connectionError where error.underlying.map(Self.isCertificateFailure) == true:
            let detail = error.underlying.map { String(describing: $0) } ?? ""
            let why =
                detail.contains("ailedToValidateHostname")
                ? "it was not issued for \(address.host)"
                : "it is not signed by an authority "
                    + (address.rootCertificateFile.map { "in \($0)" }
                        ?? "the system trusts (name one with sslrootcert=)")
            self.init(
                .unavailable,
                message: "the PostgreSQL server at \(server) failed the certificate check of "
                    + "sslmode=\(address.tls.rawValue): \(why)",
                location: location)
        case .connectionError, .serverClosedConnection, .uncleanShutdown, .poolClosed, .clientClosedConnection:
            let cause = error.underlying.map(Self.cause(of:)) ?? "\(error.code)"
            self.init(
                .unavailable,
                message: "cannot reach the PostgreSQL server at \(server) (\(cause)); is it running, "
                    + "and does it accept connections there?", location: location)
        case .sslUnsupported:
            self.init(
                .unavailable, message: "the server at \(server) does not offer TLS, which sslmode=require asks for",
                location: location)
        case .authMechanismRequiresPassword:
            self.init(
                .unavailable,
                message: "the server asks user \(address.user) for a password; give it in the address or PGPASSWORD",
                location: location)
        case .unsupportedAuthMechanism, .saslError:
            self.init(
                .unavailable, message: "cannot log in as \(address.user): \(error.code)", location: location)
        default:
            self.init(.invalid, message: "PostgreSQL error: \(error.code)", location: location)
        }
    }

    /// Whether a connection failed because the server's certificate did not pass the check the
    /// address asks for (an unknown authority, another host's certificate).
    private static func isCertificateFailure(_ error: any Error) -> Bool {
        if let extra = error as? NIOSSLExtraError { return extra == .failedToValidateHostname }
        guard let ssl = error as? NIOSSLError, case .handshakeFailed(let reason) = ssl else { return false }
        return String(describing: reason).contains("CERTIFICATE_VERIFY_FAILED")
    }

    /// A connection failure in a few words: the system's reason ("Connection refused"), or the
    /// name lookup's.
    private static func cause(of error: any Error) -> String {
        if let connection = error as? NIOConnectionError {
            if let lookup = connection.dnsAError ?? connection.dnsAAAAError {
                return "cannot resolve the host name: \(cause(of: lookup))"
            }
            if let first = connection.connectionErrors.first { return cause(of: first.error) }
        }
        if let system = error as? IOError { return String(cString: strerror(system.errnoCode)) }
        if error is ChannelError { return "\(error)" }
        return String(describing: error)
    }

    /// The kind and words for a server error, by its SQLSTATE.
    private static func meaning(ofSQLState state: String, message: String, address: PostgresAddress) -> (Kind, String) {
        switch state {
        case "28P01", "28000":
            return (.unavailable, "the server refused user \(address.user): \(message)")
        case "3D000":
            return (
                .unavailable,
                "database \(address.database) does not exist; create it (createdb \(address.database)) or name another"
            )
        case "57P01", "57P02", "57P03", "08000", "08003", "08006":
            return (.unavailable, "the server is shutting down or restarting: \(message); run again when it is back")
        case "42501":
            return (.io, "permission denied: \(message); grant user \(address.user) the rights on schema glance")
        case "53100":
            return (.io, "the server's disk is full: \(message); what was saved before is kept")
        case "53200", "53300":
            return (.busy, "the server is out of memory or connections: \(message)")
        case "40001", "40P01", "55P03":
            return (.busy, "a concurrent transaction got in the way: \(message); run again")
        default:
            return (.invalid, "PostgreSQL error \(state): \(message)")
        }
    }
}
