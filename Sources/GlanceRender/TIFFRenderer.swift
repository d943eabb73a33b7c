import CTIFF
import GlanceCore

/// Renders a TIFF's first page (or the page asked for) through libtiff (loaded on the first
/// TIFF), and says how many pages it has: strips or tiles, 1 to 16 bits a sample, gray, palette,
/// RGB, YCbCr, CMYK (converted without a profile, as libtiff does), the usual compressions (none,
/// LZW, deflate, PackBits, JPEG, ...), alpha associated or not. Rows are read a strip or a tile
/// high at a time through the document's descriptor and scaled as they come, so a large TIFF is
/// never whole in memory; libtiff's largest single allocation is held to the decoder memory cap.
/// The Orientation tag is applied to the thumbnail and an ICC profile brings it into sRGB, as for
/// a JPEG.
public struct TIFFRenderer: DocumentRenderer {
    public var contentType: ContentType { .tiff }

    private let colour: SRGBConversion

    /// A renderer that keeps its colour transforms in `colourTransforms`.
    public init(colourTransforms: ColourTransformCache = ColourTransformCache()) {
        colour = SRGBConversion(transforms: colourTransforms)
    }

    public func render(_ request: RenderRequest) throws(ThumbnailError) -> RenderedThumbnail {
        let document = try TIFFDocument(file: request.file, maxAllocation: request.maxDecoderMemoryBytes)
        let info = try document.describe(page: request.page)
        let (width, height) = (Int(info.width), Int(info.height))
        if width * height > request.maxPixels {
            throw .tooLarge(width: width, height: height, limitPixels: request.maxPixels)
        }
        let orientation = ExifOrientation(rawValue: Int(info.orientation)) ?? .up
        let (displayed, target) = ThumbnailGeometry.fit(
            storedWidth: width, storedHeight: height, turnedBy: orientation, maxSide: request.maxSide)
        let band = max(1, min(Int(info.band_rows), height))
        let channels = Int(info.channels)
        var rows = [UInt8](repeating: 0, count: width * band * channels)
        let scaler = try Downscaler(
            sourceWidth: width, sourceHeight: height, channels: channels, targetWidth: target.width,
            targetHeight: target.height)
        var image = try scaler.scale { scaler throws(ThumbnailError) in
            var first = 0
            while first < height {
                let count = min(band, height - first)
                try rows.withUnsafeMutableBufferPointer { out throws(ThumbnailError) in
                    guard let base = out.baseAddress else { return }
                    try document.readRows(from: first, count: count, into: base)
                    scaler.push(rows: base, stride: width * channels, count: count)
                }
                first += count
            }
        }
        image = orientation.apply(to: image)
        var warnings: [String] = []
        // (Another page than the first: the details' count says "page N of M".)
        if info.pages > 1 && request.page == 1 { warnings.append("\(info.pages) pages: the first is the thumbnail") }
        if info.is_cmyk != 0 { warnings.append("CMYK converted to RGB without a profile") }
        let profile = info.is_cmyk != 0 ? nil : document.embeddedProfile(warnings: &warnings)
        let conversion = colour.convert(&image, from: profile, sourceIsGray: info.is_gray != 0, warnings: &warnings)
        if image.hasAlpha, info.has_alpha == 0 || image.isOpaque { image = image.droppingAlpha() }
        var rendered = RenderedThumbnail(
            image: image, sourceWidth: displayed.width, sourceHeight: displayed.height, warnings: warnings,
            colour: conversion)
        rendered.lossySource = info.is_jpeg != 0
        if info.pages > 1 { rendered.details = DocumentDetails(pageCount: Int(info.pages)) }
        return rendered
    }
}

/// An open TIFF: owns libtiff's handle and closes it. Reads through the document's descriptor,
/// which stays the caller's.
final class TIFFDocument {
    private let handle: OpaquePointer

    init(file: OpenFile, maxAllocation: Int) throws(ThumbnailError) {
        var reason = [CChar](repeating: 0, count: 512)
        guard glance_tiff_load(&reason, reason.count) == 1 else {
            throw .unsupportedEncoding(
                format: "TIFF", detail: "libtiff cannot be loaded: \(String(nulTerminated: reason))")
        }
        let size = file.status().map { UInt64($0.st_size) } ?? 0
        guard size > 0 else { throw .empty }
        guard let handle = glance_tiff_open(file.descriptor, size, maxAllocation, &reason, reason.count) else {
            throw Self.failure(String(nulTerminated: reason), size: size)
        }
        self.handle = handle
    }

    deinit { glance_tiff_close(handle) }

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
