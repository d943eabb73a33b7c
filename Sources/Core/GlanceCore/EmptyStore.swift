/// A store with no documents, for reading a container that has never been generated: `list`
/// and `show` then say every document is `missing` without creating a sidecar as a side effect.
/// Writing to it is an error.
public struct EmptyStore: ThumbnailStore {
    public init() {}

    private var readOnly: StoreError {
        StoreError(.invalid, message: "the empty store is read-only", location: "(none)")
    }

    public func document(at path: String, bytes: ThumbnailBytes) async throws(StoreError) -> StoredDocument? { nil }
    public func documents(at paths: [String]) async throws(StoreError) -> [PathKey: StoredDocument] { [:] }
    public func documents(after path: String?, limit: Int) async throws(StoreError) -> [StoredDocument] { [] }
    public func allDocuments() async throws(StoreError) -> [StoredDocument] { [] }
    public func save(_ record: DocumentRecord, thumbnails: [ThumbnailImage]) async throws(StoreError) {
        throw readOnly
    }
    public func moveDocument(from oldPath: String, to newPath: String, identity: FileIdentity) async throws(StoreError)
    {
        throw readOnly
    }
    public func removeDocuments(at paths: [String]) async throws(StoreError) -> RemovalReport {
        RemovalReport(documents: 0, thumbnailBytes: 0)
    }
    public func claim(paths: [String], under lease: Lease) async throws(StoreError) -> [String] { [] }
    public func renew(_ lease: Lease) async throws(StoreError) {}
    public func release(_ lease: Lease, paths: [String]?) async throws(StoreError) {}
    public func releaseAbandonedClaims() async throws(StoreError) {}
    public func totals() async throws(StoreError) -> StoreTotals { StoreTotals() }
    public func setting(_ name: String) async throws(StoreError) -> String? { nil }
    public func setSetting(_ name: String, to value: String?) async throws(StoreError) { throw readOnly }
}
