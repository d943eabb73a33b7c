import Foundation
import GRDB
import GlanceStore
import Testing

/// A container made for one test in a scratch folder from files of `TestAssets/`; removed when
/// dropped.
final class SampleContainer {
    let path: String
    /// A scratch folder beside the container, for what commands write (never inside it).
    let outputs: String

    /// A container holding `files` (container path → TestAssets path).
    init(_ files: [String: String]) throws {
        path = try CLIAssets.scratchFolder()
        outputs = try CLIAssets.scratchFolder()
        for (name, asset) in files {
            try add(name, from: asset)
        }
    }

    deinit {
        try? FileManager.default.removeItem(atPath: path)
        try? FileManager.default.removeItem(atPath: outputs)
    }

    /// A path in ``outputs``.
    func output(_ name: String) -> String { outputs + "/" + name }

    /// The standard mix: two photos, PNGs, PDFs, texts, one unsupported file.
    static func standard() throws -> SampleContainer {
        try SampleContainer([
            "photo.jpg": "jpeg/photo-baseline.jpg",
            "albums/turned.jpg": "orientation/orient-6.jpg",
            "albums/deep/gray.png": "png/gray8.png",
            "screen.png": "png/rgba8.png",
            "letter.pdf": "pdf/letter.pdf",
            "docs/rotated.pdf": "pdf/rotate-90.pdf",
            "notes.txt": "text/latin-utf8.txt",
            "docs/japanese.txt": "text/japanese-utf8.txt",
            "data.bin": "corrupt/unknown.bin",
        ])
    }

    func file(_ name: String) -> String { path + "/" + name }

    func add(_ name: String, from asset: String) throws {
        let target = URL(fileURLWithPath: file(name))
        try FileManager.default.createDirectory(
            at: target.deletingLastPathComponent(), withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: CLIAssets.path(asset), toPath: target.path)
    }

    /// Runs `glance generate --json` on the container; returns the summary and the result.
    func generate(_ extra: [String] = []) async throws -> (summary: [String: Any], result: GlanceProcess.Result) {
        let result = try await GlanceProcess.run(["generate", path, "--json", "--jobs", "2"] + extra)
        let object = try JSONSerialization.jsonObject(with: Data(result.standardOutput.utf8)) as? [String: Any]
        return (object ?? [:], result)
    }

    /// `glance list --json` as an array of objects keyed by path.
    func list(_ extra: [String] = []) async throws -> [String: [String: Any]] {
        let result = try await GlanceProcess.run(["list", path, "--json"] + extra)
        #expect(result.status == 0, "\(result.standardError)")
        let rows = try JSONSerialization.jsonObject(with: Data(result.standardOutput.utf8)) as? [[String: Any]] ?? []
        var byPath: [String: [String: Any]] = [:]
        for row in rows { byPath[row["path"] as? String ?? ""] = row }
        return byPath
    }

    /// The store, opened directly.
    func store() throws -> SidecarStore {
        try SidecarStore(directory: SidecarStore.defaultDirectory(forContainer: path))
    }

    /// How many documents batches hold claims on in the sidecar now, or nil while that cannot be
    /// read (no sidecar yet, or a batch creating it holds it locked): what a test waits for to
    /// know that a batch has taken its documents.
    func claimCount() -> Int? { sidecarRows("claim") }

    /// How many documents the sidecar has records of now (nil as for ``claimCount()``).
    func recordCount() -> Int? { sidecarRows("document") }

    /// The rows of `table` in the sidecar, read as another process would, without writing.
    private func sidecarRows(_ table: String) -> Int? {
        let database = file(".thumbnails/thumbnails.sqlite")
        guard FileManager.default.fileExists(atPath: database) else { return nil }
        var configuration = Configuration()
        configuration.readonly = true
        configuration.busyMode = .timeout(1)
        let queue = try? DatabaseQueue(path: database, configuration: configuration)
        return try? queue?.read { try Int.fetchOne($0, sql: "SELECT count(*) FROM \"\(table)\"") }
    }
}

/// The standard thumbnail's size in a `list --json` row.
func thumbnailSize(_ row: [String: Any]?) -> String? {
    guard let thumbnails = row?["thumbnails"] as? [String: Any],
        let standard = thumbnails["1024x1024"] as? [String: Any],
        let width = standard["width"] as? Int, let height = standard["height"] as? Int
    else { return nil }
    return "\(width)x\(height)"
}
