import Foundation
import GRDB
import GlanceCore

/// Reading and writing document records and their thumbnail dictionaries.
extension SidecarStore {
    /// The document recorded at `path`, with image bytes only if `includingImageData`.
    public func document(at path: String, includingImageData: Bool) throws(StoreError) -> StoredDocument? {
        let location = directory
        let rows = try read { db -> (DocumentRow, [ThumbnailRow]?, [ThumbnailSummaryRow]?)? in
            guard let row = try DocumentRow.filter(DocumentRow.Columns.path == path).fetchOne(db),
                let id = row.id
            else {
                return nil
            }
            if includingImageData {
                let thumbnails = try ThumbnailRow.filter(Column("documentId") == id).order(Column("sizeKey"))
                    .fetchAll(db)
                return (row, thumbnails, nil)
            }
            let summaries = try ThumbnailSummaryRow.filter(Column("documentId") == id).order(Column("sizeKey"))
                .fetchAll(db)
            return (row, nil, summaries)
        }
        guard let (row, thumbnails, summaries) = rows else {
            return nil
        }
        var images: [ThumbnailImage] = []
        for thumbnail in thumbnails ?? [] {
            images.append(try thumbnail.image(location: location))
        }
        for summary in summaries ?? [] {
            images.append(try summary.image(location: location))
        }
        return StoredDocument(record: try row.record(location: location), thumbnails: images)
    }

    /// Every recorded document by path, thumbnails without their bytes.
    ///
    /// Two queries, joined here: one for the documents and one for every thumbnail's columns but
    /// its image. A JOIN would repeat each document's columns per thumbnail, and one query per
    /// document would cost 10,000 round trips on a large container.
    public func allDocuments() throws(StoreError) -> [StoredDocument] {
        let location = directory
        let (rows, summaries) = try read { db in
            let rows = try DocumentRow.order(DocumentRow.Columns.path).fetchAll(db)
            let summaries = try ThumbnailSummaryRow.order(Column("documentId"), Column("sizeKey")).fetchAll(db)
            return (rows, summaries)
        }
        var imagesByDocument: [Int64: [ThumbnailImage]] = [:]
        for summary in summaries {
            imagesByDocument[summary.documentId, default: []].append(try summary.image(location: location))
        }
        var documents: [StoredDocument] = []
        documents.reserveCapacity(rows.count)
        for row in rows {
            let images = row.id.flatMap { imagesByDocument[$0] } ?? []
            documents.append(StoredDocument(record: try row.record(location: location), thumbnails: images))
        }
        return documents
    }

    /// Records `record` and replaces its thumbnail dictionary with `thumbnails`, and releases any
    /// claim on its path, in one transaction.
    ///
    /// A record already at the path keeps its id and is updated in place.
    public func save(_ record: DocumentRecord, thumbnails: [ThumbnailImage]) throws(StoreError) {
        let location = directory
        try write { db in
            let existingId = try Int64.fetchOne(
                db, DocumentRow.select(DocumentRow.Columns.id).filter(DocumentRow.Columns.path == record.path))
            var row = DocumentRow(record, id: existingId)
            if existingId == nil {
                try row.insert(db)
            } else {
                try row.update(db)
            }
            guard let id = row.id else {
                preconditionFailure("a document row has an id once inserted")
            }
            try ThumbnailRow.filter(Column("documentId") == id).deleteAll(db)
            for image in thumbnails {
                try ThumbnailRow(image, documentId: id, path: record.path, location: location).insert(db)
            }
            try ClaimRow.deleteOne(db, key: record.path)
        }
    }

    /// Moves the record (and its thumbnails) at `oldPath` to `newPath` with the file's new
    /// identity. A record already at `newPath` is deleted first, thumbnails and all.
    ///
    /// Idempotent: when no record is at `oldPath` any more (another batch that planned the same
    /// rename moved it first, or it was removed), nothing happens; the document is then either
    /// recorded at `newPath` already or rendered by the next plan.
    public func moveDocument(from oldPath: String, to newPath: String, identity: FileIdentity) throws(StoreError) {
        try write { db in
            guard var row = try DocumentRow.filter(DocumentRow.Columns.path == oldPath).fetchOne(db) else {
                return
            }
            if oldPath != newPath {
                // The path column is UNIQUE, so the old target must go before the update.
                try DocumentRow.filter(DocumentRow.Columns.path == newPath).deleteAll(db)
            }
            row.path = newPath
            row.setIdentity(identity)
            try row.update(db)
        }
    }

    /// Deletes the records at `paths`; says how many went and how many thumbnail bytes with them.
    /// Paths without a record are ignored.
    public func removeDocuments(at paths: [String]) throws(StoreError) -> RemovalReport {
        try write { db in
            var report = RemovalReport(documents: 0, thumbnailBytes: 0)
            // Chunks keep each statement well under SQLite's limit on bound parameters.
            for chunk in Set(paths).chunked(into: 500) {
                let ids = try Int64.fetchAll(
                    db, DocumentRow.select(DocumentRow.Columns.id).filter(chunk.contains(DocumentRow.Columns.path)))
                if ids.isEmpty {
                    continue
                }
                let bytes = try Int64.fetchOne(
                    db, ThumbnailRow.select(sum(Column("byteCount"))).filter(ids.contains(Column("documentId"))))
                // The thumbnails go with their documents: ON DELETE CASCADE.
                try DocumentRow.deleteAll(db, keys: ids)
                report.documents += ids.count
                report.thumbnailBytes += bytes ?? 0
            }
            return report
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
