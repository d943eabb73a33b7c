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
        let all = bytes == .all
        let key: String = if case .only(let key) = bytes { key } else { "" }
        let rows = try await rows(
            """
            SELECT \(unescaped: Self.columns(of: "d")), t.document_id, t.size_key, t.format, t.width, t.height,
                t.byte_count, t.average_colour, t.thumb_hash,
                CASE WHEN \(all) OR t.size_key = \(key) THEN t.data END
            FROM glance.document d LEFT JOIN glance.thumbnail t ON t.document_id = d.id
            WHERE d.container = \(container) AND d.path = \(path) ORDER BY t.size_key
            """)
        guard let first = rows.first else { return nil }
        let (_, record) = try record(from: first)
        var images: [ThumbnailImage] = []
        for row in rows {
            if let (_, image) = try thumbnail(from: row, offset: Self.columnCount) { images.append(image) }
        }
        return StoredDocument(record: record, thumbnails: images)
    }

    /// The documents recorded at `paths`, thumbnails without bytes.
    public func documents(at paths: [String]) async throws(StoreError) -> [String: StoredDocument] {
        var byPath: [String: StoredDocument] = [:]
        for document in try await documents(.paths(Array(Set(paths)))) {
            byPath[document.record.path] = document
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

    /// A document row as its id and record.
    private func record(from row: PostgresRow) throws(StoreError) -> (Int64, DocumentRecord) {
        do {
            let (
                id, path, device, inode, size, modifiedNs, digest, contentType, state, error, generatorVersion,
                generatedAt, renderMilliseconds, details
            ) = try row.decode(
                (
                    Int64, String, Int64, Int64, Int64, Int64, String?, String?, String, String?, String, Date,
                    Int32?, String?
                ).self)
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

    /// Records `record` and replaces its thumbnail dictionary with `thumbnails`, and releases any
    /// claim on its path: one statement, so one transaction and one round trip (this runs once per
    /// document rendered). A record already at the path keeps its id.
    public func save(_ record: DocumentRecord, thumbnails: [ThumbnailImage]) async throws(StoreError) {
        var keys: [String] = []
        var formats: [String] = []
        var widths: [Int32] = []
        var heights: [Int32] = []
        var counts: [Int32] = []
        var colours: [String] = []
        var hashes: [String] = []
        var images: [ByteBuffer] = []
        for image in thumbnails {
            guard let bytes = image.data else {
                throw StoreError(
                    .invalid, message: "thumbnail \(image.sizeKey) of \(record.path) has no image data to store",
                    location: location)
            }
            keys.append(image.sizeKey)
            formats.append(image.format.rawValue)
            widths.append(Int32(clamping: image.width))
            heights.append(Int32(clamping: image.height))
            counts.append(Int32(clamping: bytes.count))
            // Arrays cannot hold NULL here: "" stands for no colour, turned back by NULLIF.
            colours.append(image.averageColour ?? "")
            hashes.append(image.thumbHash ?? "")
            images.append(ByteBuffer(bytes: bytes))
        }
        let identity = record.identity
        let device = Int64(bitPattern: identity.device)
        let inode = Int64(bitPattern: identity.inode)
        let renderMilliseconds = record.renderMilliseconds.map { Int32(clamping: $0) }
        let contentType = record.contentType?.rawValue
        let details = record.details.flatMap { $0.isEmpty ? nil : $0.json }
        // The sub-statements touch disjoint rows: old size keys that are gone are deleted, the new
        // ones inserted or updated in place.
        let query: PostgresQuery = """
            WITH d AS (
                INSERT INTO glance.document AS doc (container, path, device, inode, size, modified_ns, digest,
                    content_type, state, error, generator_version, generated_at, render_milliseconds, details)
                VALUES (\(container), \(record.path), \(device), \(inode), \(identity.size),
                    \(identity.modifiedNanoseconds), \(record.digest), \(contentType), \(record.state.rawValue),
                    \(record.error), \(record.generatorVersion), \(record.generatedAt), \(renderMilliseconds),
                    \(details))
                ON CONFLICT (container, path) DO UPDATE SET device = EXCLUDED.device, inode = EXCLUDED.inode,
                    size = EXCLUDED.size, modified_ns = EXCLUDED.modified_ns, digest = EXCLUDED.digest,
                    content_type = EXCLUDED.content_type, state = EXCLUDED.state, error = EXCLUDED.error,
                    generator_version = EXCLUDED.generator_version, generated_at = EXCLUDED.generated_at,
                    render_milliseconds = EXCLUDED.render_milliseconds, details = EXCLUDED.details
                RETURNING doc.id
            ),
            gone AS (
                DELETE FROM glance.thumbnail
                WHERE document_id = (SELECT id FROM d) AND NOT (size_key = ANY(\(keys)::text[]))
            ),
            put AS (
                INSERT INTO glance.thumbnail AS t (document_id, size_key, format, width, height, byte_count,
                    average_colour, thumb_hash, data)
                SELECT (SELECT id FROM d), k, f, w, h, n, NULLIF(a, ''), NULLIF(t, ''), b
                FROM unnest(\(keys)::text[], \(formats)::text[], \(widths)::integer[], \(heights)::integer[],
                    \(counts)::integer[], \(colours)::text[], \(hashes)::text[], \(images)::bytea[])
                    AS x(k, f, w, h, n, a, t, b)
                ON CONFLICT (document_id, size_key) DO UPDATE SET format = EXCLUDED.format,
                    width = EXCLUDED.width, height = EXCLUDED.height, byte_count = EXCLUDED.byte_count,
                    average_colour = EXCLUDED.average_colour, thumb_hash = EXCLUDED.thumb_hash, data = EXCLUDED.data
            ),
            unclaimed AS (
                DELETE FROM glance.claim WHERE container = \(container) AND path = \(record.path)
            )
            SELECT id FROM d
            """
        _ = try await rows(query)
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
        let unique = Array(Set(paths))
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
