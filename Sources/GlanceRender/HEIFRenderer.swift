import CHEIF
import GlanceCore

/// Renders HEIC/HEIF and AVIF images through libheif (loaded on the first such file): the primary
/// image, with its rotation, mirroring and crop (`irot`, `imir`, `clap`) applied by libheif, its
/// alpha kept, and its colour brought into sRGB from its ICC profile or from its nclx primaries.
/// The pixel limit is checked from the image's header before decoding.
///
/// When the file holds a thumbnail image at least as large as the thumbnail asked for, that is
/// decoded instead of the primary image: libheif offers no decode-time scaling (neither HEVC nor
/// AV1 has one), so a 12-megapixel photo is decoded whole otherwise. Phones store a small
/// thumbnail (about 320 pixels), which serves the smaller sizes only.
public struct HEIFRenderer: DocumentRenderer {
    public let contentType: ContentType

    private let colour: SRGBConversion

    /// A renderer for `contentType` (`.heic` or `.avif`; libheif reads both) that keeps its colour
    /// transforms in `colourTransforms`.
    public init(_ contentType: ContentType, colourTransforms: ColourTransformCache = ColourTransformCache()) {
        self.contentType = contentType
        colour = SRGBConversion(transforms: colourTransforms)
    }

    public func render(_ request: RenderRequest) throws(ThumbnailError) -> RenderedThumbnail {
        let format = contentType.displayName
        let document = try HEIFDocument(file: request.file, format: format)
        let info = document.info
        let (width, height) = (Int(info.width), Int(info.height))
        guard width > 0, height > 0 else { throw .corrupt(format: format, detail: "the image has no size") }
        if width * height > request.maxPixels {
            throw .tooLarge(width: width, height: height, limitPixels: request.maxPixels)
        }
        var target = ThumbnailGeometry.fit(width: width, height: height, maxSide: request.maxSide)
        var warnings: [String] = []
        let useThumbnail = Self.thumbnailServes(info, target: target, width: width, height: height)
        if useThumbnail {
            // Its shorter side may be a pixel short of this rounding of the proportions (heif-enc
            // rounds down): the thumbnail's own size then, never enlarged.
            target = ThumbnailGeometry.fit(
                width: Int(info.thumbnail_width), height: Int(info.thumbnail_height),
                maxSide: max(target.width, target.height))
        }
        let decoded = try document.decode(thumbnail: useThumbnail)
        if useThumbnail {
            warnings.append("drawn from the file's own \(decoded.width)x\(decoded.height) thumbnail")
        } else if decoded.width != width || decoded.height != height {
            // The header said one size and the decoder gave another: fit what there is.
            target = ThumbnailGeometry.fit(width: decoded.width, height: decoded.height, maxSide: request.maxSide)
        }
        var image: PixelBuffer
        if decoded.width == target.width && decoded.height == target.height {
            var bytes = [UInt8](repeating: 0, count: decoded.width * decoded.height * decoded.channels)
            bytes.withUnsafeMutableBufferPointer { out in
                if let base = out.baseAddress { document.readRows(from: 0, count: decoded.height, into: base) }
            }
            image = PixelBuffer(width: target.width, height: target.height, channels: decoded.channels, bytes: bytes)
        } else {
            let scaler = try Downscaler(
                sourceWidth: decoded.width, sourceHeight: decoded.height, channels: decoded.channels,
                targetWidth: target.width, targetHeight: target.height)
            // The planes interleaved a band at a time, into a buffer that stays in the cache.
            let band = 16
            var rows = [UInt8](repeating: 0, count: decoded.width * band * decoded.channels)
            image = try scaler.scale { scaler throws(ThumbnailError) in
                rows.withUnsafeMutableBufferPointer { out in
                    guard let base = out.baseAddress else { return }
                    var first = 0
                    while first < decoded.height {
                        let count = min(band, decoded.height - first)
                        document.readRows(from: first, count: count, into: base)
                        scaler.push(rows: base, stride: decoded.width * decoded.channels, count: count)
                        first += count
                    }
                }
            }
        }
        let profile = document.colourProfile(warnings: &warnings)
        let conversion = colour.convert(&image, from: profile, sourceIsGray: false, warnings: &warnings)
        if image.hasAlpha, image.isOpaque { image = image.droppingAlpha() }
        var rendered = RenderedThumbnail(
            image: image, sourceWidth: width, sourceHeight: height, warnings: warnings, colour: conversion)
        rendered.lossySource = true
        return rendered
    }

