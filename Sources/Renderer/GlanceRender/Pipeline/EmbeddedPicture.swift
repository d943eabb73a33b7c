internal import CFileAccess
import GlanceCore

/// A picture held inside another document (an e-book's cover, a comic book's page), drawn by
/// the image renderers from a sealed in-memory copy: sniffed by its bytes, never by the name it
/// has in its archive.
struct EmbeddedPicture: Sendable {
    /// The image renderers a picture may need, by type.
    let renderers: [ContentType: any DocumentRenderer]

    /// The kinds a picture may be.
    static let kinds: [ContentType] = [.jpeg, .png, .webp, .gif, .tiff, .heic, .avif]

    /// The file name extensions of those kinds, lower case: how an archive's entries are told
    /// to be pictures before any is read.
    static let fileExtensions: Set<String> = Set(kinds.flatMap(\.conventionalExtensions))

    /// Whether an entry named `name` is a picture by its extension.
    static func isPictureName(_ name: String) -> Bool {
        fileExtensions.contains(ContentType.fileExtension(of: name).lowercased())
    }

    /// Draws `bytes` as `request` asks (its box and limits; its first page), the picture being
    /// `what` in messages ("the cover picture", "page 3").
    func render(_ bytes: [UInt8], as what: String, request: RenderRequest) throws(ThumbnailError) -> RenderedThumbnail {
        guard !bytes.isEmpty else { throw .corrupt(format: "picture", detail: "\(what) is empty") }
        guard
            case .supported(let type) = ContentSniffer.classify(
                prefix: Array(bytes.prefix(64)), isWholeFile: bytes.count <= 64, fileName: "", textAllowed: false
            ).result, let renderer = renderers[type]
        else {
            throw .unsupported(detail: "\(what) is not a JPEG, PNG, WebP, GIF, TIFF, HEIC or AVIF picture")
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
