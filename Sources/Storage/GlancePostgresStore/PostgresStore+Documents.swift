import Foundation
import GlanceCore
import NIOCore
import PostgresNIO

/// Reading and writing document records and their thumbnail dictionaries.
extension PostgresStore {
    /// The document columns, in the order ``record(from:)`` decodes them.
    static let columns = """
        id, path, device, inode, size, modified_ns, digest, content_type, state, error, generator_version,
        generated_at, render_milliseconds, details
        """

    /// How many columns ``columns`` names.
    static let columnCount = 14

    /// ``columns``, each qualified by the table alias `table`.
    static func columns(of table: String) -> String {
        columns.split(separator: ",").map { "\(table).\($0.trimmingCharacters(in: .whitespacesAndNewlines))" }
            .joined(separator: ", ")
    }

    /// The document recorded at `path`, with the image bytes `bytes` names: one statement (the
    /// record's columns repeated on each of its thumbnails' rows), as this is asked once per
    /// document rendered. Which bytes come is decided in the statement, on bound values.
    public func document(at path: String, bytes: ThumbnailBytes) async throws(StoreError) -> StoredDocument? {
        // A queue worker's look at a leased document: the lease read its record already.
        if bytes == .none, let recorded = takeLeasedRecord(of: path) { return recorded }
        let key: String = if case .only(let key) = bytes { key } else { "" }
        let rows = try await run(
            ReadDocumentStatement(container: container, path: path, allBytes: bytes == .all, onlyKey: key))
        guard let first = rows.first else { return nil }
        let (id, record) = try record(from: first)
        var images: [ThumbnailImage] = []
        for row in rows {
            guard var (_, image) = try thumbnail(from: row, offset: Self.columnCount) else { continue }
            if let digest = try fileDigest(in: row, at: Self.columnCount + 9) {
                // Kept in a file: read and checked, or a miss (the record dropped, drawn again).
                guard let bytes = try await fileBytes(digest, byteCount: image.byteCount, document: id, path: path)
                else { return nil }
                image.data = bytes
            }
            images.append(image)
        }
        return StoredDocument(record: record, thumbnails: images)
    }

    /// The documents recorded at `paths`, thumbnails without bytes.
    public func documents(at paths: [String]) async throws(StoreError) -> [PathKey: StoredDocument] {
        var byPath: [PathKey: StoredDocument] = [:]
        for document in try await documents(.paths(PathKey.unique(paths))) {
            byPath[PathKey(document.record.path)] = document
        }
        return byPath
    }

    /// Up to `limit` records in path order after `path`, thumbnails without bytes.
    public func documents(after path: String?, limit: Int) async throws(StoreError) -> [StoredDocument] {
        try await documents(.page(after: path, limit: max(0, limit)))
    }

    /// Every recorded document, thumbnails without their bytes.
    public func allDocuments() async throws(StoreError) -> [StoredDocument] {
        try await documents(.all)
    }

    /// Which of a container's documents a read wants.
    private enum Selection {
        case all
        case paths([String])
        case page(after: String?, limit: Int)
    }

    /// This container's documents that `selection` wants, in path order, with their thumbnails'
    /// columns but the images: two queries in one snapshot, joined here. (A JOIN would repeat
    /// each document's columns per thumbnail; a query per document would cost a round trip each.)
    private func documents(_ selection: Selection) async throws(StoreError) -> [StoredDocument] {
        let container = container
        let logger = logger
        let columns = Self.columns
        let (documents, thumbnails) = try await transaction { connection in
            // REPEATABLE READ: both queries see the same snapshot.
            _ = try await connection.rows("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ READ ONLY", logger: logger)
            let query: PostgresQuery
            switch selection {
            case .all:
                query = "SELECT \(unescaped: columns) FROM glance.document WHERE container = \(container) ORDER BY path"
            case .paths(let paths):
                query = """
                    SELECT \(unescaped: columns) FROM glance.document
                    WHERE container = \(container) AND path = ANY(\(paths)) ORDER BY path
                    """
            case .page(after: nil, let limit):
                query = """
                    SELECT \(unescaped: columns) FROM glance.document
                    WHERE container = \(container) ORDER BY path LIMIT \(limit)
                    """
            case .page(after: let path?, let limit):
                query = """
                    SELECT \(unescaped: columns) FROM glance.document
                    WHERE container = \(container) AND path > \(path) ORDER BY path LIMIT \(limit)
                    """
            }
            let documents = try await connection.rows(query, logger: logger)
            var ids: [Int64] = []
            ids.reserveCapacity(documents.count)
            for row in documents { ids.append(try row.decode(Int64.self)) }
            if ids.isEmpty { return (documents, [PostgresRow]()) }
            let thumbnails = try await connection.rows(
                """
                SELECT document_id, size_key, format, width, height, byte_count, average_colour, thumb_hash, NULL::bytea
                FROM glance.thumbnail WHERE document_id = ANY(\(ids)) ORDER BY document_id, size_key
                """, logger: logger)
            return (documents, thumbnails)
        }
        return try assemble(documents, thumbnails)
    }

