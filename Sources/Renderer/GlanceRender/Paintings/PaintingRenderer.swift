import GlanceCore

/// Draws a layered painting from the flattened picture it carries: `mergedimage.png`, which
/// OpenRaster requires and Krita writes, else the smaller picture beside it (OpenRaster's
/// `Thumbnails/thumbnail.png`, Krita's `preview.png`, at most 256 pixels), with a warning. The
/// layers themselves are never composed here; only the one entry drawn is read, through the image
/// renderers (``EmbeddedPicture``).
struct PaintingRenderer: DocumentRenderer {
    let contentType: ContentType
    let pictures: EmbeddedPicture

    /// The `mimetype` entries of the two formats.
    static let openRasterMimetype = "image/openraster"
    static let kritaMimetype = "application/x-krita"

    /// The flattened picture, then the small ones, by the entry names the formats use.
    static let mergedImage = "mergedimage.png"
    static let smallPictures = ["Thumbnails/thumbnail.png", "preview.png"]

    func render(_ request: RenderRequest) throws(ThumbnailError) -> RenderedThumbnail {
        let format = contentType.displayName
        let archive = try ArchiveReader.open(request, format: format, limits: FormatFamily.paintings.limits.archive!)
        if let merged = archive.index(of: Self.mergedImage) {
            return try pictures.render(try archive.read(merged), as: "its merged image", request: request)
        }
        guard let small = Self.smallPictures.lazy.compactMap({ archive.index(of: $0) }).first else {
            throw .corrupt(format: format, detail: "it holds neither a merged image nor a thumbnail")
        }
        var rendered = try pictures.render(try archive.read(small), as: "its thumbnail", request: request)
        rendered.warnings.append(
            "drawn from the small picture the file carries (\(archive.entries[small].name)): it has no merged image")
        return rendered
    }
}
