internal import CScaler
import GlanceCore

extension PixelBuffer {
    /// The image at half its size, each pixel the mean of a 2x2 block (an odd last row or
    /// column counts twice): `(width + 1) / 2` x `(height + 1) / 2`, what
    /// ``ThumbnailGeometry/fit(width:height:maxSide:allowEnlarging:)`` gives for a box of half
    /// the longest side. For already anti-aliased pixels (a thumbnail made by the Lanczos
    /// scaler) as good as a second Lanczos pass, at a fraction of its cost: see
    /// `Sources/Renderer/CScaler/glance_halve.c`.
    func halved() -> PixelBuffer {
        let halfWidth = (width + 1) / 2
        let halfHeight = (height + 1) / 2
        var target = [UInt8](repeating: 0, count: halfWidth * halfHeight * channels)
        bytes.withUnsafeBufferPointer { source in
            target.withUnsafeMutableBufferPointer { output in
                glance_halve(
                    source.baseAddress!, Int32(width), Int32(height), rowBytes, Int32(channels), output.baseAddress!)
            }
        }
        return PixelBuffer(width: halfWidth, height: halfHeight, channels: channels, bytes: target)
    }
}
