import GlanceCore

/// Draws a ZIP package from the picture its application saves in it with every save (a Sketch
/// document's `previews/preview.png`, a Procreate artwork's `QuickLook/Thumbnail.png`, a Figma
/// file's `thumbnail.png`), through the image renderers (``EmbeddedPicture``): only that entry is
/// read, never the document itself. A package without one fails in one line that says so, rather
/// than showing whichever of its bitmaps came first.
struct PackagePreviewRenderer: DocumentRenderer {
    let contentType: ContentType
    let pictures: EmbeddedPicture
    /// The entries that may hold the preview, the first found drawn.
    let previews: [String]
    /// The limits the package is opened under (its family's).
    let limits: ArchiveReader.Limits
    /// Said beside the thumbnail when the preview is a small one (Procreate's), or nil.
    var smallPreviewWarning: String?

    func render(_ request: RenderRequest) throws(ThumbnailError) -> RenderedThumbnail {
        let format = contentType.displayName
        let archive = try ArchiveReader.open(request, format: format, limits: limits)
        guard let preview = previews.lazy.compactMap({ archive.index(of: $0) }).first else {
            throw .corrupt(format: format, detail: "it carries no preview picture")
        }
        var rendered = try pictures.render(try archive.read(preview), as: "its preview", request: request)
        if let smallPreviewWarning { rendered.warnings.append(smallPreviewWarning) }
        return rendered
    }

    /// Whether `entries` name a file `name` at the package's top.
    static func holds(_ entries: [ArchiveReader.Entry], _ name: String) -> Bool {
        entries.contains { $0.isFile && $0.name == name }
    }
}
