/// The defaults every layer agrees on: the box a thumbnail fits and the pixel limit.
public enum ThumbnailLimits {
    /// The box every thumbnail fits into (the `1024x1024` size key).
    public static let defaultMaxSide = 1024
    /// The default pixel limit: images that would need more decoded pixels are refused (100
    /// megapixels).
    public static let defaultMaxPixels = 100_000_000
}
