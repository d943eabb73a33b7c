import ArgumentParser
import Glance
import GlanceCore
import GlancePipeline
import GlanceStore

/// `glance export CONTAINER FILE -o OUT`: the stored thumbnail's bytes, as they are.
struct ExportCommand: AsyncParsableCommand, ContainerCommand {
    static let configuration = CommandConfiguration(
        commandName: "export",
        abstract: "Write a document's stored 1024x1024 thumbnail to a file, byte for byte.",
        discussion: """
            OUT may not lie inside the container (documents are never written; --force allows it) \
            and, when it exists, must be a regular file, which is replaced atomically. '-o -' \
            writes the bytes to standard output.
            """)

    @OptionGroup var containerOptions: ContainerOptions

    @Argument(help: "The document, a path inside the container.")
    var file: String

    @Option(
        name: [.short, .customLong("output")],
        help: ArgumentHelp("Where to write the thumbnail ('-' for standard output).", valueName: "OUT"))
    var output: String

    @Flag(help: "Write OUT even when it lies inside the container.")
    var force = false

    @Option(help: "The size key of the thumbnail dictionary entry.")
    var sizeKey: String = ThumbnailImage.standardSizeKey

    func run() async throws {
        let (scanner, store) = try await location.openForReading()
        let relative = try DocumentLocator.relativePath(of: file, in: scanner, container: location.container)
        let stored: StoredDocument?
        do {
            stored = try await store.document(at: relative, includingImageData: true)
        } catch {
            throw CommandFailure.unusable(error.description)
        }
        guard let stored, let image = stored.thumbnail(sizeKey: sizeKey), let data = image.data
        else {
            let reason = stored.map {
                $0.record.state == .fresh
                    ? "no \(sizeKey) thumbnail"
                    : "no thumbnail (\($0.record.state.rawValue)\($0.record.error.map { ": " + $0 } ?? ""))"
            }
            // No record: a document not rendered yet, or no document at all (generate would not help).
            let unrendered =
                scanner.identity(of: relative) == nil
                ? "no such document in \(location.container)" : "no thumbnail yet: run 'glance generate' first"
            StandardError.report(path: file, reason ?? unrendered)
            throw CommandFailure.documentsFailed
        }
        let current = scanner.identity(of: relative)
        if let current, try await location.freshness(of: store).state(of: stored, identity: current) != .fresh {
            StandardError.write("glance: \(file): warning: the thumbnail is stale (the document changed since)")
        }
        if output == "-" {
            guard DescriptorWriter.writeAll(data, to: 1) else {
                StandardError.report(path: "standard output", "write failed")
                throw CommandFailure.documentsFailed
            }
            return
        }
        // The store's own files are never written, --force or not (a thumbnail over the database
        // would leave every command saying the store is corrupt).
        if case .sidecar(let directory) = try location.storeKind(), let storeRoot = location.resolvedStoreDirectory,
            DocumentLocator.liesInside(output, root: storeRoot)
        {
            StandardError.report(
                path: output, "lies inside the thumbnail store \(directory); the store's files are never written")
            throw CommandFailure.documentsFailed
        }
        if !force, DocumentLocator.liesInside(output, root: scanner.root) {
            StandardError.report(
                path: output, "lies inside the container \(location.container); documents are never written (--force)")
            throw CommandFailure.documentsFailed
        }
        do {
            try AtomicFileWriter.write(data, to: output, protecting: current.map { [$0] } ?? [])
        } catch {
            // As `glance thumbnail` says it: the document, then what could not be written.
            StandardError.report(path: file, error)
            throw CommandFailure.documentsFailed
        }
        // Byte for byte: the image keeps its format whatever OUT is called; say when the name
        // says otherwise, so that a viewer trusting the extension is not a surprise.
        let name = output.split(separator: "/").last.map(String.init) ?? output
        let named = name.contains(".") ? (name.split(separator: ".").last.map(String.init) ?? "").lowercased() : ""
        let expected = image.format == .jpeg ? ["jpg", "jpeg"] : [image.format.rawValue]
        if ["png", "jpg", "jpeg"].contains(named), !expected.contains(named) {
            StandardError.write(
                "glance: \(output): warning: the stored thumbnail is \(image.format.rawValue.uppercased()), not .\(named)"
            )
        }
        print("\(DisplayText.escaped(output)) \(image.width)x\(image.height) \(image.format.rawValue)")
    }
}
