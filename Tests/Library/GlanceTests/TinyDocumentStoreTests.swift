import Foundation
import Glance
import GlanceTestSupport
import Testing

/// `Examples/TinyDocumentStore`, built with the package and run as its users would: a program that
/// saves uploads itself and calls the library's hook in-process.
@Suite("Example: a tiny document store", .timeLimit(.minutes(10)))
struct TinyDocumentStoreTests {
    static let executable = (TestLocations.worker as NSString).deletingLastPathComponent + "/tiny-document-store"

    struct Run {
        let status: Int32
        let output: String
        let error: String
    }

    /// Runs the example with `arguments`, `input` on its standard input.
    static func run(_ arguments: [String], input: Data = Data()) async throws -> Run {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        let (stdin, stdout, stderr) = (Pipe(), Pipe(), Pipe())
        process.standardInput = stdin
        process.standardOutput = stdout
        process.standardError = stderr
        try process.run()
        stdin.fileHandleForWriting.write(input)
        try stdin.fileHandleForWriting.close()
        let output = await readToEnd(stdout.fileHandleForReading)
        let error = await readToEnd(stderr.fileHandleForReading)
        #expect(await exited(process, within: .seconds(60)), "process ended")
        return Run(
            status: process.terminationStatus, output: String(decoding: output, as: UTF8.self),
            error: String(decoding: error, as: UTF8.self))
    }

    @Test("save: the upload is written by the store and its thumbnail is fresh when the program returns")
    func saveRenameRemove() async throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("tiny-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: root) }
        let upload = try Data(contentsOf: URL(fileURLWithPath: TestLocations.asset("png/rgb8.png")))
        let saved = try await Self.run([root, "save", "uploads/photo.png"], input: upload)
        #expect(saved.status == 0, "\(saved.error)")
        #expect(saved.output.hasPrefix("uploads/photo.png: fresh, thumbnail "), "\(saved.output)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: root + "/uploads/photo.png")) == upload)
        // Nothing left of the upload's temporary file.
        #expect(try FileManager.default.contentsOfDirectory(atPath: root + "/uploads") == ["photo.png"])

        // The store, opened afresh, holds it fresh: nothing needs rendering.
        let renderers = RendererSettings(rendererExecutable: TestLocations.worker, renderers: 1)
        let container = try await Container.open(ContainerLocation(container: root), renderers: renderers)
        let item = try #require(try await container.attributes(of: "uploads/photo.png"))
        #expect(item.state == .fresh)
        _ = try await container.thumbnail(of: "uploads/photo.png")
        #expect(container.indexer.rendersStarted == 0)
        await container.close()

        let renamed = try await Self.run([root, "rename", "uploads/photo.png", "kept.png"])
        #expect(renamed.status == 0 && renamed.output.hasPrefix("kept.png: fresh"), "\(renamed.output)\(renamed.error)")
        let listed = try await Self.run([root, "list"])
        #expect(listed.output.split(separator: "\n").map { $0.split(separator: ":")[0] } == ["kept.png"])
        let removed = try await Self.run([root, "remove", "kept.png"])
        #expect(removed.status == 0 && removed.output == "kept.png: removed\n")
        #expect(try await Self.run([root, "list"]).output.isEmpty)
    }

    @Test("a broken upload is kept and reported failed (exit 1); a name outside the folder is refused (exit 2)")
    func refusals() async throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("tiny-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: root) }
        let broken = try Data(contentsOf: URL(fileURLWithPath: TestLocations.asset("corrupt/truncated-header.jpg")))
        let failed = try await Self.run([root, "save", "broken.jpg"], input: broken)
        #expect(failed.status == 1)
        #expect(failed.output.hasPrefix("broken.jpg: failed ("), "\(failed.output)")
        let outside = try await Self.run([root, "save", "../escape.txt"], input: Data("x".utf8))
        #expect(outside.status == 2)
        #expect(outside.error.contains("../escape.txt: leads outside the container"), "\(outside.error)")
        let parent = (root as NSString).deletingLastPathComponent
        #expect(!FileManager.default.fileExists(atPath: parent + "/escape.txt"))
    }
}
