internal import CJPEG
import GlanceCore

/// Renders JPEG photos: shrink on load with DCT scaling, stream rows into the downscaler, bring
/// the small result into sRGB from its embedded ICC profile, and turn it upright by its EXIF
/// orientation.
///
/// CMYK and YCCK files with a profile are converted through it row by row as they are decoded
/// (CMYK cannot be resampled as RGB); without one, the decoder's plain formula stays.
public struct JPEGRenderer: DocumentRenderer {
    public var contentType: ContentType { .jpeg }

    private let colour: SRGBConversion

    /// A renderer that keeps its colour transforms in `colourTransforms`.
    public init(colourTransforms: ColourTransformCache = ColourTransformCache()) {
        colour = SRGBConversion(transforms: colourTransforms)
    }

    /// Rows decoded per call into libjpeg: enough to amortise the call, few enough to stay small.
    private static let rowsPerBatch = 16

    public func render(_ request: RenderRequest) throws(ThumbnailError) -> RenderedThumbnail {
        let decoder: JPEGDecoder
        do { decoder = try JPEGDecoder(file: request.file) } catch { throw Self.map(error) }
        let header = decoder.header
        let (displayed, target) = ThumbnailGeometry.fit(
            storedWidth: header.width, storedHeight: header.height, turnedBy: header.orientation,
            maxSide: request.maxSide)
        let denominator = ThumbnailGeometry.jpegScaleDenominator(
            width: header.width, height: header.height, targetWidth: target.0, targetHeight: target.1)
        let decodedWidth = (header.width + denominator - 1) / denominator
        let decodedHeight = (header.height + denominator - 1) / denominator
        if decodedWidth * decodedHeight > request.maxPixels {
            throw .tooLarge(
                width: header.width, height: header.height, limitPixels: request.maxPixels, shrunkBy: denominator)
        }

        var warnings: [String] = []
        let profile = Self.embeddedProfile(of: decoder, warnings: &warnings)
        var conversion: ColourConversion?
        // A CMYK file's profile converts its rows as they come; any other's, the thumbnail.
        var cmykProfile: ColourProfile?
        if header.components == 4, let profile {
            cmykProfile = profile
            // Built now, before decoding starts: a profile lcms cannot use leaves the plain
            // formula, which needs a decoder started without raw CMYK.
            do throws(ColourProfileError) {
                guard profile.space == .cmyk else { throw .wrongSpace(profile: profile.name, image: "CMYK") }
                guard profile.isUsableClass else { throw .unsupportedClass(profile: profile.name) }
                conversion = ColourConversion(
                    profile: profile.name,
                    transformReused: try colour.transforms.withTransform(
                        for: profile, pixels: .cmyk(inverted: header.isCMYKInverted)
                    ) { _ in })
            } catch {
                warnings.append(error.warning)
                cmykProfile = nil
            }
        }

        let size: (width: Int, height: Int)
        do {
            size = try decoder.start(
                scaleDenominator: denominator, maxMemoryBytes: request.maxDecoderMemoryBytes,
                rawCMYK: cmykProfile != nil)
        } catch { throw Self.map(error, memoryLimit: request.maxDecoderMemoryBytes) }

        let scaler = try Downscaler(
            sourceWidth: size.width, sourceHeight: size.height, channels: 3,
            targetWidth: target.0, targetHeight: target.1)
        let stride = size.width * 3
        var decoded = try scaler.scale { scaler throws(ThumbnailError) in
            if let cmykProfile {
                try Self.readCMYKRows(
                    decoder, width: size.width, profile: cmykProfile, inverted: header.isCMYKInverted,
                    transforms: colour.transforms, into: scaler)
                return
            }
            let rows = UnsafeMutablePointer<UInt8>.allocate(capacity: stride * Self.rowsPerBatch)
            defer { rows.deallocate() }
            while true {
                let count: Int
                do throws(JPEGError) {
                    count = try decoder.readRows(into: rows, stride: stride, maxRows: Self.rowsPerBatch)
                } catch { throw Self.map(error) }
                if count == 0 { break }
                scaler.push(rows: rows, stride: stride, count: count)
            }
        }
        if header.components != 4 {
            conversion = colour.convert(
                &decoded, from: profile, sourceIsGray: header.components == 1, warnings: &warnings)
        }

        if let row = decoder.endOfDataRow {
            // A file cut short: libjpeg fills the rest with grey. Showing what did decode is
            // useful (it is how viewers behave), but only if something did.
            if row == 0 && !header.isProgressive { throw .truncated(format: "JPEG") }
            warnings.append("truncated JPEG data: the image ends after row \(row * denominator) of \(header.height)")
        }
        let otherWarnings = decoder.warningCount - (decoder.endOfDataRow == nil ? 0 : 1)
        if otherWarnings > 0 { warnings.append("libjpeg recovered from \(otherWarnings) corrupt-data warning(s)") }

        let image = header.orientation.apply(to: decoded)
        return RenderedThumbnail(
            image: image, sourceWidth: displayed.0, sourceHeight: displayed.1, warnings: warnings, colour: conversion)
    }

