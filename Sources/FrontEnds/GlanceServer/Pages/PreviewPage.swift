import GlanceCore
import GlanceListing
import Mustache

/// What the preview template shows: one document large, its promised-item attributes, and the
/// documents before and after it in the grid's order and filter.
struct PreviewPage: Sendable {
    /// One line of the attribute list.
    struct Attribute: Sendable {
        let label: String
        let value: String
    }

    let title: String
    let assets: PageAssets.Links
    /// The neighbours' thumbnails, fetched while the reader looks at this one.
    let prefetch: [String]
    let events: String?
    /// The sign-out button, for a browser signed in with a session.
    let signOut: SignOutForm?
    let name: String
    /// The path as the change events carry it (`data-path`), not display-escaped: see
    /// ``GridPage/Item/path``.
    let path: String
    /// The grid the document is shown from, or nil for a share link of this one document (which
    /// opens nothing else).
    let gridURL: String?
    /// `3 of 120`: the position in the filtered, sorted sequence and its length, or nil for a
    /// share link of this one document (which knows of no other).
    let position: String?
    let previousURL: String?
    let nextURL: String?
    let thumbnailURL: String?
    let width: Int
    let height: Int
    let colour: String
    let note: String
    let state: String
    let attributes: [Attribute]
    let documentURL: String
    let itemURL: String
    /// A PDF's first pages, stacked (empty for other documents, and a PDF whose sizes are not
    /// known): at most ``inlinePageCount``.
    let pages: [PageImage]
    /// How many pages the stack holds, for "page 1 of 14".
    let pageCount: Int?
    /// The pages after ``pages``, which the page's script adds as the reader nears them.
    let morePages: MorePages?
    /// A text's content, shown as text.
    let text: TextView?
    /// For an image: the thumbnail and the larger preview, for the browser to take what its
    /// screen needs.
    let imageSourceSet: String?
    /// For an image: the original, which a click or `z` shows at its own size.
    let zoomURL: String?
    /// For a video or a sound file: its player and its strip of frames.
    let media: MediaView?
    /// The player of a video, which takes the thumbnail's place as its poster (stored, for the
    /// template's inverted section).
    let videoPlayer: Bool

    /// Whether the pages are stacked (instead of the one thumbnail): stored, as the template
    /// engine reads stored properties only.
    let stack: Bool

    /// One page of a PDF in the stack: lazily loaded, laid out from the record's page size before
    /// it arrives.
    struct PageImage: Sendable {
        let number: Int
        /// `preview-image` for the first (the page's main image), `page-N` for the others.
        let id: String
        let source: String
        let sourceSet: String
        let width: Int
        let height: Int
        /// The first pages load at once; the others when scrolled near.
        let eager: Bool
        /// A sheet's name, shown above its page (a spreadsheet's sheets are its pages): one name,
        /// or none (a list: the section is drawn once for each).
        var caption: [String] = []
    }

    /// A text's content and what the renderer said of it.
    struct TextView: Sendable {
        let content: String
        /// `UTF-8`, `SHIFT_JIS`, ...
        let encoding: String
        /// `13 lines`.
        let lines: String
        /// Said when the document goes on past what is shown.
        let truncated: String?
    }

    /// The box a page is shown in before it is drawn larger: its size in points fitted into the
    /// preview's 1024 (the browser scales it to the column; only the aspect matters).
    static let pageBox = 1024

    /// How many of a PDF's pages the preview's HTML holds. The page's script adds the others,
    /// ``pagesPerBatch`` at a time, as the reader scrolls near the end of the stack: with every
    /// page in it, a 10,000-page PDF's preview was 4.3 MB of HTML.
    static let inlinePageCount = 20
    /// How many pages the page's script adds at a time.
    static let pagesPerBatch = 50
    /// What stands for a page's number in the URL templates of ``MorePages`` (never part of an
    /// encoded path, whose braces are escaped).
    static let pageNumberPlaceholder = "{page}"

    /// The pages of the stack beyond the HTML's, described for the page's script.
    struct MorePages: Sendable {
        /// The first page not in the HTML.
        let first: Int
        /// Their boxes in order, as runs of equal ones: `width,height,count;…`.
        let boxes: String
        /// A page's URL at 1024 and at 2048, ``pageNumberPlaceholder`` where its number goes.
        let source: String
        let large: String
        /// How many the script adds at a time.
        let batch: Int
    }

    /// A PDF's stack: its first pages as images, the rest for the page's script.
    struct PageStack: Sendable {
        let pages: [PageImage]
        /// Every page whose size the record knows.
        let count: Int
        let more: MorePages?

        static let empty = PageStack(pages: [], count: 0, more: nil)
    }

