import ArgumentParser
import Glance
import GlanceContainer
import GlanceCore
import GlanceListing
import GlancePipeline
import GlanceStore
import GlanceTerminal

#if canImport(Glibc)
    import Glibc
#endif

/// `glance show CONTAINER FILE`: one document's promised-item attributes.
struct ShowCommand: AsyncParsableCommand, ContainerCommand {
    static let configuration = CommandConfiguration(
        commandName: "show",
        abstract: "Show one document's attributes and thumbnail dictionary (from the store and a stat).")

    @OptionGroup var containerOptions: ContainerOptions

    @Argument(help: "The document: a path inside the container (relative to it, or as seen from here).")
    var file: String

    @Flag(help: "Print one JSON object.")
    var json = false

    @Option(
        help: ArgumentHelp(
            """
            Draw the stored thumbnail as large as the terminal allows above the attributes: auto \
            (the default with a bare --preview), kitty, iterm, sixel or symbols (see glance list --help).
            """, valueName: "MODE"))
    var preview: PictureChoice?

    @OptionGroup var pictureOptions: PictureOptions

    func validate() throws {
        if preview != nil, json { throw ValidationError("--preview draws a picture, --json writes data: not both") }
    }

    func run() async throws {
        let (scanner, store) = try await location.openForReading()
        let relative = try DocumentLocator.relativePath(of: file, in: scanner, container: location.container)
        let found: PromisedItemAttributes?
        let policy = try await location.freshness(of: store)
        do {
            found =
                try await PreviewListing(scanner: scanner, store: store, policy: policy).attributes(
                    forPaths: [
                        relative
                    ]).first ?? nil
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
        var lines: [String] = []
        if let preview {
            // The picture, its name and state, then the attributes below it (about a dozen lines).
            let reserved =
                3 + 7 + item.thumbnails.count + item.sizesServedByStandard.count
                + (item.details.map { ListingFormatter.detailLines($0).count } ?? 0)
            _ = try await pictureOptions.draw([item], choice: preview, store: store, reservingRows: reserved)
        }
        lines += [
            "path        \(DisplayText.escaped(item.path))",
            "kind        \(item.kind) (\(item.mimeType))",
            "size        \(ListingFormatter.byteCount(item.size)) (\(item.size) bytes)",
            "modified    \(ListingFormatter.iso8601(item.modified))",
            "state       \(DisplayText.escaped(ListingFormatter.stateText(item)))",
        ]
        if let details = item.details { lines += ListingFormatter.detailLines(details) }
        for image in item.thumbnails {
            lines.append(
                "thumbnail   \(DisplayText.escaped(image.sizeKey)): \(image.width)x\(image.height) \(image.format.rawValue), \(ListingFormatter.byteCount(Int64(image.byteCount)))"
            )
        }
        for key in item.sizesServedByStandard {
            lines.append("thumbnail   \(DisplayText.escaped(key)): the \(ThumbnailImage.standardSizeKey) one (it fits)")
        }
        if let generatedAt = item.generatedAt, let version = item.generatorVersion {
            lines.append(
                "generated   \(ListingFormatter.iso8601(generatedAt)) by glance \(DisplayText.escaped(version))")
        }
        // Every value above came from the store, which another process may have written: each is
        // escaped where it is put in, and each line is made safe once more here, so that a field
        // added later cannot reach the terminal raw.
        print(lines.map(DisplayText.lineSafe).joined(separator: "\n"))
    }
}

/// Turns a FILE argument into a path inside the container.
enum DocumentLocator {
    /// `file` as a path relative to the container (see ``locate(_:in:)``); a `file` outside it,
    /// or a hidden one, is reported and ends the command.
    static func relativePath(of file: String, in scanner: ContainerScanner, container: String) throws -> String {
        guard let relative = locate(file, in: scanner) else {
            StandardError.report(path: file, "not inside the container \(container)")
            throw CommandFailure.documentsFailed
        }
        do {
            return try DocumentPath(relative).relative
        } catch {
            StandardError.report(path: file, error.reason.description)
            throw CommandFailure.documentsFailed
        }
    }

    /// `file` as a path relative to the container, or nil when it lies outside: taken relative to
    /// the container when it names an entry there (or is a plain relative path that stays
    /// inside), else as a path from the current folder that must lie inside the container.
    /// Containment is decided from the path's folders (resolved) and its last name (not
    /// resolved: a symlink in the container is its own document), so it does not depend on the
    /// document existing, and `/etc/passwd` is outside.
    ///
    /// A path copied from JSON output, where a byte of a name that is not UTF-8 is the character
    /// U+10FF`NN` (see ``FileName``), is taken back to its bytes when the name as given names no
    /// entry and the bytes do.
    static func locate(_ file: String, in scanner: ContainerScanner) -> String? {
        let literal = located(file, in: scanner)
        if let literal, exists(literal, in: scanner) { return literal }
        if FileName.hasEscapedBytes(file), let fromJSON = String(validating: FileName.encode(file), as: UTF8.self),
            fromJSON != file, let named = located(fromJSON, in: scanner), exists(named, in: scanner)
        {
            return named
        }
        return literal
    }

    /// Whether `relative` names an entry of the container (a link is not followed).
    private static func exists(_ relative: String, in scanner: ContainerScanner) -> Bool {
        var status = stat()
        return FileName.withCString(scanner.absolutePath(of: relative), { lstat($0, &status) }) == 0
    }

    /// ``locate(_:in:)`` for the name exactly as given.
    private static func located(_ file: String, in scanner: ContainerScanner) -> String? {
        if !file.hasPrefix("/"), !file.hasPrefix("./"), !file.hasPrefix("../"), let inside = normalized(file),
            !inside.isEmpty
        {
            if exists(inside, in: scanner) { return inside }
            return relativeFromHere(file, root: scanner.root) ?? inside
        }
        return relativeFromHere(file, root: scanner.root)
    }

    /// `path` with `.` and empty components dropped and `..` applied; nil if `..` climbs above
    /// its start.
    static func normalized(_ path: String) -> String? {
        var parts: [String] = []
        for part in FileName.components(of: path) {
            switch part {
            case ".": continue
            case "..":
                guard !parts.isEmpty else { return nil }
                parts.removeLast()
            default: parts.append(part)
            }
        }
        return parts.joined(separator: "/")
    }

    /// `path` (absolute, or seen from the current folder) relative to `root` if it lies inside.
    static func relativeInside(_ path: String, root: String) -> String? {
        relativeFromHere(path, root: root)
    }

    /// Whether `path` (seen from the current folder) lies inside the folder `root`.
    static func liesInside(_ path: String, root: String) -> Bool {
        relativeFromHere(path, root: root) != nil
    }

    /// `file` seen from the current folder, relative to `root` if it lies inside it.
    private static func relativeFromHere(_ file: String, root: String) -> String? {
        var absolute = file
        if !file.hasPrefix("/") {
            guard let folder = getcwd(nil, 0) else { return nil }
            absolute = FileName.decode(cString: folder) + "/" + file
            free(folder)
        }
        guard let lexical = normalized(absolute), !lexical.isEmpty else { return nil }
        var parts = FileName.components(of: lexical)
        let name = parts.removeLast()
        var parent = "/" + parts.joined(separator: "/")
        if let resolved = FileName.withCString(parent, { realpath($0, nil) }) {
            parent = FileName.decode(cString: resolved)
            free(resolved)
        }
        let full = parent == "/" ? "/" + name : parent + "/" + name
        guard full.hasPrefix(root + "/") else { return nil }
        return String(full.dropFirst(root.count + 1))
    }
}