    /// Pairs document rows with their thumbnail rows, keeping the documents' order.
    private func assemble(_ documents: [PostgresRow], _ thumbnails: [PostgresRow]) throws(StoreError)
        -> [StoredDocument]
    {
        var imagesByDocument: [Int64: [ThumbnailImage]] = [:]
        for row in thumbnails {
            guard let (id, image) = try thumbnail(from: row) else { continue }
            imagesByDocument[id, default: []].append(image)
        }
        var result: [StoredDocument] = []
        result.reserveCapacity(documents.count)
        for row in documents {
            let (id, record) = try record(from: row)
            result.append(StoredDocument(record: record, thumbnails: imagesByDocument[id] ?? []))
        }
        return result
    }

    /// The thumbnails of the document `document` (a table alias), described without bytes, as a
    /// LATERAL join giving seven arrays (one element a thumbnail, in size key order; "" for no
    /// colour or ThumbHash, as arrays here hold no NULL): the lease reads the leased documents'
    /// records with them. Select ``describedThumbnailColumns`` from it.
    static func describedThumbnailsJoin(of document: String) -> String {
        """
        LEFT JOIN LATERAL (
            SELECT array_agg(size_key ORDER BY size_key) AS keys, array_agg(format ORDER BY size_key) AS formats,
                array_agg(width ORDER BY size_key) AS widths, array_agg(height ORDER BY size_key) AS heights,
                array_agg(byte_count ORDER BY size_key) AS counts,
                array_agg(coalesce(average_colour, '') ORDER BY size_key) AS colours,
                array_agg(coalesce(thumb_hash, '') ORDER BY size_key) AS hashes
            FROM glance.thumbnail WHERE document_id = \(document).id
        ) described ON true
        """
    }

    /// What to select from ``describedThumbnailsJoin(of:)``, read back by ``describedThumbnails(in:at:)``.
    static let describedThumbnailColumns = """
        coalesce(described.keys, '{}'), coalesce(described.formats, '{}'), coalesce(described.widths, '{}'),
        coalesce(described.heights, '{}'), coalesce(described.counts, '{}'), coalesce(described.colours, '{}'),
        coalesce(described.hashes, '{}')
        """

    /// The thumbnails ``describedThumbnailColumns`` selected, from column `offset` of `row`.
    func describedThumbnails(in row: PostgresRow, at offset: Int) throws(StoreError) -> [ThumbnailImage] {
        do {
            let cells = row.makeRandomAccess()
            let keys = try cells[offset].decode([String].self)
            let formats = try cells[offset + 1].decode([String].self)
            let widths = try cells[offset + 2].decode([Int32].self)
            let heights = try cells[offset + 3].decode([Int32].self)
            let counts = try cells[offset + 4].decode([Int32].self)
            let colours = try cells[offset + 5].decode([String].self)
            let hashes = try cells[offset + 6].decode([String].self)
            guard
                [formats.count, widths.count, heights.count, counts.count, colours.count, hashes.count]
                    .allSatisfy({ $0 == keys.count })
            else { throw StoreError(.invalid, message: "a record's thumbnails do not add up", location: location) }
            var images: [ThumbnailImage] = []
            for index in keys.indices {
                images.append(
                    ThumbnailImage(
                        sizeKey: keys[index], format: try StoredNames.imageFormat(formats[index], location: location),
                        width: Int(widths[index]), height: Int(heights[index]), byteCount: Int(counts[index]),
                        averageColour: colours[index].isEmpty ? nil : colours[index],
                        thumbHash: ThumbHashText.isValid(hashes[index]) ? hashes[index] : nil))
            }
            return images
        } catch let error as StoreError {
            throw error
        } catch {
            throw StoreError(postgres: error, location: location, address: address)
        }
    }

