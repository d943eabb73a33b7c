import GlanceCore

/// What a thumbnail's pixels look like, for choosing how its smaller sizes are encoded
/// (``SizeEncoding``): measured once a document, on its largest smaller size.
public enum PictureKind: Sendable, Equatable {
    /// One channel: a text document's page.
    case gray
    /// Changes between neighbours that are often gradual: photographs, pages that hold one,
    /// screenshots and graphics with gradients and soft edges. Lossy encoding keeps them close.
    case gradual
    /// Flat areas and hard edges, almost nothing between: pages of text, line drawings, a blank
    /// page. Lossless encoding is as small as lossy here, or smaller.
    case sharp

    /// The largest step between two neighbouring pixels, in any colour channel, that counts as a
    /// gradual change.
    static let gradualStep = 12
    /// The share of the changes between neighbours that must be gradual for a picture to be
    /// ``gradual``.
    ///
    /// Measured on the bench corpus's 512s: text pages (PDF and text documents) 0.10-0.22;
    /// a palette graphic 0.59, a screenshot 0.63; photos, 16-bit and interlaced PNG photos and
    /// PDF pages that hold a photo 0.84-0.94 (a photo with wide white margins 0.89).
    static let gradualShare = 0.4
    /// Every how many rows the neighbours are compared: every fourth row gave each bench page's
    /// share within 0.03 of all rows' (a quarter of the time: 1.6% of a PDF batch's with every row).
    static let rowStep = 4

    /// The kind of `image`: of the horizontal neighbours that differ (on every ``rowStep``th
    /// row), the share that differ by at most ``gradualStep`` in every colour channel, against
    /// ``gradualShare`` (alpha is not compared).
    public init(of image: PixelBuffer) {
        guard image.channels >= 3 else {
            self = .gray
            return
        }
        let (channels, rowBytes, height) = (image.channels, image.rowBytes, image.height)
        var (changes, gradual) = (0, 0)
        image.bytes.withUnsafeBufferPointer { pixels in
            for y in stride(from: 0, to: height, by: Self.rowStep) {
                var index = y * rowBytes + channels
                let end = (y + 1) * rowBytes
                while index < end {
                    let step = max(
                        abs(Int(pixels[index]) - Int(pixels[index - channels])),
                        abs(Int(pixels[index + 1]) - Int(pixels[index + 1 - channels])),
                        abs(Int(pixels[index + 2]) - Int(pixels[index + 2 - channels])))
                    if step > 0 {
                        changes += 1
                        if step <= Self.gradualStep { gradual += 1 }
                    }
                    index += channels
                }
            }
        }
        self = changes > 0 && Double(gradual) >= Self.gradualShare * Double(changes) ? .gradual : .sharp
    }
}

/// How one of the store's smaller sizes (a grid tile) is encoded: the fewest bytes at a quality a
/// grid shows without visible loss, chosen by what the thumbnail is (``PictureKind``).
///
/// Measured on the bench corpus's 512s and 256s (bench/work/corpus-small; SSIM on luma against
/// the lossless tile, as bench/quality.py computes it; libwebp at method 0):
/// - a photo's (its thumbnail is JPEG): lossy WebP at quality 92, as gradual pictures below. On
///   the corpus's eight photos, each tile (ImageMagick's Lanczos of the 1024) encoded and
///   compared with itself, the 512s came to SSIM 0.973-0.980 in 31-60 kB, the 256s 0.978-0.987.
///   JPEG at the 1024's quality (86) gave 0.929-0.968 and 0.951-0.977; JPEG reached 0.97
///   everywhere only at luma quality 94, in 45-73 kB a 512, which put the grid's first screen at
///   ratio 2 over its 1 MB. The JPEG batch's rate against the baseline renderer was the same
///   with either (0.958 and 0.959, bench/check.py, 7 rounds);
/// - ``PictureKind/gradual`` pages and PNGs: lossy WebP at quality 92 is 4 to 8 times smaller
///   than lossless for photographs (a PNG photo's 512: 56 kB against 380 kB) at SSIM
///   0.974-0.995 (quality 88: down to 0.959, 12% fewer bytes), and half a screenshot's or a
///   palette graphic's 512 PNG at SSIM 0.998;
/// - ``PictureKind/sharp`` pages stay lossless: lossy WebP at quality 88 was 0.8 of a text
///   page's lossless 256 but 1.5 times its 512 PNG, and a text document's gray PNG is smaller
///   than either.
public enum SizeEncoding: Sendable, Equatable {
    /// Glance's PNG writer (gray for a gray picture).
    case png
    /// libwebp, lossless (``ImageEncoder/webpLosslessLevel``).
    case losslessWebP
    /// libwebp, lossy (``ImageEncoder/webpLossyQuality``), at ``ImageEncoder/webpLossyMethod``.
    case lossyWebP
    /// The same for a photo, at ``ImageEncoder/webpLossyMethodForPhotos`` (faster).
    case photoWebP

    /// The largest size of a sharp picture that is lossless WebP; larger ones are PNG, which
    /// encodes faster at that size.
    public static let losslessWebPLargestSide = 256

    /// The encoding of the `side` size of a thumbnail encoded as `thumbnailFormat` whose pixels
    /// are of `kind` (not needed for a JPEG thumbnail, a photo's; a picture not measured counts
    /// as sharp).
    public init(side: Int, thumbnailFormat: ImageFormat, kind: PictureKind?) {
        switch (thumbnailFormat, kind ?? .sharp) {
        case (.jpeg, _): self = .photoWebP
        case (_, .gradual): self = .lossyWebP
        case (_, .gray): self = .png
        case (_, .sharp): self = side <= Self.losslessWebPLargestSide ? .losslessWebP : .png
        }
    }

    /// The file format the encoding writes.
    public var format: ImageFormat {
        switch self {
        case .png: .png
        case .losslessWebP, .lossyWebP, .photoWebP: .webp
        }
    }
}
