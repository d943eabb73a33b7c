import NIOCore

/// What the server counts a client by, for the limits one client may reach (sign-in attempts,
/// connections, queued previews): its IPv4 address, or the first 64 bits of its IPv6 address (a
/// single host is usually given a whole /64, and could otherwise take a fresh address for each
/// attempt). A Unix socket or an unknown peer is one client, `local`.
enum ClientKey {
    /// The key of the peer at `address`.
    static func of(_ address: SocketAddress?) -> String {
        guard let address else { return "local" }
        switch address {
        case .v4:
            return address.ipAddress ?? "local"
        case .v6(let v6):
            var raw = v6.address.sin6_addr
            let bytes = withUnsafeBytes(of: &raw) { Array($0.prefix(8)) }
            // An IPv4 client on a dual-stack socket (::ffff:a.b.c.d) is its IPv4 address.
            if bytes.allSatisfy({ $0 == 0 }) || (address.ipAddress?.hasPrefix("::ffff:") ?? false) {
                return address.ipAddress ?? "local"
            }
            return stride(from: 0, to: 8, by: 2).map {
                String(UInt16(bytes[$0]) << 8 | UInt16(bytes[$0 + 1]), radix: 16)
            }
            .joined(separator: ":") + "::/64"
        case .unixDomainSocket:
            return "local"
        }
    }
}
