import GlanceCore

/// Decodes a macOS icon file (`.icns`) for the ``RasterPipeline``: its largest PNG picture (the
/// 16 to 1024-pixel ones since OS X 10.7) through the one door for pictures inside files
/// (``EmbeddedPicture``); a file of the older RLE-packed pictures only, through gdk-pixbuf's
/// icns loader; a file whose large pictures are JPEG 2000 only (as some of 10.5's were), its
/// largest JPEG 2000 picture, through the same door (OpenJPEG).
final class AppleIconDecoder: PictureDecoder {
    let picture: any RasterDecoder

    /// gdk-pixbuf's loader of the older pictures.
    static let loader = "icns"

    init(_ request: RenderRequest, type: ContentType, colourTransforms: ColourTransformCache) throws(ThumbnailError) {
        let format = type.displayName
        let data = try FileReader.readWhole(of: request.file)
        let entries = try Self.entries(of: data, format: format)
        let pngs = entries.filter { data[$0].starts(with: [0x89, 0x50, 0x4E, 0x47]) && $0.count >= 24 }
        if let largest = pngs.max(by: { Self.side(data, $0) < Self.side(data, $1) }) {
            picture = try EmbeddedPicture.decoder(
                of: Array(data[largest]), as: "the icon's largest picture", request: request,
                colourTransforms: colourTransforms)
            return
        }
        let jpeg2000 = entries.filter {
            data[$0].starts(with: [0, 0, 0, 0x0C, 0x6A, 0x50]) || data[$0].starts(with: [0xFF, 0x4F])
        }
        // The largest by its bytes: a JPEG 2000 picture's size is in its codestream, and the
        // larger icon sizes are the larger entries.
        if let largest = jpeg2000.max(by: { $0.count < $1.count }) {
            picture = try EmbeddedPicture.decoder(
                of: Array(data[largest]), as: "the icon's largest picture", request: request,
                colourTransforms: colourTransforms)
            return
        }
        picture = try PixbufDecoder(data, loader: Self.loader, format: format, request: request)
    }

    /// Where each entry's data lies in `data`: after the `icns` header (magic, length), entries of
    /// a type, a length (header included) and data, to the length the header declares.
    static func entries(of data: [UInt8], format: String) throws(ThumbnailError) -> [Range<Int>] {
        guard data.count >= 8 else { throw .truncated(format: format) }
        let declared = data.bigEndian(at: 4, count: 4)
        guard declared >= 8 else { throw .corrupt(format: format, detail: "its header declares \(declared) bytes") }
        let end = min(declared, data.count)
        var ranges: [Range<Int>] = []
        var offset = 8
        while offset + 8 <= end {
            let length = data.bigEndian(at: offset + 4, count: 4)
            guard length >= 8, length <= end - offset else { break }
            ranges.append((offset + 8)..<(offset + length))
            offset += length
        }
        if ranges.isEmpty {
            throw declared > data.count
                ? .truncated(format: format) : .corrupt(format: format, detail: "it holds no picture")
        }
        return ranges
    }

    /// A PNG's longer side, from its header.
    private static func side(_ data: [UInt8], _ range: Range<Int>) -> Int {
        max(data.bigEndian(at: range.lowerBound + 16, count: 4), data.bigEndian(at: range.lowerBound + 20, count: 4))
    }

}
