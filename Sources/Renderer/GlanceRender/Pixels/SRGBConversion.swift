import GlanceCore

/// Brings a rendered thumbnail into sRGB from its source's colour profile: the
/// ``RasterPipeline``'s step after the downscale, on the thumbnail (at most 1024x1024 pixels), never on the source.
///
/// A profile that cannot be used never fails the document: the thumbnail keeps the source's
/// numbers, and a warning says why.
struct SRGBConversion {
    /// Where transforms are kept between documents.
    let transforms: ColourTransformCache

    /// Converts `image` from `profile` (nil or sRGB: nothing to do) to sRGB. `sourceIsGray` says
    /// whether the source held gray samples (expanded to RGB by the decoder). Appends to
    /// `warnings` what went wrong; returns what was done.
    func convert(
        _ image: inout PixelBuffer, from profile: ColourProfile?, sourceIsGray: Bool, warnings: inout [String]
    ) -> ColourConversion? {
        withRowConverter(from: profile, sourceIsGray: sourceIsGray, channels: image.channels, warnings: &warnings) {
            transform in transform?.apply(to: &image)
        }
    }

    /// Runs `body` once, with the transform that brings pixels of `channels` from `profile` to
    /// sRGB, or with nil when there is nothing to do or the profile cannot be used (the reason
    /// appended to `warnings`): for a thumbnail converted row by row as it is made. The
    /// transform is the cache's, lent for the call only.
    func withRowConverter(
        from profile: ColourProfile?, sourceIsGray: Bool, channels: Int, warnings: inout [String],
        _ body: (ColourTransform?) -> Void
    ) -> ColourConversion? {
        guard let profile, !profile.isSRGB else {
            body(nil)
            return nil
        }
        var ran = false
        do throws(ColourProfileError) {
            guard profile.isUsableClass else { throw .unsupportedClass(profile: profile.name) }
            // A gray profile fits gray samples only; an RGB profile also fits gray samples
            // expanded to R = G = B (the PNG specification forbids it, but it is harmless).
            guard profile.space != .gray || sourceIsGray,
                let pixels = ColourPixels.layout(for: profile.space, channels: channels)
            else {
                throw .wrongSpace(profile: profile.name, image: sourceIsGray ? "gray" : "RGB")
            }
            let reused = try transforms.withTransform(for: profile, pixels: pixels) { transform in
                ran = true
                body(transform)
            }
            return ColourConversion(profile: profile.name, transformReused: reused)
        } catch {
            warnings.append(error.warning)
            if !ran { body(nil) }
            return nil
        }
    }
}
