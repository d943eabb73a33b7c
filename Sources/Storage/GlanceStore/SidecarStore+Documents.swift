import Foundation
import GRDB
import GlanceCore

/// Reading and writing document records and their thumbnail dictionaries.
extension SidecarStore {
    /// This instance's documents: every query is scoped to its container key.
    private var ownDocuments: QueryInterfaceRequest<DocumentRow> {
        DocumentRow.filter(DocumentRow.Columns.container == container)
    }

    /// The document recorded at `path`, with the image bytes `bytes` names.
    public func document(at path: String, bytes: ThumbnailBytes) async throws(StoreError) -> StoredDocument? {
        let location = directory
        let documents = ownDocuments
        let rows = try await read { db -> (DocumentRow, [ThumbnailRow], [ThumbnailSummaryRow])? in
            guard let row = try documents.filter(DocumentRow.Columns.path == path).fetchOne(db), let id = row.id
            else {
                return nil
            }
            let ofDocument = ThumbnailRow.Columns.documentId == id
            switch bytes {
            case .all:
                return (row, try ThumbnailRow.filter(ofDocument).fetchAll(db), [])
            case .none:
                return (row, [], try ThumbnailSummaryRow.filter(ofDocument).fetchAll(db))
            case .only(let key):
                let whole = try ThumbnailRow.filter(ofDocument && ThumbnailRow.Columns.sizeKey == key).fetchAll(db)
                let described = try ThumbnailSummaryRow.filter(ofDocument && ThumbnailRow.Columns.sizeKey != key)
                    .fetchAll(db)
                return (row, whole, described)
            }
        }
        guard let (row, thumbnails, summaries) = rows else {
            return nil
        }
        var images: [ThumbnailImage] = []
        for thumbnail in thumbnails {
            images.append(try thumbnail.image(location: location))
        }
        for summary in summaries {
            images.append(try summary.image(location: location))
        }
        // In size-key order, whichever came with bytes.
        images.sort { $0.sizeKey < $1.sizeKey }
        return StoredDocument(record: try row.record(location: location), thumbnails: images)
    }

    /// The documents recorded at `paths`, thumbnails without bytes.
    public func documents(at paths: [String]) async throws(StoreError) -> [PathKey: StoredDocument] {
        let documents = ownDocuments
        let wanted = PathKey.unique(paths)
        let (rows, summaries) = try await read { db in
            var rows: [DocumentRow] = []
            // Chunks keep each statement well under SQLite's limit on bound parameters.
            for chunk in wanted.chunked(into: 500) {
                rows += try documents.filter(chunk.contains(DocumentRow.Columns.path)).fetchAll(db)
            }
            var summaries: [ThumbnailSummaryRow] = []
            for chunk in rows.compactMap(\.id).chunked(into: 500) {
                summaries += try ThumbnailSummaryRow.filter(chunk.contains(ThumbnailRow.Columns.documentId))
                    .order(ThumbnailRow.Columns.documentId, ThumbnailRow.Columns.sizeKey).fetchAll(db)
            }
            return (rows, summaries)
        }
        var byPath: [PathKey: StoredDocument] = [:]
        for document in try assemble(rows, summaries) { byPath[PathKey(document.record.path)] = document }
        return byPath
    }

    /// Up to `limit` records in path order after `path`, thumbnails without bytes.
    public func documents(after path: String?, limit: Int) async throws(StoreError) -> [StoredDocument] {
        var request = ownDocuments.order(DocumentRow.Columns.path).limit(max(0, limit))
        if let path { request = request.filter(DocumentRow.Columns.path > path) }
        let page = request
        let (rows, summaries) = try await read { db in
            let rows = try page.fetchAll(db)
            let ids = rows.compactMap(\.id)
            let summaries = try ThumbnailSummaryRow.filter(ids.contains(ThumbnailRow.Columns.documentId))
                .order(ThumbnailRow.Columns.documentId, ThumbnailRow.Columns.sizeKey).fetchAll(db)
            return (rows, summaries)
        }
        return try assemble(rows, summaries)
    }

