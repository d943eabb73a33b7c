import ArgumentParser
import GlanceCore
import GlanceListing
import GlanceStore

extension ContentType: ExpressibleByArgument {}
extension ThumbnailState: ExpressibleByArgument {}
extension ListingQuery.Order: ExpressibleByArgument {}

/// `glance list CONTAINER [PATTERN]`: the preview listing, from the sidecar and `stat` only.
struct ListCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "list",
        abstract: "List a container's documents with kind, size, date and thumbnail state.",
        discussion: """
            Reads only the thumbnail store and one stat per file: no document is opened. States: \
            fresh, stale (the file changed since its thumbnail was made), missing (never rendered), \
            failed (with the reason), unsupported.
            """
    )

    @OptionGroup var location: ContainerOptions

    @Argument(help: "A shell glob on the path inside the container ('*.jpg', 'reports/*'); '*' also matches '/'.")
    var pattern: String?

    @Option(help: "Only documents of this type: pdf, png, jpeg or text.")
    var type: ContentType?

    @Option(help: "Only documents in this state: fresh, stale, missing, failed or unsupported.")
    var status: ThumbnailState?

    @Option(help: "Order by name, date or size.")
    var sort: ListingQuery.Order = .name

    @Flag(help: "Reverse the order.")
    var reverse = false

    @Flag(help: "Print a JSON array of objects (path, name, kind, mimeType, size, modified, state, error, thumbnails).")
    var json = false

    func run() async throws {
        let (scanner, store) = try location.openForReading()
        let query = ListingQuery(pattern: pattern, contentType: type, state: status, order: sort, reversed: reverse)
        let items: [PromisedItemAttributes]
        do {
            items = try await PreviewListing(scanner: scanner, store: store, policy: location.freshness).items(
                matching: query)
        } catch {
            throw CommandFailure.unusable(error.description)
        }
        if json {
            print(ListingJSONWriter.array(items.map(ListingFormatter.Row.init)))
        } else {
            print(ListingFormatter.table(items))
        }
    }
}
