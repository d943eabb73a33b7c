internal import CJPEG
internal import CPNG
import CWebP
import GlanceCore

extension ImageFormat {
    /// The format `auto` picks: JPEG for opaque photographs (JPEG sources), PNG for the rest
    /// (screenshots, transparency, text and PDF pages, where JPEG would smear sharp edges).
    public static func automatic(for source: ContentType, image: PixelBuffer, lossySource: Bool = false) -> ImageFormat
    {
        (source == .jpeg || lossySource) && image.isOpaque ? .jpeg : .png
    }
}

/// What a thumbnail holds, which decides the PNG row filter that compresses it best.
///
/// Measured on this project's bench thumbnails (1024 px; milliseconds and bytes a thumbnail with
/// zlib 1.2.13 at level 1, which Glance's own deflate encoder beats on time): colour photos and
/// PDF pages with photos compress fastest and about smallest after the Up filter (photos 22.8 ms
/// for 747 KB, against 26.2 ms for 793 KB with Paeth and run-length coding; photo pages 21.3 ms
/// for 702 KB, against 38.7 ms for 691 KB at level 3 with Sub); gray pages of text compress
/// fastest and smallest unfiltered (text files 4.0 ms for 110 KB, against 5.0 ms for 120 KB with
/// Sub; text PDF pages 2.9 ms for 70 KB). Choosing among filters row by row, as libpng does, cost
/// more time than it saved bytes each time.
public enum PNGContent: Sendable {
    /// Photos, scans, screenshots: anything from a raster source.
    case photographic
    /// Pages drawn from text or PDF: mostly flat paper with sharp glyphs, or photos on a page.
    case document

    /// The content a thumbnail of `type` usually holds.
    public init(source type: ContentType) {
        self = type == .png || type == .jpeg ? .photographic : .document
    }

    var filters: glance_png_filters {
        let none: Int32 = 0
        let up: Int32 = 2
        return switch self {
        case .photographic: glance_png_filters(colour: up, gray: up)
        // A gray page is text on paper; a page in colour most often holds a picture.
        case .document: glance_png_filters(colour: up, gray: none)
        }
    }
}

/// Encodes pixels as PNG (Glance's own writer), JPEG (libjpeg-turbo, quality 86 for luma and 83 for chroma) or
/// WebP (libwebp: lossless, or lossy for the smaller sizes of pictures of gradual changes).
public enum ImageEncoder {
    /// How much compressed image a PNG writer with a sink holds before it sends it on: 256 KiB,
    /// a few slices of the deflate encoder's output, and a sixth of a large photo thumbnail's.
    public static let defaultSentPieceBytes = 256 << 10

    /// JPEG quality of the luma table. With optimised Huffman tables, 86 for luma and 83 for
    /// chroma measured PSNR and SSIM at least vipsthumbnail's (quality 85, standard tables) at
    /// no more bytes on the bench corpus; 85/85 was 0.1 dB and 0.001 SSIM short, 87 luma too big.
    public static let jpegQuality = 86
    /// JPEG quality of the chroma tables (the eye and the metrics forgive chroma more).
    public static let jpegChromaQuality = 83

    /// Encodes `image`; JPEG has no alpha, so a transparent image is laid on white first. A gray
    /// image is a gray PNG, and RGB in the other formats.
    public static func encode(_ image: PixelBuffer, as format: ImageFormat, content: PNGContent = .photographic)
        throws(ThumbnailError) -> [UInt8]
    {
        switch format {
        case .png: return try encodePNG(image, content: content)
        case .jpeg: return try encodeJPEG(image.channels != 3 ? image.flattened() : image)
        case .webp: return try encodeWebP(image.channels == 1 ? image.droppingAlpha() : image)
        }
    }

    /// libwebp's lossless preset for the smaller sizes of pages and graphics, 0 fastest to 9
    /// smallest: 1 made a text page's and a PDF page's 512 5% and 12% larger than 2 in two thirds
    /// of the time (cwebp -z), and 0 made them 2.4 and 4.8 times larger.
    public static let webpLosslessLevel: Int32 = 1

