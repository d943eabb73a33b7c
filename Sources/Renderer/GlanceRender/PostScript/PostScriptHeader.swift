import GlanceCore

#if canImport(Glibc)
    import Glibc
#endif

/// What a PostScript program's header says of it: its kind, its bounding box, pages and paper (by
/// the Document Structuring Conventions' comments), and where its PostScript is in a DOS binary EPS.
struct PostScriptHeader {
    /// The PostScript program: the whole file, or a DOS binary EPS's PostScript section.
    let program: ArraySlice<UInt8>
    /// `%%BoundingBox` (or `%%HiResBoundingBox`): lower left x and y, upper right x and y, in points.
    let boundingBox: (Double, Double, Double, Double)?
    /// `%%Pages`, when given.
    let pages: Int?
    /// `%%DocumentMedia`: each medium's name and size in points, the first the default.
    let media: [(name: String, width: Double, height: Double)]
    /// `%%DocumentPaperSizes`' first name, lowercased (`a4`), as dvips writes it.
    let paperSize: String?
    /// `%%Orientation: Landscape`: every page's default (``PageComments/landscape``).
    let landscape: Bool?

    /// How far into the program its header comments are looked for.
    static let headerLimit = 65536

    /// EPS or PostScript, by the first bytes (`%!PS`, or `%!` and a line end or space; a DOS
    /// binary EPS's `C5 D0 D3 C6`); nil for neither.
    static func type(of prefix: [UInt8]) -> ContentType? {
        if prefix.starts(with: [0xC5, 0xD0, 0xD3, 0xC6]) { return .encapsulatedPostScript }
        let start = prefix.first == 0x04 ? 1 : 0
        // `%!PS`, or `%!` alone on its line or before a space: the least a PostScript program
        // starts with (hand-written ones, and Ghostscript's own utilities).
        guard prefix.count >= start + 3, prefix[start] == UInt8(ascii: "%"), prefix[start + 1] == UInt8(ascii: "!"),
            prefix[start...].starts(with: "%!PS".utf8) || [0x0A, 0x0D, 0x20, 0x09].contains(prefix[start + 2])
        else { return nil }
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
        var media: [(name: String, width: Double, height: Double)] = []
        var paperSize: String?
        var landscape: Bool?
        var continuing = ""
        let head = String(decoding: program.prefix(Self.headerLimit), as: UTF8.self)
        for line in head.split(whereSeparator: { $0 == "\n" || $0 == "\r" }) {
            guard line.hasPrefix("%%") else { continue }
            if line.hasPrefix("%%EndComments") { break }
            // `%%+` carries on the comment before it (more media, more paper sizes).
            let continued = line.hasPrefix("%%+")
            let parts =
                continued ? [Substring(continuing), line.dropFirst(3)] : line.split(separator: ":", maxSplits: 1)
            guard parts.count == 2 else { continue }
            continuing = String(parts[0])
            let words = parts[1].split(separator: " ")
            let numbers = words.compactMap { Double($0) }
            switch parts[0] {
            case "%%BoundingBox" where numbers.count == 4:
                boundingBox = (numbers[0], numbers[1], numbers[2], numbers[3])
            case "%%HiResBoundingBox" where numbers.count == 4: hiRes = (numbers[0], numbers[1], numbers[2], numbers[3])
            case "%%Pages" where numbers.count >= 1:
                // A count no document has (`99999999999999999999`, NaN) is no count.
                if (0...Double(DocumentDetails.maximumPageCount)).contains(numbers[0]) { pages = Int(numbers[0]) }
            case "%%DocumentMedia":
                // name width height weight colour type: the name is one word here (a name in
                // parentheses with spaces is not read, and the medium is not used).
                if words.count >= 3, let width = Double(words[1]), let height = Double(words[2]),
                    Self.isPageSide(width), Self.isPageSide(height)
                {
                    media.append((String(words[0]), width, height))
                }
            case "%%DocumentPaperSizes" where paperSize == nil:
                paperSize = words.first.map { $0.lowercased() }
            case "%%Orientation": landscape = words.first.map { $0 == "Landscape" }
            default: break
            }
        }
        self.boundingBox = hiRes ?? boundingBox
        self.pages = pages
        self.media = media
        self.paperSize = paperSize
        self.landscape = landscape
    }

    /// A side of a page, in points: at least one (a 72nd of an inch), at most 200 inches (a
    /// poster's). Not NaN.
    static func isPageSide(_ points: Double) -> Bool { points >= 1 && points <= largestSide }

    /// The largest side a page is taken to have, in points: 200 inches.
    static let largestSide = 14_400.0

    /// The sizes of paper `%%DocumentPaperSizes` names, in points (the DSC's names that are still
    /// printed on).
    static let paperSizes: [String: (width: Double, height: Double)] = [
        "letter": (612, 792), "legal": (612, 1008), "tabloid": (792, 1224), "ledger": (1224, 792),
        "executive": (522, 756), "a3": (842, 1191), "a4": (595, 842), "a5": (420, 595), "b4": (729, 1032),
        "b5": (516, 729),
    ]

