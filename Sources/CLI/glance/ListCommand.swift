import ArgumentParser
import Glance
import GlanceCore
import GlanceDesktopCache
import GlanceListing
import GlancePipeline
import GlanceStore
import GlanceTerminal

#if canImport(Glibc)
    import Glibc
#endif

extension ContentType: ExpressibleByArgument {}
extension ThumbnailState: ExpressibleByArgument {}
extension ListingQuery.Order: ExpressibleByArgument {}
extension PictureChoice: ExpressibleByArgument {
    public init?(argument: String) { self.init(argument) }
}

/// `glance list CONTAINER [PATTERN]`: the preview listing, from the sidecar and `stat` only.
struct ListCommand: AsyncParsableCommand, ContainerCommand {
    static let configuration = CommandConfiguration(
        commandName: "list",
        abstract: "List a container's documents with kind, size, date and thumbnail state.",
        discussion: """
            Reads only the thumbnail store and one stat per file: no document is opened. States: \
            fresh, stale (the file changed since its thumbnail was made), missing (never rendered), \
            failed (with the reason), unsupported.
            """
    )

    @OptionGroup var containerOptions: ContainerOptions

    @Argument(help: "A shell glob on the path inside the container ('*.jpg', 'reports/*'); '*' also matches '/'.")
    var pattern: String?

    @Option(help: "Only documents of this type: a document's kind as the listing shows it (see the values).")
    var type: ContentType?

    @Option(help: "Only documents in this state: fresh, stale, missing, failed or unsupported.")
    var status: ThumbnailState?

    @Option(help: "Order by name, date or size.")
    var sort: ListingQuery.Order = .name

    @Flag(help: "Reverse the order.")
    var reverse = false

    @Flag(
        help: ArgumentHelp(
            "Print a JSON array of objects (path, name, kind, mimeType, size, modified, state, error, thumbnails, "
                + "digest, generatedAt, generatorVersion)."))
    var json = false

    @Flag(
        help: """
            Also say whether the desktop's thumbnail cache ($XDG_CACHE_HOME/thumbnails) holds a valid \
            entry for each document, judged as GIO judges it: the largest valid size, or stale, \
            failed (a valid failure entry), missing.
            """)
    var xdg = false

    @Option(
        parsing: .unconditional,
        help: ArgumentHelp("List at most N documents (after --offset).", valueName: "N"))
    var limit: Int?

    @Option(
        parsing: .unconditional,
        help: ArgumentHelp("Skip the first N matching documents.", valueName: "N"))
    var offset = 0

    @Option(
        help: ArgumentHelp(
            """
            Draw the documents as a grid of their stored thumbnails: auto (the default with a bare             --preview) finds what the terminal draws (kitty, iterm, sixel) and falls back to             symbols; name one to force it, also on a pipe.
            """, valueName: "MODE"))
    var preview: PictureChoice?

    @OptionGroup var pictureOptions: PictureOptions

    func validate() throws {
        if let limit, limit < 1 { throw ValidationError("--limit must be at least 1") }
        if offset < 0 { throw ValidationError("--offset must be 0 or more") }
        if preview != nil, json { throw ValidationError("--preview draws pictures, --json writes data: not both") }
    }

    func run() async throws {
        let (scanner, store) = try await location.openForReading()
        var query = ListingQuery(pattern: pattern, contentType: type, state: status, order: sort, reversed: reverse)
        query.offset = offset
        query.limit = limit
        let items: [PromisedItemAttributes]
        let policy = try await location.freshness(of: store)
        do {
            items = try await PreviewListing(scanner: scanner, store: store, policy: policy).items(
                matching: query)
        } catch {
            throw CommandFailure.unusable(error.description)
        }
        let desktop = try xdg ? desktopStatus(of: items) : nil
        if let preview {
            if try await pictureOptions.draw(items, choice: preview, store: store) { return }
        }
        if json {
            if let desktop {
                let rows = zip(items, desktop).map { DesktopRow(row: ListingFormatter.Row($0), desktopCache: $1) }
                print(ListingFormatter.json(rows))
            } else {
                print(ListingJSONWriter.array(items.map(ListingFormatter.Row.init)))
            }
        } else {
            let cells = desktop?.map { $0.sizes.first ?? $0.state }
            // On a terminal the table fits its width (a long reason shortened with …: the whole
            // one in show, -v and --json); on a pipe it is as it always was, for scripts.
            let width = TerminalSize.of(descriptor: 1)?.columns
            print(ListingFormatter.table(items, extra: cells.map { ("DESKTOP", $0) }, width: width))
        }
    }

    /// What the desktop's cache holds for each item, as of the file now.
    private func desktopStatus(of items: [PromisedItemAttributes]) throws -> [DesktopStatus] {
        let cache = try DesktopCacheOptions.readCache()
        let root = DesktopCacheOptions.absolutePath(location.container)
        return items.map { item in
            let seconds = Int64(item.modified.timeIntervalSince1970.rounded(.down))
            let document = CacheDocument(
                uri: FileURI.of(absolutePath: root == "/" ? "/" + item.path : root + "/" + item.path),
                modifiedSeconds: seconds, size: item.size)
            let status = cache.status(of: document)
            return DesktopStatus(
                state: status.summary, sizes: status.valid.map(\.folderName), stale: status.stale.map(\.folderName),
                path: status.path)
        }
    }
}

/// `desktopCache` of `glance list --xdg --json`.
struct DesktopStatus: Encodable {
    /// valid, stale, failed or missing.
    var state: String
    /// The sizes with a valid entry, largest first.
    var sizes: [String]
    /// The sizes whose entry describes an older version of the document.
    var stale: [String]
    /// The entry GIO shows: the largest valid one.
    var path: String?
}

/// A listing row with the desktop cache's state added.
struct DesktopRow: Encodable {
    var row: ListingFormatter.Row
    var desktopCache: DesktopStatus

    enum CodingKeys: String, CodingKey {
        case desktopCache
    }

    func encode(to encoder: any Encoder) throws {
        try row.encode(to: encoder)
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(desktopCache, forKey: .desktopCache)
    }
}
