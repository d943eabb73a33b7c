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
    /// A PDF's pages, stacked (empty for other documents, and a PDF whose sizes are not known).
    let pages: [PageImage]
    /// How many pages the stack holds, for "page 1 of 14".
    let pageCount: Int?
    /// A text's content, shown as text.
    let text: TextView?
    /// For an image: the thumbnail and the larger preview, for the browser to take what its
    /// screen needs.
    let imageSourceSet: String?
    /// For an image: the original, which a click or `z` shows at its own size.
    let zoomURL: String?

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

    /// The stacked pages of a PDF whose page sizes `details` knows; `version` makes each URL
    /// immutable for the file as it is (``PreviewServer/previewTag(_:page:side:)``).
    static func pages(
        of path: String, details: DocumentDetails?, links: PageLinks, version: (Int, Int) -> String
    ) -> [PageImage] {
        guard let details, let count = details.pageCount, details.pageSizes != nil else { return [] }
        return (1...count).compactMap { number in
            guard let size = details.pageSize(number) else { return nil }
            let scale = Double(pageBox) / max(size.width, size.height)
            let box = (
                width: max(1, Int((size.width * scale).rounded())), height: max(1, Int((size.height * scale).rounded()))
            )
            let small = links.pageImage(path, page: number, side: 1024, version: version(number, 1024))
            let large = links.pageImage(path, page: number, side: 2048, version: version(number, 2048))
            return PageImage(
                number: number, id: number == 1 ? "preview-image" : "page-\(number)", source: small,
                sourceSet: "\(small) 1024w, \(large) 2048w", width: box.width, height: box.height, eager: number <= 2)
        }
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
        default: nil
        }
    }
}