    /// libwebp's quality for the lossy smaller sizes of ``PictureKind/gradual`` pictures
    /// (``SizeEncoding``).
    public static let webpLossyQuality: Float = 92
    /// libwebp's method for them, 0 fastest to 6 smallest: 0, for photos' tiles and pages' alike.
    ///
    /// Measured on the small bench corpus's tiles (each 512 halved from the 1024, quality 92, one
    /// core, best of 15; SSIM on luma against the lossless tile): on three PDF pages and six PNGs
    /// (16-bit, interlaced and plain photos, a palette graphic, a screenshot), method 2 took 1.28 to
    /// 1.45 times as long as 0 for 3% fewer bytes (-1% to 12%), SSIM within 0.003 either way (0.972
    /// to 0.999 at 0). With 2, libwebp was 11.9% of a PDF batch's samples (perf, the corpus's 8 PDFs
    /// 24 times over), with 0 9.2%. The grid's first screen at ratio 2 went from 0.90 to 0.94 MB
    /// (bench/grid.py --corpus bench), the store from 17.6 to 17.7 MB. Earlier, method 2 made the
    /// corpus's photos' 512s 1.8% smaller and cost the JPEG batch 8% of its rate (0.884 of the
    /// baseline renderer's against 0.958).
    public static let webpLossyMethod: Int32 = 0

    /// Encodes `image` as lossless WebP through libwebp, at ``webpLosslessLevel``.
    static func encodeWebP(_ image: PixelBuffer) throws(ThumbnailError) -> [UInt8] {
        try encodedByWebP(image) { pixels, width, height, channels, stride, output, length in
            glance_webp_encode_lossless(pixels, width, height, channels, stride, webpLosslessLevel, output, length)
        }
    }

    /// Encodes `image` as lossy WebP through libwebp, at ``webpLossyQuality`` and
    /// ``webpLossyMethod`` (alpha, if any, kept losslessly).
    public static func encodeLossyWebP(_ image: PixelBuffer) throws(ThumbnailError) -> [UInt8] {
        try encodedByWebP(image.channels == 1 ? image.droppingAlpha() : image) {
            pixels, width, height, channels, stride, output, length in
            glance_webp_encode_lossy(
                pixels, width, height, channels, stride, webpLossyQuality, webpLossyMethod, output, length)
        }
    }

    /// The bytes one of the shim's WebP encoders makes of `image` (RGB or RGBA), copied out of
    /// libwebp's buffer, which is freed.
    private static func encodedByWebP(
        _ image: PixelBuffer,
        _ encode: (
            UnsafePointer<UInt8>?, Int32, Int32, Int32, Int, UnsafeMutablePointer<UnsafeMutablePointer<UInt8>?>,
            UnsafeMutablePointer<Int>
        ) -> Int32
    ) throws(ThumbnailError) -> [UInt8] {
        var output: UnsafeMutablePointer<UInt8>?
        var length = 0
        let status = image.bytes.withUnsafeBufferPointer { pixels in
            encode(
                pixels.baseAddress, Int32(image.width), Int32(image.height), Int32(image.channels), image.rowBytes,
                &output, &length)
        }
        guard status == 0, let output else {
            throw .writeFailed(path: "WebP", reason: "libwebp could not encode the image (error \(status))")
        }
        defer { glance_webp_free(output) }
        return Array(UnsafeBufferPointer(start: output, count: length))
    }

    static func encodePNG(_ image: PixelBuffer, content: PNGContent) throws(ThumbnailError) -> [UInt8] {
        let capacity = glance_png_encoded_bound(Int32(image.width), Int32(image.height), Int32(image.channels))
        let written = pngWritten(capacity: capacity) { output, length, error in
            image.bytes.withUnsafeBufferPointer { pixels in
                image.channels == 1
                    ? glance_png_encode_gray(
                        pixels.baseAddress, Int32(image.width), Int32(image.height), image.rowBytes, content.filters,
                        output, capacity, &length, nil, &error)
                    : glance_png_encode(
                        pixels.baseAddress, Int32(image.width), Int32(image.height), Int32(image.channels),
                        image.rowBytes, content.filters, output, capacity, &length, &error)
            }
        }
        guard written.status == Int32(GLANCE_PNG_OK.rawValue) else {
            throw .writeFailed(path: "PNG", reason: PNGError(written.error).message)
        }
        return written.bytes
    }

