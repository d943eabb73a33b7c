internal import CScaler
import GlanceCore

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

    /// Takes `count` rows starting at `rows`, `stride` bytes apart.
    func push(rows: UnsafePointer<UInt8>, stride: Int, count: Int) {
        glance_scaler_push_rows(handle, rows, stride, Int32(count))
    }

    /// Makes the thumbnail: `feed` pushes the source's rows (in order, in batches), and the
    /// scaler writes its result straight into the returned image's storage, so the thumbnail
    /// exists once in memory, never as a C buffer and a Swift copy. A source that ends early is
    /// padded with its last row.
    func scale(_ feed: (Downscaler) throws(ThumbnailError) -> Void) throws(ThumbnailError) -> PixelBuffer {
        let count = targetWidth * targetHeight * channels
        var failure: ThumbnailError?
        let bytes = [UInt8](unsafeUninitializedCapacity: count) { buffer, initialized in
            glance_scaler_set_target(handle, buffer.baseAddress)
            defer { glance_scaler_set_target(handle, nil) }
            do throws(ThumbnailError) {
                try feed(self)
                glance_scaler_finish(handle)
                initialized = count
            } catch {
                failure = error
                initialized = 0
            }
        }
        if let failure { throw failure }
        return PixelBuffer(width: targetWidth, height: targetHeight, channels: channels, bytes: bytes)
    }
}