    /// The stack of a PDF whose page sizes `details` knows; `version` (a page's number, or
    /// ``pageNumberPlaceholder``, and a side) makes each URL immutable for the file as it is
    /// (``PreviewServer/previewTag(_:page:side:)``).
    ///
    /// A document whose pages' sizes are not known (a comic book: only the page drawn is read)
    /// has every box in the proportions of `firstPage`, its thumbnail; each image, whose height
    /// is `auto`, takes its own once it loads.
    static func stack(
        of path: String, details: DocumentDetails?, firstPage: (width: Int, height: Int)? = nil, links: PageLinks,
        version: (String, Int) -> String
    ) -> PageStack {
        guard let details, let count = details.pageCount else { return .empty }
        let assumed = firstPage.map {
            [DocumentDetails.PageRun(width: Double($0.width), height: Double($0.height), count: count)]
        }
        guard let runs = details.pageSizes ?? assumed else { return .empty }
        // Every known page's box, as runs of equal boxes: the pages up to the first whose size is
        // not known (or not a size), so that each page keeps its number.
        var boxes: [(width: Int, height: Int, count: Int)] = []
        var known = 0
        for run in runs {
            guard known < count, run.count > 0, run.width > 0, run.height > 0, run.width.isFinite, run.height.isFinite
            else { break }
            let scale = Double(pageBox) / max(run.width, run.height)
            let (width, height) = (
                max(1, Int((run.width * scale).rounded())), max(1, Int((run.height * scale).rounded()))
            )
            let pages = min(run.count, count - known)
            if let last = boxes.last, last.width == width, last.height == height {
                boxes[boxes.count - 1].count += pages
            } else {
                boxes.append((width, height, pages))
            }
            known += pages
        }
        var inline: [PageImage] = []
        var rest: [String] = []
        for box in boxes {
            let shown = min(box.count, inlinePageCount - inline.count)
            for _ in 0..<shown {
                let number = String(inline.count + 1)
                let small = links.pageImage(path, page: number, side: 1024, version: version(number, 1024))
                let large = links.pageImage(path, page: number, side: 2048, version: version(number, 2048))
                inline.append(
                    PageImage(
                        number: inline.count + 1, id: inline.isEmpty ? "preview-image" : "page-\(number)",
                        source: small,
                        sourceSet: "\(small) 1024w, \(large) 2048w", width: box.width, height: box.height,
                        eager: inline.count < 2,
                        caption: details.pageNames?.dropFirst(inline.count).first.map { [$0] } ?? []))
            }
            if box.count > shown { rest.append("\(box.width),\(box.height),\(box.count - shown)") }
        }
        let placeholder = pageNumberPlaceholder
        let more =
            rest.isEmpty
            ? nil
            : MorePages(
                first: inline.count + 1, boxes: rest.joined(separator: ";"),
                source: links.pageImage(path, page: placeholder, side: 1024, version: version(placeholder, 1024)),
                large: links.pageImage(path, page: placeholder, side: 2048, version: version(placeholder, 2048)),
                batch: pagesPerBatch)
        return PageStack(pages: inline, count: known, more: more)
    }

    /// The promised-item attributes as label and value lines.
    static func attributes(of item: PromisedItemAttributes) -> [Attribute] {
        var lines = [
            Attribute(label: "Path", value: DisplayText.escaped(item.path)),
            Attribute(label: "Kind", value: item.kind),
            Attribute(label: "Type", value: item.mimeType),
            Attribute(label: "Size", value: "\(ListingFormatter.byteCount(item.size)) (\(item.size) bytes)"),
            Attribute(label: "Modified", value: ListingFormatter.iso8601(item.modified)),
            Attribute(label: "State", value: DisplayText.escaped(ListingFormatter.stateText(item))),
        ]
        if let count = item.details?.pageCount { lines.append(Attribute(label: "Pages", value: grouped(count))) }
        if let encoding = item.details?.textEncoding { lines.append(Attribute(label: "Encoding", value: encoding)) }
        if let count = item.details?.lineCount {
            let more = item.details?.textIsLonger == true ? " in the first MiB" : ""
            lines.append(Attribute(label: "Lines", value: grouped(count) + more))
        }
        for line in item.details.map(ListingFormatter.kindAttributes) ?? [] {
            lines.append(
                Attribute(label: line.label.prefix(1).uppercased() + line.label.dropFirst(), value: line.value))
        }
        for image in item.thumbnails {
            lines.append(
                Attribute(
                    label: "Thumbnail \(image.sizeKey)",
                    value:
                        "\(image.width)×\(image.height) \(image.format.rawValue.uppercased()), "
                        + ListingFormatter.byteCount(Int64(image.byteCount))))
        }
        if let digest = item.digest { lines.append(Attribute(label: "Digest", value: digest)) }
        if let generatedAt = item.generatedAt {
            lines.append(Attribute(label: "Generated", value: ListingFormatter.iso8601(generatedAt)))
        }
        if let version = item.generatorVersion { lines.append(Attribute(label: "By", value: "Glance \(version)")) }
        return lines
    }
}

/// The list of containers, when one server serves several.
struct SitePage: Sendable {
    struct Container: Sendable {
        let name: String
        let url: String
        let totals: String
    }

    let title: String
    let assets: PageAssets.Links
    let prefetch: [String] = []
    let signOut: SignOutForm?
    let containers: [Container]
}

/// The store's totals for people: `9,990 fresh · 10 failed · 412 MB of thumbnails`.
func totalsText(_ totals: StoreTotals) -> String {
    var parts: [String] = []
    for state in DocumentState.allCases {
        if let count = totals.documents[state], count > 0 { parts.append("\(grouped(count)) \(state.rawValue)") }
    }
    if parts.isEmpty { return "nothing stored yet" }
    return (parts + ["\(ListingFormatter.byteCount(totals.thumbnailBytes)) of thumbnails"]).joined(separator: " · ")
}

// A 10,000-page PDF stacks 10,000 images: named lookups instead of the template engine's
// reflection, as for the grid's tiles.
extension PreviewPage.PageImage: MustacheParent {
    func child(named name: String) -> Any? {
        switch name {
        case "number": number
        case "id": id
        case "source": source
        case "sourceSet": sourceSet
        case "width": width
        case "height": height
        case "eager": eager
        case "caption": caption
        default: nil
        }
    }
}
