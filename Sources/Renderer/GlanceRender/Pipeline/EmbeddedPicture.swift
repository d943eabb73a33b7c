internal import CFileAccess
import GlanceCore

/// A picture held inside another document (an e-book's cover, a comic book's page, a video's
/// cover, a raw photo's preview), drawn or decoded by the families that may be such a picture
/// (``FormatCapabilities/embeddable``): sniffed by its bytes with those families' rules, never by
/// the name it has in its archive.
struct EmbeddedPicture: Sendable {
    /// The renderers of the kinds a picture may be, by type.
    private let renderers: [ContentType: any DocumentRenderer]
    /// The sniffer of those kinds.
    private let sniffer: ContentSniffer
    /// Their names, for the message that a picture is none of them.
    private let kindNames: String

    /// The pictures `families` draw, by the `renderers` already made for their types (none while
    /// those are being made).
    init(families: [FormatFamily], renderers: [ContentType: any DocumentRenderer] = [:]) {
        let types = Set(families.flatMap(\.contentTypes))
        self.renderers = renderers.filter { types.contains($0.key) }
        sniffer = ContentSniffer(families: families)
        kindNames = Self.names(of: families)
    }

    /// The built-in families a picture inside a file may be, their sniffer, their decoders and
    /// their names.
    private static let builtInFamilies = FormatFamily.builtIn.filter { $0.capabilities.contains(.embeddable) }
    private static let builtInSniffer = ContentSniffer(families: builtInFamilies)
    private static let builtInDecoders: [ContentType: FormatFamily.OpenDecoder] = Dictionary(
        builtInFamilies.flatMap { family in
            family.contentTypes.compactMap { type in family.openDecoder.map { (type, $0) } }
        },
        uniquingKeysWith: { first, _ in first })
    private static let builtInNames = names(of: builtInFamilies)

    /// The file name extensions of the built-in kinds, lower case: how an archive's entries are
    /// told to be pictures before any is read.
    static let fileExtensions: Set<String> = Set(
        builtInFamilies.flatMap(\.contentTypes).flatMap(\.conventionalExtensions))

    /// Whether an entry named `name` is a picture by its extension.
    static func isPictureName(_ name: String) -> Bool {
        fileExtensions.contains(ContentType.fileExtension(of: name).lowercased())
    }

    /// `JPEG, PNG or AVIF`: the kinds `families` draw, for a message.
    private static func names(of families: [FormatFamily]) -> String {
        let names = families.flatMap(\.contentTypes).map(\.displayName)
        guard let last = names.last else { return "" }
        return names.count == 1 ? last : names.dropLast().joined(separator: ", ") + " or " + last
    }

    /// `request` made the picture's: its file, its name in messages, its first page.
    private static func request(_ request: RenderRequest, for file: OpenFile, as what: String) -> RenderRequest {
        var inner = request
        inner.file = file
        inner.name = what
        inner.page = 1
        inner.text = nil
        return inner
    }

    /// The decoder of the picture open at `file` inside a document (a video's cover, a raw
    /// photo's preview), sniffed by its bytes among the built-in kinds a picture may be: the one
    /// way such a picture is opened to be decoded. `what` names it in messages ("the cover
    /// picture"); the request's box and limits hold for it.
    static func decoder(
        for file: OpenFile, as what: String, request: RenderRequest, colourTransforms: ColourTransformCache
    ) throws(ThumbnailError) -> any RasterDecoder {
        let prefix = try FileReader.readPrefix(of: file, maxBytes: 64)
        guard !prefix.bytes.isEmpty else { throw .corrupt(format: "picture", detail: "\(what) is empty") }
        guard let type = builtInSniffer.signatureType(prefix.bytes, named: nil), let decoder = builtInDecoders[type]
        else { throw .unsupported(detail: "\(what) is not a \(builtInNames) picture") }
        return try decoder(Self.request(request, for: file, as: what), type, colourTransforms)
    }

    /// The kind of the picture open at `file` inside a document, by its first bytes among the
    /// kinds here: how a picture that is then drawn as a document of its own (an office
    /// document's carried thumbnail, with its sizes) is sniffed. `what` names it in messages.
    func type(of file: OpenFile, as what: String) throws(ThumbnailError) -> ContentType {
        let prefix = try FileReader.readPrefix(of: file, maxBytes: 64)
        guard !prefix.bytes.isEmpty else { throw .corrupt(format: "picture", detail: "\(what) is empty") }
        guard let type = sniffer.signatureType(prefix.bytes, named: nil), renderers[type] != nil else {
            throw .unsupported(detail: "\(what) is not a \(kindNames) picture")
        }
        return type
    }

    /// The decoder of the picture `bytes` inside a document (an icon's entry), held in memory as
    /// a file: ``decoder(for:as:request:colourTransforms:)`` over them.
    static func decoder(
        of bytes: [UInt8], as what: String, request: RenderRequest, colourTransforms: ColourTransformCache
    ) throws(ThumbnailError) -> any RasterDecoder {
        let descriptor = bytes.withUnsafeBytes { glance_memory_file($0.baseAddress, $0.count) }
        guard descriptor >= 0 else { throw .unreadable(reason: "\(what) could not be copied into memory") }
        return try decoder(
            for: OpenFile(adopting: descriptor), as: what, request: request, colourTransforms: colourTransforms)
    }

    /// Draws `bytes` as `request` asks (its box and limits; its first page), the picture being
    /// `what` in messages ("the cover picture", "page 3").
    func render(_ bytes: [UInt8], as what: String, request: RenderRequest) throws(ThumbnailError) -> RenderedThumbnail {
        guard !bytes.isEmpty else { throw .corrupt(format: "picture", detail: "\(what) is empty") }
        guard let type = sniffer.signatureType(Array(bytes.prefix(64)), named: nil), let renderer = renderers[type]
        else { throw .unsupported(detail: "\(what) is not a \(kindNames) picture") }
        let descriptor = bytes.withUnsafeBytes { glance_memory_file($0.baseAddress, $0.count) }
        guard descriptor >= 0 else { throw .unreadable(reason: "\(what) could not be copied into memory") }
        return try renderer.render(Self.request(request, for: OpenFile(adopting: descriptor), as: what))
    }
}
