import Foundation
import GlanceCore
import NIOCore
import PostgresNIO

/// The thumbnails' bytes as files in a ``ThumbnailFolder`` beside the database (`?thumbnails=DIR`),
/// their rows holding only the files' names: attaching the folder, reading a file back (a damaged
/// or missing one is a miss: the record is dropped so the document is drawn again), the sweep of
/// files no row names (`glance gc`), and moving the bytes between rows and files.
extension PostgresStore {
    /// The key of the advisory lock held while a database's folder is recorded ("glance" + 2).
    static let folderLockKey: Int64 = 0x676c_616e_6365_0002

    /// Opens the folder at `path` as this database's thumbnail folder: the one whose marker holds
    /// the token the database recorded; or, for a database that has recorded none, a folder that
    /// is empty or new, which is marked now. Anything else (an empty mount point, another
    /// database's folder, a folder of other files) is refused, with nothing written.
    func attachFolder(_ path: String) async throws(StoreError) -> ThumbnailFolder {
        let location = location
        let logger = logger
        return try await transaction { connection in
            // Hosts starting together: the first marks the folder, the others find it marked.
            _ = try await connection.rows("SELECT pg_advisory_xact_lock(\(Self.folderLockKey))", logger: logger)
            // The token must outlive a crash once the marker holds it, whatever the store's commits.
            _ = try await connection.rows("SET LOCAL synchronous_commit = on", logger: logger)
            let recorded = try await connection.rows("SELECT token FROM glance.thumbnail_folder", logger: logger)
                .first?.decode(String.self)
            let folder = try ThumbnailFolder(path: path, create: recorded == nil, location: location)
            let marker = try folder.markerToken(location: location)
            switch (recorded, marker) {
            case (let recorded?, let marker?) where recorded == marker:
                return folder
            case (nil, nil):
                guard folder.isEmpty() else {
                    throw StoreError(
                        .io,
                        message: "\(path) holds other files; the thumbnails need a folder of their own "
                            + "(an empty or new one)",
                        location: location)
                }
                let token = ThumbnailFolder.newToken()
                try folder.writeMarker(token: token, location: location)
                _ = try await connection.rows(
                    "INSERT INTO glance.thumbnail_folder (token) VALUES (\(token))", logger: logger)
                return folder
            case (.some, nil):
                throw StoreError(
                    .io,
                    message:
                        "\(path) is not this database's thumbnail folder: its marker (\(ThumbnailFolder.markerName)) "
                        + "is missing; is the shared storage mounted? Nothing was written there",
                    location: location)
            case (_, .some):
                throw StoreError(
                    .io,
                    message: "\(path) is another database's thumbnail folder (its marker holds another token); "
                        + "give each database a folder of its own",
                    location: location)
            }
        }
    }

    /// The folder, or an error saying the address must name it (rows that name files, read by a
    /// store opened without `thumbnails=`).
    func requireFolder() throws(StoreError) -> ThumbnailFolder {
        guard let folder = thumbnailFolder else {
            throw StoreError(
                .invalid,
                message: "this database keeps thumbnails as files; add thumbnails=DIR (the folder they are in) "
                    + "to the store's address",
                location: location)
        }
        return folder
    }

    /// Stores each thumbnail's bytes as a file (when the store has a folder) and returns the
    /// columns of its rows, which name the files instead of holding the bytes.
    func columns(for thumbnails: [ThumbnailImage], of path: String) throws(StoreError) -> ThumbnailColumns {
        let folder = thumbnailFolder
        var columns = try ThumbnailColumns(thumbnails, of: path, location: location, withBytes: folder == nil)
        guard let folder else { return columns }
        for (index, image) in thumbnails.enumerated() {
            guard let bytes = image.data else { continue }
            columns.fileDigests[index] = ByteBuffer(bytes: try folder.store(bytes, location: location))
        }
        return columns
    }

    /// The bytes of the file named `digest`, which its row says holds `byteCount` bytes; nil (a
    /// miss) when the file is missing or damaged: then the record of document `id` at `path` is
    /// dropped if its thumbnail still names that file, so that the document is drawn again, a
    /// damaged file is deleted, and a line says so. A damaged file is never served.
    func fileBytes(_ digest: [UInt8], byteCount: Int, document id: Int64, path: String) async throws(StoreError)
        -> [UInt8]?
    {
        let folder = try requireFolder()
        let problem: String
        switch folder.read(digest, byteCount: byteCount) {
        case .bytes(let bytes):
            return bytes
        case .missing:
            problem = "is missing"
        case .damaged(let why):
            problem = "is damaged (\(why))"
            folder.remove(digest)
        }
        let name = ByteBuffer(bytes: digest)
        _ = try await rows(
            """
            DELETE FROM glance.document WHERE id = \(id)
                AND EXISTS (SELECT 1 FROM glance.thumbnail WHERE document_id = \(id) AND file_digest = \(name))
            """)
        report(
            "thumbnail store \(location): the thumbnail file \(ThumbnailFolder.relativePath(digest)) of "
                + "\(DisplayText.escaped(path)) "
                + "\(problem); its record was dropped, and the document will be drawn again")
        return nil
    }

