import GlanceCore

/// An 8-bit sRGB image in memory: RGB (3 bytes a pixel), RGBA with straight alpha (4 bytes), or
/// gray (1 byte: a text page, whose smaller sizes are made and encoded without a third of the
/// bytes tripled into RGB).
///
/// A plain value, safe to send between tasks; the renderers produce it and the encoders take it.
public struct PixelBuffer: Sendable, Equatable {
    public let width: Int
    public let height: Int
    /// 3 for RGB, 4 for RGBA, 1 for gray.
    public let channels: Int
    /// Rows of `width * channels` bytes, top to bottom, no padding.
    public var bytes: [UInt8]

    public init(width: Int, height: Int, channels: Int, bytes: [UInt8]) {
        precondition(channels == 1 || channels == 3 || channels == 4, "PixelBuffer holds gray, RGB or RGBA")
        precondition(bytes.count == width * height * channels, "PixelBuffer byte count mismatch")
        self.width = width
        self.height = height
        self.channels = channels
        self.bytes = bytes
    }

    /// Whether the image has an alpha channel.
    public var hasAlpha: Bool { channels == 4 }

    /// Bytes in one row.
    public var rowBytes: Int { width * channels }

    /// The pixel at (`x`, `y`) as RGBA (alpha 255 for RGB and gray images).
    public func pixel(x: Int, y: Int) -> (r: UInt8, g: UInt8, b: UInt8, a: UInt8) {
        let i = (y * width + x) * channels
        if channels == 1 { return (bytes[i], bytes[i], bytes[i], 255) }
        return (bytes[i], bytes[i + 1], bytes[i + 2], channels == 4 ? bytes[i + 3] : 255)
    }

    /// The image's average colour over white, as `#rrggbb`: the placeholder a page shows while
    /// the thumbnail itself loads. Every fourth row and column is enough for a mean.
    public var averageColour: String {
        var average = AverageColour(channels: channels)
        bytes.withUnsafeBufferPointer { buffer in
            guard let base = buffer.baseAddress else { return }
            for y in stride(from: 0, to: height, by: 4) {
                average.add(row: base + y * rowBytes, width: width, y: y)
            }
        }
        return average.text
    }

    /// Whether every pixel is fully opaque (true for RGB images).
    public var isOpaque: Bool {
        guard channels == 4 else { return true }
        return bytes.withUnsafeBufferPointer { buffer in
            var index = 3
            while index < buffer.count {
                if buffer[index] != 255 { return false }
                index += 4
            }
            return true
        }
    }

    /// The same pixels without the alpha channel (alpha must be 255 everywhere to be lossless);
    /// gray becomes RGB.
    public func droppingAlpha() -> PixelBuffer {
        channels != 3 ? copyingRGB(toChannels: 3) : self
    }

    /// The same pixels with four channels: an opaque alpha channel added to RGB or gray.
    public func withOpaqueAlpha() -> PixelBuffer {
        channels != 4 ? copyingRGB(toChannels: 4) : self
    }

    /// The samples copied into a buffer of `count` channels (3 or 4; a fourth is opaque), a gray
    /// repeated in red, green and blue.
    private func copyingRGB(toChannels count: Int) -> PixelBuffer {
        var copy = [UInt8](repeating: 255, count: width * height * count)
        let from = channels
        let (green, blue) = from == 1 ? (0, 0) : (1, 2)
        bytes.withUnsafeBufferPointer { source in
            copy.withUnsafeMutableBufferPointer { target in
                for pixel in 0..<(width * height) {
                    target[count * pixel] = source[from * pixel]
                    target[count * pixel + 1] = source[from * pixel + green]
                    target[count * pixel + 2] = source[from * pixel + blue]
                }
            }
        }
        return PixelBuffer(width: width, height: height, channels: count, bytes: copy)
    }
}

/// The mean of a thumbnail's colour over white, gathered row by row (every fourth row and
/// column), for ``PixelBuffer/averageColour`` and for thumbnails encoded as they are made.
struct AverageColour {
    let channels: Int
    private var sums = (r: 0, g: 0, b: 0)
    private var count = 0

    init(channels: Int) { self.channels = channels }

    /// Adds row `y` (`width` pixels); rows other than every fourth are skipped.
    mutating func add(row: UnsafePointer<UInt8>, width: Int, y: Int) {
        guard y % 4 == 0 else { return }
        let (green, blue) = channels == 1 ? (0, 0) : (1, 2)
        for x in stride(from: 0, to: width, by: 4) {
            let i = x * channels
            let alpha = channels == 4 ? Int(row[i + 3]) : 255
            // Straight alpha over a white page: c * a + 255 * (1 - a).
            add(
                red: (Int(row[i]) * alpha + 255 * (255 - alpha)) / 255,
                green: (Int(row[i + green]) * alpha + 255 * (255 - alpha)) / 255,
                blue: (Int(row[i + blue]) * alpha + 255 * (255 - alpha)) / 255)
        }
    }

    /// Adds `count` opaque pixels whose channels sum to these (a sample summed in C over the
    /// same pixels `add(row:width:y:)` takes).
    mutating func add(redSum: Int, greenSum: Int, blueSum: Int, count: Int) {
        sums.r += redSum
        sums.g += greenSum
        sums.b += blueSum
        self.count += count
    }

    /// Adds one opaque pixel.
    mutating func add(red: Int, green: Int, blue: Int) {
        add(redSum: red, greenSum: green, blueSum: blue, count: 1)
    }

    /// `#rrggbb`; white when no pixel was added.
    var text: String {
        guard count > 0 else { return "#ffffff" }
        return HexColour.text(red: sums.r / count, green: sums.g / count, blue: sums.b / count)
    }
}
