import GlanceCore

/// Decodes a Windows icon or cursor for the ``RasterPipeline``: its directory read here, the
/// largest picture chosen (then the deepest), and that picture decoded by what it is: a PNG
/// through the one door for pictures inside files (``EmbeddedPicture``), a bitmap through
/// gdk-pixbuf's icon loader, given a directory of that one entry. (gdk-pixbuf's loader alone
/// would choose among the bitmaps only: it skips PNG pictures, which are the 256-pixel ones.)
///
/// The directory and the picture's own header must agree on its size: an entry that claims one
/// size and holds another is refused, not drawn at either.
final class IconDecoder: PictureDecoder {
    let picture: any RasterDecoder

    init(_ request: RenderRequest, type: ContentType, colourTransforms: ColourTransformCache) throws(ThumbnailError) {
        let format = type.displayName
        let data = try FileReader.readWhole(of: request.file)
        let entry = try IconDirectory(data, format: format).largest
        let bytes = Array(data[entry.range])
        if bytes.starts(with: [0x89, 0x50, 0x4E, 0x47]) {
            try entry.check(pngHeader: bytes, format: format)
            picture = try EmbeddedPicture.decoder(
                of: bytes, as: "the icon's picture", request: request, colourTransforms: colourTransforms)
        } else {
            try entry.check(bitmapHeader: bytes, format: format)
            picture = try PixbufDecoder(
                entry.alone(bytes), loader: PixbufDecoder.iconLoader, format: format, request: request)
        }
    }

}

/// An icon's or a cursor's directory: six bytes, then sixteen an entry.
struct IconDirectory {
    /// One picture the directory lists.
    struct Entry {
        /// Its size as the directory gives it (0 in the file means 256).
        var width: Int
        var height: Int
        var bitsPerPixel: Int
        /// Where its bytes lie in the file.
        var range: Range<Int>

        /// Refuses a PNG whose header gives another size than the directory (a directory's 256,
        /// written as 0, stands for 256 or more).
        func check(pngHeader bytes: [UInt8], format: String) throws(ThumbnailError) {
            guard bytes.count >= 24 else { throw .truncated(format: format) }
            try agree(bytes.bigEndian(at: 16, count: 4), bytes.bigEndian(at: 20, count: 4), format: format)
        }

        /// Refuses a bitmap whose header gives another size than the directory (its height counts
        /// the picture and its mask: twice the directory's).
        func check(bitmapHeader bytes: [UInt8], format: String) throws(ThumbnailError) {
            guard bytes.count >= 12 else { throw .truncated(format: format) }
            let headerSize = bytes.littleEndian(at: 0, count: 4)
            let (width, height) =
                headerSize == 12
                ? (bytes.littleEndian(at: 4, count: 2), bytes.littleEndian(at: 6, count: 2))
                : (bytes.littleEndian(at: 4, count: 4), bytes.littleEndian(at: 8, count: 4))
            try agree(width, height / 2, format: format)
        }

        private func agree(_ width: Int, _ height: Int, format: String) throws(ThumbnailError) {
            func fits(_ stored: Int, _ listed: Int) -> Bool { listed == 256 ? stored >= 256 : stored == listed }
            guard fits(width, self.width), fits(height, self.height) else {
                throw .corrupt(
                    format: format,
                    detail: "its directory lists a \(self.width)x\(self.height) picture that is \(width)x\(height)")
            }
        }

        /// `bytes`, its bitmap picture, as an icon file of one entry.
        func alone(_ bytes: [UInt8]) -> [UInt8] {
            var file: [UInt8] = [0, 0, 1, 0, 1, 0]
            file += [UInt8(width & 0xFF), UInt8(height & 0xFF), 0, 0, 1, 0]
            file += [UInt8(bitsPerPixel & 0xFF), UInt8(bitsPerPixel >> 8 & 0xFF)]
            for value in [bytes.count, 22] { file += (0..<4).map { UInt8(value >> (8 * $0) & 0xFF) } }
            return file + bytes
        }
    }

    let entries: [Entry]

    /// Reads the directory of `data`; throws when it lists no picture that lies inside the file.
    init(_ data: [UInt8], format: String) throws(ThumbnailError) {
        guard data.count >= 6 else { throw .truncated(format: format) }
        let count = data.littleEndian(at: 4, count: 2)
        guard count > 0, 6 + 16 * count <= data.count else { throw .truncated(format: format) }
        entries = (0..<count).compactMap { index in
            let at = 6 + 16 * index
            let (size, offset) = (data.littleEndian(at: at + 8, count: 4), data.littleEndian(at: at + 12, count: 4))
            guard size > 0, offset >= 6 + 16 * count, offset <= data.count - size else { return nil }
            return Entry(
                width: data[at] == 0 ? 256 : Int(data[at]), height: data[at + 1] == 0 ? 256 : Int(data[at + 1]),
                bitsPerPixel: data.littleEndian(at: at + 6, count: 2), range: offset..<(offset + size))
        }
        guard !entries.isEmpty else {
            // Pictures listed past the file's end: the file was cut.
            let ends = (0..<count).map { 6 + 16 * $0 }.map {
                data.littleEndian(at: $0 + 12, count: 4) + data.littleEndian(at: $0 + 8, count: 4)
            }
            if ends.contains(where: { $0 > data.count }) { throw .truncated(format: format) }
            throw .corrupt(format: format, detail: "its directory lists no picture inside the file")
        }
    }

    /// The largest picture, the deepest of those.
    var largest: Entry {
        entries.max { ($0.width * $0.height, $0.bitsPerPixel) < ($1.width * $1.height, $1.bitsPerPixel) }!
    }
}
