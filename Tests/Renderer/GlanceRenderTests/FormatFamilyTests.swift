import Foundation
import GlanceCore
import GlanceListing
import Testing

@testable import GlanceRender

/// A family registered by a test alone: "swatch" files (`SWATCH`, a zero byte and three bytes of
/// colour: no text) are
/// drawn as a 40x20 picture of that colour. Nothing outside this file knows of it.
enum SwatchFamily {
    static let type = ContentType(
        "swatch", uniformTypeIdentifier: "org.example.swatch", mimeType: "application/x-swatch",
        displayName: "colour swatch", extensions: ["swatch"], browsersDraw: false)

    struct Renderer: DocumentRenderer {
        var contentType: ContentType { SwatchFamily.type }

        func render(_ request: RenderRequest) throws(ThumbnailError) -> RenderedThumbnail {
            let bytes: [UInt8]
            do { bytes = try request.file.read(count: 10, at: 0) } catch {
                throw .unreadable(reason: error.description)
            }
            guard bytes.count == 10 else { throw .corrupt(format: "swatch", detail: "no colour after the signature") }
            let pixel = Array(bytes[7..<10])
            let image = PixelBuffer(
                width: 40, height: 20, channels: 3, bytes: Array((0..<800).map { _ in pixel }.joined()))
            return RenderedThumbnail(image: image, sourceWidth: 40, sourceHeight: 20)
        }
    }

    static let family = FormatFamily(
        name: "swatch", contentTypes: [type],
        sniffRules: [.signature(Array("SWATCH".utf8) + [0], priority: 50, type: type)], capabilities: [.noDigest]
    ) { _, _ in Renderer() }
}

@Suite("Format families", .timeLimit(.minutes(10)))
struct FormatFamilyTests {
    /// A file of `bytes` in a folder of its own, removed by the caller.
    static func file(_ bytes: [UInt8], named name: String) throws -> (folder: URL, path: String) {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("glance-family-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let path = folder.appendingPathComponent(name).path
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        return (folder, path)
    }

    @Test(
        "every type a built-in family draws is a built-in type: its name comes back from a renderer's reply and a store's row"
    )
    func familyTypesAreBuiltIn() throws {
        let drawn = FormatFamily.builtIn.flatMap(\.contentTypes)
        let unknown = drawn.filter { ContentType(rawValue: $0.rawValue) == nil }.map(\.rawValue)
        #expect(unknown.isEmpty, "not in ContentType.builtIn: \(unknown)")
        // As a reply carries it: encoded, then decoded by the parent.
        for type in drawn {
            let decoded = try JSONDecoder().decode([ContentType].self, from: JSONEncoder().encode([type]))
            #expect(decoded == [type])
        }
    }

    @Test("a family registered by a test is sniffed, drawn, listed and shown; without it, the file is unsupported")
    func registeredFamily() throws {
        let (folder, path) = try Self.file(Array("SWATCH".utf8) + [0, 200, 40, 10], named: "sample.bin")
        defer { try? FileManager.default.removeItem(at: folder) }
        let thumbnailer = Thumbnailer(families: FormatFamily.builtIn + [SwatchFamily.family])

        // Sniffed by its rule, drawn by its renderer.
        let (type, thumbnail) = try renderDocument(path: path, thumbnailer: thumbnailer)
        #expect(type == SwatchFamily.type)
        #expect(thumbnail.image.width == 40 && thumbnail.image.height == 20)
        #expect(Array(thumbnail.image.bytes.prefix(3)) == [200, 40, 10])
        // Its capabilities are its own: one page, no digest.
        #expect(thumbnailer.capabilities(of: type) == [.noDigest])
        var request = RenderRequest(file: try OpenFile.regularFile(atPath: path), name: path)
        request.page = 2
        #expect(throws: ThumbnailError.pageOutOfRange(page: 2, pageCount: 1)) {
            try thumbnailer.render(request, as: type)
        }
        // The built-in families alone do not know it.
        #expect(throws: ThumbnailError.self) { try renderDocument(path: path) }
        // The other families still sniff as before with it registered.
        let png = try renderDocument(path: TestAssets.path("png/alpha-edge.png"), thumbnailer: thumbnailer)
        #expect(png.type == .png)

        // Listed and shown by what its type says of itself.
        let identity = FileIdentity(device: 1, inode: 2, size: 10, modifiedNanoseconds: 1_700_000_000_000_000_000)
        let record = DocumentRecord(
            path: "sample.bin", identity: identity, contentType: type, state: .fresh, error: nil,
            generatorVersion: "1", generatedAt: Date(timeIntervalSince1970: 1_700_000_100))
        let item = PromisedItemAttributes(
            path: "sample.bin", identity: identity,
            stored: StoredDocument(
                record: record, thumbnails: [ThumbnailImage(format: .png, width: 40, height: 20, data: [1])]),
            policy: FreshnessPolicy(generatorVersion: "1", sizes: .none))
        let row = ListingFormatter.Row(item)
        #expect(row.kind == "swatch" && row.mimeType == "application/x-swatch")
        #expect(ListingJSONWriter.array([row]).contains("x-swatch"))
        #expect(type.preview == .picture && type.displayName == "colour swatch")
    }

    @Test("a family whose documents are archives declares their limits; containers are listed under the loosest")
    func archiveLimits() {
        let declared = FormatFamily.builtIn.filter { $0.limits.archive != nil }.map(\.name)
        #expect(
            Set(declared) == [
                "office", "EPUB", "comic book", "painting", "iWork", "Sketch", "Procreate", "Figma", "XPS",
            ],
            "\(declared)")
        #expect(FormatFamily.epub.limits.archive?.totalBytes == 1 << 30)
        #expect(FormatFamily.comics.limits.archive?.totalBytes == 64 << 30)
        #expect(ArchiveSniffer.listingLimits.totalBytes == 64 << 30)
        #expect(FormatFamily.png.limits.archive == nil)
    }
}
