import GlanceCore

extension Downscaler {
    /// Gives the pipeline `height` rows of `width` pixels of `channels` (3 or 4) bytes, top to
    /// bottom, each made by `fill(y, row)`, in batches of about a MiB: the picture never exists
    /// whole, whatever its size. For the readers that make their rows one at a time (PCX, SGI,
    /// Sun raster, X window dumps, DDS, FITS, WBMP).
    func pushRows(
        width: Int, height: Int, channels: Int,
        _ fill: (Int, UnsafeMutableBufferPointer<UInt8>) throws(ThumbnailError) -> Void
    ) throws(ThumbnailError) {
        let stride = width * channels
        let batch = max(1, min(height, (1 << 20) / max(1, stride)))
        var out = [UInt8](repeating: 0, count: stride * batch)
        var row = 0
        while row < height {
            let count = min(batch, height - row)
            try out.withUnsafeMutableBufferPointer { (buffer) throws(ThumbnailError) in
                for index in 0..<count {
                    try fill(
                        row + index,
                        UnsafeMutableBufferPointer(rebasing: buffer[(index * stride)..<((index + 1) * stride)]))
                }
                push(rows: UnsafePointer(buffer.baseAddress!), stride: stride, count: count)
            }
            row += count
        }
    }
}
