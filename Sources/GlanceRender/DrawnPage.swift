import GlanceCore

/// A page drawn by cairo (the first page of a PDF, or a text file laid out as one), before it
/// becomes a thumbnail: as RGB pixels, or encoded as a PNG straight from the page's pixels,
/// without the RGB copy in between.
struct DrawnPage {
    /// What the page was drawn on.
    enum Paper {
        /// Cairo's RGB24 surface: PDF pages, and text pages that cairo drew.
        case cairo(CairoImageSurface)
        /// Gray pixels: text pages whose glyphs Glance composited itself.
        case gray(GrayPage)
    }

    let paper: Paper
    /// The source's displayed size (PDF points after /Rotate; the page's pixels for text).
    let sourceWidth: Int
    let sourceHeight: Int
    let warnings: [String]

    init(surface: CairoImageSurface, sourceWidth: Int, sourceHeight: Int, warnings: [String]) {
        self.init(paper: .cairo(surface), sourceWidth: sourceWidth, sourceHeight: sourceHeight, warnings: warnings)
    }

    init(paper: Paper, sourceWidth: Int, sourceHeight: Int, warnings: [String]) {
        self.paper = paper
        self.sourceWidth = sourceWidth
        self.sourceHeight = sourceHeight
        self.warnings = warnings
    }

    var width: Int {
        switch paper {
        case .cairo(let surface): surface.width
        case .gray(let page): page.width
        }
    }

    var height: Int {
        switch paper {
        case .cairo(let surface): surface.height
        case .gray(let page): page.height
        }
    }

    /// The page as a thumbnail of RGB pixels.
    var thumbnail: RenderedThumbnail {
        let image: PixelBuffer
        switch paper {
        case .cairo(let surface): image = surface.rgbPixels()
        case .gray(let page): image = page.rgbPixels()
        }
        return RenderedThumbnail(
            image: image, sourceWidth: sourceWidth, sourceHeight: sourceHeight, warnings: warnings)
    }

    /// The page as a PNG thumbnail: 8-bit gray when every pixel is gray, RGB otherwise, the same
    /// bytes and average colour as ``thumbnail`` encoded by ``ImageEncoder``.
    func encoded(content: PNGContent) throws(ThumbnailError) -> EncodedThumbnail {
        let png: [UInt8]
        let averageColour: String
        switch paper {
        case .cairo(let surface): (png, averageColour) = try surface.encodedPNG(content: content)
        case .gray(let page): (png, averageColour) = try page.encodedPNG(content: content)
        }
        return EncodedThumbnail(
            format: .png, data: png, width: width, height: height, averageColour: averageColour,
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
