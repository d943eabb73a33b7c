import ArgumentParser
import GlancePipeline
import GlanceRender
import GlanceStore

/// `glance export CONTAINER FILE -o OUT`: the stored thumbnail's bytes, as they are.
struct ExportCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "export",
        abstract: "Write a document's stored 1024x1024 thumbnail to a file, byte for byte.")

    @OptionGroup var location: ContainerOptions

    @Argument(help: "The document, a path inside the container.")
    var file: String

    @Option(
        name: [.short, .customLong("output")], help: ArgumentHelp("Where to write the thumbnail.", valueName: "OUT"))
    var output: String

    @Option(help: "The size key of the thumbnail dictionary entry.")
    var sizeKey: String = ThumbnailImage.standardSizeKey

    func run() throws {
        let (scanner, store) = try location.openForReading()
        let relative = try DocumentLocator.relativePath(of: file, in: scanner, container: location.container)
        let stored: StoredDocument?
        do {
            stored = try store.document(at: relative, includingImageData: true)
        } catch {
            throw CommandFailure.unusable(error.description)
        }
        guard let stored, let image = stored.thumbnails.first(where: { $0.sizeKey == sizeKey }), let data = image.data
        else {
            let reason = stored.map {
                $0.record.state == .fresh
                    ? "no \(sizeKey) thumbnail"
                    : "no thumbnail (\($0.record.state.rawValue)\($0.record.error.map { ": " + $0 } ?? ""))"
            }
            StandardError.report(path: file, reason ?? "no thumbnail yet: run 'glance generate' first")
            throw CommandFailure.documentsFailed
        }
        if let current = FileStatus.identity(ofFileAt: scanner.absolutePath(of: relative)),
            current != stored.record.identity
        {
            StandardError.write("glance: \(file): warning: the thumbnail is stale (the document changed since)")
        }
        do {
            try AtomicFileWriter.write(data, to: output)
        } catch {
            StandardError.report(path: output, error)
            throw CommandFailure.documentsFailed
        }
        print("\(output) \(image.width)x\(image.height) \(image.format.rawValue)")
    }
}
