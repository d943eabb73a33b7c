import CTIFF
import GlanceCore

/// Decodes a TIFF's first page (or the page asked for) through libtiff (loaded on the first
/// TIFF) for the ``RasterPipeline``, and says how many pages it has: strips or tiles, 1 to 16
/// bits a sample, gray, palette, RGB, YCbCr, CMYK (converted without a profile, as libtiff does),
/// 16-, 32- and 64-bit floating-point gray and RGB (linear light, on their profile's primaries),
/// the usual compressions (none, LZW, deflate, PackBits, JPEG, ...), alpha associated or not.
/// Rows are read a strip or a tile high at a time through the document's descriptor and scaled as
/// they come, so a large TIFF is never whole in memory; libtiff's largest single allocation is
/// held to the decoder memory cap. The Orientation tag and the ICC profile go to the pipeline.
final class TIFFDecoder: RasterDecoder {
    let header: RasterHeader
    let warnings: [String]

    private let file: TIFFFile
    private let info: glance_tiff_info

    init(_ request: RenderRequest, type: ContentType, colourTransforms: ColourTransformCache) throws(ThumbnailError) {
        file = try TIFFFile(file: request.file, maxAllocation: request.maxDecoderMemoryBytes)
        // Every page's size, for a preview that stacks the pages as a PDF's (before describe,
        // which goes to the page it describes); a preview of one page needs none.
        let sizes = request.page == 1 ? file.pageSizes(limit: Self.pageSizeLimit) : []
        info = try file.describe(page: request.page)
        var warnings: [String] = []
        // (Another page than the first: the details' count says "page N of M".)
        if info.pages > 1 && request.page == 1 { warnings.append("\(info.pages) pages: the first is the thumbnail") }
        if info.is_cmyk != 0 { warnings.append("CMYK converted to RGB without a profile") }
        if info.is_float != 0 {
            warnings.append(
                info.float_profile_refused != 0
                    ? "floating-point samples: their ICC profile names no primaries, taken as linear sRGB"
                    : "floating-point samples: taken as linear light, values past 0 to 1 clipped")
        }
        // Floating-point samples come converted to sRGB already, on the profile's primaries.
        let profile = info.is_cmyk != 0 || info.is_float != 0 ? nil : file.embeddedProfile(warnings: &warnings)
        self.warnings = warnings
        header = RasterHeader(
            size: PixelSize(width: Int(info.width), height: Int(info.height)),
            orientation: ExifOrientation(rawValue: Int(info.orientation)) ?? .up, profile: profile,
            isGray: info.is_gray != 0, isLossy: info.is_jpeg != 0,
            details: info.pages > 1 ? Self.details(pages: Int(info.pages), sizes: sizes) : nil)
    }

    /// The most pages whose sizes a TIFF's details list (a fax of more lists its count alone,
    /// and its preview shows the first page).
    static let pageSizeLimit = 10_000

    /// A multi-page TIFF's details: its page count, and its pages' sizes when every one was read
    /// and they come in at most ``DocumentDetails/maximumPageRuns`` runs.
    static func details(pages: Int, sizes: [(width: Double, height: Double)]) -> DocumentDetails {
        var details = DocumentDetails(pageCount: pages)
        guard sizes.count == pages else { return details }
        for size in sizes { details.appendPage(width: size.width, height: size.height) }
        if (details.pageSizes?.count ?? 0) > DocumentDetails.maximumPageRuns { details.pageSizes = nil }
        return details
    }

    func plan(for target: PixelSize) -> RasterPlan { RasterPlan(size: header.size) }

    /// Rows come as straight RGBA, a strip or a tile high at a time.
    func start(_ plan: RasterPlan) throws(ThumbnailError) -> RasterRows {
        RasterRows(size: plan.size, channels: Int(info.channels), streamed: true)
    }

    func read(into rows: Downscaler) throws(ThumbnailError) {
        let (width, height, channels) = (header.size.width, header.size.height, Int(info.channels))
        let band = max(1, min(Int(info.band_rows), height))
        var buffer = [UInt8](repeating: 0, count: width * band * channels)
        var first = 0
        while first < height {
            let count = min(band, height - first)
            try buffer.withUnsafeMutableBufferPointer { out throws(ThumbnailError) in
                guard let base = out.baseAddress else { return }
                try file.readRows(from: first, count: count, into: base)
                rows.push(rows: base, stride: width * channels, count: count)
            }
            first += count
        }
    }
}

