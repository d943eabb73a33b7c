import ArgumentParser
import GlanceListing
import GlanceStore

/// `glance gc CONTAINER`: drop the records of documents that are gone.
struct GcCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "gc",
        abstract: "Drop the records and thumbnails of documents that no longer exist in the container.")

    @OptionGroup var location: ContainerOptions

    func run() async throws {
        // No sidecar yet: nothing to collect, and nothing is created (as for list).
        let (scanner, store) = location.sidecarIsNew ? try await location.openForReading() : try await location.open()
        do {
            let present = Set(scanner.scan().map(\.path))
            let gone = try await store.allDocuments().map(\.record.path).filter { !present.contains($0) }
            let report = try await store.removeDocuments(at: gone)
            print(
                "removed \(report.documents) record(s) of documents that are gone, freeing \(ListingFormatter.byteCount(report.thumbnailBytes)) of thumbnails"
            )
        } catch {
            throw CommandFailure.unusable(error.description)
        }
    }
}