    /// Whether the file's own thumbnail is at least the size asked for, in the primary image's
    /// proportions: its longer side at least the target's, its shorter side at most a pixel short
    /// (encoders round it down) and within a pixel and a half of the proportions, so that drawing
    /// from it loses nothing.
    static func thumbnailServes(
        _ info: glance_heif_info, target: (width: Int, height: Int), width: Int, height: Int
    ) -> Bool {
        let (thumbnailWidth, thumbnailHeight) = (Int(info.thumbnail_width), Int(info.thumbnail_height))
        guard thumbnailWidth > 0, thumbnailHeight > 0,
            max(thumbnailWidth, thumbnailHeight) >= max(target.width, target.height),
            thumbnailWidth >= target.width - 1, thumbnailHeight >= target.height - 1
        else { return false }
        let expectedHeight = Double(thumbnailWidth) * Double(height) / Double(width)
        return abs(expectedHeight - Double(thumbnailHeight)) <= 1.5
    }
}

/// An open HEIF file: owns libheif's context, image handles and decoded pixels, and frees them.
final class HEIFDocument {
    private let handle: OpaquePointer
    private let format: String
    /// The primary image's description.
    let info: glance_heif_info

    /// The size and channels (3: RGB, 4: RGBA) of what was decoded.
    struct Decoded {
        let width: Int
        let height: Int
        let channels: Int
    }

    /// Opens `file`, read once by the shim into the buffer libheif parses.
    init(file: OpenFile, format: String) throws(ThumbnailError) {
        self.format = format
        let size = file.status().map { Int($0.st_size) } ?? 0
        guard size > 0 else { throw .empty }
        var reason = [CChar](repeating: 0, count: 512)
        guard glance_heif_load(&reason, reason.count) == 1 else {
            throw .unsupportedEncoding(
                format: format, detail: "libheif cannot be loaded: \(String(nulTerminated: reason))")
        }
        var failure = GLANCE_HEIF_CORRUPT
        guard let opened = glance_heif_open(file.descriptor, size, &reason, reason.count, &failure) else {
            switch failure {
            case GLANCE_HEIF_TRUNCATED: throw .truncated(format: format)
            case GLANCE_HEIF_UNREADABLE: throw .unreadable(reason: String(nulTerminated: reason))
            default: throw .corrupt(format: format, detail: String(nulTerminated: reason))
            }
        }
        handle = opened
        var info = glance_heif_info()
        glance_heif_describe(opened, &info)
        self.info = info
    }

    deinit { glance_heif_close(handle) }

    /// Decodes the primary image, or its largest thumbnail, to 8-bit RGB or RGBA planes.
    func decode(thumbnail: Bool) throws(ThumbnailError) -> Decoded {
        var (width, height, channels): (Int32, Int32, Int32) = (0, 0, 0)
        var reason = [CChar](repeating: 0, count: 512)
        guard
            glance_heif_decode(handle, thumbnail ? 1 : 0, &width, &height, &channels, &reason, reason.count) == 1
        else {
            let text = String(nulTerminated: reason)
            if text.lowercased().contains("end of data") { throw .truncated(format: format) }
            throw .corrupt(format: format, detail: text)
        }
        return Decoded(width: Int(width), height: Int(height), channels: Int(channels))
    }

    /// Interleaves `count` decoded rows from `first` into `out`.
    func readRows(from first: Int, count: Int, into out: UnsafeMutablePointer<UInt8>) {
        glance_heif_read_rows(handle, Int32(first), Int32(count), out)
    }

    /// The primary image's colour: its ICC profile, else a profile made from its nclx primaries
    /// when they are not sRGB's (BT.709) or unspecified; nil for sRGB. One that cannot be used
    /// is a warning.
    func colourProfile(warnings: inout [String]) -> ColourProfile? {
        do throws(ColourProfileError) {
            let length = glance_heif_icc_profile(handle, nil, 0)
            if length > 0, length < 16 << 20 {
                var bytes = [UInt8](repeating: 0, count: length)
                guard glance_heif_icc_profile(handle, &bytes, bytes.count) == length else { return nil }
                return try ColourProfile(bytes: bytes, fallbackName: "embedded ICC profile")
            }
            var primaries: Int32 = 0
            var transfer: Int32 = 0
            var chromaticities = [Double](repeating: 0, count: 8)
            guard glance_heif_nclx(handle, &primaries, &transfer, &chromaticities) == 1, primaries != 1, primaries != 2
            else { return nil }
            let name =
                primaries == 12
                ? "Display P3 (nclx)" : primaries == 9 ? "BT.2020 (nclx)" : "nclx primaries \(primaries)"
            return try ColourProfile.fromPrimaries(chromaticities, name: name)
        } catch {
            warnings.append(error.warning)
            return nil
        }
    }

}
