import GlanceAccounts
import GlanceCore
import GlanceListing
import Mustache

/// What the grid template shows: one container's documents, a page at a time, with the filters
/// and counts. Built from the listing; every URL in it is already percent-encoded, every text is
/// left for the template engine to escape.
struct GridPage: Sendable {
    /// One document's tile.
    struct Item: Sendable {
        /// The name as shown (control characters, bidi overrides and raw bytes made visible).
        let name: String
        /// The path as the change events carry it (`data-path`, for scripts that match an event
        /// to its tile): machine data, left for the template engine to HTML-escape and never
        /// shown, so it is not display-escaped.
        let path: String
        let previewURL: String
        /// Nil when there is no thumbnail to show (failed, unsupported): `note` says why.
        let thumbnailURL: String?
        /// Every size of the thumbnail with its width descriptor, for the browser to choose from.
        let thumbnailSourceSet: String?
        /// The image's size, so the page lays out before it arrives.
        let width: Int
        let height: Int
        /// The placeholder colour shown until the image arrives.
        let colour: String
        /// The blurred placeholder drawn over the colour until the image arrives (checked base64).
        let thumbHash: String?
        /// Whether the tile is among the first screen's (``GridPage/firstScreenTiles``): its image
        /// is asked for at high priority. It stays lazy (an image asked for before layout holds
        /// the page's load event until it comes).
        let eager: Bool
        let note: String
        let kind: String
        let size: String
        let modified: String
        let modifiedISO: String
        let state: String
        let stateText: String
    }

    /// One choice of a filter menu.
    struct Option: Sendable {
        let value: String
        let label: String
        let selected: Bool
    }

    let title: String
    let assets: PageAssets.Links
    let prefetch: [String] = []
    /// The live-update stream, with `--watch`.
    let events: String?
    /// The list of containers, when the server has several.
    let siteURL: String?
    /// The sign-out button, for a browser signed in with a session.
    let signOut: SignOutForm?
    let gridURL: String
    /// `1–120 of 10,000 documents`.
    let range: String
    /// The store's totals: `9,990 fresh · 10 failed · 412 MB of thumbnails`.
    let totals: String
    let pattern: String
    let kinds: [Option]
    let states: [Option]
    let orders: [Option]
    let reversed: Bool
    let items: [Item]
    let previousPageURL: String?
    let nextPageURL: String?

    /// How many tiles a first screen shows at most (bench/grid.py counts 32 at 1440x900): their
    /// images are asked for at high priority, ahead of the rest of the page's.
    static let firstScreenTiles = 32
}

extension GridPage.Item {
    /// The tile of `item`; `links` makes its URLs.
    init(_ item: PromisedItemAttributes, links: PageLinks, query: PageQuery, sides: [Int], eager: Bool = false) {
        self.eager = eager
        name = DisplayText.escaped(item.name)
        path = item.path
        previewURL = links.preview(item.path, query: query)
        let image = item.standardThumbnail
        thumbnailURL = links.thumbnail(for: item, side: sides.first)
        thumbnailSourceSet = links.thumbnailSourceSet(for: item, sides: sides)
        (width, height, colour) = PageLinks.box(of: image)
        thumbHash = image?.thumbHash.flatMap { ThumbHashText.isValid($0) ? $0 : nil }
        note = PageLinks.note(for: item)
        kind = item.kind
        size = ListingFormatter.byteCount(item.size)
        modified = ListingFormatter.shortDate(item.modified)
        modifiedISO = ListingFormatter.iso8601(item.modified)
        state = item.state.rawValue
        stateText = DisplayText.escaped(ListingFormatter.stateText(item))
    }
}

/// The URLs of one container's pages and files, under its prefix (`""`, or `/c/NAME` when a
/// server has several containers).
struct PageLinks: Sendable {
    /// The placeholder of a thumbnail whose colour is not known.
    static let neutralColour = "#8e8e93"

    let prefix: String

    var grid: String { prefix + "/" }

    func grid(_ query: PageQuery, offset: Int? = nil) -> String {
        withQuery(grid, query.queryString(offset: offset))
    }

    func preview(_ path: String, query: PageQuery) -> String {
        withQuery(prefix + "/preview/" + DocumentURL.encoded(path), query.queryString(includingPage: false))
    }

    func document(_ path: String) -> String { prefix + "/documents/" + DocumentURL.encoded(path) }

