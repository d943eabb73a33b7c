import GlanceCore

/// A store that times every call for the metrics (`glance_store_call_duration_seconds{call}`,
/// `glance_store_errors_total{call}`) and otherwise is the store it wraps: one place for the
/// store's metrics, whichever store (SQLite or PostgreSQL) it is.
public struct MeteredStore: ThumbnailStore {
    public let store: any ThumbnailStore
    let metrics: RenderMetrics

    public init(_ store: any ThumbnailStore, metrics: RenderMetrics) {
        self.store = store
        self.metrics = metrics
    }

    /// Runs `body`, the call named `call`, and records its time and whether it failed.
    private func timed<Value>(_ call: String, _ body: () async throws(StoreError) -> Value) async throws(StoreError)
        -> Value
    {
        let start = ContinuousClock.now
        do {
            let value = try await body()
            metrics.storeCall(call, duration: ContinuousClock.now - start, failed: false)
            return value
        } catch {
            metrics.storeCall(call, duration: ContinuousClock.now - start, failed: true)
            throw error
        }
    }

    public func document(at path: String, bytes: ThumbnailBytes) async throws(StoreError) -> StoredDocument? {
        try await timed("document") { () async throws(StoreError) in try await store.document(at: path, bytes: bytes) }
    }

    public func documents(at paths: [String]) async throws(StoreError) -> [PathKey: StoredDocument] {
        try await timed("documents") { () async throws(StoreError) in try await store.documents(at: paths) }
    }

    public func documents(after path: String?, limit: Int) async throws(StoreError) -> [StoredDocument] {
        try await timed("documents_page") { () async throws(StoreError) in
            try await store.documents(after: path, limit: limit)
        }
    }

    public func allDocuments() async throws(StoreError) -> [StoredDocument] {
        try await timed("all_documents") { () async throws(StoreError) in try await store.allDocuments() }
    }

    public func save(_ record: DocumentRecord, thumbnails: [ThumbnailImage]) async throws(StoreError) {
        try await timed("save") { () async throws(StoreError) in try await store.save(record, thumbnails: thumbnails) }
    }

    public func moveDocument(from oldPath: String, to newPath: String, identity: FileIdentity) async throws(StoreError)
    {
        try await timed("move") { () async throws(StoreError) in
            try await store.moveDocument(from: oldPath, to: newPath, identity: identity)
        }
    }

    public func removeDocuments(at paths: [String]) async throws(StoreError) -> RemovalReport {
        try await timed("remove") { () async throws(StoreError) in try await store.removeDocuments(at: paths) }
    }

    public func claim(paths: [String], under lease: Lease) async throws(StoreError) -> [String] {
        try await timed("claim") { () async throws(StoreError) in try await store.claim(paths: paths, under: lease) }
    }

    public func renew(_ lease: Lease) async throws(StoreError) {
        try await timed("renew") { () async throws(StoreError) in try await store.renew(lease) }
    }

    public func release(_ lease: Lease, paths: [String]?) async throws(StoreError) {
        try await timed("release") { () async throws(StoreError) in try await store.release(lease, paths: paths) }
    }

    public func releaseAbandonedClaims() async throws(StoreError) {
        try await timed("release_abandoned") { () async throws(StoreError) in try await store.releaseAbandonedClaims() }
    }

    public func totals() async throws(StoreError) -> StoreTotals {
        try await timed("totals") { () async throws(StoreError) in try await store.totals() }
    }

    public func setting(_ name: String) async throws(StoreError) -> String? {
        try await timed("setting") { () async throws(StoreError) in try await store.setting(name) }
    }

    public func setSetting(_ name: String, to value: String?) async throws(StoreError) {
        try await timed("set_setting") { () async throws(StoreError) in try await store.setSetting(name, to: value) }
    }
}
