import GlanceCore

/// Decodes Netpbm's pictures for the ``RasterPipeline``, each kind by its reader: the binary ones
/// (PBM `P4`, PGM `P5`, PPM `P6`, and PAM `P7`, whose header gdk-pixbuf does not read) by Glance's
/// own streaming reader (``BinaryNetpbmDecoder``), the plain ones (`P1` to `P3`: samples written
/// as decimal text) by gdk-pixbuf's Netpbm loader (``PixbufDecoder``).
final class NetpbmDecoder: PictureDecoder {
    let picture: any RasterDecoder

    init(_ request: RenderRequest, type: ContentType, colourTransforms: ColourTransformCache) throws(ThumbnailError) {
        let format = type.displayName
        let prefix = try FileReader.readPrefix(of: request.file, maxBytes: BinaryNetpbmDecoder.headerLimit)
        switch prefix.bytes.count >= 2 ? prefix.bytes[1] : 0 {
        case UInt8(ascii: "7"):
            let layout = try PAMHeader.layout(prefix.bytes, format: format)
            picture = BinaryNetpbmDecoder(file: request.file, layout: layout, format: format)
        case UInt8(ascii: "4")...UInt8(ascii: "6"):
            picture = try BinaryNetpbmDecoder(request, type: type, colourTransforms: colourTransforms)
        default:
            picture = try PixbufDecoder(request, type: type, colourTransforms: colourTransforms)
        }
    }
}

/// A PAM header (`P7`): named fields (`WIDTH`, `HEIGHT`, `DEPTH`, `MAXVAL`, `TUPLTYPE`) a line
/// each, to `ENDHDR`. Gray, gray with alpha, RGB and RGB with alpha, by the depth; the tuple
/// type is not needed to tell them.
enum PAMHeader {
    /// The samples' layout `bytes`, the file's first bytes, describe.
    static func layout(_ bytes: [UInt8], format: String) throws(ThumbnailError) -> NetpbmLayout {
        let fields = try fields(bytes, format: format)
        guard let width = fields.values["WIDTH"], let height = fields.values["HEIGHT"],
            let depth = fields.values["DEPTH"], let maxValue = fields.values["MAXVAL"],
            width > 0, height > 0, (1...4).contains(depth), (1...65535).contains(maxValue)
        else { throw .corrupt(format: format, detail: "its header lacks a width, height, depth or largest sample") }
        return NetpbmLayout(
            size: PixelSize(width: width, height: height), depth: depth, maxValue: maxValue, dataStart: fields.end)
    }

    /// The header's numeric fields and where the samples start; throws when it does not end.
    static func fields(_ bytes: [UInt8], format: String) throws(ThumbnailError) -> (values: [String: Int], end: Int) {
        guard bytes.starts(with: Array("P7\n".utf8)) else { throw .corrupt(format: format, detail: "not a PAM header") }
        var values: [String: Int] = [:]
        var lineStart = 3
        while let newline = bytes[lineStart...].firstIndex(of: 0x0A) {
            let line = String(decoding: bytes[lineStart..<newline], as: UTF8.self).trimmingCharacters(in: .whitespaces)
            lineStart = newline + 1
            if line == "ENDHDR" { return (values, lineStart) }
            if line.hasPrefix("#") || line.isEmpty { continue }
            let parts = line.split(separator: " ", maxSplits: 1)
            if parts.count == 2, let number = Int(parts[1].trimmingCharacters(in: .whitespaces)), number <= 1 << 30 {
                values[String(parts[0])] = number
            }
        }
        throw bytes.count < BinaryNetpbmDecoder.headerLimit
            ? .truncated(format: format) : .corrupt(format: format, detail: "its header does not end in its first 4 KB")
    }
}
