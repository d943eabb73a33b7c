internal import CFileAccess
import GlanceCore
import GlancePipeline

#if canImport(Glibc)
    import Glibc
#endif

/// The pixels of documents' stored thumbnails, for a terminal to draw: the store's smallest
/// PNG or JPEG size that fills the box (the one a grid tile would load), decoded and fitted into
/// the box by a renderer, in its sandbox. No document is opened, and this process decodes
/// nothing: what the store holds is not trusted, so it goes to a renderer as a document would (a
/// sealed memory file), and only plain RGBA comes back, checked for its size.
public struct ThumbnailPixels: Sendable {
    let store: any ThumbnailStore
    let pool: RendererPool

    public init(store: any ThumbnailStore, pool: RendererPool) {
        self.store = store
        self.pool = pool
    }

    /// The size key of `thumbnails` to draw in `box` pixels: the smallest whose longer side
    /// reaches the box, else the largest one.
    static func chosen(from thumbnails: [ThumbnailImage], box: Int) -> ThumbnailImage? {
        let readable = thumbnails.sorted { max($0.width, $0.height) < max($1.width, $1.height) }
        return readable.first { max($0.width, $0.height) >= box } ?? readable.last
    }

    /// The pixels of `path`'s stored thumbnail fitted into `box`, or nil when the store holds
    /// none or a renderer refuses it. The sizes are chosen from by their descriptions; only the
    /// chosen one's bytes are read.
    public func pixels(of path: String, box: Int) async -> RGBAImage? {
        guard let described = try? await store.document(at: path, bytes: .none),
            let chosen = Self.chosen(from: described.thumbnails, box: box),
            let stored = try? await store.document(at: path, bytes: .only(chosen.sizeKey)),
            let image = stored.thumbnails.first(where: { $0.sizeKey == chosen.sizeKey }), let bytes = image.data,
            !bytes.isEmpty
        else { return nil }
        let descriptor = bytes.withUnsafeBytes { glance_memory_file($0.baseAddress, $0.count) }
        guard descriptor >= 0 else { return nil }
        var job = RenderJob(
            id: 1, name: "stored-thumbnail.\(image.format.fileExtension)", maxSide: box, computeDigest: false)
        job.pixelsOnly = true
        guard
            case .finished(let outcome) = await pool.run(
                job, file: OpenFile(adopting: descriptor), lane: .interactive),
            outcome.status == .rendered
        else { return nil }
        return RGBAImage(width: outcome.width, height: outcome.height, bytes: outcome.data)
    }
}
