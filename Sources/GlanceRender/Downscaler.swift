internal import CScaler

/// A streaming, high-quality downscaler: source rows go in, in order; the thumbnail comes out.
///
/// Owns the C scaler (block shrink, then Lanczos-3, premultiplied alpha; see
/// `Sources/CScaler/include/glance_scaler.h`). Memory is a few rows of the source's width, so
/// decoders can stream rows into it without holding the whole image.
final class Downscaler {
    private let handle: OpaquePointer
    let sourceWidth: Int
    let sourceHeight: Int
    let targetWidth: Int
    let targetHeight: Int
    let channels: Int

    /// A downscaler from the source size to the target size (the target is clamped to the
    /// source: it never enlarges).
    init(sourceWidth: Int, sourceHeight: Int, channels: Int, targetWidth: Int, targetHeight: Int) throws(ThumbnailError)
    {
        let width = min(targetWidth, sourceWidth)
        let height = min(targetHeight, sourceHeight)
        guard
            let handle = glance_scaler_create(
                Int32(sourceWidth), Int32(sourceHeight), Int32(channels), Int32(width), Int32(height))
        else {
            throw .outOfMemory(
                detail: "cannot allocate a scaler for \(sourceWidth)x\(sourceHeight) to \(width)x\(height)")
        }
        self.handle = handle
        self.sourceWidth = sourceWidth
        self.sourceHeight = sourceHeight
        self.targetWidth = width
        self.targetHeight = height
        self.channels = channels
    }

    deinit { glance_scaler_free(handle) }

    /// Source rows taken so far.
    var rowsPushed: Int { Int(glance_scaler_rows_pushed(handle)) }

    /// The box factors chosen for the first stage.
    var blockFactors: (x: Int, y: Int) {
        var kx: Int32 = 1
        var ky: Int32 = 1
        glance_scaler_block_factors(handle, &kx, &ky)
        return (Int(kx), Int(ky))
    }

    /// Takes `count` rows starting at `rows`, `stride` bytes apart.
    func push(rows: UnsafePointer<UInt8>, stride: Int, count: Int) {
        glance_scaler_push_rows(handle, rows, stride, Int32(count))
    }

    /// Finishes (padding a source that ended early with its last row) and returns the image.
    func finish() -> PixelBuffer {
        let pointer = glance_scaler_finish(handle)!
        let count = targetWidth * targetHeight * channels
        let bytes = [UInt8](UnsafeBufferPointer(start: pointer, count: count))
        return PixelBuffer(width: targetWidth, height: targetHeight, channels: channels, bytes: bytes)
    }

    /// Downscales a whole image held in memory.
    static func downscale(_ image: PixelBuffer, toWidth width: Int, height: Int) throws(ThumbnailError) -> PixelBuffer {
        if width == image.width && height == image.height { return image }
        let scaler = try Downscaler(
            sourceWidth: image.width, sourceHeight: image.height, channels: image.channels,
            targetWidth: width, targetHeight: height)
        image.bytes.withUnsafeBufferPointer { buffer in
            scaler.push(rows: buffer.baseAddress!, stride: image.rowBytes, count: image.height)
        }
        return scaler.finish()
    }
}
