import Foundation
import GlanceCore
import Hummingbird

#if canImport(Glibc)
    import Glibc
#endif

/// Which `Host` values a server answers: the address it is bound to, `localhost`, and the names
/// it was given (`--server-name`); bound to every address (`0.0.0.0`, `::`), any IP address
/// literal too. Anything else is a `421`.
///
/// A loopback server is private only as long as no page the user opens can read it. A page on
/// a DNS-rebinding domain (`attacker.example`, made to resolve to 127.0.0.1) reaches the port
/// through the user's browser, but its requests carry its own name as `Host`: refusing names
/// the server was not given closes that road. An address literal cannot be rebound, so taking
/// it costs nothing. The port is not compared: a reverse proxy may forward another one.
public struct HostCheck: Sendable {
    /// The names and addresses accepted, lowercased, IPv6 ones without brackets.
    let names: Set<String>
    /// Whether any IP address literal is accepted (a server bound to every address).
    let anyAddress: Bool

    /// The check for a server bound to `boundHost` that also answers for `serverNames`.
    public init(boundHost: String, serverNames: [String] = []) {
        let bound = Self.normalised(boundHost)
        anyAddress = bound == "0.0.0.0" || bound == "::" || bound.isEmpty
        names = Set([bound, "localhost"] + serverNames.map(Self.normalised))
    }

    /// Whether a request whose `Host` (or HTTP/2 `:authority`) is `authority` is answered.
    public func accepts(authority: String) -> Bool {
        let host = Self.normalised(Self.hostPart(of: authority))
        if names.contains(host) { return true }
        return anyAddress && Self.isAddressLiteral(host)
    }

    /// The names accepted, for the refusal's message.
    public var acceptedText: String {
        names.sorted().joined(separator: ", ") + (anyAddress ? " and any IP address" : "")
    }

    /// `authority` without its port: `[::1]:8080` → `::1`, `example.org:80` → `example.org`.
    /// On the bytes (every request's `Host` comes here): Character by Character, with `lowercased`,
    /// the check was 0.6% of the server's CPU serving thumbnails under wrk (perf).
    static func hostPart(of authority: String) -> String {
        let bytes = authority.utf8
        if bytes.first == UInt8(ascii: "[") {
            guard let close = bytes.firstIndex(of: UInt8(ascii: "]")) else { return authority }
            return String(authority[bytes.index(after: bytes.startIndex)..<close])
        }
        if let colon = bytes.firstIndex(of: UInt8(ascii: ":")), colon == bytes.lastIndex(of: UInt8(ascii: ":")),
            bytes[bytes.index(after: colon)...].allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") })
        {
            return String(authority[..<colon])
        }
        return authority
    }

    /// Lowercased, brackets and a final dot (`localhost.`) removed, an IPv6 address in its one
    /// written form (`0:0:0:0:0:0:0:1` is `::1`, as a browser writes it).
    static func normalised(_ name: String) -> String {
        // Most names come in their one form already: lowercase letters, digits, dots and hyphens,
        // not ending with a dot.
        if name.utf8.last != UInt8(ascii: "."),
            name.utf8.allSatisfy({ byte in
                (byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "z"))
                    || (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9"))
                    || byte == UInt8(ascii: ".") || byte == UInt8(ascii: "-")
            })
        {
            return name
        }
        var name = name.lowercased()
        if name.hasPrefix("["), name.hasSuffix("]") { name = String(name.dropFirst().dropLast()) }
        if name.count > 1, name.hasSuffix(".") { name.removeLast() }
        var address = in6_addr()
        // On the bytes: Foundation's `contains` of a string goes through Core Foundation.
        guard name.utf8.contains(UInt8(ascii: ":")), inet_pton(AF_INET6, name, &address) == 1 else { return name }
        var text = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
        guard inet_ntop(AF_INET6, &address, &text, socklen_t(text.count)) != nil else { return name }
        return String(nulTerminated: text)
    }

    /// Whether a server listening on `host` can be reached from this machine only: `localhost`, an
    /// address of 127.0.0.0/8, or `::1`. Any other address (`0.0.0.0`, a network interface's, a
    /// host name that may resolve elsewhere) exposes what it serves to the network.
    public static func isLoopback(_ host: String) -> Bool {
        let name = normalised(host)
        if name == "localhost" { return true }
        var address = in_addr()
        if inet_pton(AF_INET, name, &address) == 1 { return UInt32(bigEndian: address.s_addr) >> 24 == 127 }
        var address6 = in6_addr()
        guard inet_pton(AF_INET6, name, &address6) == 1 else { return false }
        return withUnsafeBytes(of: &address6) { bytes in bytes.dropLast().allSatisfy { $0 == 0 } && bytes.last == 1 }
    }

    /// Whether `host` is an IPv4 or IPv6 address literal (what `inet_pton` takes).
    static func isAddressLiteral(_ host: String) -> Bool {
        var buffer = [UInt8](repeating: 0, count: 16)
        return inet_pton(AF_INET, host, &buffer) == 1 || inet_pton(AF_INET6, host, &buffer) == 1
    }
}

/// Refuses, before any route runs, a request whose `Host` the ``HostCheck`` does not accept: on
/// a site's listener and on an operator's alike.
public struct HostFilter<Context: RequestContext>: RouterMiddleware {
    let check: HostCheck

    public init(check: HostCheck) {
        self.check = check
    }

    public func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response)
        async throws -> Response
    {
        guard let authority = request.head.authority else { throw HostRefusal.missing }
        guard check.accepts(authority: authority) else { throw HostRefusal.foreign(accepted: check.acceptedText) }
        return try await next(request, context)
    }
}

/// Why ``HostFilter`` refused a request: no `Host` at all (`400`), or one this server does not
/// answer for (`421 Misdirected Request`).
public enum HostRefusal: Error, HTTPResponseError, CustomStringConvertible {
    case missing
    case foreign(accepted: String)

    public var status: HTTPResponse.Status {
        switch self {
        case .missing: .badRequest
        case .foreign: .misdirectedRequest
        }
    }

    public var description: String {
        switch self {
        case .missing: "a Host header is required"
        case .foreign(let accepted): "this server answers only for \(accepted) (glance serve --server-name adds a name)"
        }
    }

    public func response(from request: Request, context: some RequestContext) throws -> Response {
        Response(
            status: status, headers: [.contentType: "text/plain; charset=utf-8"],
            body: ResponseBody(byteBuffer: ByteBuffer(string: description + "\n")))
    }
}
