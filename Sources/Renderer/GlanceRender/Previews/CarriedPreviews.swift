import Foundation
import GlanceCore

extension FormatFamily {
    /// SketchUp models (`SketchUp Model` in UTF-16 after a byte-order mark), drawn from the PNG
    /// preview the file carries near its start (``CarriedPNGDecoder``).
    public static let sketchUp = FormatFamily(
        name: "SketchUp", contentTypes: [.sketchUpModel],
        sniffRules: [SniffRule(priority: 445) { CarriedPreview.isSketchUp($0.prefix) ? .sketchUpModel : nil }],
        capabilities: [.readsOnlyWhatItNeeds]
    ) { type, tools in
        RasterPipeline(type, decoder: CarriedPNGDecoder.self, colourTransforms: tools.colourTransforms)
    }

    /// Affinity Photo, Designer and Publisher documents, and the unified Affinity's (`00 FF 4B 41`,
    /// then their sections), drawn from the PNG preview each saves among its own bytes, stored as
    /// it is (``CarriedPNGDecoder``): the document, compressed in Affinity's own format, is never
    /// read.
    public static let affinity = FormatFamily(
        name: "Affinity", contentTypes: [.affinityDocument],
        sniffRules: [.signature(CarriedPreview.affinitySignature, priority: 447, type: .affinityDocument)],
        capabilities: [.readsOnlyWhatItNeeds]
    ) { type, tools in
        RasterPipeline(type, decoder: CarriedPNGDecoder.self, colourTransforms: tools.colourTransforms)
    }

    /// InDesign documents (their database's GUID), drawn from the page thumbnail of their XMP
    /// packet (``InDesignDecoder``).
    public static let inDesign = FormatFamily(
        name: "InDesign", contentTypes: [.inDesignDocument],
        sniffRules: [.signature(CarriedPreview.inDesignGUID, priority: 446, type: .inDesignDocument)],
        capabilities: [.readsOnlyWhatItNeeds]
    ) { type, tools in
        RasterPipeline(type, decoder: InDesignDecoder.self, colourTransforms: tools.colourTransforms)
    }
}

/// Finding the preview a file carries among its own bytes, read a window at a time.
enum CarriedPreview {
    /// InDesign's database GUID, which every document starts with.
    static let inDesignGUID: [UInt8] = [
        0x06, 0x06, 0xED, 0xF5, 0xD8, 0x1D, 0x46, 0xE5, 0xBD, 0x31, 0xEF, 0xE7, 0xFE, 0x74, 0xB7, 0x1D,
    ]

    /// The byte-order mark, the string's length (14) and `SketchUp Model` in UTF-16LE.
    static let sketchUpHeader: [UInt8] =
        [0xFF, 0xFE, 0xFF, 0x0E] + Array("SketchUp Model".utf16.flatMap { [UInt8($0), 0] })

    static func isSketchUp(_ prefix: [UInt8]) -> Bool { prefix.starts(with: sketchUpHeader) }

    /// An Affinity document's first four bytes (0x414BFF00, little-endian).
    static let affinitySignature: [UInt8] = [0x00, 0xFF, 0x4B, 0x41]

    /// How far into a file a preview is looked for.
    static let searchLimit = 64 << 20
    /// The most bytes a carried preview may have.
    static let previewLimit = 16 << 20

    /// Where `marker` first starts in `file`, within ``searchLimit``; nil when it is not there.
    static func find(_ marker: [UInt8], in file: OpenFile, from start: Int = 0) throws(ThumbnailError) -> Int? {
        let window = 1 << 20
        var offset = start
        while offset < searchLimit {
            let bytes = try FileReader.read(file, count: window + marker.count, at: offset)
            if let found = firstIndex(of: marker, in: bytes) { return offset + found }
            if bytes.count < window + marker.count { return nil }
            offset += window
        }
        return nil
    }

    private static func firstIndex(of marker: [UInt8], in bytes: [UInt8]) -> Int? {
        guard let first = marker.first, bytes.count >= marker.count else { return nil }
        var index = 0
        while index <= bytes.count - marker.count {
            guard let candidate = bytes[index...].firstIndex(of: first), candidate <= bytes.count - marker.count else {
                return nil
            }
            if bytes[candidate..<candidate + marker.count].elementsEqual(marker) { return candidate }
            index = candidate + 1
        }
        return nil
    }

    /// The whole PNG that starts at `start` in `file`: its chunks walked to `IEND`.
    static func png(in file: OpenFile, at start: Int, format: String) throws(ThumbnailError) -> [UInt8] {
        var end = start + 8
        while true {
            let head = try FileReader.read(file, exactly: 8, at: end, format: format)
            let length = head.bigEndian(at: 0, count: 4)
            end += 12 + length
            guard length < previewLimit, end - start <= previewLimit else {
                throw .corrupt(format: format, detail: "its preview picture claims more than 16 MiB")
            }
            if head[4..<8].elementsEqual("IEND".utf8) { break }
        }
        return try FileReader.read(file, exactly: end - start, at: start, format: format)
    }
}

/// Draws a document from the first PNG among its bytes, the preview its application saves in it
/// as a PNG file (a SketchUp model's, an Affinity document's), taken whole by its chunks: within
/// the first 64 MiB, at most 16 MiB. The document itself is not drawn.
final class CarriedPNGDecoder: PictureDecoder {
    let picture: any RasterDecoder

    init(_ request: RenderRequest, type: ContentType, colourTransforms: ColourTransformCache) throws(ThumbnailError) {
        let format = type.displayName
        guard let start = try CarriedPreview.find([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A], in: request.file)
        else { throw .unsupportedEncoding(format: format, detail: "it carries no preview picture") }
        let png = try CarriedPreview.png(in: request.file, at: start, format: format)
        picture = try EmbeddedPicture.decoder(
            of: png, as: "its preview", request: request, colourTransforms: colourTransforms)
    }

}

/// Draws an InDesign document from its XMP packet's page thumbnail (`xmpGImg:image`: a JPEG in
/// base64, its line breaks written as `&#xA;`). The document's pages are not drawn.
final class InDesignDecoder: PictureDecoder {
    let picture: any RasterDecoder

    init(_ request: RenderRequest, type: ContentType, colourTransforms: ColourTransformCache) throws(ThumbnailError) {
        let format = type.displayName
        let open = Array("<xmpGImg:image>".utf8)
        guard let start = try CarriedPreview.find(open, in: request.file) else {
            throw .unsupportedEncoding(format: format, detail: "it carries no page thumbnail")
        }
        guard let end = try CarriedPreview.find(Array("</xmpGImg:image>".utf8), in: request.file, from: start),
            end - start <= CarriedPreview.previewLimit * 2
        else { throw .corrupt(format: format, detail: "its page thumbnail does not end") }
        let text = try FileReader.read(request.file, count: end - start - open.count, at: start + open.count)
        let encoded = String(decoding: text, as: UTF8.self).replacingOccurrences(of: "&#xA;", with: "")
            .filter { !$0.isWhitespace }
        guard let jpeg = Data(base64Encoded: encoded), !jpeg.isEmpty else {
            throw .corrupt(format: format, detail: "its page thumbnail is not base64")
        }
        picture = try EmbeddedPicture.decoder(
            of: [UInt8](jpeg), as: "the page thumbnail", request: request, colourTransforms: colourTransforms)
    }

}