    // MARK: - The sweep

    /// What ``sweepFiles(graceSeconds:dryRun:)`` found and did.
    public struct SweepReport: Sendable, Equatable {
        /// Files looked at.
        public var examined = 0
        /// Files no row names, older than the grace period: deleted (or, in a dry run, would be).
        public var unnamed = 0
        /// Their bytes.
        public var unnamedBytes: Int64 = 0
        /// Files no row names that are younger than the grace period (a save in flight): kept.
        public var young = 0
    }

    /// Deletes the files of the thumbnail folder that no row of the database names (every
    /// container's: identical thumbnails are one file) and that were neither written nor reused
    /// for `graceSeconds`, which must cover a save in flight (its file is written before its
    /// row commits). `dryRun`: counts them, deletes nothing. The folder is walked one first-level
    /// folder at a time, each asking the database which of its files are named.
    public func sweepFiles(graceSeconds: Double, dryRun: Bool) async throws(StoreError) -> SweepReport {
        let folder = try requireFolder()
        let cutoff = Date(timeIntervalSinceNow: -max(0, graceSeconds))
        var report = SweepReport()
        for first in 0...255 {
            let shards = folder.files(inShard: UInt8(first))
            let digests = shards.flatMap { $0.files.compactMap(\.digest) }.map { ByteBuffer(bytes: $0) }
            var named: Set<[UInt8]> = []
            for batch in stride(from: 0, to: digests.count, by: 5000) {
                let part = Array(digests[batch..<min(batch + 5000, digests.count)])
                for row in try await rows(
                    "SELECT DISTINCT file_digest FROM glance.thumbnail WHERE file_digest = ANY(\(part))")
                {
                    do {
                        named.insert(Array(try row.decode(ByteBuffer.self).readableBytesView))
                    } catch {
                        throw StoreError(postgres: error, location: location, address: address)
                    }
                }
            }
            for (shard, files) in shards {
                for file in files {
                    report.examined += 1
                    if let digest = file.digest, named.contains(digest) { continue }
                    guard file.modified < cutoff else {
                        report.young += 1
                        continue
                    }
                    if dryRun || folder.removeIfUnused(file, in: shard, since: cutoff) {
                        report.unnamed += 1
                        report.unnamedBytes += file.size
                    }
                }
            }
        }
        return report
    }

    // MARK: - Moving the bytes

    /// Which way ``moveThumbnails(to:batchSize:)`` moves them.
    public enum BytesPlace: String, Sendable {
        /// From the rows into the folder's files.
        case files
        /// From the files back into the rows (before the address drops `thumbnails=`).
        case database
    }

    /// Moves up to `batchSize` thumbnails' bytes of every container to `place`, in one
    /// transaction (rows locked with SKIP LOCKED, so that saves and other movers go on), and
    /// returns how many moved: 0 when none is left. Run again until it returns 0; stopping
    /// between batches, or in one, loses nothing (a file written for a batch that rolled back is
    /// swept later).
    public func moveThumbnails(to place: BytesPlace, batchSize: Int) async throws(StoreError) -> Int {
        let folder = try requireFolder()
        let location = location
        let logger = logger
        let limit = max(1, batchSize)
        return try await transaction { connection in
            switch place {
            case .files:
                let rows = try await connection.rows(
                    """
                    SELECT document_id, size_key, data FROM glance.thumbnail WHERE data IS NOT NULL
                    LIMIT \(limit) FOR UPDATE SKIP LOCKED
                    """, logger: logger)
                for row in rows {
                    let (id, key, data) = try row.decode((Int64, String, ByteBuffer).self)
                    let digest = try folder.store(Array(data.readableBytesView), location: location)
                    _ = try await connection.rows(
                        """
                        UPDATE glance.thumbnail SET data = NULL, file_digest = \(ByteBuffer(bytes: digest))
                        WHERE document_id = \(id) AND size_key = \(key)
                        """, logger: logger)
                }
                return rows.count
            case .database:
                let rows = try await connection.rows(
                    """
                    SELECT document_id, size_key, file_digest, byte_count FROM glance.thumbnail
                    WHERE file_digest IS NOT NULL LIMIT \(limit) FOR UPDATE SKIP LOCKED
                    """, logger: logger)
                for row in rows {
                    let (id, key, name, count) = try row.decode((Int64, String, ByteBuffer, Int32).self)
                    let digest = Array(name.readableBytesView)
                    guard case .bytes(let bytes) = folder.read(digest, byteCount: Int(count)) else {
                        // Nothing to move: the document is drawn again.
                        _ = try await connection.rows("DELETE FROM glance.document WHERE id = \(id)", logger: logger)
                        continue
                    }
                    _ = try await connection.rows(
                        """
                        UPDATE glance.thumbnail SET data = \(ByteBuffer(bytes: bytes)), file_digest = NULL
                        WHERE document_id = \(id) AND size_key = \(key)
                        """, logger: logger)
                }
                return rows.count
            }
        }
    }
}
