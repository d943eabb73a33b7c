import GlanceCore

/// Makes a thumbnail's extra renditions (``Rendition``) from its own pixels: each an 8-bit,
/// non-interlaced RGBA PNG that fits a smaller box, as the freedesktop.org cache stores them.
///
/// Every rendition is scaled from the thumbnail itself (the same Lanczos scaler as the render),
/// never from the document again: one decode, every size.
public enum RenditionMaker {
    /// The renditions of `image` that fit each of `sides`, in that order, compressed as suits
    /// `content`. A side larger than the image keeps the image's size (never enlarged).
    public static func renditions(of image: PixelBuffer, fitting sides: [Int], content: PNGContent)
        throws(ThumbnailError) -> [Rendition]
    {
        guard !sides.isEmpty else { return [] }
        let rgba = image.withOpaqueAlpha()
        var made: [Rendition] = []
        for side in sides {
            let scaled = try fit(rgba, into: side)
            let data = try ImageEncoder.encodePNG(scaled, content: content)
            made.append(Rendition(side: side, width: scaled.width, height: scaled.height, data: data))
        }
        return made
    }

    /// `image` scaled to fit a `side`-pixel box (or as it is when it fits already).
    static func fit(_ image: PixelBuffer, into side: Int) throws(ThumbnailError) -> PixelBuffer {
        let target = ThumbnailGeometry.fit(width: image.width, height: image.height, maxSide: side)
        guard target.width < image.width || target.height < image.height else { return image }
        let scaler = try Downscaler(
            sourceWidth: image.width, sourceHeight: image.height, channels: image.channels,
            targetWidth: target.width, targetHeight: target.height)
        return try scaler.scale { scaler throws(ThumbnailError) in
            image.bytes.withUnsafeBufferPointer { pixels in
                scaler.push(rows: pixels.baseAddress!, stride: image.rowBytes, count: image.height)
            }
        }
    }
}

extension PixelBuffer {
    /// The same pixels with four channels: an opaque alpha channel added to RGB.
    public func withOpaqueAlpha() -> PixelBuffer {
        guard channels == 3 else { return self }
        var rgba = [UInt8](repeating: 255, count: width * height * 4)
        bytes.withUnsafeBufferPointer { source in
            rgba.withUnsafeMutableBufferPointer { target in
                for pixel in 0..<(width * height) {
                    target[4 * pixel] = source[3 * pixel]
                    target[4 * pixel + 1] = source[3 * pixel + 1]
                    target[4 * pixel + 2] = source[3 * pixel + 2]
                }
            }
        }
        return PixelBuffer(width: width, height: height, channels: 4, bytes: rgba)
    }
}
