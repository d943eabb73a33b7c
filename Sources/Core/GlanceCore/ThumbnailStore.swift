/// Where thumbnail dictionaries and promised-item attributes are kept, for one container.
///
/// The SQLite sidecar (`SidecarStore`) is the embedded implementation; the protocol lets a store
/// shared by many machines (PostgreSQL) take its place without touching callers, which is why
/// every method is `async` (a network round trip) and nothing here is SQLite's own (its size on
/// disk and integrity check belong to the sidecar). An instance serves one container (its
/// container key); one database may hold many. Every method is one transaction: a crash at any
/// moment leaves the store as it was before or after it. Several processes, on one machine or
/// many, may use one store at once.
public protocol ThumbnailStore: Sendable {
    /// The document recorded at `path`, every thumbnail described, with the image bytes of those
    /// `bytes` names (a GET of one size reads that one's bytes, not every size's).
    func document(at path: String, bytes: ThumbnailBytes) async throws(StoreError) -> StoredDocument?

    /// The documents recorded at `paths` (those that have a record), thumbnails without bytes,
    /// by their paths' bytes (``PathKey``: two canonically equal names are two documents).
    func documents(at paths: [String]) async throws(StoreError) -> [PathKey: StoredDocument]

    /// Up to `limit` records in path order, starting after `path` (nil: from the first), thumbnails
    /// without bytes: a listing reads a large container page by page.
    func documents(after path: String?, limit: Int) async throws(StoreError) -> [StoredDocument]

    /// Every recorded document, thumbnails without their bytes (planning a batch needs them all).
    func allDocuments() async throws(StoreError) -> [StoredDocument]

    /// Records `record` and replaces its thumbnail dictionary with `thumbnails`, and releases any
    /// claim on its path, in one transaction.
    func save(_ record: DocumentRecord, thumbnails: [ThumbnailImage]) async throws(StoreError)

    /// Moves the record (and its thumbnails) at `oldPath` to `newPath` with the file's new
    /// identity: a renamed document keeps its thumbnail without rendering again. A record
    /// already at `newPath` is replaced. Does nothing when no record is at `oldPath` (moved
    /// already by another process): moves are idempotent.
    func moveDocument(from oldPath: String, to newPath: String, identity: FileIdentity) async throws(StoreError)

    /// Deletes the records at `paths`; says how many went and how many thumbnail bytes with them.
    func removeDocuments(at paths: [String]) async throws(StoreError) -> RemovalReport

    /// Claims `paths` for rendering under `lease`, so that two batches (on one machine or many)
    /// do not render the same document twice. Returns the paths granted, in the order given:
    /// those unclaimed, claimed under this lease already (their expiry is renewed), or claimed
    /// under a lease that has expired or whose holder is known to be gone.
    func claim(paths: [String], under lease: Lease) async throws(StoreError) -> [String]

    /// Moves the expiry of every claim under `lease` to now plus its duration (a heartbeat).
    func renew(_ lease: Lease) async throws(StoreError)

    /// Drops the claims under `lease`: on `paths` only, or all of them when `paths` is nil.
    func release(_ lease: Lease, paths: [String]?) async throws(StoreError)

    /// Drops claims that have expired or whose holder is known to be gone, so that none lingers.
    func releaseAbandonedClaims() async throws(StoreError)

    /// Counts: documents by recorded state and the bytes of their thumbnails.
    func totals() async throws(StoreError) -> StoreTotals

    /// The value of this container's setting `name` (such as ``ThumbnailSizes/settingName``), or
    /// nil when it was never set.
    func setting(_ name: String) async throws(StoreError) -> String?

    /// Sets this container's setting `name` to `value`, or clears it with nil.
    func setSetting(_ name: String, to value: String?) async throws(StoreError)
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

/// A store's contents in numbers.
public struct StoreTotals: Sendable, Equatable, Codable {
    /// Records by state.
    public var documents: [DocumentState: Int]
    /// The encoded bytes of every thumbnail.
    public var thumbnailBytes: Int64

    public init(documents: [DocumentState: Int] = [:], thumbnailBytes: Int64 = 0) {
        self.documents = documents
        self.thumbnailBytes = thumbnailBytes
    }
}

/// Why the store could not do what was asked: a kind a caller can switch on, and words a user
/// can act on.
public struct StoreError: Error, Sendable, CustomStringConvertible {
    /// What kind of failure it is.
    public enum Kind: Sendable, Equatable {
        /// Another process held the store locked too long.
        case busy
        /// The database is damaged (or not a database at all).
        case corrupt
        /// The database holds other data than a Glance store.
        case notAStore
        /// A newer Glance wrote the store; this version must not change it.
        case newerSchema
        /// Reading or writing failed: permissions, a full disk, an I/O error.
        case io
        /// The store cannot be reached (a network store's server is down).
        case unavailable
        /// A record holds something this version cannot read, or a request was malformed.
        case invalid
    }

    /// What kind of failure it is.
    public let kind: Kind
    /// What went wrong, in words a user can act on.
    public let message: String
    /// The store's location.
    public let location: String

    /// Creates an error about the store at `location`.
    public init(_ kind: Kind, message: String, location: String) {
        self.kind = kind
        self.message = message
        self.location = location
    }

    /// `thumbnail store LOCATION: MESSAGE`.
    public var description: String { "thumbnail store \(location): \(message)" }
}

/// Which of a document's thumbnails a read brings with their image bytes; the others come
/// described (size, format, byte count) without them.
public enum ThumbnailBytes: Sendable, Equatable {
    /// None: what a listing or a freshness check needs.
    case none
    /// Every size's.
    case all
    /// Only the size of this key's (``ThumbnailImage/sizeKey``).
    case only(String)
}

extension ThumbnailStore {
    /// The document recorded at `path`, with every thumbnail's image bytes if
    /// `includingImageData`, none otherwise.
    public func document(at path: String, includingImageData: Bool) async throws(StoreError) -> StoredDocument? {
        try await document(at: path, bytes: includingImageData ? .all : .none)
    }
}
