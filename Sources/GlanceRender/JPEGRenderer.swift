internal import CJPEG
import GlanceCore

/// Renders JPEG photos: shrink on load with DCT scaling, stream rows into the downscaler, then
/// turn the small result upright by its EXIF orientation.
public struct JPEGRenderer: DocumentRenderer {
    public var contentType: ContentType { .jpeg }

    public init() {}

    /// Rows decoded per call into libjpeg: enough to amortise the call, few enough to stay small.
    private static let rowsPerBatch = 16

    public func render(_ request: RenderRequest) throws(ThumbnailError) -> RenderedThumbnail {
        let decoder: JPEGDecoder
        do { decoder = try JPEGDecoder(file: request.file) } catch { throw Self.map(error) }
        let header = decoder.header
        let displayed = header.orientation.swapsAxes ? (header.height, header.width) : (header.width, header.height)
        let fitted = ThumbnailGeometry.fit(width: displayed.0, height: displayed.1, maxSide: request.maxSide)
        // The target in stored orientation: the turn is applied to the small result at the end.
        let target = header.orientation.swapsAxes ? (fitted.height, fitted.width) : (fitted.width, fitted.height)
        let denominator = ThumbnailGeometry.jpegScaleDenominator(
            width: header.width, height: header.height, targetWidth: target.0, targetHeight: target.1)
        let decodedWidth = (header.width + denominator - 1) / denominator
        let decodedHeight = (header.height + denominator - 1) / denominator
        if decodedWidth * decodedHeight > request.maxPixels {
            throw .tooLarge(width: header.width, height: header.height, limitPixels: request.maxPixels)
        }

        let size: (width: Int, height: Int)
        do {
            size = try decoder.start(scaleDenominator: denominator, maxMemoryBytes: request.maxDecoderMemoryBytes)
        } catch { throw Self.map(error, memoryLimit: request.maxDecoderMemoryBytes) }

        let scaler = try Downscaler(
            sourceWidth: size.width, sourceHeight: size.height, channels: 3,
            targetWidth: target.0, targetHeight: target.1)
        let stride = size.width * 3
        let decoded = try scaler.scale { scaler throws(ThumbnailError) in
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

        var warnings: [String] = []
        if let row = decoder.endOfDataRow {
            // A file cut short: libjpeg fills the rest with grey. Showing what did decode is
            // useful (it is how viewers behave), but only if something did.
            if row == 0 && !header.isProgressive { throw .truncated(format: "JPEG") }
            warnings.append("truncated JPEG data: the image ends after row \(row * denominator) of \(header.height)")
        }
        let otherWarnings = decoder.warningCount - (decoder.endOfDataRow == nil ? 0 : 1)
        if otherWarnings > 0 { warnings.append("libjpeg recovered from \(otherWarnings) corrupt-data warning(s)") }

        let image = header.orientation.apply(to: decoded)
        return RenderedThumbnail(image: image, sourceWidth: displayed.0, sourceHeight: displayed.1, warnings: warnings)
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
