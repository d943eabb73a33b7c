import GlanceCore

/// What a thumbnail's pixels look like, for choosing how its smaller sizes are encoded
/// (``SizeEncoding``): measured once a document, on its largest smaller size.
public enum PictureKind: Sendable, Equatable {
    /// Gray pixels in one channel, changing gradually: a gray photograph or scan.
    case gray
    /// Gray pixels (one channel, or colour channels that agree on every sampled row) in flat
    /// areas and hard edges: a text document's page, a PDF page of black text.
    case grayText
    /// Changes between neighbours that are often gradual: photographs, pages that hold one,
    /// screenshots and graphics with gradients and soft edges. Lossy encoding keeps them close.
    case gradual
    /// Flat areas and hard edges, almost nothing between, in colour: pages of coloured text,
    /// line drawings. Lossless encoding is as small as lossy here, or smaller.
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
    /// ``gradualShare`` (alpha is not compared); and whether those rows are gray.
    public init(of image: PixelBuffer) {
        let (channels, rowBytes, height) = (image.channels, image.rowBytes, image.height)
        var (changes, gradual) = (0, 0)
        var colour = false
        // One loop for each layout, each step on the bytes, counted without branches: a loop over
        // the channels cost a text batch more than its smaller sizes' encoding did, and counting
        // through a nested function with branches took 1.45% of a text batch's samples, this 1.1%
        // (perf).
        image.bytes.withUnsafeBufferPointer { pixels in
            for y in stride(from: 0, to: height, by: Self.rowStep) {
                let start = y * rowBytes
                let end = start + rowBytes
                if channels < 3 {
                    var index = start + channels
                    while index < end {
                        let step = abs(Int(pixels[index]) - Int(pixels[index - channels]))
                        changes &+= step > 0 ? 1 : 0
                        gradual &+= step > 0 && step <= Self.gradualStep ? 1 : 0
                        index += channels
                    }
                    continue
                }
                colour = colour || pixels[start] != pixels[start + 1] || pixels[start + 1] != pixels[start + 2]
                var index = start + channels
                while index < end {
                    let (red, green, blue) = (pixels[index], pixels[index + 1], pixels[index + 2])
                    colour = colour || red != green || green != blue
                    let step = max(
                        abs(Int(red) - Int(pixels[index - channels])),
                        abs(Int(green) - Int(pixels[index + 1 - channels])),
                        abs(Int(blue) - Int(pixels[index + 2 - channels])))
                    changes &+= step > 0 ? 1 : 0
                    gradual &+= step > 0 && step <= Self.gradualStep ? 1 : 0
                    index += channels
                }
            }
        }
        let isGradual = changes > 0 && Double(gradual) >= Self.gradualShare * Double(changes)
        switch (isGradual, channels) {
        case (true, 1): self = .gray
        case (true, _): self = .gradual
        case (false, 1),
            (false, 3) where !colour:
            self = .grayText
        case (false, _): self = .sharp
        }
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
///   than either;
/// - ``PictureKind/grayText`` pages (text documents, PDF pages of black text) are a 4-bit gray
///   PNG, sixteen levels of gray: on twelve of the bench's text documents' 512s, 20 kB against
///   42 kB in 256 levels (Glance's deflate is near zlib's level 1; 24.5 kB as 8-bit samples), at
///   SSIM 0.9985 against the 256-level tile: the anti-aliasing of glyphs needs no more levels.
///   The small bench corpus's 40 texts' store went from 1.50 to 1.28 times the bytes of the same
///   store with the 1024s alone (`--sizes none`), its 8 PDFs' from 1.14 to 1.11; a text 512
///   encodes in 0.25 ms against 0.34 ms in 256 levels (half the bytes to deflate, packed first).
///
/// libwebp's settings were measured for the lossy tiles too (the corpus's eight photos' 512s,
/// libwebp 1.2.4, one core): method 0 at quality 92 took 6.1 ms a tile for 43.8 kB at SSIM 0.980;
/// one segment (6.2 ms, 47.9 kB), no spatial noise shaping (6.1 ms, 41.5 kB, SSIM 0.978) and no
/// loop filter (6.2 ms) saved no time; methods 1 and 2 took 8.0 and 8.9 ms for 1.5% and 2.3%
/// fewer bytes; quality 88 took 5.0 ms but fell to SSIM 0.969. JPEG through libjpeg-turbo with
/// optimised tables reached SSIM 0.974 only at quality 92, in 62 kB: faster, but 1.4 times the
/// bytes, which the store's 1.35 times the 1024 alone cannot hold. Measured again on a slower
/// machine (the same eight 512s, best of 15): WebP at quality 92 8.0 ms, 45.1 kB, SSIM 0.973 at
/// worst; quality 90 7.5 ms but 0.967; JPEG at luma 94 and chroma 90, optimised, 2.6 ms, 60.1 kB,
/// 0.971. libwebp is 10% of a JPEG batch's samples with every size (perf), so a photo's sizes
/// cost that much unless its tiles are JPEG, whose bytes would take the grid's first screen at
/// ratio 2 from 0.94 MB to about 1.06 MB, over its 1 MB.
public enum SizeEncoding: Sendable, Equatable {
    /// Glance's PNG writer (gray for a gray picture).
    case png
    /// libwebp, lossless (``ImageEncoder/webpLosslessLevel``).
    case losslessWebP
    /// libwebp, lossy (``ImageEncoder/webpLossyQuality``), at ``ImageEncoder/webpLossyMethod``.
    case lossyWebP
    /// Glance's PNG writer in sixteen levels of gray (4-bit gray); `otherwise` when a pixel the
    /// picture's kind did not sample has colour.
    indirect case sixteenGrays(otherwise: SizeEncoding)

    /// The largest size of a sharp picture that is lossless WebP; larger ones are PNG, which
    /// encodes faster at that size.
    public static let losslessWebPLargestSide = 256

    /// The encoding of the `side` size of a thumbnail encoded as `thumbnailFormat` whose pixels
    /// are of `kind` (not needed for a JPEG thumbnail, a photo's; a picture not measured counts
    /// as sharp).
    public init(side: Int, thumbnailFormat: ImageFormat, kind: PictureKind?) {
        let sharp: SizeEncoding = side <= Self.losslessWebPLargestSide ? .losslessWebP : .png
        switch (thumbnailFormat, kind ?? .sharp) {
        case (.jpeg, _): self = .lossyWebP
        case (_, .gradual): self = .lossyWebP
        case (_, .gray): self = .png
        case (_, .grayText): self = .sixteenGrays(otherwise: sharp)
        case (_, .sharp): self = sharp
        }
    }

    /// The file format the encoding writes.
    public var format: ImageFormat {
        switch self {
        case .png, .sixteenGrays: .png
        case .losslessWebP, .lossyWebP: .webp
        }
    }
}
