import CWebP
import GlanceCore

/// Renders WebP images through libwebp: lossy, lossless and with alpha, decoded straight to the
/// thumbnail's size (libwebp scales while it decodes, so a 4000-pixel WebP never exists whole in
/// memory), and an animation's first frame composed on its canvas (libwebpdemux's animation
/// decoder; the canvas is held to the pixel limit). An embedded ICC profile brings the thumbnail
/// into sRGB, as for PNG and JPEG.
///
/// A lossy WebP's thumbnail is a JPEG when opaque (as a photo's), a lossless one's a PNG. Its EXIF
/// orientation is applied, as a JPEG's is (as vipsthumbnail does).
public struct WebPRenderer: DocumentRenderer {
    public var contentType: ContentType { .webp }

    private let colour: SRGBConversion

    /// A renderer that keeps its colour transforms in `colourTransforms`.
    public init(colourTransforms: ColourTransformCache = ColourTransformCache()) {
        colour = SRGBConversion(transforms: colourTransforms)
    }

    public func render(_ request: RenderRequest) throws(ThumbnailError) -> RenderedThumbnail {
        let data = try FileReader.readWhole(of: request.file)
        var width: Int32 = 0
        var height: Int32 = 0
        var hasAlpha: Int32 = 0
        var isAnimation: Int32 = 0
        var isLossy: Int32 = 0
        let status = data.withUnsafeBufferPointer { bytes in
            glance_webp_info(bytes.baseAddress, bytes.count, &width, &height, &hasAlpha, &isAnimation, &isLossy)
        }
        guard status == 0, width > 0, height > 0 else { throw Self.failure(status) }
        let (sourceWidth, sourceHeight) = (Int(width), Int(height))
        if sourceWidth * sourceHeight > request.maxPixels {
            throw .tooLarge(width: sourceWidth, height: sourceHeight, limitPixels: request.maxPixels)
        }
        // Upright by its EXIF orientation, as a JPEG is: the target in stored orientation, the
        // turn applied to the small result.
        let metadata = Self.metadata(of: data)
        let orientation = Self.orientation(of: metadata.exif)
        let (displayed, target) = ThumbnailGeometry.fit(
            storedWidth: sourceWidth, storedHeight: sourceHeight, turnedBy: orientation, maxSide: request.maxSide)
        var warnings: [String] = []
        var image: PixelBuffer
        if isAnimation != 0 {
            image = try Self.firstFrame(data, width: sourceWidth, height: sourceHeight, target: target)
            warnings.append("an animation: its first frame is the thumbnail")
        } else {
            let channels = hasAlpha != 0 ? 4 : 3
            var pixels = [UInt8](repeating: 0, count: target.width * target.height * channels)
            let decoded = data.withUnsafeBufferPointer { bytes in
                pixels.withUnsafeMutableBufferPointer { out in
                    glance_webp_decode_scaled(
                        bytes.baseAddress, bytes.count, Int32(target.width), Int32(target.height), Int32(channels),
                        out.baseAddress, target.width * channels)
                }
            }
            guard decoded == 0 else { throw Self.failure(decoded) }
            image = PixelBuffer(width: target.width, height: target.height, channels: channels, bytes: pixels)
        }
        if orientation != .up { image = orientation.apply(to: image) }
        let profile = Self.colourProfile(metadata.icc, warnings: &warnings)
        let conversion = colour.convert(&image, from: profile, sourceIsGray: false, warnings: &warnings)
        if image.hasAlpha, image.isOpaque { image = image.droppingAlpha() }
        var rendered = RenderedThumbnail(
            image: image, sourceWidth: displayed.width, sourceHeight: displayed.height, warnings: warnings,
            colour: conversion)
        rendered.lossySource = isLossy != 0
        return rendered
    }

    /// An animation's first frame, composed on its canvas, scaled to `target`.
    private static func firstFrame(_ data: [UInt8], width: Int, height: Int, target: (width: Int, height: Int))
        throws(ThumbnailError) -> PixelBuffer
    {
        var canvas = [UInt8](repeating: 0, count: width * height * 4)
        let decoded = data.withUnsafeBufferPointer { bytes in
            canvas.withUnsafeMutableBufferPointer { out in
                glance_webp_decode_first_frame(bytes.baseAddress, bytes.count, out.baseAddress, out.count)
            }
        }
        guard decoded == 0 else {
            throw ThumbnailError.corrupt(format: "WebP", detail: "its first frame cannot be decoded")
        }
        let scaler = try Downscaler(
            sourceWidth: width, sourceHeight: height, channels: 4, targetWidth: target.width,
            targetHeight: target.height)
        return try scaler.scale { scaler throws(ThumbnailError) in
            canvas.withUnsafeBufferPointer { rows in
                if let base = rows.baseAddress { scaler.push(rows: base, stride: width * 4, count: height) }
            }
        }
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

    /// The error for libwebp's status `code` (a VP8StatusCode).
    static func failure(_ code: Int32) -> ThumbnailError {
        switch code {
        case 1: .outOfMemory(detail: "libwebp could not allocate memory")
        case 4: .unsupportedEncoding(format: "WebP", detail: "a feature libwebp does not support")
        case 7: .truncated(format: "WebP")
        default: .corrupt(format: "WebP", detail: "libwebp status \(code)")
        }
    }
}
