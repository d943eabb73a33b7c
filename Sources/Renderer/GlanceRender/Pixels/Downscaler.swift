internal import CScaler
import GlanceCore

/// A streaming, high-quality downscaler: source rows go in, in order; the thumbnail comes out.
///
/// Owns the C scaler (block shrink, then Lanczos-3, premultiplied alpha; see
/// `Sources/Renderer/CScaler/include/glance_scaler.h`). Memory is a few rows of the source's width, so
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

    /// Takes every source row, 16 at a time, from `fill(first, count, out)`, which writes rows
    /// `first ..< first + count` into `out` (interleaved, `channels` bytes a pixel): for a decoder
    /// whose library holds the whole image and gives it a band at a time, through one buffer that
    /// stays in the cache.
    func pushInBands(_ fill: (_ first: Int, _ count: Int, _ out: UnsafeMutablePointer<UInt8>) -> Void) {
        let band = 16
        let stride = sourceWidth * channels
        var buffer = [UInt8](repeating: 0, count: stride * band)
        buffer.withUnsafeMutableBufferPointer { out in
            guard let base = out.baseAddress else { return }
            var first = 0
            while first < sourceHeight {
                let count = min(band, sourceHeight - first)
                fill(first, count, base)
                push(rows: base, stride: stride, count: count)
                first += count
            }
        }
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

    /// Makes the thumbnail row by row: `feed` pushes the source's rows, and `sink` receives each
    /// target row (its `y`, from 0) as soon as it is made, to change in place and pass on. No
    /// buffer of the whole thumbnail exists.
    func stream(
        rowsTo sink: (UnsafeMutablePointer<UInt8>, Int) -> Void,
        feed: (Downscaler) throws(ThumbnailError) -> Void
    ) throws(ThumbnailError) {
        var failure: ThumbnailError?
        withoutActuallyEscaping(sink) { escapable in
            let box = RowSink(escapable)
            let context = Unmanaged.passUnretained(box).toOpaque()
            let installed = glance_scaler_set_row_sink(
                handle,
                { context, row, y in
                    guard let context, let row else { return }
                    Unmanaged<RowSink>.fromOpaque(context).takeUnretainedValue().receive(row, Int(y))
                }, context)
            guard installed != 0 else {
                failure = .outOfMemory(detail: "cannot allocate a row of \(targetWidth) pixels")
                return
            }
            defer { glance_scaler_set_row_sink(handle, nil, nil) }
            do throws(ThumbnailError) {
                try feed(self)
                glance_scaler_finish(handle)
            } catch {
                failure = error
            }
            withExtendedLifetime(box) {}
        }
        if let failure { throw failure }
    }
}

/// The Swift side of a C row sink: the closure a C callback reaches through its context pointer.
private final class RowSink {
    let receive: (UnsafeMutablePointer<UInt8>, Int) -> Void
    init(_ receive: @escaping (UnsafeMutablePointer<UInt8>, Int) -> Void) { self.receive = receive }
}