/// An open TIFF: owns libtiff's handle and closes it. Reads through the document's descriptor,
/// which stays the caller's.
final class TIFFFile {
    private let handle: OpaquePointer

    init(file: OpenFile, maxAllocation: Int) throws(ThumbnailError) {
        var reason = [CChar](repeating: 0, count: 512)
        guard glance_tiff_load(&reason, reason.count) == 1 else {
            throw .libraryUnavailable(
                library: "libtiff", detail: String(nulTerminated: reason))
        }
        let size = file.status().map { UInt64($0.st_size) } ?? 0
        guard size > 0 else { throw .empty }
        guard let handle = glance_tiff_open(file.descriptor, size, maxAllocation, &reason, reason.count) else {
            throw Self.failure(String(nulTerminated: reason), size: size)
        }
        self.handle = handle
    }

    deinit { glance_tiff_close(handle) }

    /// Every page's size in points, in order, at most `limit` pages (fewer when one cannot be
    /// read): ``glance_tiff_page_sizes``.
    func pageSizes(limit: Int) -> [(width: Double, height: Double)] {
        var widths = [Double](repeating: 0, count: limit)
        var heights = [Double](repeating: 0, count: limit)
        let count = glance_tiff_page_sizes(handle, &widths, &heights, Int32(clamping: limit))
        return (0..<Int(count)).map { (widths[$0], heights[$0]) }
    }

    /// The description of `page` (from 1); the page must be there and readable as an image.
    func describe(page: Int) throws(ThumbnailError) -> glance_tiff_info {
        var info = glance_tiff_info()
        guard glance_tiff_describe(handle, Int32(clamping: page - 1), &info) == 1 else {
            if page > Int(info.pages) && info.pages > 0 {
                throw .pageOutOfRange(page: page, pageCount: Int(info.pages))
            }
            throw lastError()
        }
        return info
    }

    /// Reads `count` stored rows from `first` as straight RGBA into `out`.
    func readRows(from first: Int, count: Int, into out: UnsafeMutablePointer<UInt8>) throws(ThumbnailError) {
        guard glance_tiff_read_rows(handle, UInt32(first), UInt32(count), out) == 1 else { throw lastError() }
    }

    /// The first page's ICC profile, or nil (one that cannot be used is a warning).
    func embeddedProfile(warnings: inout [String]) -> ColourProfile? {
        var length: UInt32 = 0
        guard let data = glance_tiff_icc_profile(handle, &length), length > 0 else { return nil }
        do throws(ColourProfileError) {
            return try ColourProfile(
                bytes: Array(UnsafeBufferPointer(start: data, count: Int(length))), fallbackName: "embedded ICC profile"
            )
        } catch {
            warnings.append(error.warning)
            return nil
        }
    }

    private func lastError() -> ThumbnailError {
        Self.failure(String(cString: glance_tiff_error(handle)), size: nil)
    }

    /// The error for libtiff's message: data that ends early is truncated, the rest corrupt.
    private static func failure(_ message: String, size: UInt64?) -> ThumbnailError {
        let lowered = message.lowercased()
        if lowered.contains("read error") || lowered.contains("unexpected end")
            || lowered.contains("can not read tiff directory") || lowered.contains("past end")
            || lowered.contains("short read") || lowered.contains("eof")
        {
            return .truncated(format: "TIFF")
        }
        var line = message.split(whereSeparator: \.isNewline).first.map(String.init) ?? ""
        if line.hasPrefix("document: ") { line.removeFirst("document: ".count) }
        // TIFFRGBAImageOK's refusals of valid files ("Sorry, can not handle images with 16-bit
        // samples") are encodings it does not read, not damage.
        if line.hasPrefix("Sorry, can not handle") {
            let what = String(line.dropFirst("Sorry, can not handle ".count))
            return .unsupportedEncoding(
                format: "TIFF", detail: what == "image" ? "a sample layout libtiff's RGBA reader does not take" : what)
        }
        return .corrupt(format: "TIFF", detail: line.isEmpty ? nil : String(line.prefix(200)))
    }

}
