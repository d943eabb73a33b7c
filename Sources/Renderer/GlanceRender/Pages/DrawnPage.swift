internal import CPNG
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
    /// What the renderer learned besides the pixels (a PDF's pages and their sizes).
    var details: DocumentDetails?

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
        var thumbnail = RenderedThumbnail(
            image: image, sourceWidth: sourceWidth, sourceHeight: sourceHeight, warnings: warnings)
        thumbnail.details = details
        return thumbnail
    }

    /// The page's pixels as drawn: gray for a page drawn on gray paper (a text page), RGB
    /// otherwise; what the smaller sizes are made from.
    var pixels: PixelBuffer {
        switch paper {
        case .cairo(let surface): surface.rgbPixels()
        case .gray(let page): page.grayPixels()
        }
    }

    /// The page's first `count` halves (``pixels`` halved, then that halved, and so on), the
    /// first straight from what the page was drawn on: what the smaller sizes are made from when
    /// each is a halving of the page.
    func halves(_ count: Int) -> [PixelBuffer] {
        guard count > 0 else { return [] }
        var halves: [PixelBuffer]
        switch paper {
        case .cairo(let surface): halves = [surface.halvedPixels()]
        case .gray(let page): halves = [page.halvedPixels()]
        }
        while halves.count < count { halves.append(halves[halves.count - 1].halved()) }
        return halves
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
        var encoded = EncodedThumbnail(
            format: .png, data: png, width: width, height: height, averageColour: averageColour,
            sourceWidth: sourceWidth, sourceHeight: sourceHeight, warnings: warnings, colour: nil)
        encoded.details = details
        return encoded
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

/// The tail both papers share when they go to PNG: a buffer of the encoder's bound, the encoder's
/// status turned into a typed error, and the sample sums it took turned into an average colour.
enum PagePNGEncoding {
    /// Runs `encode(out, capacity, &length, &sums, &error)` (one of CPNG's page encoders) into a
    /// buffer of `capacity` bytes.
    static func encode(
        capacity: Int,
        _ encode: (
            UnsafeMutablePointer<UInt8>?, Int, inout Int, inout glance_pixel_sums, inout glance_png_error
        ) -> Int32
    ) throws(ThumbnailError) -> (png: [UInt8], averageColour: String) {
        var error = glance_png_error()
        var sums = glance_pixel_sums()
        var status = Int32(GLANCE_PNG_OK.rawValue)
        let bytes = [UInt8](unsafeUninitializedCapacity: capacity) { buffer, count in
            var length = 0
            status = encode(buffer.baseAddress, capacity, &length, &sums, &error)
            count = status == Int32(GLANCE_PNG_OK.rawValue) ? length : 0
        }
        guard status == Int32(GLANCE_PNG_OK.rawValue) else {
            throw .writeFailed(path: "PNG", reason: PNGError(error).message)
        }
        var average = AverageColour(channels: 3)
        average.add(
            redSum: Int(sums.red), greenSum: Int(sums.green), blueSum: Int(sums.blue), count: Int(sums.count))
        return (bytes, average.text)
    }
}