    /// A document row as its id and record.
    private func record(from row: PostgresRow) throws(StoreError) -> (Int64, DocumentRecord) {
        try record(from: row, at: 0)
    }

    /// The document columns (``columns``) from column `offset` of `row`, as its id and record.
    func record(from row: PostgresRow, at offset: Int) throws(StoreError) -> (Int64, DocumentRecord) {
        do {
            let cells = row.makeRandomAccess()
            let id = try cells[offset].decode(Int64.self)
            let path = try cells[offset + 1].decode(String.self)
            let device = try cells[offset + 2].decode(Int64.self)
            let inode = try cells[offset + 3].decode(Int64.self)
            let size = try cells[offset + 4].decode(Int64.self)
            let modifiedNs = try cells[offset + 5].decode(Int64.self)
            let digest = try cells[offset + 6].decode(String?.self)
            let contentType = try cells[offset + 7].decode(String?.self)
            let state = try cells[offset + 8].decode(String.self)
            let error = try cells[offset + 9].decode(String?.self)
            let generatorVersion = try cells[offset + 10].decode(String.self)
            let generatedAt = try cells[offset + 11].decode(Date.self)
            let renderMilliseconds = try cells[offset + 12].decode(Int32?.self)
            let details = try cells[offset + 13].decode(String?.self)
            let identity = FileIdentity(
                device: UInt64(bitPattern: device), inode: UInt64(bitPattern: inode), size: size,
                modifiedNanoseconds: modifiedNs)
            let record = DocumentRecord(
                path: path, identity: identity, digest: digest,
                contentType: try StoredNames.contentType(contentType, path: path, location: location),
                state: try StoredNames.state(state, path: path, location: location), error: error,
                generatorVersion: generatorVersion, generatedAt: generatedAt,
                renderMilliseconds: renderMilliseconds.map(Int.init),
                details: details.flatMap(DocumentDetails.init(json:))?.checked)
            return (id, record)
        } catch {
            throw StoreError(postgres: error, location: location, address: address)
        }
    }

    /// A thumbnail's nine columns, from column `offset` of `row` (its image bytes present or
    /// NULL), as its document's id and the image; nil when they are all NULL (a LEFT JOIN's row
    /// for a document without thumbnails).
    private func thumbnail(from row: PostgresRow, offset: Int = 0) throws(StoreError) -> (Int64, ThumbnailImage)? {
        do {
            let cells = row.makeRandomAccess()
            guard let id = try cells[offset].decode(Int64?.self) else { return nil }
            let sizeKey = try cells[offset + 1].decode(String.self)
            let format = try StoredNames.imageFormat(try cells[offset + 2].decode(String.self), location: location)
            let width = Int(try cells[offset + 3].decode(Int32.self))
            let height = Int(try cells[offset + 4].decode(Int32.self))
            let byteCount = Int(try cells[offset + 5].decode(Int32.self))
            let averageColour = try cells[offset + 6].decode(String?.self)
            let thumbHash = try cells[offset + 7].decode(String?.self).flatMap { ThumbHashText.isValid($0) ? $0 : nil }
            guard let data = try cells[offset + 8].decode(ByteBuffer?.self) else {
                return (
                    id,
                    ThumbnailImage(
                        sizeKey: sizeKey, format: format, width: width, height: height, byteCount: byteCount,
                        averageColour: averageColour, thumbHash: thumbHash)
                )
            }
            return (
                id,
                ThumbnailImage(
                    sizeKey: sizeKey, format: format, width: width, height: height,
                    data: Array(data.readableBytesView), averageColour: averageColour, thumbHash: thumbHash)
            )
        } catch {
            throw StoreError(postgres: error, location: location, address: address)
        }
    }

    /// The file digest in column `index` of `row`, or nil when it is NULL.
    private func fileDigest(in row: PostgresRow, at index: Int) throws(StoreError) -> [UInt8]? {
        do {
            return try row.makeRandomAccess()[index].decode(ByteBuffer?.self).map { Array($0.readableBytesView) }
        } catch {
            throw StoreError(postgres: error, location: location, address: address)
        }
    }