    /// What the comments of one page (`%%Page:` to the next) say of it.
    struct PageComments {
        /// `%%PageMedia`: the name of one of `%%DocumentMedia`'s media.
        var media: String?
        /// `%%PageBoundingBox`: lower left x and y, upper right x and y, in points.
        var boundingBox: (Double, Double, Double, Double)?
        /// `%%PageOrientation`: true for `Landscape`, a page drawn turned a quarter to the left on
        /// upright paper (as cairo and dvips print a landscape page), to be turned back to be read.
        var landscape: Bool?
    }

    /// Each page's comments, in the program's order: a pass over the program's lines for those
    /// that start with `%%Page`, but inside a document it includes (`%%BeginDocument` to
    /// `%%EndDocument`: an EPS figure's own comments).
    var pageComments: [PageComments] {
        var found: [PageComments] = []
        var included = 0
        program.withUnsafeBytes { bytes in
            guard let base = bytes.baseAddress else { return }
            var at = 0
            while at < bytes.count, let newline = memchr(base + at, 0x0A, bytes.count - at) {
                let start = base.distance(to: UnsafeRawPointer(newline)) + 1
                at = start
                // A comment's line starts with `%%`.
                guard bytes.count - start >= 2, bytes[start] == 0x25, bytes[start + 1] == 0x25 else { continue }
                var end = start
                while end < bytes.count && end - start < 256 && bytes[end] != 0x0A && bytes[end] != 0x0D { end += 1 }
                let line = String(decoding: bytes[start..<end], as: UTF8.self)
                at = end
                if line.hasPrefix("%%BeginDocument") { included += 1 }
                if line.hasPrefix("%%EndDocument") { included = max(0, included - 1) }
                let parts = line.split(separator: ":", maxSplits: 1)
                guard included == 0, parts.count == 2 else { continue }
                let numbers = parts[1].split(separator: " ").compactMap { Double($0) }
                switch parts[0] {
                case "%%Page": found.append(PageComments())
                case "%%PageMedia" where !found.isEmpty:
                    found[found.count - 1].media = parts[1].split(separator: " ").first.map(String.init)
                case "%%PageBoundingBox" where !found.isEmpty && numbers.count == 4:
                    found[found.count - 1].boundingBox = (numbers[0], numbers[1], numbers[2], numbers[3])
                case "%%PageOrientation" where !found.isEmpty:
                    found[found.count - 1].landscape = parts[1].split(separator: " ").first.map { $0 == "Landscape" }
                default: break
                }
            }
        }
        return found
    }

    /// The size in points of a PostScript program's page (`comments`, that page's comments, when
    /// it has some): the medium its `%%PageMedia` names, else the default medium (the first of
    /// `%%DocumentMedia`), else the paper `%%DocumentPaperSizes` names, else the extent of the
    /// page's `%%PageBoundingBox` (Ghostscript's ps2write writes the page there), else of the
    /// document's `%%BoundingBox`; nil when none says. A bounding box is where the page's marks
    /// are, not its paper: it is read as reaching from the paper's corner, and comes last
    /// (cairo's box of a page's text would make a strip of it).
    func pageSize(_ comments: PageComments?) -> (width: Double, height: Double)? {
        if let name = comments?.media, let medium = media.first(where: { $0.name == name }) {
            return (medium.width, medium.height)
        }
        if let medium = media.first { return (medium.width, medium.height) }
        if let name = paperSize, let paper = Self.paperSizes[name] { return paper }
        for box in [comments?.boundingBox, boundingBox] {
            if let (_, _, right, top) = box, Self.isPageSide(right), Self.isPageSide(top) { return (right, top) }
        }
        return nil
    }

    /// Whether a page of `size` whose comments are `comments` is drawn turned on its paper and is
    /// turned back a quarter to the right to be read: its orientation (or the document's) is
    /// landscape and its paper upright. A landscape page on paper that is landscape already is
    /// drawn as it is read.
    func isTurned(_ comments: PageComments?, size: (width: Double, height: Double)) -> Bool {
        (comments?.landscape ?? landscape ?? false) && size.height > size.width
    }

    /// The box's width and height in points, when it has some that a page can have
    /// (``isPageSide(_:)``), its corner where a page can be (within 200 inches of the origin).
    /// A box of `-1e308 -1e308 1e308 1e308` is none: its width is infinite.
    var boxSize: (width: Double, height: Double)? {
        guard let (left, bottom, right, top) = boundingBox, abs(left) <= Self.largestSide,
            abs(bottom) <= Self.largestSide
        else {
            return nil
        }
        let (width, height) = (right - left, top - bottom)
        return Self.isPageSide(width) && Self.isPageSide(height) ? (width, height) : nil
    }
}
