#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// What a render learned about a document besides its thumbnails: a PDF's pages and their
/// sizes, a text's encoding. Promised-item attributes like the thumbnails: `show`, `list --json`
/// and the API give them, and a preview lays out every page of a PDF from them before any page
/// is drawn.
///
/// Stored with the record as one JSON value (a `details` column in both stores), so that a new
/// attribute needs no new column.
public struct DocumentDetails: Sendable, Equatable, Codable {
    /// Consecutive pages of one size: most PDFs are one run (`595x842` times 14).
    public struct PageRun: Sendable, Equatable, Codable {
        /// The pages' size in points (1/72 inch), turned as a PDF's /Rotate or a TIFF's orientation
        /// turns them (a TIFF's from its pixels and resolution; a pixel a point when it names none).
        public var width: Double
        public var height: Double
        /// How many pages in a row have this size.
        public var count: Int

        public init(width: Double, height: Double, count: Int) {
            self.width = width
            self.height = height
            self.count = count
        }
    }

    /// How many pages the document has (PDFs, multi-page TIFFs).
    public var pageCount: Int?
    /// Every page's size, in order, as runs (PDFs and multi-page TIFFs; absent beyond
    /// ``maximumPageRuns`` runs).
    public var pageSizes: [PageRun]?
    /// A spreadsheet's sheet names, in page order: its sheets are its pages (the preview page
    /// captions each page with its sheet's name).
    public var pageNames: [String]?
    /// The encoding a text document was decoded from, as iconv names it (`UTF-8`, `SHIFT_JIS`).
    public var textEncoding: String?
    /// How many lines a text document has, counted in its first MiB (``TextLimits``).
    public var lineCount: Int?
    /// True when a text document goes on past the MiB its lines were counted in.
    public var textIsLonger: Bool?
    /// A video's or a sound file's length, frame and codecs.
    public var media: MediaDetails?
    /// A camera raw photo's camera, capture time and developed size.
    public var camera: CameraDetails?
    /// An e-book's title and author.
    public var book: BookDetails?

    /// The most pages a document's details count (``checked``).
    public static let maximumPageCount = 10_000_000
    /// The most runs kept: a PDF whose page sizes change more often than this keeps its count only.
    public static let maximumPageRuns = 1000
    /// The most page names kept, and the longest name (in characters; a longer one is cut).
    public static let maximumPageNames = 1000
    public static let maximumPageNameLength = 100

    public init(
        pageCount: Int? = nil, pageSizes: [PageRun]? = nil, textEncoding: String? = nil, lineCount: Int? = nil,
        textIsLonger: Bool? = nil, media: MediaDetails? = nil, pageNames: [String]? = nil,
        camera: CameraDetails? = nil, book: BookDetails? = nil
    ) {
        self.pageCount = pageCount
        self.pageSizes = pageSizes
        self.pageNames = pageNames
        self.textEncoding = textEncoding
        self.lineCount = lineCount
        self.textIsLonger = textIsLonger
        self.media = media
        self.camera = camera
        self.book = book
    }

    /// Whether nothing is known.
    public var isEmpty: Bool {
        pageCount == nil && pageSizes == nil && textEncoding == nil && lineCount == nil && textIsLonger == nil
            && media == nil && pageNames == nil && camera == nil && book == nil
    }

    /// The size of page `number` (from 1) in points, when the runs say it.
    public func pageSize(_ number: Int) -> (width: Double, height: Double)? {
        guard number >= 1, let runs = pageSizes else { return nil }
        var first = 1
        for run in runs {
            if number < first + run.count { return (run.width, run.height) }
            first += run.count
        }
        return nil
    }

    /// Adds a page of this size after the others, as runs.
    public mutating func appendPage(width: Double, height: Double) {
        var runs = pageSizes ?? []
        if let last = runs.last, last.width == width, last.height == height {
            runs[runs.count - 1].count += 1
        } else {
            runs.append(PageRun(width: width, height: height, count: 1))
        }
        pageSizes = runs
    }

    /// The details with what does not hold together left out, nil when nothing is left: a
    /// renderer is not trusted (a compromised one could send anything), nor a store's row
    /// (anyone who can write the database could), and pages and headers are made from these. A page count from 1 to ``maximumPageCount``; page sizes that are finite, positive, up to
    /// ``ThumbnailLimits/maxPDFPagePoints`` and add up to the count; an encoding name of up to 40
    /// letters, digits and `-_.:`; page names no more than the pages and ``maximumPageNames``,
    /// each cleaned by ``cleanName(_:maximumLength:)``.
    public var checked: DocumentDetails? {
        var result = DocumentDetails()
        if let count = pageCount, (1...Self.maximumPageCount).contains(count) {
            result.pageCount = count
            let largest = Double(ThumbnailLimits.maxPDFPagePoints)
            if let runs = pageSizes, runs.count <= Self.maximumPageRuns,
                runs.allSatisfy({
                    $0.width.isFinite && $0.height.isFinite && $0.width > 0 && $0.height > 0 && $0.width <= largest
                        && $0.height <= largest && $0.count > 0
                }),
                runs.reduce(0, { $0 + $1.count }) == count
            {
                result.pageSizes = runs
            }
            if let names = pageNames, names.count <= min(count, Self.maximumPageNames) {
                result.pageNames = names.map { Self.cleanName($0) }
            }
        }
        if let name = textEncoding, (1...40).contains(name.utf8.count),
            name.utf8.allSatisfy({ byte in
                (0x30...0x39).contains(byte) || (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte)
                    || "-_.:".utf8.contains(byte)
            })
        {
            result.textEncoding = name
        }
        // A line is at least one byte of the counted MiB.
        if let lines = lineCount, (0...TextLimits.maximumBytes).contains(lines) {
            result.lineCount = lines
            result.textIsLonger = textIsLonger
        }
        result.media = media?.checked
        result.camera = camera?.checked
        result.book = book?.checked
        return result.isEmpty ? nil : result
    }

    /// A name as it may be shown (a sheet's, a book's title, a camera's model): control
    /// characters made spaces, runs of spaces made one, trimmed, at most `maximumLength`
    /// characters. The one rule for every name a document gives.
    public static func cleanName(_ name: String, maximumLength: Int = maximumPageNameLength) -> String {
        let scalars = name.unicodeScalars.map {
            $0.properties.generalCategory == .control || $0 == "\u{A0}" ? " " : $0
        }
        var spaced = String.UnicodeScalarView()
        spaced.append(contentsOf: scalars)
        let words = String(spaced).split(separator: " ", omittingEmptySubsequences: true).joined(separator: " ")
        return String(words.prefix(maximumLength))
    }

    /// The JSON text a store keeps (keys sorted, so that equal details are equal text).
    public var json: String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return (try? encoder.encode(self)).map { String(decoding: $0, as: UTF8.self) } ?? "{}"
    }

    /// Details read back from a store's JSON text; nil for text that is not (a newer Glance's
    /// attributes that this one does not know are skipped, not refused).
    public init?(json: String) {
        guard let decoded = try? JSONDecoder().decode(Self.self, from: Data(json.utf8)) else { return nil }
        self = decoded
    }
}
