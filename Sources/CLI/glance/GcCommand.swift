import ArgumentParser
import Glance
import GlanceCore
import GlanceListing
import GlanceStore

/// `glance gc CONTAINER`: drop the records of documents that are gone.
struct GcCommand: AsyncParsableCommand, ContainerCommand {
    static let configuration = CommandConfiguration(
        commandName: "gc",
        abstract: "Drop the records and thumbnails of documents that no longer exist in the container.")

    @OptionGroup var containerOptions: ContainerOptions

    @Flag(
        help: """
            Drop the records even when the container folder is empty. Without it, an empty folder \
            (the mount point of a network share that is not mounted looks like one) is refused, \
            and nothing is dropped.
            """)
    var evenIfEmpty = false

    func run() async throws {
        // No sidecar yet: nothing to collect, and nothing is created (as for list).
        let (scanner, store) = location.sidecarIsNew ? try await location.openForReading() : try await location.open()
        do {
            let present = Set(scanner.scan().map(\.path))
            let gone = try await store.allDocuments().map(\.record.path).filter { !present.contains($0) }
            // A store kept elsewhere (a --store folder, PostgreSQL) outlives an unmounted share:
            // taking its documents for deleted would drop every record, for every host.
            if !gone.isEmpty, !evenIfEmpty, scanner.holdsNothing {
                throw CommandFailure.unusable(
                    "\(location.container): the container folder is empty (a share that is not mounted?); "
                        + "gc would drop all \(gone.count) record(s), so it dropped none (--even-if-empty drops them)")
            }
            let report = try await store.removeDocuments(at: gone)
            print(
                "removed \(report.documents) record(s) of documents that are gone, freeing \(ListingFormatter.byteCount(report.thumbnailBytes)) of thumbnails"
            )
        } catch let error as StoreError {
            throw CommandFailure.unusable(error.description)
        }
    }
}
