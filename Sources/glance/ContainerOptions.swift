import ArgumentParser
import GlancePipeline
import GlanceStore

#if canImport(Glibc)
    import Glibc
#endif

/// The options every container command shares.
struct ContainerOptions: ParsableArguments {
    @Argument(help: "The container: a folder of documents.")
    var container: String

    @Option(help: ArgumentHelp("Where the thumbnail store lives. Default: CONTAINER/.thumbnails.", valueName: "DIR"))
    var store: String?

    /// The store's folder.
    var storeDirectory: String { store ?? SidecarStore.defaultDirectory(forContainer: container) }

    /// How to name a document in messages: the container's path joined with the relative path,
    /// so that the user can find the file from where they ran the command.
    func documentPath(_ relative: String) -> String {
        container.hasSuffix("/") ? container + relative : container + "/" + relative
    }

    /// Opens the container and its store for reading: a container that has no store yet reads as
    /// one whose documents are all `missing`, and nothing is created.
    func openForReading() throws -> (scanner: ContainerScanner, store: any ThumbnailStore) {
        let database = storeDirectory + "/" + SidecarStore.databaseFileName
        if access(database, F_OK) != 0 {
            do {
                return (try ContainerScanner(container: container, excluding: [storeDirectory]), EmptyStore())
            } catch {
                throw CommandFailure.unusable("\(container): \(error.reason)")
            }
        }
        let (scanner, store) = try open()
        return (scanner, store)
    }

    /// Opens the container and its store (creating the store if needed), or says why not (exit 2).
    func open() throws -> (scanner: ContainerScanner, store: SidecarStore) {
        let scanner: ContainerScanner
        do {
            scanner = try ContainerScanner(container: container, excluding: [storeDirectory])
        } catch {
            throw CommandFailure.unusable("\(container): \(error.reason)")
        }
        do {
            return (scanner, try SidecarStore(directory: storeDirectory))
        } catch {
            throw CommandFailure.unusable("\(storeDirectory): \(error.message)")
        }
    }
}

/// How a command ends badly: the CLI's only mapping from errors to exit codes.
enum CommandFailure: Error {
    /// Bad usage or an unusable container or store: exit 2 after `glance: message`.
    case unusable(String)
    /// Some documents failed, each already named with its reason: exit 1.
    case documentsFailed
}
