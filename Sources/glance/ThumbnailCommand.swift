import ArgumentParser
import GlanceRender

/// `glance thumbnail FILE`: one document's thumbnail, written to a file; no container involved.
struct ThumbnailCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "thumbnail",
        abstract: "Render one document's thumbnail (fits 1024x1024) to a file.",
        discussion: """
            Prints 'OUT WIDTHxHEIGHT' on success. On failure prints one line, \
            'glance: FILE: reason', leaves no OUT behind and exits 1.
            """
    )

    /// How the output format is chosen.
    enum FormatChoice: String, ExpressibleByArgument, CaseIterable {
        case auto, png, jpeg
    }

    @Argument(help: "The document: a PDF, PNG, JPEG or plain-text file.")
    var file: String

    @Option(
        name: [.short, .customLong("output")],
        help: ArgumentHelp(
            "Where to write the thumbnail; its extension (.png, .jpg) picks the format. Default: FILE's name + '.thumbnail.png' (or '.jpg') in the current folder.",
            valueName: "OUT"))
    var output: String?

    @Option(help: "auto (JPEG for opaque photos, PNG otherwise), png or jpeg.")
    var format: FormatChoice = .auto

    @Option(help: "Refuse images that would need more than this many decoded pixels.")
    var maxPixels: Int = RenderRequest.defaultMaxPixels

    @Option(help: "The box the thumbnail fits into, in pixels.")
    var size: Int = ThumbnailGeometry.defaultMaxSide

    @Flag(name: .shortAndLong, help: "Say what was found on the way (type, source size, decoder warnings) on stderr.")
    var verbose = false

    func validate() throws {
        if maxPixels < 1 { throw ValidationError("--max-pixels must be a positive number.") }
        if size < 1 || size > 16384 { throw ValidationError("--size must be between 1 and 16384.") }
        if let output {
            let named = ImageFormat(fileExtension: ContentType.fileExtension(of: output))
            if named == nil && format == .auto {
                throw ValidationError(
                    "Cannot tell the format from '\(output)': use a .png or .jpg name, or --format png|jpeg.")
            }
            if let named, format != .auto, named.rawValue != format.rawValue {
                throw ValidationError("'\(output)' names a \(named.rawValue) file but --format is \(format.rawValue).")
            }
        }
    }

    func run() throws {
        let request = RenderRequest(path: file, maxSide: size, maxPixels: maxPixels)
        do {
            let (type, thumbnail) = try Thumbnailer().render(request)
            let chosen = chosenFormat(for: type, image: thumbnail.image)
            let destination = output ?? Self.defaultOutput(for: file, format: chosen)
            let bytes = try ImageEncoder.encode(thumbnail.image, as: chosen, content: PNGContent(source: type))
            try AtomicFileWriter.write(bytes, to: destination)
            if verbose {
                StandardError.write(
                    "glance: \(file): \(type.displayName), \(thumbnail.sourceWidth)x\(thumbnail.sourceHeight), \(bytes.count) bytes of \(chosen.rawValue)"
                )
                for warning in thumbnail.warnings { StandardError.write("glance: \(file): warning: \(warning)") }
            }
            print("\(destination) \(thumbnail.image.width)x\(thumbnail.image.height)")
        } catch {
            StandardError.report(path: file, error)
            throw ExitCode(1)
        }
    }

    private func chosenFormat(for type: ContentType, image: PixelBuffer) -> ImageFormat {
        if let output, let named = ImageFormat(fileExtension: ContentType.fileExtension(of: output)) { return named }
        switch format {
        case .png: return .png
        case .jpeg: return .jpeg
        case .auto: return ImageFormat.automatic(for: type, image: image)
        }
    }

    /// `FILE`'s base name + `.thumbnail.png` (or `.jpg`), in the current folder.
    static func defaultOutput(for file: String, format: ImageFormat) -> String {
        let base = file.split(separator: "/").last.map(String.init) ?? file
        return "\(base).thumbnail.\(format.fileExtension)"
    }
}
