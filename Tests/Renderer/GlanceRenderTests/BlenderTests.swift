import GlanceCore
import Testing

@testable import GlanceRender

/// Blender files, drawn from the thumbnail they carry, however they were saved.
@Suite("Blender", .timeLimit(.minutes(10)))
struct BlenderTests {
    @Test(
        "the thumbnail, red above blue, stored, gzip, Zstandard, Blender 5's header, big-endian",
        arguments: [
            "blender/scene.blend", "blender/gzip.blend", "blender/zstd.blend", "blender/blender5.blend",
            "blender/big-endian.blend",
        ])
    func thumbnail(_ path: String) throws {
        let (type, rendered) = try renderDocument(path: TestAssets.path(path))
        #expect(type == .blenderScene)
        let image = rendered.image
        #expect(image.width == 128 && image.height == 96)
        let (top, bottom) = (image.pixel(x: 64, y: 10), image.pixel(x: 64, y: 86))
        #expect(top.r > 200 && top.b < 60, "\(path): the top is \(top)")
        #expect(bottom.b > 200 && bottom.r < 60, "\(path): the bottom is \(bottom)")
    }

    @Test("without a thumbnail, or cut inside it, one line says so")
    func failures() {
        #expect {
            try renderDocument(path: TestAssets.path("blender/no-thumbnail.blend"))
        } throws: { error in
            "\(error)".contains("saved without a thumbnail") && !"\(error)".contains("\n")
        }
        #expect(throws: ThumbnailError.truncated(format: "Blender file")) {
            try renderDocument(path: TestAssets.path("blender/cut.blend"))
        }
    }

    @Test("a compressed file is a Blender file only when what it inflates to says so")
    func sniffing() throws {
        #expect(try sniffDocument(path: TestAssets.path("svg/gzipped.svgz")) != .supported(.blenderScene))
        #expect(BlendThumbnail.isBlend(Array("BLENDER-v300".utf8)))
        #expect(!BlendThumbnail.isBlend(Array("BLENDEX-v300".utf8)))
        #expect(!BlendThumbnail.isBlend([0x1F, 0x8B, 0x08, 0x00]))
    }
}