    /// A page drawn larger (`/previews/`): page `page` fitting `side`, versioned by `version`.
    func pageImage(_ path: String, page: Int, side: Int, version: String) -> String {
        pageImage(path, page: String(page), side: side, version: version)
    }

    /// A page's URL with `page` as its number: a number, or the placeholder of a template that
    /// the preview's script fills (``PreviewPage/MorePages``).
    func pageImage(_ path: String, page: String, side: Int, version: String) -> String {
        prefix + "/previews/" + DocumentURL.encoded(path) + "?page=" + page + "&size=\(side)&v=" + version
    }

    func item(_ path: String) -> String { prefix + "/api/items/" + DocumentURL.encoded(path) }

    var events: String { prefix + "/events" }

    /// The thumbnail's URL: versioned by the content's digest when the stored one is fresh (so
    /// the browser keeps it for good), plain when it is missing or stale (made on demand), nil
    /// when there is none to show.
    func thumbnail(for item: PromisedItemAttributes, side: Int? = nil) -> String? {
        let url = prefix + "/thumbnails/" + DocumentURL.encoded(item.path)
        let size = side.map { "size=\($0)" }
        switch item.state {
        case .fresh:
            guard let digest = item.digest, let hex = digest.split(separator: ":").last else {
                return size.map { url + "?" + $0 } ?? url
            }
            return url + "?v=" + hex + (size.map { "&" + $0 } ?? "")
        case .missing, .stale: return size.map { url + "?" + $0 } ?? url
        case .failed, .unsupported: return nil
        }
    }

    /// A tile's `srcset`: each of `sides` (the store's smaller sizes, then the standard 1024) with
    /// its box side as its width descriptor. With `sizes` the tile's width (the grid's tiles are
    /// 152 to about 176 CSS pixels wide from four columns up: `11rem`; 240 to 304 on screens
    /// 2000 pixels wide: `19rem`), a browser takes the smallest whose box covers the tile at the
    /// screen's pixel ratio: the image fits the box by its longer side, and the square tile fits
    /// the image the same way. Nil for no thumbnail.
    func thumbnailSourceSet(for item: PromisedItemAttributes, sides: [Int]) -> String? {
        guard thumbnail(for: item) != nil else { return nil }
        let entries = sides.compactMap { side in thumbnail(for: item, side: side).map { "\($0) \(side)w" } }
        let standard = thumbnail(for: item).map { "\($0) \(ThumbnailLimits.defaultMaxSide)w" }
        return (entries + [standard].compactMap { $0 }).joined(separator: ", ")
    }

    /// How a page lays out a thumbnail before it arrives: its size (the full box when not made
    /// yet) and its placeholder colour (neutral when unknown or not a checked `#rrggbb`).
    static func box(of image: ThumbnailImage?) -> (width: Int, height: Int, colour: String) {
        (
            image?.width ?? ThumbnailLimits.defaultMaxSide, image?.height ?? ThumbnailLimits.defaultMaxSide,
            image?.averageColour.flatMap { HexColour.isValid($0) ? $0 : nil } ?? neutralColour
        )
    }

    /// What a tile without an image says: the failure's reason, or the kind that is not supported.
    static func note(for item: PromisedItemAttributes) -> String {
        switch item.state {
        case .failed: DisplayText.escaped(item.error ?? "failed")
        case .unsupported: "\(item.kind == "unknown" ? "This kind of file" : item.kind) is not supported"
        default: ""
        }
    }
}

// The grid draws a hundred tiles of a dozen values each: named lookups instead of the template
// engine's reflection (which walks every property for every value) make the page several times
// faster to draw.
extension GridPage.Item: MustacheParent {
    func child(named name: String) -> Any? {
        switch name {
        case "name": self.name
        case "path": path
        case "previewURL": previewURL
        case "thumbnailURL": thumbnailURL
        case "thumbnailSourceSet": thumbnailSourceSet
        case "width": width
        case "height": height
        case "colour": colour
        case "thumbHash": thumbHash
        case "eager": eager
        case "note": note
        case "kind": kind
        case "size": size
        case "modified": modified
        case "modifiedISO": modifiedISO
        case "state": state
        case "stateText": stateText
        default: nil
        }
    }
}

extension GridPage.Option: MustacheParent {
    func child(named name: String) -> Any? {
        switch name {
        case "value": value
        case "label": label
        case "selected": selected
        default: nil
        }
    }
}
