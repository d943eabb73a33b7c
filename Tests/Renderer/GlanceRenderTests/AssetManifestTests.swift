import GlanceCore
import Testing

@testable import GlanceRender

/// Every file in `TestAssets/assets.tsv` does what its row says: sniffs as its kind, and renders
/// to the expected size or fails with the expected reason. Corrupt files must throw, never crash.
@Suite("TestAssets manifest")
struct AssetManifestTests {
    @Test("the manifest is there and covers every format")
    func manifestIsLoaded() {
        let kinds = Set(TestAssets.manifest.map(\.kind))
        #expect(TestAssets.manifest.count > 60)
        #expect(kinds.isSuperset(of: ["png", "jpeg", "pdf", "text", "none"]))
    }

    @Test("sniffing names the kind of every asset", arguments: TestAssets.manifest)
    func sniffs(_ entry: TestAssets.Entry) throws {
        let result = try sniffDocument(path: TestAssets.path(entry.path))
        switch result {
        case .supported(let type):
            #expect(type.rawValue == entry.kind, "\(entry.path): sniffed as \(type)")
        case .empty, .unsupported:
            #expect(entry.kind == "none", "\(entry.path): sniffed as \(result)")
        }
    }

    @Test("every asset renders as expected", arguments: TestAssets.manifest)
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
