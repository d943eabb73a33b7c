import GlanceCore
import Testing

@testable import GlanceRender

/// Every file in `TestAssets/assets.tsv` does what its row says: sniffs as its kind, and renders
/// to the expected size or fails with the expected reason. Corrupt files must throw, never crash.
@Suite("TestAssets manifest", .timeLimit(.minutes(10)))
struct AssetManifestTests {
    @Test("the manifest is there and covers every format")
    func manifestIsLoaded() {
        let kinds = Set(TestAssets.manifest.map(\.kind))
        #expect(TestAssets.manifest.count > 60)
        #expect(kinds.isSuperset(of: ["png", "jpeg", "pdf", "text", "none"]))
    }

    /// The rows this process can render itself: every one but the office documents and metafiles,
    /// which only an office renderer (LibreOffice) draws or refuses; `OfficeLaneTests` runs those
    /// rows through a real pool with an office lane.
    static let renderedHere = TestAssets.manifest.filter {
        !$0.path.hasPrefix("office/") && !$0.path.hasPrefix("metafiles/") && !$0.path.hasPrefix("visio/")
    }

    @Test("sniffing names the kind of every asset", arguments: TestAssets.manifest)
    func sniffs(_ entry: TestAssets.Entry) throws {
        let sniffed = Result { () throws(ThumbnailError) in try sniffDocument(path: TestAssets.path(entry.path)) }
        guard case .success(let result) = sniffed else {
            // Sniffing itself may refuse a file (a ZIP bomb, a password, a package without its
            // directory): its row expects that error, and names no kind.
            guard case .failure(let error) = sniffed else { return }
            #expect(entry.kind == "none", "\(entry.path): \(error)")
            let fragment = try #require(entry.expectedErrorFragment, "\(entry.path) failed to sniff: \(error)")
            #expect(error.description.lowercased().contains(fragment), "\(entry.path): \(error)")
            return
        }
        switch result {
        case .supported(let type):
            #expect(type.rawValue == entry.kind, "\(entry.path): sniffed as \(type)")
        case .empty, .unsupported:
            #expect(entry.kind == "none", "\(entry.path): sniffed as \(result)")
        }
    }

    @Test("every asset renders as expected", arguments: AssetManifestTests.renderedHere)
    func renders(_ entry: TestAssets.Entry) throws {
        let outcome = Result { () throws(ThumbnailError) in try renderDocument(path: TestAssets.path(entry.path)) }
        switch (outcome, entry.outcome) {
        case (.success(let rendered), "ok"):
            let image = rendered.thumbnail.image
            if let width = entry.width, let height = entry.height {
                #expect(image.width == width && image.height == height, "\(entry.path): \(image.width)x\(image.height)")
            }
            #expect(max(image.width, image.height) <= 1024)
        case (.success, "either"), (.failure, "either"):
            break
        case (.failure(let error), _):
            let fragment = try #require(entry.expectedErrorFragment, "\(entry.path) failed: \(error)")
            #expect(error.description.lowercased().contains(fragment), "\(entry.path): \(error)")
        case (.success(let rendered), _):
            Issue.record(
                "\(entry.path) should fail (\(entry.outcome)) but gave \(rendered.thumbnail.image.width)x\(rendered.thumbnail.image.height)"
            )
        }
    }
}
