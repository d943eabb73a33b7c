/// A second home for thumbnails that the indexer keeps in step with the store, such as the
/// freedesktop.org thumbnail cache (`--xdg`).
///
/// The store stays the source of truth: the indexer tells a mirror of every record it saves,
/// together with the renditions (``Rendition``) it asked the worker for in the same render, and
/// can fill a mirror from the stored thumbnails of documents that were fresh already.
public protocol ThumbnailMirror: Sendable {
    /// The boxes of the renditions it keeps; every render asks the worker for these.
    var renditionSides: [Int] { get }

    /// Whether it already holds what `record` calls for (a fresh document's entries, a failed
    /// one's failure entry), so that nothing needs doing.
    func holds(_ record: DocumentRecord) -> Bool

    /// Brings its entries for `record` up to date: `renditions` are a fresh document's (one
    /// per ``renditionSides``, in order), empty otherwise; `sourceSize` is the document's size
    /// in pixels when known. Failures are the mirror's to record and report; they never fail
    /// the document.
    func update(_ record: DocumentRecord, renditions: [Rendition], sourceSize: PixelSize?)

    /// Notes that the entries of the document at `path` could not be made, and why.
    func noteFailure(path: String, reason: String)
}

/// A width and height in pixels.
public struct PixelSize: Sendable, Equatable, Codable {
    public var width: Int
    public var height: Int

    public init(width: Int, height: Int) {
        self.width = width
        self.height = height
    }
}
