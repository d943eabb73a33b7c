import Foundation
import GlanceCore
import GlanceTestSupport
import Testing

@testable import GlancePipeline

#if canImport(Glibc)
    import Glibc
#endif

/// The long tail's references outside a document, through a real pool: a PostScript `run` of
/// another file, an XPS page's image at a `file:` URI, an indirect DjVu document's page files.
/// Each named file is watched with inotify: none is opened, under seccomp alone and under
/// bubblewrap, and each document still ends (drawn without it, or refused in one line).
@Suite("Outside references", .serialized, .timeLimit(.minutes(10)))
struct OutsideReferencesTests {
    @Test(
        "nothing a PostScript program, an XPS page or an indirect DjVu names outside itself is opened, under seccomp alone and under bubblewrap",
        arguments: [RendererSandbox.seccomp, nil])
    func neverOpened(sandbox: RendererSandbox?) async throws {
        // The file the PostScript and XPS documents name (TestAssets/generate.py: OUTSIDE_FOLDER),
        // there for them to find.
        let linked = "/tmp/glance-outside-references"
        mkdir(linked, 0o755)
        if !FileManager.default.fileExists(atPath: linked + "/outside.png") {
            try FileManager.default.copyItem(atPath: assets + "/png/rgb8.png", toPath: linked + "/outside.png")
        }
        // The indirect DjVu, in a folder of its own beside the page files it names.
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("djvu-\(UUID().uuidString)").path
        mkdir(folder, 0o755)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        for name in ["indirect.djvu", "photo.djvu", "bitonal.djvu"] {
            try FileManager.default.copyItem(atPath: assets + "/djvu/" + name, toPath: folder + "/" + name)
        }
        let watch = inotify_init1(Int32(IN_NONBLOCK | IN_CLOEXEC))
        #expect(watch >= 0)
        defer { close(watch) }
        for watched in [linked + "/outside.png", folder + "/photo.djvu", folder + "/bitonal.djvu"] {
            #expect(inotify_add_watch(watch, watched, UInt32(IN_OPEN | IN_ACCESS)) >= 0, "\(watched)")
        }
        let pool = OfficeLaneTests.pool(sandbox: sandbox, office: false, timeout: 20)
        let documents: [(path: String, renders: Bool)] = [
            (assets + "/postscript/runs-linked.ps", false), (assets + "/xps/linked-image.xps", true),
            (folder + "/indirect.djvu", false),
        ]
        for (path, renders) in documents {
            let file = try OpenFile.regularFile(atPath: path)
            let result = await pool.run(RenderJob(id: 1, name: path, maxSide: 256), file: file)
            guard case .finished(let outcome) = result else { Issue.record("\(path): \(result)"); continue }
            #expect((outcome.status == .rendered) == renders, "\(path): \(outcome.error ?? "")")
        }
        await pool.shutdown()
        var events = [UInt8](repeating: 0, count: 4096)
        let count = read(watch, &events, events.count)
        #expect(count < 0 && errno == EAGAIN, "a file a document names was opened (\(count) bytes of events)")
    }
}
