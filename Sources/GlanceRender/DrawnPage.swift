import GlanceCore

/// A page drawn by cairo (the first page of a PDF, or a text file laid out as one), before it
/// becomes a thumbnail: as RGB pixels, or encoded as a PNG straight from cairo's surface, without
/// the RGB copy in between.
struct DrawnPage {
    let surface: CairoImageSurface
    /// The source's displayed size (PDF points after /Rotate; the page's pixels for text).
    let sourceWidth: Int
    let sourceHeight: Int
    let warnings: [String]

    /// The page as a thumbnail of RGB pixels.
    var thumbnail: RenderedThumbnail {
        RenderedThumbnail(
            image: surface.rgbPixels(), sourceWidth: sourceWidth, sourceHeight: sourceHeight, warnings: warnings)
    }

    /// The page as a PNG thumbnail: 8-bit gray when every pixel is gray, RGB otherwise, the same
    /// bytes and average colour as ``thumbnail`` encoded by ``ImageEncoder``.
    func encoded(content: PNGContent) throws(ThumbnailError) -> EncodedThumbnail {
        let (png, averageColour) = try surface.encodedPNG(content: content)
        return EncodedThumbnail(
            format: .png, data: png, width: surface.width, height: surface.height, averageColour: averageColour,
            sourceWidth: sourceWidth, sourceHeight: sourceHeight, warnings: warnings, colour: nil)
    }
}

/// A renderer that draws a page with cairo: its thumbnail can go to PNG without an RGB copy.
protocol PageRenderer: DocumentRenderer {
    /// Draws the page of the document open at `request.file`.
    func drawPage(_ request: RenderRequest) throws(ThumbnailError) -> DrawnPage
}

extension PageRenderer {
    public func render(_ request: RenderRequest) throws(ThumbnailError) -> RenderedThumbnail {
        try drawPage(request).thumbnail
    }
}
