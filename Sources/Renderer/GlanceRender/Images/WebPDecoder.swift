internal import CLibraryLoader
import CWebP
import GlanceCore

/// Decodes WebP images through libwebp for the ``RasterPipeline``: lossy, lossless and with
/// alpha, decoded straight to the thumbnail's size (libwebp scales while it decodes, so a
/// 4000-pixel WebP never exists whole in memory), and an animation's first frame composed on its
/// canvas (libwebpdemux's animation decoder; the canvas is held to the pixel limit). Its ICC
/// profile and EXIF orientation go to the pipeline, as a JPEG's do (as vipsthumbnail does).
///
/// A lossy WebP's thumbnail is a JPEG when opaque (as a photo's), a lossless one's a PNG.
final class WebPDecoder: RasterDecoder {
    let header: RasterHeader
    private(set) var warnings: [String] = []

    private let data: [UInt8]
    private let isAnimation: Bool
    private let hasAlpha: Bool

    init(_ request: RenderRequest, type: ContentType, colourTransforms: ColourTransformCache) throws(ThumbnailError) {
        data = try FileReader.readWhole(of: request.file)
        var width: Int32 = 0
        var height: Int32 = 0
        var hasAlpha: Int32 = 0
        var isAnimation: Int32 = 0
        var isLossy: Int32 = 0
        let status = data.withUnsafeBufferPointer { bytes in
            glance_webp_info(bytes.baseAddress, bytes.count, &width, &height, &hasAlpha, &isAnimation, &isLossy)
        }
        guard status == 0, width > 0, height > 0 else { throw Self.failure(status) }
        self.isAnimation = isAnimation != 0
        self.hasAlpha = hasAlpha != 0
        let metadata = Self.metadata(of: data)
        var warnings: [String] = []
        let profile = Self.colourProfile(metadata.icc, warnings: &warnings)
        if isAnimation != 0 { warnings.append("an animation: its first frame is the thumbnail") }
        self.warnings = warnings
        header = RasterHeader(
            size: PixelSize(width: Int(width), height: Int(height)), orientation: Self.orientation(of: metadata.exif),
            profile: profile, isLossy: isLossy != 0)
    }

    /// A still image is decoded at the thumbnail's size; an animation's frame on its whole canvas.
    /// Either is held to the limit at the whole size: libwebp works on the whole image.
    func plan(for target: PixelSize) -> RasterPlan {
        RasterPlan(
            size: isAnimation ? header.size : target, limitedPixels: header.size.width * header.size.height)
    }

    func start(_ plan: RasterPlan) throws(ThumbnailError) -> RasterRows {
        RasterRows(size: plan.size, channels: isAnimation || hasAlpha ? 4 : 3, streamed: false)
    }

    func read(into rows: Downscaler) throws(ThumbnailError) {
        let (width, height, channels) = (rows.sourceWidth, rows.sourceHeight, rows.channels)
        var pixels = [UInt8](repeating: 0, count: width * height * channels)
        let status = data.withUnsafeBufferPointer { bytes in
            pixels.withUnsafeMutableBufferPointer { out in
                isAnimation
                    ? glance_webp_decode_first_frame(bytes.baseAddress, bytes.count, out.baseAddress, out.count)
                    : glance_webp_decode_scaled(
                        bytes.baseAddress, bytes.count, Int32(width), Int32(height), Int32(channels),
                        out.baseAddress, width * channels)
            }
        }
        guard status == 0 else {
            if isAnimation { throw .corrupt(format: "WebP", detail: "its first frame cannot be decoded") }
            throw Self.failure(status)
        }
        pixels.withUnsafeBufferPointer { rows.push(rows: $0.baseAddress!, stride: width * channels, count: height) }
    }

    /// The file's ICC profile and EXIF payload, as slices of `data` (empty when it has none).
    private static func metadata(of data: [UInt8]) -> (icc: ArraySlice<UInt8>, exif: ArraySlice<UInt8>) {
        var (iccOffset, iccLength, exifOffset, exifLength) = (0, 0, 0, 0)
        let status = data.withUnsafeBufferPointer { bytes in
            glance_webp_metadata(bytes.baseAddress, bytes.count, &iccOffset, &iccLength, &exifOffset, &exifLength)
        }
        guard status == 0 else { return ([], []) }
        func slice(_ offset: Int, _ length: Int) -> ArraySlice<UInt8> {
            offset >= 0 && length >= 0 && offset + length <= data.count ? data[offset..<(offset + length)] : []
        }
        return (slice(iccOffset, iccLength), slice(exifOffset, exifLength))
    }

    /// The orientation an EXIF payload gives (``ExifOrientation/up`` for none, or one that cannot
    /// be read).
    private static func orientation(of exif: ArraySlice<UInt8>) -> ExifOrientation {
        // Some writers keep the JPEG segment's `Exif\0\0` before the TIFF header.
        let payload = exif.starts(with: Array("Exif".utf8) + [0, 0]) ? exif.dropFirst(6) : exif
        return payload.withUnsafeBufferPointer { ExifOrientation(exifPayload: $0) }
    }

    /// The colour profile an ICC payload gives, or nil (one that cannot be read is a warning).
    private static func colourProfile(_ icc: ArraySlice<UInt8>, warnings: inout [String]) -> ColourProfile? {
        guard !icc.isEmpty else { return nil }
        do throws(ColourProfileError) {
            return try ColourProfile(bytes: Array(icc), fallbackName: "embedded ICC profile")
        } catch {
            warnings.append(error.warning)
            return nil
        }
    }

    /// The error for libwebp's status `code` (a VP8StatusCode), through the shims' one list.
    static func failure(_ code: Int32) -> ThumbnailError {
        var reason = [CChar](repeating: 0, count: 128)
        let failure = glance_webp_failure(code, &reason, reason.count)
        return ThumbnailError(failure, reason: String(nulTerminated: reason), format: "WebP")
    }
}