    /// Every recorded document, thumbnails without their bytes.
    ///
    /// Two queries, joined here: one for the documents and one for every thumbnail's columns but
    /// its image. A JOIN would repeat each document's columns per thumbnail, and one query per
    /// document would cost 10,000 round trips on a large container.
    public func allDocuments() async throws(StoreError) -> [StoredDocument] {
        let documents = ownDocuments
        let container = container
        let (rows, summaries) = try await read { db in
            let rows = try documents.order(DocumentRow.Columns.path).fetchAll(db)
            let summaries =
                try ThumbnailSummaryRow
                .filter(
                    sql: "documentId IN (SELECT id FROM document WHERE container = ?)", arguments: [container]
                )
                .order(ThumbnailRow.Columns.documentId, ThumbnailRow.Columns.sizeKey).fetchAll(db)
            return (rows, summaries)
        }
        return try assemble(rows, summaries)
    }

    /// Pairs document rows with their thumbnail summaries, keeping the rows' order.
    private func assemble(_ rows: [DocumentRow], _ summaries: [ThumbnailSummaryRow]) throws(StoreError)
        -> [StoredDocument]
    {
        var imagesByDocument: [Int64: [ThumbnailImage]] = [:]
        for summary in summaries {
            imagesByDocument[summary.documentId, default: []].append(try summary.image(location: directory))
        }
        var documents: [StoredDocument] = []
        documents.reserveCapacity(rows.count)
        for row in rows {
            let images = row.id.flatMap { imagesByDocument[$0] } ?? []
            documents.append(StoredDocument(record: try row.record(location: directory), thumbnails: images))
        }
        return documents
    }

    /// Records `record` and replaces its thumbnail dictionary with `thumbnails`, and releases any
    /// claim on its path, in one transaction.
    ///
    /// A record already at the path keeps its id and is updated in place.
    public func save(_ record: DocumentRecord, thumbnails: [ThumbnailImage]) async throws(StoreError) {
        let location = directory
        let container = container
        // One save a document, so every statement is prepared once per connection and reused, and
        // its values are bound directly (SQLite compiling the lookups each time was a tenth of the
        // coordinator's time on text files; GRDB building each INSERT from the record's Codable
        // encoding, a date formatter included, was most of what remained of a save).
        try await write { db in
            let existingId = try Int64.fetchOne(
                db.cachedStatement(sql: "SELECT id FROM document WHERE container = ? AND path = ?"),
                arguments: [container, record.path])
            let row = DocumentRow(record, container: container, id: existingId)
            let id: Int64
            if let existingId {
                try db.cachedStatement(sql: DocumentRow.updateSQL).execute(
                    arguments: row.updateArguments(id: existingId))
                id = existingId
            } else {
                try db.cachedStatement(sql: DocumentRow.insertSQL).execute(arguments: row.insertArguments)
                id = db.lastInsertedRowID
            }
            try db.cachedStatement(sql: "DELETE FROM thumbnail WHERE documentId = ?").execute(arguments: [id])
            for image in thumbnails {
                let thumbnail = try ThumbnailRow(image, documentId: id, path: record.path, location: location)
                try db.cachedStatement(sql: ThumbnailRow.insertSQL).execute(arguments: thumbnail.insertArguments)
            }
            try db.cachedStatement(sql: "DELETE FROM claim WHERE container = ? AND path = ?")
                .execute(arguments: [container, record.path])
        }
    }

