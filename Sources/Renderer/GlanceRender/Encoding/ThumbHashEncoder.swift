import Foundation
import GlanceCore

/// A ThumbHash of a thumbnail: a picture of about 20 bytes that a page draws, blurred, until the
/// thumbnail arrives (Evan Wallace's format, https://evanw.github.io/thumbhash/: the average
/// colour and a few cosine coefficients of the luminance, two colour channels and alpha).
///
/// Written here from the format's description: the image is halved until it fits 100x100 (the
/// format's limit; a 256 becomes a 64, whose lowest frequencies are the 256's), then each
/// channel's lowest frequencies are taken with a direct cosine transform (at most 7x7 for
/// luminance, 3x3 for colour, 5x5 for alpha). Checked against the reference implementation's
/// hashes (the `thumbhash` package on PyPI, 0.1.2) for generated images, byte for byte; 0.3 ms
/// for a 100x75 image here, and a 64-pixel one takes about a third of that (halving the 256 costs
/// less than fitting it into 100 with the Lanczos scaler, whose filter tables alone took more).
public enum ThumbHashEncoder {
    /// The format's largest input side.
    static let maximumSide = 100

    /// The ThumbHash of `image` (halved until it fits 100x100 first), base64.
    public static func hash(of image: PixelBuffer) -> String {
        var small = image
        while max(small.width, small.height) > maximumSide { small = small.halved() }
        if small.channels == 1 { small = small.droppingAlpha() }
        return Data(hash(width: small.width, height: small.height, channels: small.channels, pixels: small.bytes))
            .base64EncodedString()
    }

    /// The ThumbHash bytes of `width` x `height` pixels of `channels` (3 or 4, not premultiplied)
    /// bytes each, rows packed; at most 100 pixels a side.
    static func hash(width: Int, height: Int, channels: Int, pixels: [UInt8]) -> [UInt8] {
        precondition(width <= maximumSide && height <= maximumSide && width > 0 && height > 0)
        let count = width * height
        // The average colour, each pixel weighted by its alpha.
        var average = (r: 0.0, g: 0.0, b: 0.0, a: 0.0)
        for index in 0..<count {
            let base = index * channels
            let alpha = channels == 4 ? Double(pixels[base + 3]) / 255 : 1
            average.r += alpha / 255 * Double(pixels[base])
            average.g += alpha / 255 * Double(pixels[base + 1])
            average.b += alpha / 255 * Double(pixels[base + 2])
            average.a += alpha
        }
        if average.a > 0 {
            average.r /= average.a
            average.g /= average.a
            average.b /= average.a
        }
        let hasAlpha = average.a < Double(count)
        let luminanceLimit = hasAlpha ? 5.0 : 7.0
        let longer = Double(max(width, height))
        let lx = max(1, Int((luminanceLimit * Double(width) / longer).rounded(.toNearestOrAwayFromZero)))
        let ly = max(1, Int((luminanceLimit * Double(height) / longer).rounded(.toNearestOrAwayFromZero)))

        // Each pixel laid on the average colour (so transparent ones do not darken it), then as
        // luminance, yellow-blue, red-green and alpha.
        var l = [Double](repeating: 0, count: count)
        var p = l
        var q = l
        var a = l
        for index in 0..<count {
            let base = index * channels
            let alpha = channels == 4 ? Double(pixels[base + 3]) / 255 : 1
            let r = average.r * (1 - alpha) + alpha / 255 * Double(pixels[base])
            let g = average.g * (1 - alpha) + alpha / 255 * Double(pixels[base + 1])
            let b = average.b * (1 - alpha) + alpha / 255 * Double(pixels[base + 2])
            l[index] = (r + g + b) / 3
            p[index] = (r + g) / 2 - b
            q[index] = r - g
            a[index] = alpha
        }
        let luminance = Channel(l, width: width, height: height, nx: max(lx, 3), ny: max(ly, 3))
        let yellowBlue = Channel(p, width: width, height: height, nx: 3, ny: 3)
        let redGreen = Channel(q, width: width, height: height, nx: 3, ny: 3)
        let transparency = hasAlpha ? Channel(a, width: width, height: height, nx: 5, ny: 5) : nil

        func quantise(_ value: Double, _ levels: Double) -> Int {
            Int((levels * value).rounded(.toNearestOrAwayFromZero))
        }
        let isLandscape = width > height
        let header24 =
            quantise(luminance.dc, 63) | quantise(0.5 + 0.5 * yellowBlue.dc, 63) << 6
            | quantise(0.5 + 0.5 * redGreen.dc, 63) << 12 | quantise(luminance.scale, 31) << 18
            | (hasAlpha ? 1 << 23 : 0)
        let header16 =
            (isLandscape ? ly : lx) | quantise(yellowBlue.scale, 63) << 3 | quantise(redGreen.scale, 63) << 9
            | (isLandscape ? 1 << 15 : 0)
        var hash = [header24 & 255, (header24 >> 8) & 255, header24 >> 16, header16 & 255, header16 >> 8].map {
            UInt8($0)
        }
        if let transparency {
            hash.append(UInt8(quantise(transparency.dc, 15) | quantise(transparency.scale, 15) << 4))
        }
        // The coefficients, four bits each, two to a byte, low half first.
        var nibbles: [Int] = []
        for channel in [luminance, yellowBlue, redGreen] + (transparency.map { [$0] } ?? []) {
            nibbles += channel.ac.map { quantise($0, 15) }
        }
        for (index, nibble) in nibbles.enumerated() {
            if index % 2 == 0 { hash.append(0) }
            hash[hash.count - 1] |= UInt8(nibble << ((index & 1) * 4))
        }
        return hash
    }

    /// One channel's lowest frequencies: its mean (`dc`), and the other coefficients of the
    /// triangle `cx * ny < nx * (ny - cy)`, scaled into 0...1 by their largest magnitude.
    struct Channel {
        var dc = 0.0
        var ac: [Double] = []
        var scale = 0.0

        init(_ values: [Double], width: Int, height: Int, nx: Int, ny: Int) {
            var column = [Double](repeating: 0, count: width)
            for cy in 0..<ny {
                var cx = 0
                while cx * ny < nx * (ny - cy) {
                    for x in 0..<width { column[x] = cos(Double.pi / Double(width) * Double(cx) * (Double(x) + 0.5)) }
                    var sum = 0.0
                    for y in 0..<height {
                        let row = cos(Double.pi / Double(height) * Double(cy) * (Double(y) + 0.5))
                        for x in 0..<width { sum += values[x + y * width] * column[x] * row }
                    }
                    sum /= Double(width * height)
                    if cx > 0 || cy > 0 {
                        ac.append(sum)
                        scale = max(scale, abs(sum))
                    } else {
                        dc = sum
                    }
                    cx += 1
                }
            }
            if scale > 0 { ac = ac.map { 0.5 + 0.5 / scale * $0 } }
        }
    }
}
