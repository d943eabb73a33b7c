import Foundation
import GlanceCore
import GlanceListing
import GlancePipeline
import HTTPTypes
import Hummingbird

/// The pages: the grid of a container (`/`) and one document large (`/preview/PATH`).
extension PreviewServer {
    /// `GET /`: a page of the grid, with the filters, sort and page of the query.
    func gridPage(_ request: Request, signOut: SignOutForm? = nil) async throws -> Response {
        let query = try PageQuery(query: request.uri.query)
        let pageSize = query.limit ?? PageQuery.defaultPageSize
        var listingQuery = query.listingQuery
        listingQuery.offset = query.offset
        listingQuery.limit = pageSize
        // The totals are read on the store's own thread while this one walks the container.
        async let totalsRead = storeCall { try await indexer.store.totals() }
        let page = try await storeCall { try await listing.page(matching: listingQuery) }
        let totals = try await totalsRead
        // Any offset may come in the query, up to Int.max: no arithmetic on it may overflow.
        let first = query.offset < page.totalCount ? query.offset + 1 : page.totalCount
        let last = query.offset < page.totalCount ? query.offset + page.items.count : page.totalCount
        let documents = "\(grouped(page.totalCount)) document\(page.totalCount == 1 ? "" : "s")"
        // An offset past the end shows no document: it says so, and "previous" leads to the
        // last page that has some (not to offset - pageSize, which may be past the end too).
        let pastTheEnd = page.totalCount > 0 && query.offset >= page.totalCount
        let lastPage = (page.totalCount - 1) / pageSize * pageSize
        let grid = GridPage(
            title: title, assets: assets.links(under: basePath), events: liveUpdates ? links.events : nil,
            siteURL: siteURL, signOut: signOut,
            gridURL: links.grid,
            range: pastTheEnd
                ? "none here: this page is past the end of \(documents)" : "\(first)–\(last) of \(documents)",
            totals: totalsText(totals), pattern: query.pattern ?? "",
            kinds: [GridPage.Option(value: "", label: "All kinds", selected: query.contentType == nil)]
                + ContentType.builtIn.map {
                    GridPage.Option(value: $0.rawValue, label: $0.displayName, selected: query.contentType == $0)
                },
            states: [GridPage.Option(value: "", label: "Any state", selected: query.state == nil)]
                + ThumbnailState.allCases.map {
                    GridPage.Option(value: $0.rawValue, label: $0.rawValue, selected: query.state == $0)
                },
            orders: ListingQuery.Order.allCases.map {
                GridPage.Option(value: $0.rawValue, label: "by \($0.rawValue)", selected: query.order == $0)
            },
            reversed: query.reversed,
            items: page.items.enumerated().map { index, item in
                GridPage.Item(
                    item, links: links, query: query, sides: indexer.options.sizes.sides,
                    eager: index < GridPage.firstScreenTiles)
            },
            previousPageURL: pastTheEnd
                ? links.grid(query, offset: lastPage)
                : query.offset > 0 ? links.grid(query, offset: max(0, query.offset - pageSize)) : nil,
            nextPageURL: last < page.totalCount ? links.grid(query, offset: last) : nil)
        return html(PageTemplates.library.render(grid, withTemplate: "grid"))
    }

    /// `GET /preview/PATH`: one document large, with previous / next in the query's order. With
    /// `alone` (a share link of this one document), the page knows of no other document: no
    /// neighbours, no position, no grid, and the query's listing parameters are not read.
    func previewPage(
        _ components: [Substring], request: Request, signOut: SignOutForm? = nil, alone: Bool = false
    ) async throws -> Response {
        let path = try resolve(components)
        let query = alone ? PageQuery() : try PageQuery(query: request.uri.query)
        let paths = alone ? [path] : try await storeCall { try await listing.paths(matching: query.listingQuery) }
        guard let item = try await storeCall({ try await listing.attributes(forPaths: [path]).first ?? nil }) else {
            throw ServerError.notFound
        }
        // A document outside the filter (a link kept from another view) is shown alone.
        let index = paths.firstIndex(of: path)
        let previous = index.flatMap { $0 > 0 ? paths[$0 - 1] : nil }
        let next = index.flatMap { $0 + 1 < paths.count ? paths[$0 + 1] : nil }
        let neighbours = try await storeCall {
            try await listing.attributes(forPaths: [previous, next].compactMap { $0 })
        }
        let pageSize = query.limit ?? PageQuery.defaultPageSize
        let box = PageLinks.box(of: item.standardThumbnail)
        let content = try await previewContent(of: item)
        let preview = PreviewPage(
            title: DisplayText.escaped(item.name), assets: assets.links(under: basePath),
            prefetch: neighbours.compactMap { $0.flatMap { links.thumbnail(for: $0) } },
            events: liveUpdates ? links.events : nil, signOut: signOut, name: DisplayText.escaped(item.name),
            path: item.path,
            gridURL: alone ? nil : links.grid(query, offset: index.map { $0 / pageSize * pageSize } ?? 0),
            position: alone ? nil : "\((index ?? 0) + 1) of \(index == nil ? 1 : paths.count)",
            previousURL: previous.map { links.preview($0, query: query) },
            nextURL: next.map { links.preview($0, query: query) },
            thumbnailURL: links.thumbnail(for: item),
            width: box.width, height: box.height, colour: box.colour,
            note: PageLinks.note(for: item), state: item.state.rawValue, attributes: PreviewPage.attributes(of: item),
            documentURL: links.document(item.path), itemURL: links.item(item.path), pages: content.stack.pages,
            pageCount: content.stack.pages.isEmpty ? nil : content.stack.count, morePages: content.stack.more,
            text: content.text, imageSourceSet: content.imageSourceSet, zoomURL: content.zoomURL,
            media: content.media, videoPlayer: content.media.map { $0.isVideo && $0.source != nil } ?? false,
            stack: !content.stack.pages.isEmpty)
        return html(PageTemplates.library.render(preview, withTemplate: "preview"))
    }

