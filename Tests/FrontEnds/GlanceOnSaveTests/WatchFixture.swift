import Foundation
import GlanceContainer
import GlanceCore
import GlanceOnSave
import GlancePipeline
import GlanceStore
import GlanceTestSupport
import Logging
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// A container in a scratch folder with a real watcher (real inotify, real worker processes, a
/// real SQLite sidecar) running on it for the length of a test.
final class WatchedContainer: Sendable {
    let root: String
    let store: SidecarStore
    let pool: RendererPool
    let indexer: Indexer
    let watcher: ContainerWatcher
    private let task: Task<Void, Never>

    init(files: [String: String] = [:], catchUpFirst: Bool = false, watching: Bool = true) async throws {
        root = FileManager.default.temporaryDirectory.appendingPathComponent("watch-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
        for (name, asset) in files {
            try Self.copy(TestLocations.asset(asset), to: root + "/" + name)
        }
        let scanner = try ContainerScanner(container: root, excluding: [root + "/.thumbnails"])
        store = try SidecarStore(directory: root + "/.thumbnails")
        pool = RendererPool(
            configuration: .init(executable: TestLocations.worker, arguments: [], renderers: 2, timeoutSeconds: 30))
        indexer = Indexer(scanner: scanner, store: store, pool: pool, options: .init(generatorVersion: "test"))
        var options = ContainerWatcher.Options()
        options.catchUpFirst = catchUpFirst
        var logger = Logger(label: "test.watch")
        logger.logLevel = .critical
        let watcher = ContainerWatcher(indexer: indexer, logger: logger, options: options)
        self.watcher = watcher
        task = Task {
            if watching { try? await watcher.run() }
        }
        // Saves made before the watches are in place would go unseen (a loaded machine can take
        // longer than any fixed pause to start the watcher's thread). The wait ends as soon as
        // the watches are in place; its limit is generous: while the whole suite runs on two
        // cores, tests that block probably hold both of Swift's cooperative threads for many seconds
        // before the watcher's task gets its turn (a clean-clone run waited more than 10 s once).
        if watching {
            try await eventually("the watcher started", within: .seconds(60), pollEvery: .milliseconds(10)) {
                watcher.isWatching
            }
        }
    }

    deinit {
        task.cancel()
        // Not stopBlocking()/shutdownBlocking(): a deinit at the end of an async test runs on one of
        // the cooperative pool's threads, which must not wait. The task kills or drains the
        // renderers and awaits their threads without holding one.
        Task { [pool] in await pool.stop() }
        try? FileManager.default.removeItem(atPath: root)
    }

    func file(_ name: String) -> String { root + "/" + name }

    static func copy(_ source: String, to target: String) throws {
        try FileManager.default.createDirectory(
            atPath: (target as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: source, toPath: target)
    }

    /// `glance list --json`, by path.
    func list() async throws -> [String: [String: Any]] {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: TestLocations.glance)
        process.arguments = ["list", root, "--json"]
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let data = await readToEnd(output.fileHandleForReading)
        #expect(await exited(process, within: .seconds(60)), "process ended")
        let rows = try JSONSerialization.jsonObject(with: data) as? [[String: Any]] ?? []
        var byPath: [String: [String: Any]] = [:]
        for row in rows { byPath[row["path"] as? String ?? ""] = row }
        return byPath
    }

    /// Waits (up to 15 s) until `condition` holds for the listing; returns the last listing (the
    /// caller's expectations say what was not seen).
    @discardableResult
    func listing(until condition: ([String: [String: Any]]) -> Bool) async throws -> [String: [String: Any]] {
        var rows: [String: [String: Any]] = [:]
        do {
            try await eventually(
                "the listing as the test expects it", within: .seconds(15), pollEvery: .milliseconds(50)
            ) {
                rows = try await list()
                return condition(rows)
            }
        } catch is NotSeenInTime {}
        return rows
    }

    /// Waits until every change the watcher has read is acted on (no save waits for quiet or is
    /// being rendered, no move or deletion waits): the render counts are final once it returns.
    func settle() async throws {
        try await eventually("every change acted on", within: .seconds(60)) { watcher.hasNoChangeOutstanding }
    }
}

/// A listing row's state and size.
func state(_ row: [String: Any]?) -> String? { row?["state"] as? String }
func size(_ row: [String: Any]?) -> Int? { (row?["size"] as? NSNumber)?.intValue }
