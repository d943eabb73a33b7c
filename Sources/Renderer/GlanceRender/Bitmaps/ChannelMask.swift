/// Where a colour channel sits in a packed pixel, as X window dumps and DDS textures name it:
/// a mask of its bits. Its value is scaled to 8 bits (a narrower one stretched to 255, a wider
/// one's top 8 bits kept).
struct ChannelMask {
    private let mask: Int
    private let shift: Int
    private let width: Int

    /// The channel under `mask` (0: the pixel has no such channel).
    init(_ mask: Int) {
        self.mask = mask
        shift = mask == 0 ? 0 : mask.trailingZeroBitCount
        // The ones above its lowest set bit.
        width = mask == 0 ? 0 : (~(mask >> mask.trailingZeroBitCount)).trailingZeroBitCount
    }

    /// The channel's value in `pixel` as 8 bits; `absent` when the pixel has no such channel. A
    /// mask with a gap in its ones (which no writer makes) is read as its lowest run of ones.
    @inline(__always)
    func value(in pixel: Int, absent: UInt8) -> UInt8 {
        let value = (pixel & mask) >> shift & ((1 << width) - 1)
        switch width {
        case 0: return absent
        case 8: return UInt8(truncatingIfNeeded: value)
        case ..<8: return UInt8(value * 255 / ((1 << width) - 1))
        default: return UInt8(truncatingIfNeeded: value >> (width - 8))
        }
    }
}
