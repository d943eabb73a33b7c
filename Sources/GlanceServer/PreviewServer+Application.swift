import Hummingbird
import Logging
import NIOCore

extension PreviewServer {
    /// An application serving this container on `host:port` (port 0 picks a free one); `ready`
    /// is called with the address once it listens.
    public func application(
        host: String, port: Int, logger: Logger, ready: @escaping @Sendable (String) async -> Void = { _ in }
    ) -> some ApplicationProtocol {
        Application(
            router: router(),
            configuration: .init(address: .hostname(host, port: port), serverName: "glance"),
            onServerRunning: { channel in
                let bound = channel.localAddress?.port ?? port
                await ready("http://\(host.contains(":") ? "[\(host)]" : host):\(bound)/")
            },
            logger: logger)
    }
}
