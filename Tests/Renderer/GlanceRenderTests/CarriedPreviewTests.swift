import GlanceCore
import Testing

@testable import GlanceRender

/// SketchUp models, Affinity and InDesign documents, Sketch documents, Procreate artworks and
/// Figma files, drawn from the previews they carry.
@Suite("Carried previews", .timeLimit(.minutes(10)))
struct CarriedPreviewTests {
    @Test(
        "a SketchUp model's or an Affinity document's PNG preview, an InDesign document's XMP page thumbnail and the preview a Sketch, Procreate or Figma package saves (not its first bitmap) are their thumbnails",
        arguments: [
            ("carried/model.skp", ContentType.sketchUpModel, 99.0), ("carried/layout.indd", .inDesignDocument, 30),
            ("carried/design.sketch", .sketchDocument, 99), ("carried/artwork.procreate", .procreateArtwork, 99),
            ("carried/design.fig", .figmaDesign, 99), ("carried/poster.afdesign", .affinityDocument, 99),
        ])
    func drawn(_ path: String, type: ContentType, minimumPSNR: Double) throws {
        let (sniffed, rendered) = try renderDocument(path: TestAssets.path(path))
        #expect(sniffed == type)
        let reference = try decodeFullSize(TestAssets.path("png/rgb8.png"))
        try #require(rendered.image.width == reference.width && rendered.image.height == reference.height)
        // The SketchUp preview is the PNG itself (exact); InDesign's a JPEG of it.
        let psnr = rendered.image == reference ? Double.infinity : PixelStatistics.psnr(rendered.image, reference)
        #expect(psnr > minimumPSNR, "\(path): \(psnr) dB")
    }

    @Test(
        "without its preview, a file fails in one line that says so",
        arguments: [
            ("carried/no-preview.skp", "it carries no preview picture"),
            ("carried/no-thumbnail.indd", "it carries no page thumbnail"),
            ("carried/no-preview.sketch", "it carries no preview picture"),
            ("carried/no-thumbnail.procreate", "it carries no preview picture"),
            ("carried/no-preview.afphoto", "it carries no preview picture"),
        ])
    func missing(_ path: String, reason: String) {
        #expect {
            try renderDocument(path: TestAssets.path(path))
        } throws: { error in
            (error as? ThumbnailError)?.description.hasSuffix(reason) == true
        }
    }
}
