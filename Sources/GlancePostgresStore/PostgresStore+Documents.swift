import Foundation
import GlanceCore
import NIOCore
import PostgresNIO

/// Reading and writing document records and their thumbnail dictionaries.
extension PostgresStore {
    /// The document columns, in the order ``record(from:)`` decodes them.
    static let columns = """
        id, path, device, inode, size, modified_ns, digest, content_type, state, error, generator_version,
        generated_at, render_milliseconds
        """

    /// The document recorded at `path`, with image bytes only if `includingImageData`.
    public func document(at path: String, includingImageData: Bool) async throws(StoreError) -> StoredDocument? {
        let container = container
        let logger = logger
        let (documents, thumbnails) = try await transaction { connection in
            let documents = try await connection.rows(
                """
                SELECT \(unescaped: Self.columns) FROM glance.document WHERE container = \(container) AND path = \(path)
                """,
                logger: logger)
            guard let first = documents.first else { return ([PostgresRow](), [PostgresRow]()) }
            let id = try first.decode(Int64.self)
            let data = includingImageData ? "data" : "NULL::bytea"
            let thumbnails = try await connection.rows(
                """
                SELECT document_id, size_key, format, width, height, byte_count, average_colour, \(unescaped: data)
                FROM glance.thumbnail WHERE document_id = \(id) ORDER BY size_key
                """, logger: logger)
            return (documents, thumbnails)
        }
        guard let row = documents.first else { return nil }
        return try assemble([row], thumbnails).first
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
                query = try """
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
                try """
                SELECT document_id, size_key, format, width, height, byte_count, average_colour, NULL::bytea
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
            let (id, image) = try thumbnail(from: row)
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
                generatedAt, renderMilliseconds
            ) = try row.decode(
                (
                    Int64, String, Int64, Int64, Int64, Int64, String?, String?, String, String?, String, Date,
                    Int32?
                ).self)
            let identity = FileIdentity(
                device: UInt64(bitPattern: device), inode: UInt64(bitPattern: inode), size: size,
                modifiedNanoseconds: modifiedNs)
            let record = DocumentRecord(
                path: path, identity: identity, digest: digest,
                contentType: try StoredNames.contentType(contentType, path: path, location: location),
                state: try StoredNames.state(state, path: path, location: location), error: error,
                generatorVersion: generatorVersion, generatedAt: generatedAt,
                renderMilliseconds: renderMilliseconds.map(Int.init))
            return (id, record)
        } catch {
            throw StoreError(postgres: error, location: location, address: address)
        }
    }

    /// A thumbnail row (its image bytes present or NULL) as its document's id and the image.
    private func thumbnail(from row: PostgresRow) throws(StoreError) -> (Int64, ThumbnailImage) {
        do {
            let (id, sizeKey, formatName, width, height, byteCount, averageColour, data) = try row.decode(
                (Int64, String, String, Int32, Int32, Int32, String?, ByteBuffer?).self)
            let format = try StoredNames.imageFormat(formatName, location: location)
            guard let data else {
                return (
                    id,
                    ThumbnailImage(
                        sizeKey: sizeKey, format: format, width: Int(width), height: Int(height),
                        byteCount: Int(byteCount), averageColour: averageColour)
                )
            }
            return (
                id,
                ThumbnailImage(
                    sizeKey: sizeKey, format: format, width: Int(width), height: Int(height),
                    data: Array(data.readableBytesView), averageColour: averageColour)
            )
        } catch {
            throw StoreError(postgres: error, location: location, address: address)
        }
    }

    /// Records `record` and replaces its thumbnail dictionary with `thumbnails`, and releases any
    /// claim on its path, in one transaction. A record already at the path keeps its id.
    public func save(_ record: DocumentRecord, thumbnails: [ThumbnailImage]) async throws(StoreError) {
        var images: [(ThumbnailImage, ByteBuffer)] = []
        for image in thumbnails {
            guard let bytes = image.data else {
                throw StoreError(
                    .invalid, message: "thumbnail \(image.sizeKey) of \(record.path) has no image data to store",
                    location: location)
            }
            images.append((image, ByteBuffer(bytes: bytes)))
        }
        let container = container
        let logger = logger
        let identity = record.identity
        let device = Int64(bitPattern: identity.device)
        let inode = Int64(bitPattern: identity.inode)
        let renderMilliseconds = record.renderMilliseconds.map { Int32(clamping: $0) }
        let contentType = record.contentType?.rawValue
        let encoded = images
        try await transaction { connection in
            let inserted = try await connection.rows(
                """
                INSERT INTO glance.document AS d (container, path, device, inode, size, modified_ns, digest,
                    content_type, state, error, generator_version, generated_at, render_milliseconds)
                VALUES (\(container), \(record.path), \(device), \(inode), \(identity.size),
                    \(identity.modifiedNanoseconds), \(record.digest), \(contentType), \(record.state.rawValue),
                    \(record.error), \(record.generatorVersion), \(record.generatedAt), \(renderMilliseconds))
                ON CONFLICT (container, path) DO UPDATE SET device = EXCLUDED.device, inode = EXCLUDED.inode,
                    size = EXCLUDED.size, modified_ns = EXCLUDED.modified_ns, digest = EXCLUDED.digest,
                    content_type = EXCLUDED.content_type, state = EXCLUDED.state, error = EXCLUDED.error,
                    generator_version = EXCLUDED.generator_version, generated_at = EXCLUDED.generated_at,
                    render_milliseconds = EXCLUDED.render_milliseconds
                RETURNING d.id
                """, logger: logger)
            let id = try inserted[0].decode(Int64.self)
            _ = try await connection.rows("DELETE FROM glance.thumbnail WHERE document_id = \(id)", logger: logger)
            for (image, bytes) in encoded {
                _ = try await connection.rows(
                    """
                    INSERT INTO glance.thumbnail (document_id, size_key, format, width, height, byte_count,
                        average_colour, data)
                    VALUES (\(id), \(image.sizeKey), \(image.format.rawValue), \(Int32(clamping: image.width)),
                        \(Int32(clamping: image.height)), \(Int32(clamping: bytes.readableBytes)),
                        \(image.averageColour), \(bytes))
                    """, logger: logger)
            }
            _ = try await connection.rows(
                "DELETE FROM glance.claim WHERE container = \(container) AND path = \(record.path)", logger: logger)
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
        let unique = Array(Set(paths))
        let counts = try await transaction { connection in
            let rows = try await connection.rows(
                try """
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