    /// What one of the shim's whole-image PNG encoders (`encode`: the output, the length written,
    /// the error) writes, straight into the storage of an array of `capacity` bytes (no second
    /// copy of the thumbnail; pages of the bound never written are never resident): its status,
    /// the bytes (empty unless it succeeded) and its error.
    private static func pngWritten(
        capacity: Int,
        _ encode: (UnsafeMutablePointer<UInt8>?, inout Int, inout glance_png_error) -> Int32
    ) -> (status: Int32, bytes: [UInt8], error: glance_png_error) {
        var error = glance_png_error()
        var status = Int32(GLANCE_PNG_OK.rawValue)
        let bytes = [UInt8](unsafeUninitializedCapacity: capacity) { buffer, count in
            var length = 0
            status = encode(buffer.baseAddress, &length, &error)
            count = status == Int32(GLANCE_PNG_OK.rawValue) ? length : 0
        }
        return (status, bytes, error)
    }

    /// Encodes a gray `image` (one channel, or RGB whose pixels are all gray) in sixteen levels of
    /// gray: a 4-bit gray PNG, each pixel the level nearest its value (``SizeEncoding/sixteenGrays``).
    /// Nil when a pixel has colour (or `image` has alpha): nothing fits, encode it otherwise.
    static func encodeInSixteenGrays(_ image: PixelBuffer) throws(ThumbnailError) -> [UInt8]? {
        guard image.channels == 1 || image.channels == 3 else { return nil }
        let capacity = glance_png_encoded_bound(Int32(image.width), Int32(image.height), 1)
        let written = pngWritten(capacity: capacity) { output, length, error in
            image.bytes.withUnsafeBufferPointer { pixels in
                glance_png_encode_sixteen_grays(
                    pixels.baseAddress, Int32(image.width), Int32(image.height), Int32(image.channels), image.rowBytes,
                    output, capacity, &length, &error)
            }
        }
        if written.status == Int32(GLANCE_PNG_NOT_GRAY.rawValue) { return nil }
        guard written.status == Int32(GLANCE_PNG_OK.rawValue) else {
            throw .writeFailed(path: "PNG", reason: PNGError(written.error).message)
        }
        return written.bytes
    }

