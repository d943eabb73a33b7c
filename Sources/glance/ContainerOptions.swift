import ArgumentParser
import GlanceContainer
import GlanceCore
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

    /// The freshness rule of this Glance version, shared by every command.
    var freshness: FreshnessPolicy { FreshnessPolicy(generatorVersion: GlanceVersion.current) }

    /// The container key in the store: "" for the sidecar inside the container (it holds that
    /// container only, wherever the container moves), the container's absolute path for a
    /// `--store` elsewhere (which several containers may share).
    func containerKey(_ scanner: ContainerScanner) -> String {
        store == nil ? "" : scanner.root
    }

    /// The folders of the container never to watch or list, relative to it: the store's, when
    /// `--store` puts it inside the container.
    func excludedFolders(of scanner: ContainerScanner) -> Set<String> {
        guard let resolved = FileName.withCString(storeDirectory, { realpath($0, nil) }) else { return [] }
        let store = FileName.decode(cString: resolved)
        free(resolved)
        guard store.hasPrefix(scanner.root + "/") else { return [] }
        return [String(store.dropFirst(scanner.root.count + 1))]
    }

    /// The store's folder.
    var storeDirectory: String { store ?? SidecarStore.defaultDirectory(forContainer: container) }

    /// How to name a document in messages: the container's path joined with the relative path,
    /// so that the user can find the file from where they ran the command.
    func documentPath(_ relative: String) -> String {
        container.hasSuffix("/") ? container + relative : container + "/" + relative
    }

    /// Opens the container and its store for reading: a container that has no store yet reads as
    /// one whose documents are all `missing`, and nothing is created; a store this user may not
    /// write (a read-only folder or file) is opened read-only.
    func openForReading() throws -> (scanner: ContainerScanner, store: any ThumbnailStore) {
        let database = storeDirectory + "/" + SidecarStore.databaseFileName
        if FileName.withCString(database, { access($0, F_OK) }) != 0 {
            let scanner: ContainerScanner
            do {
                scanner = try ContainerScanner(container: container, excluding: [storeDirectory])
            } catch {
                throw CommandFailure.unusable("\(container): \(error.reason)")
            }
            try checkStoreLocation(scanner: scanner)
            return (scanner, EmptyStore())
        }
        let (scanner, store) = try open(readOnlyIfNeeded: true)
        return (scanner, store)
    }

    /// Opens the container and its store (creating the store if needed), or says why not (exit 2).
    func open(readOnlyIfNeeded: Bool = false) throws -> (scanner: ContainerScanner, store: SidecarStore) {
        let scanner: ContainerScanner
        do {
            scanner = try ContainerScanner(container: container, excluding: [storeDirectory])
        } catch {
            throw CommandFailure.unusable("\(container): \(error.reason)")
        }
        try checkStoreLocation(scanner: scanner)
        let key = containerKey(scanner)
        do {
            return (scanner, try SidecarStore(directory: storeDirectory, container: key))
        } catch  where error.kind == .io && readOnlyIfNeeded {
            do {
                return (scanner, try SidecarStore(readingOnly: storeDirectory, container: key))
            } catch {
                throw CommandFailure.unusable("\(storeDirectory): \(error.message)")
            }
        } catch {
            throw CommandFailure.unusable("\(storeDirectory): \(error.message)")
        }
    }
}

extension ContainerOptions {
    /// Refuses a `--store` that is the container or a folder holding it: the store's
    /// `CACHEDIR.TAG` would then mark the documents themselves as a cache for backup tools to
    /// skip, and the store's files would be listed as documents. (A store inside the container
    /// is fine: the scan passes over its folder.)
    func checkStoreLocation(scanner: ContainerScanner) throws {
        guard let resolved = FileName.withCString(storeDirectory, { realpath($0, nil) }) else { return }
        let store = FileName.decode(cString: resolved)
        free(resolved)
        if store == scanner.root || scanner.root.hasPrefix(store.hasSuffix("/") ? store : store + "/") {
            throw CommandFailure.unusable(
                "\(storeDirectory): the store cannot be the container or a folder that holds it; "
                    + "choose a folder outside the container (or leave out --store for CONTAINER/.thumbnails)")
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