    /// The file's ICC profile, read; nil when it has none, or (with a warning) one that cannot be read.
    private static func embeddedProfile(of decoder: JPEGDecoder, warnings: inout [String]) -> ColourProfile? {
        guard let bytes = decoder.iccProfile() else { return nil }
        do throws(ColourProfileError) {
            return try ColourProfile(bytes: bytes, fallbackName: "embedded ICC profile")
        } catch {
            warnings.append(error.warning)
            return nil
        }
    }

    /// Decodes a CMYK file's rows as CMYK and pushes them into `scaler` converted to sRGB through
    /// `profile` (whose transform ``render(_:)`` has built already).
    private static func readCMYKRows(
        _ decoder: JPEGDecoder, width: Int, profile: ColourProfile, inverted: Bool,
        transforms: ColourTransformCache, into scaler: Downscaler
    ) throws(ThumbnailError) {
        let cmykStride = width * 4
        let rgbStride = width * 3
        let cmyk = UnsafeMutablePointer<UInt8>.allocate(capacity: cmykStride * rowsPerBatch)
        defer { cmyk.deallocate() }
        let rgb = UnsafeMutablePointer<UInt8>.allocate(capacity: rgbStride * rowsPerBatch)
        defer { rgb.deallocate() }
        while true {
            let count: Int
            do throws(JPEGError) {
                count = try decoder.readRows(into: cmyk, stride: cmykStride, maxRows: rowsPerBatch)
            } catch { throw map(error) }
            if count == 0 { break }
            do throws(ColourProfileError) {
                _ = try transforms.withTransform(for: profile, pixels: .cmyk(inverted: inverted)) { transform in
                    transform.apply(
                        input: cmyk, inputStride: cmykStride, output: rgb, outputStride: rgbStride, width: width,
                        rows: count)
                }
            } catch {
                // Built a moment ago from the same bytes; only running out of memory gets here.
                throw .outOfMemory(detail: "cannot rebuild the colour transform of \"\(profile.name)\"")
            }
            scaler.push(rows: rgb, stride: rgbStride, count: count)
        }
    }

    /// libjpeg's failures, in the words a user needs.
    static func map(_ error: JPEGError, memoryLimit: Int = 0) -> ThumbnailError {
        switch error.kind {
        case .cannotOpen: return .unreadable(reason: error.message)
        case .needsMemory: return .needsTooMuchMemory(format: "JPEG", limitMegabytes: memoryLimit >> 20)
        case .unsupported: return .unsupportedEncoding(format: "JPEG", detail: error.message)
        case .tooBig: return .corrupt(format: "JPEG", detail: error.message)
        case .corrupt:
            return error.hitEndOfData ? .truncated(format: "JPEG") : .corrupt(format: "JPEG", detail: error.message)
        }
    }
}
