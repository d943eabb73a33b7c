import Foundation
import Glance
import GlanceTestSupport
import Testing

/// The library's front door, used as a document store uses it: no command line, a real sidecar,
/// real sandboxed renderers.
@Suite("Glance library: Container", .timeLimit(.minutes(10)))
struct ContainerTests {
    /// A scratch container with `files` (name in the container → asset), removed at the end.
    final class Scratch: Sendable {
        let root: String

        init(_ files: [String: String] = [:]) throws {
            root = FileManager.default.temporaryDirectory.appendingPathComponent("library-\(UUID().uuidString)").path
            try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
            for (name, asset) in files { try add(name, asset) }
        }

        deinit { try? FileManager.default.removeItem(atPath: root) }

        func add(_ name: String, _ asset: String) throws {
            let target = root + "/" + name
            try FileManager.default.createDirectory(
                atPath: (target as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
            try? FileManager.default.removeItem(atPath: target)
            try FileManager.default.copyItem(atPath: TestLocations.asset(asset), toPath: target)
        }

        func path(_ name: String) -> String { root + "/" + name }
    }

    static let renderers = RendererSettings(rendererExecutable: TestLocations.worker, renderers: 2)

    static func open(_ scratch: Scratch, store: String? = nil) async throws -> Container {
        try await Container.open(ContainerLocation(container: scratch.root, store: store), renderers: renderers)
    }

    @Test("saved: the thumbnail is fresh when it returns, in an owner-only sidecar; thumbnail(of:) gives its bytes")
    func savedIsFresh() async throws {
        let scratch = try Scratch()
        let container = try await Self.open(scratch)
        try scratch.add("photos/a.png", "png/rgb8.png")
        let saved = try await container.saved(["photos/a.png", "gone.txt"])
        #expect(saved.count == 2)
        let item = try #require(saved[0])
        #expect(item.state == .fresh)
        #expect(item.contentType == .png)
        #expect(saved[1] == nil)
        let renders = container.indexer.rendersStarted
        let thumbnail = try await container.thumbnail(of: "photos/a.png")
        #expect(container.indexer.rendersStarted == renders, "a fresh thumbnail is read, not made again")
        #expect(thumbnail.format == .png)
        #expect(Array(thumbnail.bytes.prefix(4)) == [0x89, 0x50, 0x4E, 0x47])
        #expect(thumbnail.width == item.standardThumbnail?.width && thumbnail.height == item.standardThumbnail?.height)
        var status = stat()
        #expect(stat(scratch.path(".thumbnails"), &status) == 0 && status.st_mode & 0o777 == 0o700)
        await container.close()
    }

    @Test("paths that cannot name a document are refused with the reason, before anything is looked at")
    func refusedPaths() async throws {
        let scratch = try Scratch(["a.txt": "text/latin-utf8.txt"])
        let container = try await Self.open(scratch)
        let cases: [(String, DocumentPathError.Reason)] = [
            ("../escape.txt", .leadsOutside), ("/etc/passwd", .absolute), (".hidden.txt", .hidden),
            ("dir/.git/config", .hidden), ("", .empty), ("a\u{0}b.txt", .holdsNUL),
        ]
        for (path, reason) in cases {
            do {
                _ = try await container.saved([path])
                Issue.record("\(path) was taken")
            } catch {
                guard case .invalidPath(let refused) = error else {
                    Issue.record("\(path): \(error)")
                    continue
                }
                #expect(refused.reason == reason, "\(path)")
            }
        }
        #expect(container.indexer.rendersStarted == 0)
        // `.` components and doubled slashes are one spelling of the same document.
        let item = try #require(try await container.saved(["./a.txt"])[0])
        #expect(item.path == "a.txt" && item.state == .fresh)
        await container.close()
    }

    @Test("moved keeps the thumbnail without rendering; removed drops the record; the listing agrees")
    func movedAndRemoved() async throws {
        let scratch = try Scratch(["a.png": "png/rgb8.png", "b.txt": "text/latin-utf8.txt"])
        let container = try await Self.open(scratch)
        try await container.saved(["a.png", "b.txt"])
        let renders = container.indexer.rendersStarted
        try FileManager.default.createDirectory(atPath: scratch.path("archive"), withIntermediateDirectories: true)
        #expect(rename(scratch.path("a.png"), scratch.path("archive/a.png")) == 0)
        let moved = try #require(try await container.moved(from: "a.png", to: "archive/a.png"))
        #expect(moved.state == .fresh)
        #expect(container.indexer.rendersStarted == renders)
        #expect(try await container.attributes(of: "a.png") == nil)
        try FileManager.default.removeItem(atPath: scratch.path("b.txt"))
        try await container.removed(["b.txt"])
        let listed = try await container.listing()
        #expect(listed.map(\.path) == ["archive/a.png"])
        #expect(try await container.listing(matching: ListingQuery(pattern: "*.txt")).isEmpty)
        await container.close()
    }

    @Test("thumbnail(of:) makes a missing or stale thumbnail on demand; a failed one says why")
    func thumbnailOnDemand() async throws {
        let scratch = try Scratch(["late.png": "png/rgb8.png", "broken.jpg": "corrupt/truncated-header.jpg"])
        let container = try await Self.open(scratch)
        let made = try await container.thumbnail(of: "late.png")
        #expect(made.width > 0)
        #expect(try await container.attributes(of: "late.png")?.state == .fresh)
        // Changed under it: stale, made again.
        try scratch.add("late.png", "png/gray8.png")
        let renders = container.indexer.rendersStarted
        _ = try await container.thumbnail(of: "late.png")
        #expect(container.indexer.rendersStarted == renders + 1)
        do {
            _ = try await container.thumbnail(of: "broken.jpg")
            Issue.record("a broken JPEG gave a thumbnail")
        } catch {
            guard case .noThumbnail(let path, let reason) = error else {
                Issue.record("\(error)")
                return
            }
            #expect(path == "broken.jpg" && !reason.isEmpty)
        }
        do {
            _ = try await container.thumbnail(of: "never.png")
            Issue.record("a missing document gave a thumbnail")
        } catch {
            guard case .noSuchDocument = error else {
                Issue.record("\(error)")
                return
            }
        }
        await container.close()
    }

    @Test("a refusal by a limit names the library's setting, never a command-line option")
    func limitsNamedForTheLibrary() async throws {
        let scratch = try Scratch(["big.png": "png/rgb8.png"])
        let container = try await Container.open(
            ContainerLocation(container: scratch.root), renderers: Self.renderers,
            limits: DocumentLimits(maxPixels: 100))
        let item = try #require(try await container.saved(["big.png"])[0])
        #expect(item.state == .failed)
        let reason = try #require(item.error)
        #expect(reason.hasSuffix("-pixel limit (DocumentLimits.maxPixels)"), "\(reason)")
        #expect(!reason.contains("--"), "\(reason)")
        await container.close()
    }

    @Test("events(): a save is announced to every subscriber")
    func events() async throws {
        let scratch = try Scratch()
        let container = try await Self.open(scratch)
        let stream = container.events()
        try scratch.add("new.png", "png/rgb8.png")
        try await container.saved(["new.png"])
        var iterator = stream.makeAsyncIterator()
        let event = await iterator.next()
        guard case .refreshed(let stored) = event else {
            Issue.record("expected refreshed, got \(String(describing: event))")
            return
        }
        #expect(stored.record.path == "new.png")
        await container.close()
    }

    @Test("opening: the rules of the store's location, each refusal a typed error")
    func openingRules() async throws {
        let scratch = try Scratch(["a.txt": "text/latin-utf8.txt"])
        let parent = (scratch.root as NSString).deletingLastPathComponent
        let refusals: [(ContainerLocation, (OpeningError) -> Bool)] = [
            (
                ContainerLocation(container: scratch.root, store: scratch.root),
                { if case .storeHoldsContainer = $0 { true } else { false } }
            ),
            (
                ContainerLocation(container: scratch.root, store: parent),
                { if case .storeHoldsContainer = $0 { true } else { false } }
            ),
            (
                ContainerLocation(container: scratch.root, store: "postgres://"),
                { if case .storeAddress = $0 { true } else { false } }
            ),
            (
                ContainerLocation(container: scratch.root + "/nowhere"),
                { if case .container = $0 { true } else { false } }
            ),
        ]
        for (location, expected) in refusals {
            do {
                let container = try await Container.open(location, renderers: Self.renderers)
                await container.close()
                Issue.record("\(location.container) with \(location.store ?? "-") opened")
            } catch {
                #expect(expected(error), "\(error)")
            }
        }
        // The default sidecar may not be a link (another container's records would mix in).
        let other = try Scratch()
        #expect(symlink(other.root, scratch.path(".thumbnails")) == 0)
        do {
            _ = try await Container.open(ContainerLocation(container: scratch.root), renderers: Self.renderers)
            Issue.record("a linked sidecar was opened")
        } catch {
            guard case .sidecarIsLink = error else {
                Issue.record("\(error)")
                return
            }
        }
        // Container keys: none for the sidecar inside, the folder's path for a store elsewhere.
        let elsewhere = try Scratch()
        let inside = ContainerLocation(container: other.root)
        let outside = ContainerLocation(container: other.root, store: elsewhere.root + "/store")
        let scanner = try outside.openScanner()
        #expect(inside.containerKey(scanner, at: try inside.storeKind()) == "")
        #expect(outside.containerKey(scanner, at: try outside.storeKind()) == scanner.root)
        // A store inside the container is passed over by the scan.
        let nested = ContainerLocation(container: other.root, store: other.root + "/store")
        let container = try await Container.open(nested, renderers: Self.renderers)
        try other.add("doc.txt", "text/latin-utf8.txt")
        #expect(try await container.listing().map(\.path) == ["doc.txt"])
        await container.close()
    }
}
