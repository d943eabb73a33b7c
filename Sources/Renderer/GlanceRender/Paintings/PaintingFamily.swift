import GlanceCore

extension FormatFamily {
    /// Layered paintings that carry their own flattened picture: OpenRaster (`.ora`, GIMP, MyPaint,
    /// Krita) and Krita's own files (`.kra`). ZIP packages whose stored `mimetype`, first in the
    /// file as both formats require, says which: so a painting is never taken for a comic book.
    public static let paintings: FormatFamily = {
        var family = FormatFamily(
            name: "painting", contentTypes: [.openRaster, .kritaPainting],
            sniffRules: [
                SniffRule(priority: 525) { input in
                    switch OfficeSniffer.storedMimetype(prefix: input.prefix) {
                    case PaintingRenderer.openRasterMimetype: .openRaster
                    case PaintingRenderer.kritaMimetype: .kritaPainting
                    default: nil
                    }
                }
            ],
            capabilities: [.readsOnlyWhatItNeeds]
        ) { type, tools in PaintingRenderer(contentType: type, pictures: tools.pictures) }
        family.limits.archive = .comics
        return family
    }()

    /// GIMP's own files (`.xcf`: `gimp xcf ` and a version), their visible layers composed
    /// (``XCFDecoder``), stored or compressed whole (`.xcf.gz`, `.xcf.bz2`, `.xcf.xz`).
    public static let gimp = raster(
        "GIMP image", types: [.gimpImage], decoder: XCFDecoder.self,
        rules: [
            .signature(XCFDecoder.signature, priority: 181, type: .gimpImage),
            SniffRule(priority: 182) { XCFDecoder.isCompressed($0) ? .gimpImage : nil },
        ])
}