    /// What the preview shows of a document beyond its thumbnail: a PDF's or a multi-page TIFF's
    /// every page, a text's content, an image's larger size and its original.
    private func previewContent(of item: PromisedItemAttributes) async throws -> (
        stack: PreviewPage.PageStack, text: PreviewPage.TextView?, imageSourceSet: String?, zoomURL: String?,
        media: MediaView?
    ) {
        guard item.state == .fresh || item.state == .stale, let identity = indexer.scanner.identity(of: item.path)
        else { return (.empty, nil, nil, nil, nil) }
        let stack = { [links] in
            // A document whose page sizes are not read (a comic book's): its boxes take its
            // first page's proportions.
            let first =
                item.details?.pageSizes == nil
                ? item.thumbnails.max { $0.width < $1.width }.map { (width: $0.width, height: $0.height) } : nil
            return PreviewPage.stack(of: item.path, details: item.details, firstPage: first, links: links) {
                page, side in
                previewTag(identity, page: page, side: side)
            }
        }
        switch item.contentType?.preview {
        // A PDF's pages, an office document's pages, sheets or slides, and a comic book's pages,
        // are stacked.
        case .pages:
            return (stack(), nil, nil, nil, nil)
        // A multi-page TIFF (a scan, a fax) is stacked as a PDF is.
        case .pagesWhenSeveral where item.details?.pageSizes != nil:
            return (stack(), nil, nil, nil, nil)
        case .text:
            let entry = try await textEntry(path: item.path, identity: identity)
            let lines = Int(entry.headers[Self.textLinesHeader] ?? "") ?? 0
            let view = PreviewPage.TextView(
                content: String(buffer: entry.body), encoding: entry.headers[Self.textEncodingHeader] ?? "",
                lines: lines == 1 ? "1 line" : "\(grouped(lines)) lines",
                truncated: entry.headers[Self.textTruncatedHeader].map { "shown: \($0)" })
            return (.empty, view, nil, nil, nil)
        // An image, a video's or a sound file's picture (a frame or its cover), a raw photo's (its
        // preview or its development) and an e-book's cover are shown as one picture.
        case .picture, .pagesWhenSeveral:
            guard let standard = links.thumbnail(for: item) else { return (.empty, nil, nil, nil, nil) }
            let side = Self.defaultPreviewSide
            let large = links.pageImage(
                item.path, page: 1, side: side, version: previewTag(identity, page: 1, side: side))
            // The zoom opens the original where browsers draw it, else the large preview (a
            // browser would only download a TIFF or a HEIC).
            let zoom = item.contentType?.browsersDraw == true ? links.document(item.path) : large
            let media = MediaView.of(item, links: links) { page, side in previewTag(identity, page: page, side: side) }
            return (.empty, nil, "\(standard) \(ThumbnailLimits.defaultMaxSide)w, \(large) \(side)w", zoom, media)
        case nil:
            return (.empty, nil, nil, nil, nil)
        }
    }

    /// A page's response: HTML that the browser checks again on every visit, under a content
    /// security policy that allows this server's own script and styles only.
    func html(_ text: String?) -> Response {
        Self.html(text)
    }

    /// A page's response, as ``html(_:)``.
    static func html(_ text: String?) -> Response {
        let body = text ?? "<!doctype html><title>Glance</title><p>This page could not be drawn.</p>"
        var headers: HTTPFields = [
            .contentType: "text/html; charset=utf-8", .cacheControl: "no-cache",
            .contentLength: String(body.utf8.count),
        ]
        headers[.contentSecurityPolicy] = PreviewSite.contentSecurityPolicy
        return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(string: body)))
    }
}

/// `12,345`: a count with thousands separators, the same in every locale.
func grouped(_ count: Int) -> String {
    let digits = Array(String(count))
    var text = ""
    for (index, digit) in digits.enumerated() {
        if index > 0, (digits.count - index) % 3 == 0 { text.append(",") }
        text.append(digit)
    }
    return text
}