    /// Moves the record (and its thumbnails) at `oldPath` to `newPath` with the file's new
    /// identity; a record already at `newPath` is deleted first. Nothing happens when no record
    /// is at `oldPath` (another host moved it first).
    public func moveDocument(from oldPath: String, to newPath: String, identity: FileIdentity) async throws(StoreError)
    {
        let container = container
        let logger = logger
        let device = Int64(bitPattern: identity.device)
        let inode = Int64(bitPattern: identity.inode)
        try await transaction { connection in
            let found = try await connection.rows(
                """
                SELECT id FROM glance.document WHERE container = \(container) AND path = \(oldPath) FOR UPDATE
                """, logger: logger)
            guard let row = found.first else { return }
            let id = try row.decode(Int64.self)
            if oldPath != newPath {
                _ = try await connection.rows(
                    "DELETE FROM glance.document WHERE container = \(container) AND path = \(newPath)", logger: logger)
            }
            _ = try await connection.rows(
                """
                UPDATE glance.document SET path = \(newPath), device = \(device), inode = \(inode),
                    size = \(identity.size), modified_ns = \(identity.modifiedNanoseconds)
                WHERE id = \(id)
                """, logger: logger)
        }
    }

    /// Deletes the records at `paths`; says how many went and how many thumbnail bytes with them.
    public func removeDocuments(at paths: [String]) async throws(StoreError) -> RemovalReport {
        let container = container
        let logger = logger
        let unique = PathKey.unique(paths)
        let counts = try await transaction { connection in
            let rows = try await connection.rows(
                """
                WITH doomed AS (
                    DELETE FROM glance.document WHERE container = \(container) AND path = ANY(\(unique)) RETURNING id
                )
                SELECT (SELECT count(*) FROM doomed),
                    (SELECT coalesce(sum(byte_count), 0)::bigint FROM glance.thumbnail
                     WHERE document_id IN (SELECT id FROM doomed))
                """, logger: logger)
            return try rows[0].decode((Int64, Int64).self)
        }
        return RemovalReport(documents: Int(counts.0), thumbnailBytes: counts.1)
    }

    /// This container's setting `name`, or nil.
    public func setting(_ name: String) async throws(StoreError) -> String? {
        let rows = try await rows("SELECT value FROM glance.setting WHERE container = \(container) AND name = \(name)")
        guard let row = rows.first else { return nil }
        do {
            return try row.decode(String.self)
        } catch {
            throw StoreError(.invalid, message: "setting \(name) is not text", location: location)
        }
    }

    /// Sets or clears this container's setting `name`.
    public func setSetting(_ name: String, to value: String?) async throws(StoreError) {
        if let value {
            _ = try await rows(
                """
                INSERT INTO glance.setting (container, name, value) VALUES (\(container), \(name), \(value))
                ON CONFLICT (container, name) DO UPDATE SET value = excluded.value
                """)
        } else {
            _ = try await rows("DELETE FROM glance.setting WHERE container = \(container) AND name = \(name)")
        }
    }

    /// Counts of this container's records by state, and the bytes of their thumbnails.
    public func totals() async throws(StoreError) -> StoreTotals {
        let container = container
        let logger = logger
        let (states, bytes) = try await transaction { connection in
            _ = try await connection.rows("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ READ ONLY", logger: logger)
            var states: [String: Int] = [:]
            for row in try await connection.rows(
                "SELECT state, count(*) FROM glance.document WHERE container = \(container) GROUP BY state",
                logger: logger)
            {
                let (state, count) = try row.decode((String, Int64).self)
                states[state] = Int(count)
            }
            let bytes = try await connection.rows(
                """
                SELECT coalesce(sum(t.byte_count), 0)::bigint FROM glance.thumbnail t
                JOIN glance.document d ON d.id = t.document_id WHERE d.container = \(container)
                """, logger: logger)
            return (states, try bytes[0].decode(Int64.self))
        }
        var totals = StoreTotals(thumbnailBytes: bytes)
        for (name, count) in states {
            if let state = DocumentState(rawValue: name) { totals.documents[state] = count }
        }
        return totals
    }
}
