import GlanceCore

/// The sizes of a thumbnail: how it fits its box, and how much to shrink while decoding.
public enum ThumbnailGeometry {
    /// The box every thumbnail fits into (the `1024x1024` size key).
    public static let defaultMaxSide = ThumbnailLimits.defaultMaxSide

    /// Fits `width` x `height` into a `maxSide` square, keeping the aspect ratio.
    ///
    /// The longest side becomes `maxSide`, or stays as it is when it is already shorter and
    /// `allowEnlarging` is false (raster images are never enlarged; PDF and text pages are
    /// drawn at the box's size). The other side is rounded and never less than 1 px.
    public static func fit(
        width: Int, height: Int, maxSide: Int = defaultMaxSide, allowEnlarging: Bool = false
    ) -> (width: Int, height: Int) {
        precondition(width > 0 && height > 0 && maxSide > 0)
        let longest = max(width, height)
        if longest <= maxSide && !allowEnlarging { return (width, height) }
        let scale = Double(maxSide) / Double(longest)
        func scaled(_ side: Int) -> Int {
            side == longest ? maxSide : max(1, Int((Double(side) * scale).rounded()))
        }
        return (scaled(width), scaled(height))
    }

    /// The fit of an image stored `width` x `height` and shown turned by `orientation`: its
    /// displayed size, and the thumbnail's size in stored orientation (what a decoder scales the
    /// stored pixels to; the turn is then applied to the small result).
    public static func fit(
        storedWidth width: Int, storedHeight height: Int, turnedBy orientation: ExifOrientation,
        maxSide: Int = defaultMaxSide
    ) -> (displayed: (width: Int, height: Int), stored: (width: Int, height: Int)) {
        let displayed = orientation.swapsAxes ? (width: height, height: width) : (width: width, height: height)
        let fitted = fit(width: displayed.width, height: displayed.height, maxSide: maxSide)
        return (displayed, orientation.swapsAxes ? (width: fitted.height, height: fitted.width) : fitted)
    }

    /// The same as ``fit(width:height:maxSide:allowEnlarging:)`` for fractional sizes (PDF
    /// pages in points).
    public static func fit(width: Double, height: Double, maxSide: Int = defaultMaxSide) -> (width: Int, height: Int) {
        let longest = max(width, height)
        let scale = Double(maxSide) / longest
        let w = width >= height ? maxSide : max(1, Int((width * scale).rounded()))
        let h = height > width ? maxSide : max(1, Int((height * scale).rounded()))
        return (w, h)
    }

    /// The shrink-on-load factor for a JPEG: the denominator (1, 2, 4 or 8) of libjpeg's DCT
    /// scaling.
    ///
    /// The rule: the largest reduction that keeps the decoded image at least as large as the
    /// thumbnail on both sides. Decoding smaller would need enlarging afterwards (blur); decoding
    /// larger wastes time and memory. What is left, a factor between 1 and 2, goes to the
    /// Lanczos resampler, which does it without aliasing. libjpeg rounds scaled sizes up
    /// (ceil(side / denominator)), so the check uses the same rounding.
    public static func jpegScaleDenominator(
        width: Int, height: Int, targetWidth: Int, targetHeight: Int
    ) -> Int {
        var chosen = 1
        for denominator in [2, 4, 8] {
            let scaledWidth = (width + denominator - 1) / denominator
            let scaledHeight = (height + denominator - 1) / denominator
            if scaledWidth >= targetWidth && scaledHeight >= targetHeight { chosen = denominator }
        }
        return chosen
    }
}
