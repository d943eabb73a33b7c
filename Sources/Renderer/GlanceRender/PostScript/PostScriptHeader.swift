import GlanceCore

/// What a PostScript program's header says of it: its kind, its bounding box and pages (by the
/// Document Structuring Conventions' comments), and where its PostScript is in a DOS binary EPS.
struct PostScriptHeader {
    /// The PostScript program: the whole file, or a DOS binary EPS's PostScript section.
    let program: ArraySlice<UInt8>
    /// `%%BoundingBox` (or `%%HiResBoundingBox`): lower left x and y, upper right x and y, in points.
    let boundingBox: (Double, Double, Double, Double)?
    /// `%%Pages`, when given.
    let pages: Int?

    /// How far into the program its header comments are looked for.
    static let headerLimit = 65536

    /// EPS or PostScript, by the first bytes; nil for neither.
    static func type(of prefix: [UInt8]) -> ContentType? {
        if prefix.starts(with: [0xC5, 0xD0, 0xD3, 0xC6]) { return .encapsulatedPostScript }
        let start = prefix.first == 0x04 ? 1 : 0
        guard prefix.count >= start + 4, prefix[start..<start + 4].elementsEqual("%!PS".utf8) else { return nil }
        let line = prefix[start...].prefix { $0 != 0x0A && $0 != 0x0D }
        return String(decoding: line, as: UTF8.self).contains(" EPSF-") ? .encapsulatedPostScript : .postScript
    }

    /// Reads the header of the file's `data`; throws when a DOS binary EPS's section lies outside it.
    init(_ data: [UInt8], format: String) throws(ThumbnailError) {
        if data.starts(with: [0xC5, 0xD0, 0xD3, 0xC6]) {
            let (offset, length) = (data.littleEndian(at: 4, count: 4), data.littleEndian(at: 8, count: 4))
            guard data.count >= 30, offset >= 30, length > 0, offset <= data.count, length <= data.count - offset else {
                throw .truncated(format: format)
            }
            program = data[offset..<offset + length]
        } else {
            program = data[...]
        }
        var boundingBox: (Double, Double, Double, Double)?
        var hiRes: (Double, Double, Double, Double)?
        var pages: Int?
        let head = String(decoding: program.prefix(Self.headerLimit), as: UTF8.self)
        for line in head.split(whereSeparator: { $0 == "\n" || $0 == "\r" }) {
            guard line.hasPrefix("%%") else { continue }
            if line.hasPrefix("%%EndComments") { break }
            let parts = line.split(separator: ":", maxSplits: 1)
            guard parts.count == 2 else { continue }
            let numbers = parts[1].split(separator: " ").compactMap { Double($0) }
            switch parts[0] {
            case "%%BoundingBox" where numbers.count == 4:
                boundingBox = (numbers[0], numbers[1], numbers[2], numbers[3])
            case "%%HiResBoundingBox" where numbers.count == 4: hiRes = (numbers[0], numbers[1], numbers[2], numbers[3])
            case "%%Pages" where numbers.count >= 1: pages = Int(numbers[0])
            default: break
            }
        }
        self.boundingBox = hiRes ?? boundingBox
        self.pages = pages
    }

    /// The box's width and height in points, when it has some.
    var boxSize: (width: Double, height: Double)? {
        guard let (left, bottom, right, top) = boundingBox, right > left, top > bottom else { return nil }
        return (right - left, top - bottom)
    }
}
