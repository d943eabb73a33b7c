import ArgumentParser
import Foundation
import Glance
import GlanceCore
import GlanceListing
import GlancePostgresStore
import GlanceStore

/// `glance gc CONTAINER`: drop the records of documents that are gone.
struct GcCommand: AsyncParsableCommand, ContainerCommand {
    static let configuration = CommandConfiguration(
        commandName: "gc",
        abstract: "Drop the records and thumbnails of documents that no longer exist in the container.",
        discussion: """
            With a PostgreSQL store whose thumbnails are files (?thumbnails=DIR on the address), gc \
            also deletes the files no record of the database names (any container's), once they are \
            older than --grace-seconds; --move-thumbnails moves the thumbnails' bytes between the \
            database's rows and the folder's files, in batches, while everything else goes on.
            """)

    @OptionGroup var containerOptions: ContainerOptions

    @Flag(
        help: """
            Drop the records even when the container folder is empty. Without it, an empty folder \
            (the mount point of a network share that is not mounted looks like one) is refused, \
            and nothing is dropped.
            """)
    var evenIfEmpty = false

    @Flag(help: "Say what gc would drop and delete, and drop and delete nothing.")
    var dryRun = false

    @Option(
        parsing: .unconditional,
        help: """
            Keep thumbnail files no record names for this long after they were written or reused \
            (it must cover a save in flight, whose file is written before its record).
            """)
    var graceSeconds: Double = 3600

    @Option(
        help: """
            Move every container's thumbnail bytes to 'files' (the folder ?thumbnails=DIR names) or \
            back to 'database' (the rows), then stop. Resumable: run it again after an interruption.
            """)
    var moveThumbnails: MoveDirection?

    /// Where --move-thumbnails moves the bytes.
    enum MoveDirection: String, ExpressibleByArgument, CaseIterable {
        case files
        case database
    }

    func validate() throws {
        guard graceSeconds.isFinite, (0...31_536_000).contains(graceSeconds) else {
            throw ValidationError("--grace-seconds takes a number of seconds from 0 to 31536000 (a year).")
        }
        if moveThumbnails != nil, dryRun {
            throw ValidationError("--move-thumbnails and --dry-run exclude each other.")
        }
    }

    func run() async throws {
        // No sidecar yet: nothing to collect, and nothing is created (as for list).
        let (scanner, store) = location.sidecarIsNew ? try await location.openForReading() : try await location.open()
        do {
            if let moveThumbnails { return try await move(store, to: moveThumbnails) }
            let present = Set(scanner.scan().map(\.path))
            let gone = try await store.allDocuments().map(\.record.path).filter { !present.contains($0) }
            // A store kept elsewhere (a --store folder, PostgreSQL) outlives an unmounted share:
            // taking its documents for deleted would drop every record, for every host.
            if !gone.isEmpty, !evenIfEmpty, scanner.holdsNothing {
                throw CommandFailure.unusable(
                    "\(location.container): the container folder is empty (a share that is not mounted?); "
                        + "gc would drop all \(gone.count) record(s), so it dropped none (--even-if-empty drops them)")
            }
            if dryRun {
                print("would remove \(gone.count) record(s) of documents that are gone")
            } else {
                let report = try await store.removeDocuments(at: gone)
                print(
                    "removed \(report.documents) record(s) of documents that are gone, freeing \(ListingFormatter.byteCount(report.thumbnailBytes)) of thumbnails"
                )
            }
            if let postgres = store as? PostgresStore, let folder = postgres.thumbnailFolder {
                let report = try await postgres.sweepFiles(graceSeconds: graceSeconds, dryRun: dryRun)
                print(
                    "\(dryRun ? "would delete" : "deleted") \(report.unnamed) thumbnail file(s) no record names "
                        + "(\(ListingFormatter.byteCount(report.unnamedBytes))) of \(report.examined) in "
                        + "\(DisplayText.escaped(folder.path)); kept \(report.young) younger than \(Int(graceSeconds)) s"
                )
            }
        } catch let error as StoreError {
            throw CommandFailure.unusable(error.description)
        }
    }

    /// `--move-thumbnails`: batch after batch, with a line of progress each.
    private func move(_ store: any ThumbnailStore, to direction: MoveDirection) async throws {
        guard let postgres = store as? PostgresStore, postgres.thumbnailFolder != nil else {
            throw CommandFailure.unusable(
                "--move-thumbnails needs a PostgreSQL store whose address names the folder (?thumbnails=DIR)")
        }
        let place: PostgresStore.BytesPlace = direction == .files ? .files : .database
        var moved = 0
        while true {
            let count = try await postgres.moveThumbnails(to: place, batchSize: 500)
            if count == 0 { break }
            moved += count
            FileHandle.standardError.write(Data("moved \(moved) thumbnail(s) so far\n".utf8))
        }
        print(
            "moved \(moved) thumbnail(s) to the \(direction == .files ? "folder's files" : "database"); none is left to move"
        )
    }
}
