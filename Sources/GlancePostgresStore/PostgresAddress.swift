import Foundation
import GlanceCore

/// Where a PostgreSQL store is and which container of it to use, as a `--store` gives it:
/// `postgres://USER[:PASSWORD]@HOST[:PORT]/DATABASE?container=NAME[&sslmode=MODE]`.
///
/// One database holds many containers; `container` names the one a command works on (without
/// it, the caller picks a key, the container folder's absolute path). The password may come from
/// the address or from `PGPASSWORD`, as with PostgreSQL's own tools.
public struct PostgresAddress: Sendable, Equatable {
    /// How the connection is encrypted.
    public enum TLSMode: String, Sendable, Equatable {
        /// Never: the default on loopback, where there is nothing to protect against.
        case disable
        /// When the server offers it: the default elsewhere.
        case prefer
        /// Always; the connection fails when the server cannot.
        case require
    }

    /// The user to connect as.
    public var user: String
    /// The password, if any.
    public var password: String?
    /// The server's host name or address.
    public var host: String
    /// The server's port.
    public var port: Int
    /// The database.
    public var database: String
    /// The container key, when the address names one.
    public var container: String?
    /// How the connection is encrypted.
    public var tls: TLSMode

    /// Whether `text` is meant as a PostgreSQL address rather than a folder.
    public static func isAddress(_ text: String) -> Bool {
        text.hasPrefix("postgres://") || text.hasPrefix("postgresql://")
    }

    /// Parses an address, taking the password from `environment["PGPASSWORD"]` when the address
    /// has none.
    ///
    /// - Throws: ``StoreError`` (`invalid`) saying what is wrong with the address.
    public init(parsing text: String, environment: [String: String] = ProcessInfo.processInfo.environment)
        throws(StoreError)
    {
        func invalid(_ why: String) -> StoreError {
            StoreError(
                .invalid,
                message: "\(why); expected postgres://USER@HOST:PORT/DATABASE?container=NAME",
                location: Self.redacted(text))
        }
        guard Self.isAddress(text), let components = URLComponents(string: text) else {
            throw invalid("not a PostgreSQL address")
        }
        guard let user = components.user, !user.isEmpty else { throw invalid("the address names no user") }
        guard let host = components.host, !host.isEmpty else { throw invalid("the address names no host") }
        let database = String(components.path.drop { $0 == "/" })
        guard !database.isEmpty, !database.contains("/") else {
            throw invalid("the address names no database (…/DATABASE after the host)")
        }
        self.user = components.user.flatMap { $0.removingPercentEncoding } ?? user
        self.password = components.password?.removingPercentEncoding ?? environment["PGPASSWORD"]
        self.host = host.hasPrefix("[") && host.hasSuffix("]") ? String(host.dropFirst().dropLast()) : host
        self.port = components.port ?? 5432
        guard (1...65535).contains(port) else { throw invalid("port \(port) is out of range") }
        self.database = database.removingPercentEncoding ?? database
        container = nil
        let loopback = ["localhost", "127.0.0.1", "::1"].contains(self.host)
        tls = loopback ? .disable : .prefer
        for item in components.queryItems ?? [] {
            switch item.name {
            case "container":
                guard let value = item.value, !value.isEmpty else { throw invalid("container= is empty") }
                container = value
            case "sslmode":
                switch item.value {
                case "disable": tls = .disable
                case "prefer", "allow": tls = .prefer
                case "require", "verify-ca", "verify-full": tls = .require
                default: throw invalid("sslmode=\(item.value ?? "") is not disable, prefer or require")
                }
            default:
                throw invalid("unknown parameter '\(item.name)' (known: container, sslmode)")
            }
        }
    }

    /// The address as messages show it: no password.
    public var description: String {
        let shownHost = host.contains(":") ? "[\(host)]" : host
        var text = "postgres://\(user)@\(shownHost):\(port)/\(database)"
        if let container { text += "?container=\(container)" }
        return text
    }

    /// `text` with any password between `:` and `@` replaced, for an error about an address that
    /// did not parse.
    static func redacted(_ text: String) -> String {
        guard let scheme = text.range(of: "://"),
            let at = text.range(of: "@", range: scheme.upperBound..<text.endIndex),
            let colon = text.range(of: ":", range: scheme.upperBound..<at.lowerBound)
        else { return text }
        return String(text[..<colon.upperBound]) + "***" + String(text[at.lowerBound...])
    }
}
