/// The defaults every layer agrees on: the box a thumbnail fits, the pixel and file-size limits.
public enum ThumbnailLimits {
    /// The box every thumbnail fits into (the `1024x1024` size key).
    public static let defaultMaxSide = 1024
    /// The default pixel limit: images that would need more decoded pixels are refused (100
    /// megapixels).
    public static let defaultMaxPixels = 100_000_000
    /// The default file-size limit for images and PDFs (`--max-file-size`, in MiB): 2 GiB. A
    /// thumbnail never needs more; a file that large is more likely a trap than a photo.
    public static let defaultMaxFileBytes = 2048 << 20
    /// The largest PDF page side accepted, in points: 14,400 points (200 inches) times the
    /// largest user unit PDF allows (75,000) would be more, but no real page comes near a
    /// million points (353 m); a larger one is a malformed or hostile file. A bound of validity,
    /// like PNG's 2^31 pixels, so it has no option.
    public static let maxPDFPagePoints = 1_000_000
}

/// How much of a text document is given for reading (`/text/PATH`, the preview page): the first
/// 1 MiB, at most 20,000 lines.
public enum TextLimits {
    /// The most bytes of a document read.
    public static let maximumBytes = 1 << 20
    /// The most lines given.
    public static let maximumLines = 20_000
}
