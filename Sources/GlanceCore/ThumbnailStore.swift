/// Where thumbnail dictionaries and promised-item attributes are kept.
///
/// The SQLite sidecar (``SidecarStore``) is the implementation today; the protocol lets a store
/// shared by many machines (PostgreSQL, say) replace it without touching callers. Every method
/// is one transaction: a crash at any moment leaves the store as it was before or after it.
/// Several processes may use one store at once.
public protocol ThumbnailStore: Sendable {
    /// The document recorded at `path`, with image bytes only if `includingImageData`.
    func document(at path: String, includingImageData: Bool) throws(StoreError) -> StoredDocument?

    /// Every recorded document, thumbnails without their bytes.
    func allDocuments() throws(StoreError) -> [StoredDocument]

    /// Records `record` and replaces its thumbnail dictionary with `thumbnails`, and releases any
    /// claim on its path, in one transaction.
    func save(_ record: DocumentRecord, thumbnails: [ThumbnailImage]) throws(StoreError)

    /// Moves the record (and its thumbnails) at `oldPath` to `newPath` with the file's new
    /// identity: a renamed document keeps its thumbnail without rendering again. A record
    /// already at `newPath` is replaced. Does nothing when no record is at `oldPath` (moved
    /// already by another process).
    func moveDocument(from oldPath: String, to newPath: String, identity: FileIdentity) throws(StoreError)

    /// Deletes the records at `paths`; says how many went and how many thumbnail bytes with them.
    func removeDocuments(at paths: [String]) throws(StoreError) -> RemovalReport

    /// Claims `paths` for rendering by process `pid`, so that two batches on one container do
    /// not render the same document twice. Returns the paths granted: those unclaimed, claimed
    /// by `pid` already, or claimed by a process that is gone or whose claim is older than
    /// `staleAfterSeconds`.
    func claim(paths: [String], pid: Int32, staleAfterSeconds: Double) throws(StoreError) -> [String]

    /// Drops every claim held by `pid` (at the end of a batch, or after a crash was noticed).
    func releaseClaims(pid: Int32) throws(StoreError)

    /// Drops `pid`'s claims on `paths`.
    func releaseClaims(paths: [String], pid: Int32) throws(StoreError)

    /// Drops the claims of processes that no longer exist.
    func releaseClaimsOfEndedProcesses() throws(StoreError)

    /// Bytes the store occupies on disk (database and its journal files).
    func sizeOnDisk() -> Int64

    /// Runs SQLite's integrity check; true when it says `ok`.
    func checkIntegrity() throws(StoreError) -> Bool
}

/// What ``ThumbnailStore/removeDocuments(at:)`` removed.
public struct RemovalReport: Sendable, Equatable {
    /// How many document records were deleted.
    public var documents: Int
    /// The encoded bytes of their thumbnails, added up.
    public var thumbnailBytes: Int64

    /// Creates a report.
    public init(documents: Int, thumbnailBytes: Int64) {
        self.documents = documents
        self.thumbnailBytes = thumbnailBytes
    }
}

/// Why the store could not do what was asked.
public struct StoreError: Error, Sendable, CustomStringConvertible {
    /// What went wrong, in words a user can act on.
    public let message: String
    /// The store's location.
    public let location: String

    /// Creates an error about the store at `location`.
    public init(message: String, location: String) {
        self.message = message
        self.location = location
    }

    /// `thumbnail store LOCATION: MESSAGE`.
    public var description: String { "thumbnail store \(location): \(message)" }
}
