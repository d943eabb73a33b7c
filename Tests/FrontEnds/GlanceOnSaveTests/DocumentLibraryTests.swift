import Foundation
import GlanceContainer
import GlanceCore
import GlanceOnSave
import GlancePipeline
import GlanceStore
import GlanceTestSupport
import Testing

@Suite("Document library", .timeLimit(.minutes(10)))
struct DocumentLibraryTests {
    @Test("save writes atomically and returns fresh attributes; move keeps the thumbnail; remove drops it")
    func saveMoveRemove() async throws {
        // No watcher: the library refreshes by itself (a watcher seeing the same saves may add a
        // render of its own, which would blur the count below).
        let watched = try await WatchedContainer(watching: false)
        let library = DocumentLibrary(indexer: watched.indexer)
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: TestLocations.asset("png/rgb8.png"))))
        let saved = try await library.save(bytes, to: "albums/new.png")
        #expect(saved.state == .fresh && saved.size == Int64(bytes.count))
        #expect(saved.standardThumbnail?.width == 200)
        // No temporary file is left beside it.
        #expect(try FileManager.default.contentsOfDirectory(atPath: watched.file("albums")) == ["new.png"])
        let renders = watched.indexer.rendersStarted
        let moved = try await library.move(from: "albums/new.png", to: "archive/old.png")
        #expect(moved.state == .fresh && moved.path == "archive/old.png")
        #expect(watched.indexer.rendersStarted == renders)
        try await library.remove("archive/old.png")
        #expect(try await watched.store.document(at: "archive/old.png", includingImageData: false) == nil)
        #expect(!FileManager.default.fileExists(atPath: watched.file("archive/old.png")))
    }

    @Test("paths that would not be documents are refused before anything is written")
    func refusedPaths() async throws {
        let watched = try await WatchedContainer(watching: false)
        let library = DocumentLibrary(indexer: watched.indexer)
        for path in ["../escape.txt", "/etc/passwd", "a/../../b.txt", ".hidden.txt", "dir/.git/config", ""] {
            await #expect(throws: LibraryError.self) { _ = try await library.save(Array("x".utf8), to: path) }
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: watched.root).filter { !$0.hasPrefix(".") }.isEmpty)
    }
}
