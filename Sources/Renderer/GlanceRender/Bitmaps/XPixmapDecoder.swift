import GlanceCore

/// Decodes X pixmaps (XPM 3) for the ``RasterPipeline``: C source whose strings are the values
/// (`"width height colours characters-a-pixel"`), the colour table (each colour's characters,
/// then a colour for each kind of screen: `c` colour, `g` and `g4` gray, `m` mono; a colour is
/// `#RGB` to `#RRRRGGGGBBBB`, `None` for transparent, or an X11 colour name), and a string of
/// characters for each row. The `c` colour is drawn, else the gray or mono one.
///
/// Glance's own decoder, not gdk-pixbuf's loader: that loader copies what it is given to a
/// temporary file of its own before it reads it, which a decoder in the sandbox must not write.
/// The sizes are held to the pixel limit before a row is read, every string is bounds-checked,
/// and it has a fuzz target (`fuzz-bitmap`).
final class XPixmapDecoder: RasterDecoder {
    let header: RasterHeader
    private(set) var warnings: [String] = []

    private let format: String
    private var strings: CSource.Strings
    private let charactersPerPixel: Int
    /// Each colour's characters (packed into an integer, the first in the high byte) and RGBA.
    private let colours: [UInt64: UInt32]
    private let hasTransparency: Bool

    /// XPM 3 files open with this comment.
    static let signature = Array("/* XPM */".utf8)

    init(_ request: RenderRequest, type: ContentType, colourTransforms: ColourTransformCache) throws(ThumbnailError) {
        format = type.displayName
        let data = try FileReader.readWhole(of: request.file)
        strings = CSource.Strings(data, from: Self.signature.count)
        guard let values = strings.next() else { throw .truncated(format: format) }
        let numbers = values.split(whereSeparator: { $0 == 0x20 || $0 == 0x09 }).prefix(4).map {
            $0.count <= 9 && !$0.isEmpty && $0.allSatisfy { (0x30...0x39).contains($0) }
                ? $0.reduce(0) { $0 * 10 + Int($1 - 0x30) } : -1
        }
        guard numbers.count == 4, numbers[0] > 0, numbers[1] > 0, numbers[2] > 0, (1...8).contains(numbers[3]) else {
            throw .corrupt(
                format: format, detail: "its values are \"\(String(decoding: values.prefix(40), as: UTF8.self))\"")
        }
        charactersPerPixel = numbers[3]
        // Each colour takes a line of the file at least: more than it has lines is a lie.
        guard numbers[2] <= data.count / 4 else {
            throw .corrupt(format: format, detail: "it says \(numbers[2]) colours in \(data.count) bytes")
        }
        var colours: [UInt64: UInt32] = [:]
        var unknown: [String] = []
        for _ in 0..<numbers[2] {
            guard let line = strings.next() else { throw .truncated(format: format) }
            guard line.count > numbers[3] else {
                throw .corrupt(format: format, detail: "a colour's line is \(line.count) characters")
            }
            let key = Self.key(line[line.startIndex..<(line.startIndex + numbers[3])])
            let name = Self.chosenColour(line[(line.startIndex + numbers[3])...])
            if let rgba = XColours.rgba(of: name) {
                colours[key] = rgba
            } else {
                colours[key] = 0x0000_00FF
                if unknown.count < 3 { unknown.append(name) }
            }
        }
        if !unknown.isEmpty {
            warnings.append("unknown colour names drawn black: " + unknown.joined(separator: ", "))
        }
        self.colours = colours
        hasTransparency = colours.values.contains { $0 & 0xFF != 0xFF }
        header = RasterHeader(size: PixelSize(width: numbers[0], height: numbers[1]))
    }

    func plan(for target: PixelSize) -> RasterPlan { RasterPlan(size: header.size) }

    func start(_ plan: RasterPlan) throws(ThumbnailError) -> RasterRows {
        RasterRows(size: header.size, channels: hasTransparency ? 4 : 3, streamed: true)
    }

    func read(into rows: Downscaler) throws(ThumbnailError) {
        let (width, height, cpp) = (header.size.width, header.size.height, charactersPerPixel)
        let channels = hasTransparency ? 4 : 3
        var row = [UInt8](repeating: 0, count: width * channels)
        var missing = 0
        for _ in 0..<height {
            guard let line = strings.next() else { throw .truncated(format: format) }
            guard line.count >= width * cpp else {
                throw .corrupt(format: format, detail: "a row is \(line.count / cpp) pixels, not \(width)")
            }
            var at = line.startIndex
            for x in 0..<width {
                let rgba: UInt32
                if let found = colours[Self.key(line[at..<(at + cpp)])] {
                    rgba = found
                } else {
                    missing += 1
                    rgba = 0x0000_00FF
                }
                at += cpp
                row[x * channels] = UInt8(rgba >> 24)
                row[x * channels + 1] = UInt8(rgba >> 16 & 0xFF)
                row[x * channels + 2] = UInt8(rgba >> 8 & 0xFF)
                if channels == 4 { row[x * channels + 3] = UInt8(rgba & 0xFF) }
            }
            row.withUnsafeBufferPointer { rows.push(rows: $0.baseAddress!, stride: width * channels, count: 1) }
        }
        if missing > 0 { warnings.append("\(missing) pixels name no colour of its table: drawn black") }
    }

    /// A pixel's characters as one integer.
    private static func key(_ characters: ArraySlice<UInt8>) -> UInt64 {
        characters.reduce(0) { $0 << 8 | UInt64($1) }
    }

    /// The colour a colour line's keys give (after its characters): `c`'s, else `g`'s, `g4`'s or
    /// `m`'s; a name may be several words (`light grey`).
    static func chosenColour(_ keys: ArraySlice<UInt8>) -> String {
        let words = keys.split(whereSeparator: { $0 == 0x20 || $0 == 0x09 }).map { String(decoding: $0, as: UTF8.self) }
        var found: [String: String] = [:]
        var index = 0
        while index < words.count {
            let kind = words[index]
            index += 1
            var value: [String] = []
            while index < words.count, !["c", "m", "g", "g4", "s"].contains(words[index]) {
                value.append(words[index])
                index += 1
            }
            if found[kind] == nil { found[kind] = value.joined(separator: " ") }
        }
        return ["c", "g", "g4", "m"].lazy.compactMap { found[$0] }.first { !$0.isEmpty } ?? ""
    }
}