    /// Moves the record (and its thumbnails) at `oldPath` to `newPath` with the file's new
    /// identity. A record already at `newPath` is deleted first, thumbnails and all.
    ///
    /// Idempotent: when no record is at `oldPath` any more (another batch that planned the same
    /// rename moved it first, or it was removed), nothing happens; the document is then either
    /// recorded at `newPath` already or rendered by the next plan.
    public func moveDocument(from oldPath: String, to newPath: String, identity: FileIdentity) async throws(StoreError)
    {
        let documents = ownDocuments
        try await write { db in
            guard var row = try documents.filter(DocumentRow.Columns.path == oldPath).fetchOne(db) else {
                return
            }
            if oldPath != newPath {
                // (container, path) is UNIQUE, so the old target must go before the update.
                try documents.filter(DocumentRow.Columns.path == newPath).deleteAll(db)
            }
            row.path = newPath
            row.setIdentity(identity)
            guard let id = row.id else { return }
            try db.cachedStatement(sql: DocumentRow.updateSQL).execute(arguments: row.updateArguments(id: id))
        }
    }

    /// Deletes the records at `paths`; says how many went and how many thumbnail bytes with them.
    /// Paths without a record are ignored.
    public func removeDocuments(at paths: [String]) async throws(StoreError) -> RemovalReport {
        let documents = ownDocuments
        let unique = PathKey.unique(paths)
        return try await write { db in
            var report = RemovalReport(documents: 0, thumbnailBytes: 0)
            for chunk in unique.chunked(into: 500) {
                let ids = try Int64.fetchAll(
                    db, documents.select(DocumentRow.Columns.id).filter(chunk.contains(DocumentRow.Columns.path)))
                if ids.isEmpty {
                    continue
                }
                let bytes = try Int64.fetchOne(
                    db,
                    ThumbnailRow.select(sum(ThumbnailRow.Columns.byteCount))
                        .filter(ids.contains(ThumbnailRow.Columns.documentId)))
                // The thumbnails go with their documents: ON DELETE CASCADE.
                try DocumentRow.deleteAll(db, keys: ids)
                report.documents += ids.count
                report.thumbnailBytes += bytes ?? 0
            }
            return report
        }
    }

    /// Counts of this container's records by state, and the bytes of their thumbnails.
    public func totals() async throws(StoreError) -> StoreTotals {
        let container = container
        let (states, bytes) = try await read { db -> ([String: Int], Int64) in
            let rows = try Row.fetchAll(
                db, sql: "SELECT state, COUNT(*) FROM document WHERE container = ? GROUP BY state",
                arguments: [container])
            var states: [String: Int] = [:]
            for row in rows { states[row[0]] = row[1] }
            let bytes =
                try Int64.fetchOne(
                    db,
                    sql: """
                        SELECT SUM(byteCount) FROM thumbnail
                        WHERE documentId IN (SELECT id FROM document WHERE container = ?)
                        """, arguments: [container]) ?? 0
            return (states, bytes)
        }
        var totals = StoreTotals(thumbnailBytes: bytes)
        for (name, count) in states {
            if let state = DocumentState(rawValue: name) { totals.documents[state] = count }
        }
        return totals
    }
}

extension SidecarStore {
    /// This container's setting `name`, or nil.
    public func setting(_ name: String) async throws(StoreError) -> String? {
        let container = container
        return try await read { db in
            try String.fetchOne(
                db, sql: "SELECT value FROM setting WHERE container = ? AND name = ?", arguments: [container, name])
        }
    }

    /// Sets or clears this container's setting `name`.
    public func setSetting(_ name: String, to value: String?) async throws(StoreError) {
        let container = container
        try await write { db in
            if let value {
                try db.execute(
                    sql: "INSERT OR REPLACE INTO setting (container, name, value) VALUES (?, ?, ?)",
                    arguments: [container, name, value])
            } else {
                try db.execute(
                    sql: "DELETE FROM setting WHERE container = ? AND name = ?", arguments: [container, name])
            }
        }
    }
}

extension Collection {
    /// The collection in consecutive pieces of at most `size` elements.
    func chunked(into size: Int) -> [[Element]] {
        var chunks: [[Element]] = []
        var chunk: [Element] = []
        chunk.reserveCapacity(size)
        for element in self {
            chunk.append(element)
            if chunk.count == size {
                chunks.append(chunk)
                chunk.removeAll(keepingCapacity: true)
            }
        }
        if !chunk.isEmpty {
            chunks.append(chunk)
        }
        return chunks
    }
}
