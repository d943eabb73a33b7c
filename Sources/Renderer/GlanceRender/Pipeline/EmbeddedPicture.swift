internal import CFileAccess
import GlanceCore

/// A picture held inside another document (an e-book's cover, a comic book's page), drawn by
/// the families that may be such a picture (``FormatCapabilities/embeddable``) from a sealed
/// in-memory copy: sniffed by its bytes with those families' rules, never by the name it has in
/// its archive.
struct EmbeddedPicture: Sendable {
    /// The renderers of the kinds a picture may be, by type.
    private let renderers: [ContentType: any DocumentRenderer]
    /// The sniffer of those kinds.
    private let sniffer: ContentSniffer
    /// Their names, for the message that a picture is none of them.
    private let kindNames: String

    /// The pictures `families` draw, their renderers made with `tools`; none without tools.
    init(families: [FormatFamily], tools: RendererTools? = nil) {
        var renderers: [ContentType: any DocumentRenderer] = [:]
        if let tools {
            for family in families {
                for type in family.contentTypes { renderers[type] = family.makeRenderer(type, tools) }
            }
        }
        self.renderers = renderers
        sniffer = ContentSniffer(families: families)
        let names = families.flatMap(\.contentTypes).map(\.displayName)
        kindNames =
            names.count > 1 ? names.dropLast().joined(separator: ", ") + " or " + names.last! : names.first ?? ""
    }

    /// The file name extensions of the built-in kinds, lower case: how an archive's entries are
    /// told to be pictures before any is read.
    static let fileExtensions: Set<String> = Set(
        FormatFamily.builtIn.filter { $0.capabilities.contains(.embeddable) }.flatMap(\.contentTypes)
            .flatMap(\.conventionalExtensions))

    /// The built-in families a picture inside a file may be.
    private static let builtInFamilies = FormatFamily.builtIn.filter { $0.capabilities.contains(.embeddable) }
    /// Their sniffer and their decoders.
    private static let builtInSniffer = ContentSniffer(families: builtInFamilies)
    private static let builtInDecoders: [ContentType: FormatFamily.OpenDecoder] = Dictionary(
        builtInFamilies.flatMap { family in
            family.contentTypes.compactMap { type in family.openDecoder.map { (type, $0) } }
        },
        uniquingKeysWith: { first, _ in first })

    /// The decoder of the picture open at `file` inside a document (a video's cover), sniffed by
    /// its bytes among the kinds a picture may be: the one way such a picture is opened to be
    /// decoded. `what` names it in messages ("the cover picture"); the request's box and limits
    /// hold for it.
    static func decoder(
        for file: OpenFile, as what: String, request: RenderRequest, colourTransforms: ColourTransformCache
    ) throws(ThumbnailError) -> any RasterDecoder {
        let prefix = try FileReader.readPrefix(of: file, maxBytes: 64)
        guard prefix.bytes.count > 0 else { throw .corrupt(format: "picture", detail: "\(what) is empty") }
        guard let type = builtInSniffer.signatureType(prefix.bytes, named: nil), let decoder = builtInDecoders[type]
        else {
            let names = builtInFamilies.flatMap(\.contentTypes).map(\.displayName)
            throw .unsupported(
                detail: "\(what) is not a \(names.dropLast().joined(separator: ", ")) or \(names.last ?? "") picture")
        }
        var inner = request
        inner.file = file
        inner.name = what
        inner.page = 1
        inner.text = nil
        return try decoder(inner, type, colourTransforms)
    }

    /// Whether an entry named `name` is a picture by its extension.
    static func isPictureName(_ name: String) -> Bool {
        fileExtensions.contains(ContentType.fileExtension(of: name).lowercased())
    }

    /// Draws `bytes` as `request` asks (its box and limits; its first page), the picture being
    /// `what` in messages ("the cover picture", "page 3").
    func render(_ bytes: [UInt8], as what: String, request: RenderRequest) throws(ThumbnailError) -> RenderedThumbnail {
        guard !bytes.isEmpty else { throw .corrupt(format: "picture", detail: "\(what) is empty") }
        guard let type = sniffer.signatureType(Array(bytes.prefix(64)), named: nil), let renderer = renderers[type]
        else {
            throw .unsupported(detail: "\(what) is not a \(kindNames) picture")
        }
        let descriptor = bytes.withUnsafeBytes { glance_memory_file($0.baseAddress, $0.count) }
        guard descriptor >= 0 else { throw .unreadable(reason: "\(what) could not be copied into memory") }
        var inner = request
        inner.file = OpenFile(adopting: descriptor)
        inner.name = what
        inner.page = 1
        inner.text = nil
        return try renderer.render(inner)
    }
}
