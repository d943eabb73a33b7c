/// A store with no documents, for reading a container that has never been generated: `list`
/// and `show` then say every document is `missing` without creating a sidecar as a side effect.
public struct EmptyStore: ThumbnailStore {
    public init() {}

    public func document(at path: String, includingImageData: Bool) throws(StoreError) -> StoredDocument? { nil }
    public func allDocuments() throws(StoreError) -> [StoredDocument] { [] }
    public func save(_ record: DocumentRecord, thumbnails: [ThumbnailImage]) throws(StoreError) {
        throw StoreError(message: "the empty store is read-only", location: "(none)")
    }
    public func moveDocument(from oldPath: String, to newPath: String, identity: FileIdentity) throws(StoreError) {
        throw StoreError(message: "the empty store is read-only", location: "(none)")
    }
    public func removeDocuments(at paths: [String]) throws(StoreError) -> RemovalReport {
        RemovalReport(documents: 0, thumbnailBytes: 0)
    }
    public func claim(paths: [String], pid: Int32, staleAfterSeconds: Double) throws(StoreError) -> [String] { [] }
    public func releaseClaims(pid: Int32) throws(StoreError) {}
    public func releaseClaims(paths: [String], pid: Int32) throws(StoreError) {}
    public func releaseClaimsOfEndedProcesses() throws(StoreError) {}
    public func sizeOnDisk() -> Int64 { 0 }
    public func checkIntegrity() throws(StoreError) -> Bool { true }
}