    /// Encodes a PNG of `width` x `height` pixels of `channels` from rows handed over one at a
    /// time: `rows` is given a `write` function and calls it with each row, top to bottom. The
    /// PNG is written straight into the returned array's storage, and an RGB image whose rows are
    /// all gray comes out as 8-bit gray, as ``encode(_:as:content:)`` writes it.
    ///
    /// With `sink`, the PNG's leading bytes go to it while rows are still coming (whole chunks,
    /// about every ``sentPieceBytes`` of compressed image), so that the encoded image never exists
    /// whole either; the returned array then holds only the bytes after the last piece sent.
    static func encodePNG(
        width: Int, height: Int, channels: Int, content: PNGContent, sink: EncodedBytesSink? = nil,
        sentPieceBytes: Int = defaultSentPieceBytes,
        rows: (_ write: (UnsafePointer<UInt8>) -> Void) throws(ThumbnailError) -> Void
    ) throws(ThumbnailError) -> [UInt8] {
        let capacity = glance_png_encoded_bound(Int32(width), Int32(height), Int32(channels))
        let grayCapacity = channels == 3 ? glance_png_encoded_bound(Int32(width), Int32(height), 1) : 0
        var failure: ThumbnailError?
        var grayChosen = false
        var grayBytes: [UInt8] = []
        func failed(_ error: glance_png_error) -> ThumbnailError {
            .writeFailed(path: "PNG", reason: PNGError(error).message)
        }
        // Both candidates are written into arrays of their bound: pages never written are never
        // resident, and the gray one stops at the first row that is not gray. (With a sink, the
        // colour PNG's pieces are sent from the start of its array, which they reuse.)
        let sinkBox = sink.map { sink in
            let box = UnsafeMutablePointer<EncodedBytesSink>.allocate(capacity: 1)
            box.initialize(to: sink)
            return box
        }
        defer {
            sinkBox?.deinitialize(count: 1)
            sinkBox?.deallocate()
        }
        let colourBytes = [UInt8](unsafeUninitializedCapacity: capacity) { colour, colourCount in
            colourCount = 0
            grayBytes = [UInt8](unsafeUninitializedCapacity: grayCapacity) { gray, grayCount in
                grayCount = 0
                var error = glance_png_error()
                guard
                    let writer = glance_png_writer_create(
                        Int32(width), Int32(height), Int32(channels), content.filters, colour.baseAddress,
                        capacity, channels == 3 ? gray.baseAddress : nil, grayCapacity, &error)
                else {
                    failure = failed(error)
                    return
                }
                defer { glance_png_writer_free(writer) }
                if let sinkBox {
                    glance_png_writer_send_to(
                        writer,
                        { context, bytes, count in
                            let sink = context!.assumingMemoryBound(to: EncodedBytesSink.self).pointee
                            return sink(UnsafeRawBufferPointer(start: bytes, count: count)) ? 1 : 0
                        }, sinkBox, sentPieceBytes)
                }
                var rowFailed = false
                do throws(ThumbnailError) {
                    try rows { row in
                        if !rowFailed, glance_png_writer_write_row(writer, row, &error) != Int32(GLANCE_PNG_OK.rawValue)
                        {
                            rowFailed = true
                        }
                    }
                } catch {
                    failure = error
                    return
                }
                var length = 0
                var isGray: Int32 = 0
                guard !rowFailed,
                    glance_png_writer_finish(writer, &length, &isGray, &error) == Int32(GLANCE_PNG_OK.rawValue)
                else {
                    failure = failed(error)
                    return
                }
                if isGray != 0 {
                    grayCount = length
                    grayChosen = true
                } else {
                    colourCount = length
                }
            }
        }
        if let failure { throw failure }
        return grayChosen ? grayBytes : colourBytes
    }

    static func encodeJPEG(_ image: PixelBuffer) throws(ThumbnailError) -> [UInt8] {
        precondition(image.channels == 3, "JPEG takes RGB: flatten alpha first")
        let capacity = glance_jpeg_encoded_bound(Int32(image.width), Int32(image.height))
        var error = glance_jpeg_error()
        var status = Int32(GLANCE_JPEG_OK.rawValue)
        let bytes = [UInt8](unsafeUninitializedCapacity: capacity) { buffer, count in
            var length = 0
            status = image.bytes.withUnsafeBufferPointer { pixels in
                glance_jpeg_encode(
                    pixels.baseAddress, Int32(image.width), Int32(image.height), image.rowBytes,
                    Int32(jpegQuality), Int32(jpegChromaQuality), 1, buffer.baseAddress, capacity, &length, &error)
            }
            count = status == Int32(GLANCE_JPEG_OK.rawValue) ? length : 0
        }
        guard status == Int32(GLANCE_JPEG_OK.rawValue) else {
            throw .writeFailed(path: "JPEG", reason: JPEGError(error).message)
        }
        return bytes
    }
}

extension PixelBuffer {
    /// The image laid over white paper, without alpha, as RGB (a gray image repeated in RGB).
    public func flattened() -> PixelBuffer {
        if channels == 1 { return droppingAlpha() }
        guard hasAlpha else { return self }
        var rgb = [UInt8](repeating: 0, count: width * height * 3)
        bytes.withUnsafeBufferPointer { source in
            rgb.withUnsafeMutableBufferPointer { target in
                for pixel in 0..<(width * height) {
                    let alpha = Int(source[4 * pixel + 3])
                    for channel in 0..<3 {
                        let value = Int(source[4 * pixel + channel])
                        target[3 * pixel + channel] = UInt8((value * alpha + 255 * (255 - alpha) + 127) / 255)
                    }
                }
            }
        }
        return PixelBuffer(width: width, height: height, channels: 3, bytes: rgb)
    }
}
