/// The EXIF orientation of a photo: how the stored pixels must be turned to display upright.
///
/// Values 1-8 as in the EXIF/TIFF standard; 0, missing or out-of-range values mean 1.
public enum ExifOrientation: Int, Sendable, CaseIterable {
    case up = 1
    case upMirrored = 2
    case down = 3
    case downMirrored = 4
    case leftMirrored = 5
    case right = 6
    case rightMirrored = 7
    case left = 8

    /// Whether displaying the image swaps its width and height (orientations 5-8).
    public var swapsAxes: Bool { rawValue >= 5 }

    /// Reads the Orientation tag (0x0112) from IFD0 of an EXIF payload (the bytes after
    /// `Exif\0\0`: a TIFF header, either byte order). Anything unreadable means ``up``.
    public init(exifPayload bytes: UnsafeBufferPointer<UInt8>) {
        self = .up
        guard bytes.count >= 8 else { return }
        let littleEndian: Bool
        switch (bytes[0], bytes[1]) {
        case (0x49, 0x49): littleEndian = true
        case (0x4D, 0x4D): littleEndian = false
        default: return
        }
        func u16(_ offset: Int) -> Int? {
            guard offset >= 0, offset + 2 <= bytes.count else { return nil }
            let a = Int(bytes[offset]), b = Int(bytes[offset + 1])
            return littleEndian ? a | b << 8 : a << 8 | b
        }
        func u32(_ offset: Int) -> Int? {
            guard let low = u16(littleEndian ? offset : offset + 2),
                let high = u16(littleEndian ? offset + 2 : offset)
            else { return nil }
            return high << 16 | low
        }
        guard u16(2) == 42, let ifd = u32(4), let entries = u16(ifd) else { return }
        for index in 0..<min(entries, 512) {
            let entry = ifd + 2 + index * 12
            guard let tag = u16(entry) else { return }
            if tag == 0x0112 {
                // SHORT, count 1: the value sits in the first two bytes of the value field.
                if let value = u16(entry + 8), let orientation = ExifOrientation(rawValue: value) {
                    self = orientation
                }
                return
            }
        }
    }

    /// Turns `image` so that it displays upright.
    public func apply(to image: PixelBuffer) -> PixelBuffer {
        if self == .up { return image }
        let (w, h, c) = (image.width, image.height, image.channels)
        let outWidth = swapsAxes ? h : w
        let outHeight = swapsAxes ? w : h
        var output = [UInt8](repeating: 0, count: image.bytes.count)
        image.bytes.withUnsafeBufferPointer { source in
            output.withUnsafeMutableBufferPointer { target in
                for y in 0..<outHeight {
                    for x in 0..<outWidth {
                        // (sx, sy): where the displayed pixel (x, y) is stored.
                        let (sx, sy): (Int, Int)
                        switch self {
                        case .up: (sx, sy) = (x, y)
                        case .upMirrored: (sx, sy) = (w - 1 - x, y)
                        case .down: (sx, sy) = (w - 1 - x, h - 1 - y)
                        case .downMirrored: (sx, sy) = (x, h - 1 - y)
                        case .leftMirrored: (sx, sy) = (y, x)
                        case .right: (sx, sy) = (y, h - 1 - x)
                        case .rightMirrored: (sx, sy) = (w - 1 - y, h - 1 - x)
                        case .left: (sx, sy) = (w - 1 - y, x)
                        }
                        let from = (sy * w + sx) * c
                        let to = (y * outWidth + x) * c
                        for channel in 0..<c { target[to + channel] = source[from + channel] }
                    }
                }
            }
        }
        return PixelBuffer(width: outWidth, height: outHeight, channels: c, bytes: output)
    }
}
