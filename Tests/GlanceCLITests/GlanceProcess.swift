import Foundation
import GlanceTestSupport
import Testing

/// Runs the built `glance` executable as a real child process and collects what it did.
struct GlanceProcess {
    /// The `glance` executable next to the test bundle.
    static let executable = TestLocations.glance

    /// The outcome of one run.
    struct Result {
        let status: Int32
        let standardOutput: String
        let standardError: String
        var errorLines: [String] { standardError.split(separator: "\n").map(String.init) }
    }

    /// Runs `glance` with `arguments` in `folder` and waits for it.
    static func run(_ arguments: [String], in folder: String? = nil) throws -> Result {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        if let folder { process.currentDirectoryURL = URL(fileURLWithPath: folder) }
        let output = Pipe()
        let error = Pipe()
        process.standardOutput = output
        process.standardError = error
        try process.run()
        let outputData = output.fileHandleForReading.readDataToEndOfFile()
        let errorData = error.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return Result(
            status: process.terminationStatus,
            standardOutput: String(decoding: outputData, as: UTF8.self),
            standardError: String(decoding: errorData, as: UTF8.self))
    }
}

/// Paths of the repository's test assets and a scratch folder.
enum CLIAssets {
    static let root = TestLocations.assets

    static func path(_ relative: String) -> String { root + "/" + relative }

    static func scratchFolder() throws -> String {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("glance-cli-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        return folder.path
    }
}
