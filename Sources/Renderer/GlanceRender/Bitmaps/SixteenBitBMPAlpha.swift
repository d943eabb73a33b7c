import GlanceCore

/// The alpha of a 16-bit BMP whose header names an alpha mask (ARGB4444, ARGB1555: game and
/// texture tools write them), which gdk-pixbuf's BMP loader leaves out: it draws such a bitmap
/// opaque, its clear pixels black. ``PixbufDecoder`` takes the colour from gdk-pixbuf and the
/// alpha from here, read through the mask (``ChannelMask``) from the stored pixels.
struct SixteenBitBMPAlpha {
    private let data: [UInt8]
    private let mask: ChannelMask
    private let pixelsStart: Int
    private let rowBytes: Int
    private let width: Int
    private let height: Int
    private let topDown: Bool

    /// The alpha of `data`, a whole BMP, when it is 16-bit with bit fields (`BI_BITFIELDS`,
    /// `BI_ALPHABITFIELDS`) and its header names an alpha mask (a V3 header or later, or the
    /// fourth mask after a V1 header); nil otherwise, or when its pixels are not all there.
    init?(_ data: [UInt8]) {
        guard data.count >= 70, data[0] == 0x42, data[1] == 0x4D else { return nil }
        let headerSize = data.littleEndian(at: 14, count: 4)
        let (depth, compression) = (data.littleEndian(at: 28, count: 2), data.littleEndian(at: 30, count: 4))
        guard headerSize >= 40, depth == 16, compression == 3 || compression == 6,
            headerSize >= 56 || compression == 6
        else { return nil }
        // The masks follow the first 40 bytes of the header, red, green, blue, then alpha.
        let alphaMask = data.littleEndian(at: 14 + 40 + 12, count: 4) & 0xFFFF
        guard alphaMask != 0 else { return nil }
        let signedHeight = Int(Int32(truncatingIfNeeded: data.littleEndian(at: 22, count: 4)))
        let width = data.littleEndian(at: 18, count: 4)
        let rowBytes = (width * 16 + 31) / 32 * 4
        let pixelsStart = data.littleEndian(at: 10, count: 4)
        let (stored, overflow) = rowBytes.multipliedReportingOverflow(by: abs(signedHeight))
        guard width > 0, signedHeight != 0, pixelsStart > 0, !overflow, pixelsStart <= data.count,
            data.count - pixelsStart >= stored
        else { return nil }
        (self.data, mask, self.pixelsStart, self.rowBytes) = (data, ChannelMask(alphaMask), pixelsStart, rowBytes)
        (self.width, height, topDown) = (width, abs(signedHeight), signedHeight < 0)
    }

    /// The size the header gives.
    var size: PixelSize { PixelSize(width: width, height: height) }

    /// `rgb` (3 bytes a pixel, `stride` bytes a row, top row first, ``size`` as the header says)
    /// with this alpha, as RGBA rows packed.
    func rgba(from rgb: UnsafePointer<UInt8>, channels: Int, stride: Int) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: width * height * 4)
        for y in 0..<height {
            let stored = pixelsStart + (topDown ? y : height - 1 - y) * rowBytes
            for x in 0..<width {
                let source = y * stride + x * channels
                let target = (y * width + x) * 4
                (out[target], out[target + 1], out[target + 2]) = (rgb[source], rgb[source + 1], rgb[source + 2])
                out[target + 3] = mask.value(in: data.littleEndian(at: stored + 2 * x, count: 2), absent: 255)
            }
        }
        return out
    }
}
