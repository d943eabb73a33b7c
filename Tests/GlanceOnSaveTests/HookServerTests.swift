import Foundation
import GlanceOnSave
import Logging
import Testing

#if canImport(Glibc)
    import Glibc
#endif

@Suite("The hook socket")
struct HookServerTests {
    /// A hook server on a socket in a fresh scratch folder, over a watched container's indexer.
    static func server(in container: WatchedContainer) throws -> (HookServer, String) {
        let path = container.root + "/.thumbnails/" + HookSocket.fileName
        var logger = Logger(label: "test.hook")
        logger.logLevel = .critical
        return (try HookServer(path: path, indexer: container.indexer, logger: logger), path)
    }

    @Test("the socket file is gone once the server stops, while the server object still exists")
    func removedOnStop() async throws {
        let container = try await WatchedContainer(watching: false)
        let (server, path) = try Self.server(in: container)
        #expect(FileManager.default.fileExists(atPath: path))
        let serving = Task { await server.run() }
        try await Task.sleep(for: .milliseconds(50))
        serving.cancel()
        await serving.value
        // A process can end before its objects are released: the file must not wait for that.
        #expect(!FileManager.default.fileExists(atPath: path))
        withExtendedLifetime(server) {}
    }

    @Test("a file put at the socket's path by someone else is left alone when the server stops")
    func othersFileKept() async throws {
        let container = try await WatchedContainer(watching: false)
        let (server, path) = try Self.server(in: container)
        let serving = Task { await server.run() }
        try FileManager.default.removeItem(atPath: path)
        try Data("not ours\n".utf8).write(to: URL(fileURLWithPath: path))
        serving.cancel()
        await serving.value
        #expect(try String(contentsOfFile: path, encoding: .utf8) == "not ours\n")
        withExtendedLifetime(server) {}
    }
}
