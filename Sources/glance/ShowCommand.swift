import ArgumentParser
import GlanceListing
import GlancePipeline
import GlanceStore

/// `glance show CONTAINER FILE`: one document's promised-item attributes.
struct ShowCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "show",
        abstract: "Show one document's attributes and thumbnail dictionary (from the store and a stat).")

    @OptionGroup var location: ContainerOptions

    @Argument(help: "The document: a path inside the container (relative to it, or as seen from here).")
    var file: String

    @Flag(help: "Print one JSON object.")
    var json = false

    func run() throws {
        let (scanner, store) = try location.openForReading()
        let relative = try DocumentLocator.relativePath(of: file, in: scanner, container: location.container)
        let found: PromisedItemAttributes?
        do {
            found = try PreviewListing(scanner: scanner, store: store).attributes(forPaths: [relative]).first ?? nil
        } catch {
            throw CommandFailure.unusable(error.description)
        }
        guard let item = found else {
            StandardError.report(path: file, "no such document in \(location.container)")
            throw CommandFailure.documentsFailed
        }
        if json {
            print(ListingFormatter.json(ListingFormatter.Row(item)))
            return
        }
        var lines = [
            "path        \(item.path)",
            "kind        \(item.kind) (\(item.mimeType))",
            "size        \(ListingFormatter.byteCount(item.size)) (\(item.size) bytes)",
            "modified    \(ListingFormatter.iso8601(item.modified))",
            "state       \(ListingFormatter.stateText(item))",
        ]
        for image in item.thumbnails {
            lines.append(
                "thumbnail   \(image.sizeKey): \(image.width)x\(image.height) \(image.format.rawValue), \(ListingFormatter.byteCount(Int64(image.byteCount)))"
            )
        }
        if let generatedAt = item.generatedAt, let version = item.generatorVersion {
            lines.append("generated   \(ListingFormatter.iso8601(generatedAt)) by glance \(version)")
        }
        print(lines.joined(separator: "\n"))
    }
}

/// Turns a FILE argument into a path inside the container.
enum DocumentLocator {
    /// `file` as given relative to the container, or as a path from the current folder that
    /// lies inside it.
    static func relativePath(of file: String, in scanner: ContainerScanner, container: String) throws -> String {
        if let relative = scanner.relativePath(of: file) { return relative }
        if let relative = scanner.relativePath(of: scanner.absolutePath(of: file)) { return relative }
        StandardError.report(path: file, "not inside the container \(container)")
        throw CommandFailure.documentsFailed
    }
}
