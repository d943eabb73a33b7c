import Foundation
import GlanceCore

/// Where a PostgreSQL store is and which container of it to use, as a `--store` gives it:
/// `postgres://USER[:PASSWORD]@HOST[:PORT]/DATABASE?container=NAME[&sslmode=MODE][&sslrootcert=FILE][&thumbnails=DIR]`.
///
/// `thumbnails=DIR` (an absolute path, the same on every host: shared storage) keeps the
/// thumbnails' image bytes as files in that folder and only their names in the database
/// (``ThumbnailFolder``); without it they are kept in the database's rows.
///
/// `sslmode` means what it means to PostgreSQL's own clients: `disable`; `allow` and `prefer`
/// (encrypted when the server offers it); `require` (always encrypted, the certificate not
/// checked, unless `sslrootcert` names the authority to check it against); `verify-ca` (the
/// certificate signed by a trusted authority: `sslrootcert`'s, else the system's); `verify-full`
/// (that, and issued for the host the address names: the only mode that stops a machine in the
/// middle).
///
/// As with PostgreSQL's own tools, a host that is an absolute path names the folder of the
/// server's Unix-domain socket rather than a machine: `postgres://USER@/DATABASE?host=/run/postgresql`
/// (or the folder percent-encoded in the host's place). The socket is `FOLDER/.s.PGSQL.PORT`;
/// `port=` may be given as a parameter too. A socket needs no network: workers without one (in a
/// network namespace of their own, say) reach a server on the same machine through it.
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
        /// Always; the connection fails when the server cannot. The certificate is not checked
        /// (unless a root certificate is given: then as ``verifyCA``).
        case require
        /// Always, with the server's certificate signed by a trusted authority.
        case verifyCA = "verify-ca"
        /// Always, with the certificate signed by a trusted authority and issued for the host.
        case verifyFull = "verify-full"
    }

    /// The user to connect as.
    public var user: String
    /// The password, if any.
    public var password: String?
    /// The server's host name or address, or the folder of its socket (an absolute path).
    public var host: String
    /// The server's port.
    public var port: Int
    /// The database.
    public var database: String
    /// The container key, when the address names one.
    public var container: String?
    /// How the connection is encrypted.
    public var tls: TLSMode
    /// The file of the certificate authorities to check the server's certificate against
    /// (`sslrootcert`), or nil for the system's.
    public var rootCertificateFile: String?
    /// The folder of the thumbnails' image bytes (`thumbnails`), or nil to keep them in the rows.
    public var thumbnailFolder: String?

    /// The server's Unix-domain socket, when ``host`` is a folder rather than a machine.
    public var socketPath: String? {
        host.hasPrefix("/") ? "\(host)/.s.PGSQL.\(port)" : nil
    }

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
        let items = components.queryItems ?? []
        let host = try Self.host(of: components, items: items, invalid: invalid)
        let database = String(components.percentEncodedPath.drop { $0 == "/" })
        guard !database.isEmpty, !database.contains("/") else {
            throw invalid("the address names no database (…/DATABASE after the host)")
        }
        // The %-encoded forms, decoded once (URLComponents' `user` and `password` are decoded
        // already: decoding them again read a password `a%2541b` as `aAb`).
        guard let decodedUser = components.percentEncodedUser?.removingPercentEncoding else {
            throw invalid("the user name has a % that is not a %XX escape")
        }
        self.user = decodedUser
        if let encoded = components.percentEncodedPassword {
            guard let decoded = encoded.removingPercentEncoding else {
                throw invalid("the password has a % that is not a %XX escape (write % as %25)")
            }
            self.password = decoded
        } else {
            self.password = environment["PGPASSWORD"]
        }
        self.host = host.hasPrefix("[") && host.hasSuffix("]") ? String(host.dropFirst().dropLast()) : host
        var port = components.port ?? 5432
        if let portItem = items.last(where: { $0.name == "port" }) {
            guard components.port == nil else { throw invalid("both :PORT and port= are given") }
            guard let value = portItem.value.flatMap({ Int($0) }) else {
                throw invalid("port=\(portItem.value ?? "") is not a number")
            }
            port = value
        }
        self.port = port
        guard (1...65535).contains(port) else { throw invalid("port \(port) is out of range") }
        guard let decodedDatabase = database.removingPercentEncoding else {
            throw invalid("the database name has a % that is not a %XX escape")
        }
        self.database = decodedDatabase
        container = nil
        rootCertificateFile = nil
        thumbnailFolder = nil
        let loopback = ["localhost", "127.0.0.1", "::1"].contains(self.host) || self.host.hasPrefix("/")
        tls = loopback ? .disable : .prefer
        for item in items { try apply(item, invalid: invalid) }
    }

    /// The server's host: a name or address after `//`, or with `host=` the folder of its
    /// Unix-domain socket (still %-encoded when it came after `//`).
    private static func host(
        of components: URLComponents, items: [URLQueryItem], invalid: (String) -> StoreError
    ) throws(StoreError) -> String {
        if let socketFolder = items.last(where: { $0.name == "host" })?.value {
            guard socketFolder.hasPrefix("/") else {
                throw invalid("host= must be the absolute path of the server's socket folder")
            }
            guard components.host?.isEmpty ?? true else { throw invalid("both a host and host= are given") }
            return socketFolder
        }
        guard let named = components.percentEncodedHost, !named.isEmpty else {
            throw invalid("the address names no host")
        }
        return named.removingPercentEncoding ?? named
    }

    /// Takes one `?name=value` parameter of the address (`host` and `port` are read before).
    private mutating func apply(_ item: URLQueryItem, invalid: (String) -> StoreError) throws(StoreError) {
        switch item.name {
        case "host", "port":
            break
        case "container":
            guard let value = item.value, !value.isEmpty else { throw invalid("container= is empty") }
            container = value
        case "sslmode":
            guard let mode = item.value.flatMap({ $0 == "allow" ? .prefer : TLSMode(rawValue: $0) }) else {
                throw invalid(
                    "sslmode=\(item.value ?? "") is not disable, allow, prefer, require, verify-ca or verify-full")
            }
            tls = mode
            if socketPath != nil, tls != .disable {
                throw invalid("a Unix-domain socket is not encrypted; sslmode=\(item.value ?? "") cannot be met")
            }
        case "sslrootcert":
            guard let value = item.value, value.hasPrefix("/") else {
                throw invalid("sslrootcert= must be the absolute path of a file of PEM certificates")
            }
            rootCertificateFile = value
        case "thumbnails":
            guard let value = item.value, value.hasPrefix("/"), value.count > 1 else {
                throw invalid("thumbnails= must be the absolute path of the folder for the thumbnails' files")
            }
            thumbnailFolder = value.count > 1 && value.hasSuffix("/") ? String(value.dropLast()) : value
        default:
            throw invalid(
                "unknown parameter '\(item.name)' (known: container, sslmode, sslrootcert, host, port, thumbnails)")
        }
    }

    /// The address as messages show it: no password.
    public var description: String {
        if socketPath != nil {
            var text = "postgres://\(user)@/\(database)?host=\(host)&port=\(port)"
            if let container { text += "&container=\(container)" }
            if let thumbnailFolder { text += "&thumbnails=\(thumbnailFolder)" }
            return text
        }
        let shownHost = host.contains(":") ? "[\(host)]" : host
        var text = "postgres://\(user)@\(shownHost):\(port)/\(database)"
        var parameters: [String] = []
        if let container { parameters.append("container=\(container)") }
        if let thumbnailFolder { parameters.append("thumbnails=\(thumbnailFolder)") }
        if !parameters.isEmpty { text += "?" + parameters.joined(separator: "&") }
        return text
    }

    /// The server as messages name it: `HOST:PORT`, or the socket's path.
    public var serverDescription: String {
        socketPath ?? "\(host):\(port)"
    }

    /// `text` with any password between `:` and `@` replaced, for an error about an address that
    /// did not parse.
    ///
    /// A password given without %-escapes may hold `@`, `/` or `:` itself: everything up to the
    /// last `@` is hidden (more than the password, at worst; never less).
    static func redacted(_ text: String) -> String {
        guard let scheme = text.range(of: "://"),
            let firstAt = text.range(of: "@", range: scheme.upperBound..<text.endIndex),
            let colon = text.range(of: ":", range: scheme.upperBound..<firstAt.lowerBound),
            let lastAt = text.range(of: "@", options: .backwards, range: scheme.upperBound..<text.endIndex)
        else { return text }
        return String(text[..<colon.upperBound]) + "***" + String(text[lastAt.lowerBound...])
    }
}
