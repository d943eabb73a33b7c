import Foundation
import GlanceCore
import NIOCore
import PostgresNIO

/// A statement the store runs for every document or lease: prepared once on each connection
/// (parsed, analysed and, after a few runs, planned once), then only bound and run. Its
/// parameters' types are declared, so that a first run with a NULL does not decide them.
///
/// Measured with `bench/scaleout.py` (pg_stat_statements with planning tracked): the lease, the
/// record's read and the job's completion each spent more time planning than running when sent
/// as one-off statements.
protocol StoreStatement: PostgresPreparedStatement where Row == PostgresRow {}

extension StoreStatement {
    func decodeRow(_ row: PostgresRow) throws -> PostgresRow { row }
}

extension PostgresStore {
    /// Runs a prepared statement (preparing it on the connection first if needed) and collects
    /// its rows.
    func run<Statement: StoreStatement>(_ statement: Statement) async throws(StoreError) -> [PostgresRow] {
        do {
            var rows: [PostgresRow] = []
            for try await row in try await client.execute(statement, logger: logger) { rows.append(row) }
            return rows
        } catch {
            throw StoreError(postgres: error, location: location, address: address)
        }
    }
}

/// Leases the next jobs (see ``PostgresStore/lease(limit:under:maxAttempts:onlyContainer:)``),
/// with each one's document record and its thumbnails described: the worker's look at whether the
/// document is fresh needs no round trip of its own.
struct LeaseJobsStatement: StoreStatement {
    static let name = "glance_lease_jobs_v2"
    static let sql = """
        WITH \(leasingCTEs(maxAttempts: "$1", onlyContainer: "$2", host: "$3", limit: "$4", token: "$5", seconds: "$6"))
        SELECT l.id, l.container, l.root, l.path, l.force, l.attempts, \(leasedRecordColumns(from: "leased l", alias: "l"))
        """

    /// The CTEs `exhausted`, `next` and `leased` of a lease: jobs whose last lease expired on their
    /// last attempt end failed, and up to `limit` next ones (never the same rows) are leased, their
    /// columns returned by `leased`. `except` (a bigint[] parameter) names jobs it must not touch.
    /// The arguments are the statements' parameter names (`$1`...).
    static func leasingCTEs(
        maxAttempts: String, onlyContainer: String, host: String, limit: String, token: String, seconds: String,
        except: String? = nil
    ) -> String {
        let spared = except.map { " AND id <> ALL(\($0)::bigint[])" } ?? ""
        return """
            exhausted AS (
                UPDATE glance.job SET state = 'failed', finished_at = now(),
                    error = coalesce(error || '; ', '') || 'gave up after ' || attempts || ' attempts'
                WHERE \(limit) > 0 AND state = 'leased' AND lease_expires < now() AND attempts >= \(maxAttempts)\(spared)
            ),
            next AS (
                SELECT id FROM glance.job
                WHERE (state = 'pending' OR (state = 'leased' AND lease_expires < now() AND attempts < \(maxAttempts)))
                    AND (\(onlyContainer)::text IS NULL OR container = \(onlyContainer))
                    AND (retry_after IS NULL OR retry_after <= now() OR refused_by <> \(host))\(spared)
                ORDER BY priority, id
                LIMIT \(limit)
                FOR UPDATE SKIP LOCKED
            ),
            leased AS (
                UPDATE glance.job AS j SET state = 'leased', attempts = j.attempts + 1, lease_token = \(token),
                    lease_host = \(host), lease_expires = now() + make_interval(secs => \(seconds))
                FROM next WHERE j.id = next.id
                RETURNING j.id, j.container, j.root, j.path, j.force, j.attempts
            )
            """
    }

    /// The record columns and described thumbnails of the document of each job `alias` names,
    /// selected from `source` (which holds the jobs as `alias`), with the joins that read them:
    /// what follows a leased job's six columns.
    static func leasedRecordColumns(from source: String, alias: String) -> String {
        """
        \(PostgresStore.columns(of: "d")), \(PostgresStore.describedThumbnailColumns)
        FROM \(source) LEFT JOIN glance.document d ON d.container = \(alias).container AND d.path = \(alias).path
        \(PostgresStore.describedThumbnailsJoin(of: "d"))
        """
    }

    static let bindingDataTypes: [PostgresDataType] = [.int4, .text, .text, .int8, .text, .float8]

    var maxAttempts: Int32
    var onlyContainer: String?
    var lease: Lease
    var limit: Int64

    func makeBindings() throws -> PostgresBindings {
        var bindings = PostgresBindings(capacity: 6)
        bindings.append(maxAttempts)
        bindings.append(onlyContainer)
        bindings.append(lease.host)
        bindings.append(limit)
        bindings.append(lease.token)
        bindings.append(lease.seconds)
        return bindings
    }
}

/// A heartbeat: the expiry of every job held under a lease moved on.
struct RenewJobsStatement: StoreStatement {
    static let name = "glance_renew_jobs_v1"
    static let sql = """
        UPDATE glance.job SET lease_expires = now() + make_interval(secs => $1)
        WHERE lease_token = $2 AND state = 'leased'
        """
    static let bindingDataTypes: [PostgresDataType] = [.float8, .text]

    var lease: Lease

    func makeBindings() throws -> PostgresBindings {
        var bindings = PostgresBindings(capacity: 2)
        bindings.append(lease.seconds)
        bindings.append(lease.token)
        return bindings
    }
}

/// A job marked done by the host whose lease still holds it.
struct CompleteJobStatement: StoreStatement {
    static let name = "glance_complete_job_v1"
    static let sql = """
        UPDATE glance.job SET state = 'done', finished_at = now(), finished_by = $1, error = NULL
        WHERE id = $2 AND lease_token = $3 AND state = 'leased'
        RETURNING id
        """
    static let bindingDataTypes: [PostgresDataType] = [.text, .int8, .text]

    var jobID: Int64
    var lease: Lease

    func makeBindings() throws -> PostgresBindings {
        var bindings = PostgresBindings(capacity: 3)
        bindings.append(lease.host)
        bindings.append(jobID)
        bindings.append(lease.token)
        return bindings
    }
}

/// One document's record with its thumbnails' columns, and the image bytes of all of them or of
/// one size (see ``PostgresStore/document(at:bytes:)``).
struct ReadDocumentStatement: StoreStatement {
    static let name = "glance_read_document_v2"
    // The bytes wanted come from the row (data) or from the file the row names (file_digest).
    static let sql = """
        SELECT \(PostgresStore.columns(of: "d")), t.document_id, t.size_key, t.format, t.width, t.height,
            t.byte_count, t.average_colour, t.thumb_hash, CASE WHEN $3 OR t.size_key = $4 THEN t.data END,
            CASE WHEN $3 OR t.size_key = $4 THEN t.file_digest END
        FROM glance.document d LEFT JOIN glance.thumbnail t ON t.document_id = d.id
        WHERE d.container = $1 AND d.path = $2 ORDER BY t.size_key
        """
    static let bindingDataTypes: [PostgresDataType] = [.text, .text, .bool, .text]

    var container: String
    var path: String
    var allBytes: Bool
    var onlyKey: String

    func makeBindings() throws -> PostgresBindings {
        var bindings = PostgresBindings(capacity: 4)
        bindings.append(container)
        bindings.append(path)
        bindings.append(allBytes)
        bindings.append(onlyKey)
        return bindings
    }
}

/// A record saved with its thumbnail dictionary, its claim released, the queue's jobs for it
/// marked done and the worker's next jobs leased: one statement, one transaction, one round trip
/// (see ``PostgresStore/save(_:thumbnails:)``). Its rows: the record's id and how many jobs were
/// marked done, then each job leased (as ``LeaseJobsStatement`` gives them; NULL when none).
struct SaveDocumentStatement: StoreStatement {
    static let name = "glance_save_document_v3"
    // The sub-statements touch disjoint rows: old size keys that are gone are deleted, the new
    // ones inserted or updated in place; the jobs' rows are the queue's.
    static let sql = """
        WITH d AS (
            INSERT INTO glance.document AS doc (container, path, device, inode, size, modified_ns, digest,
                content_type, state, error, generator_version, generated_at, render_milliseconds, details)
            VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14)
            ON CONFLICT (container, path) DO UPDATE SET device = EXCLUDED.device, inode = EXCLUDED.inode,
                size = EXCLUDED.size, modified_ns = EXCLUDED.modified_ns, digest = EXCLUDED.digest,
                content_type = EXCLUDED.content_type, state = EXCLUDED.state, error = EXCLUDED.error,
                generator_version = EXCLUDED.generator_version, generated_at = EXCLUDED.generated_at,
                render_milliseconds = EXCLUDED.render_milliseconds, details = EXCLUDED.details
            RETURNING doc.id
        ),
        gone AS (
            DELETE FROM glance.thumbnail
            WHERE document_id = (SELECT id FROM d) AND NOT (size_key = ANY($15::text[]))
        ),
        put AS (
            INSERT INTO glance.thumbnail AS t (document_id, size_key, format, width, height, byte_count,
                average_colour, thumb_hash, data, file_digest)
            SELECT (SELECT id FROM d), k, f, w, h, n, NULLIF(a, ''), NULLIF(t, ''), NULLIF(b, ''::bytea),
                NULLIF(g, ''::bytea)
            FROM unnest($15::text[], $16::text[], $17::integer[], $18::integer[], $19::integer[], $20::text[],
                $21::text[], $22::bytea[], $26::bytea[]) AS x(k, f, w, h, n, a, t, b, g)
            ON CONFLICT (document_id, size_key) DO UPDATE SET format = EXCLUDED.format,
                width = EXCLUDED.width, height = EXCLUDED.height, byte_count = EXCLUDED.byte_count,
                average_colour = EXCLUDED.average_colour, thumb_hash = EXCLUDED.thumb_hash, data = EXCLUDED.data,
                file_digest = EXCLUDED.file_digest
        ),
        unclaimed AS (
            DELETE FROM glance.claim WHERE container = $1 AND path = $2
        ),
        finished AS (
            UPDATE glance.job SET state = 'done', finished_at = now(), finished_by = $25, error = NULL
            WHERE id = ANY($23::bigint[]) AND lease_token = $24 AND state = 'leased'
            RETURNING id
        ),
        \(LeaseJobsStatement.leasingCTEs(
            maxAttempts: "$28", onlyContainer: "$29", host: "$25", limit: "$27", token: "$24", seconds: "$30",
            except: "$23"))
        SELECT (SELECT id FROM d), (SELECT count(*) FROM finished),
            a.id, a.container, a.root, a.path, a.force, a.attempts,
            \(LeaseJobsStatement.leasedRecordColumns(from: "(SELECT 1) AS one LEFT JOIN leased a ON true", alias: "a"))
        """
    static let bindingDataTypes: [PostgresDataType] = [
        .text, .text, .int8, .int8, .int8, .int8, .text, .text, .text, .text, .text, .timestamptz, .int4, .text,
        .textArray, .textArray, .int4Array, .int4Array, .int4Array, .textArray, .textArray, .byteaArray,
        .int8Array, .text, .text, .byteaArray, .int8, .int4, .text, .float8,
    ]

    var container: String
    var record: DocumentRecord
    var thumbnails: ThumbnailColumns
    /// The jobs this save completes, and the lease they are held under (none: no job).
    var jobs: [Int64] = []
    var lease: Lease?
    /// The next jobs to lease under `lease` with the save (none: 0 jobs).
    var leaseAhead: LeaseAhead?

    func makeBindings() throws -> PostgresBindings {
        let identity = record.identity
        var bindings = PostgresBindings(capacity: 30)
        bindings.append(container)
        bindings.append(record.path)
        bindings.append(Int64(bitPattern: identity.device))
        bindings.append(Int64(bitPattern: identity.inode))
        bindings.append(identity.size)
        bindings.append(identity.modifiedNanoseconds)
        bindings.append(record.digest)
        bindings.append(record.contentType?.rawValue)
        bindings.append(record.state.rawValue)
        bindings.append(record.error)
        bindings.append(record.generatorVersion)
        bindings.append(record.generatedAt)
        bindings.append(record.renderMilliseconds.map { Int32(clamping: $0) })
        bindings.append(record.details.flatMap { $0.isEmpty ? nil : $0.json })
        bindings.append(thumbnails.keys)
        bindings.append(thumbnails.formats)
        bindings.append(thumbnails.widths)
        bindings.append(thumbnails.heights)
        bindings.append(thumbnails.counts)
        bindings.append(thumbnails.colours)
        bindings.append(thumbnails.hashes)
        bindings.append(thumbnails.images)
        bindings.append(jobs)
        bindings.append(lease?.token)
        bindings.append(lease?.host)
        bindings.append(thumbnails.fileDigests)
        bindings.append(Int64(lease == nil ? 0 : leaseAhead?.limit ?? 0))
        bindings.append(Int32(clamping: leaseAhead?.maxAttempts ?? 0))
        bindings.append(leaseAhead?.onlyContainer)
        bindings.append(lease?.seconds ?? 0)
        return bindings
    }
}

/// A thumbnail dictionary as the columns of its rows, each an array (bound as one parameter).
struct ThumbnailColumns: Sendable {
    var keys: [String] = []
    var formats: [String] = []
    var widths: [Int32] = []
    var heights: [Int32] = []
    var counts: [Int32] = []
    /// "" stands for no colour (arrays cannot hold NULL here): NULLIF turns it back.
    var colours: [String] = []
    /// "" stands for no ThumbHash.
    var hashes: [String] = []
    /// The image bytes; empty for a thumbnail kept in a file.
    var images: [ByteBuffer] = []
    /// The SHA-256 of the file a thumbnail is kept in; empty for one kept in its row.
    var fileDigests: [ByteBuffer] = []

    /// The columns of `thumbnails`, each of which must carry its image bytes; `withBytes` false
    /// leaves ``images`` empty (the bytes go to files, whose digests the caller fills in).
    init(_ thumbnails: [ThumbnailImage], of path: String, location: String, withBytes: Bool = true)
        throws(StoreError)
    {
        for image in thumbnails {
            guard let bytes = image.data else {
                throw StoreError(
                    .invalid, message: "thumbnail \(image.sizeKey) of \(path) has no image data to store",
                    location: location)
            }
            keys.append(image.sizeKey)
            formats.append(image.format.rawValue)
            widths.append(Int32(clamping: image.width))
            heights.append(Int32(clamping: image.height))
            counts.append(Int32(clamping: bytes.count))
            colours.append(image.averageColour ?? "")
            hashes.append(image.thumbHash ?? "")
            images.append(withBytes ? ByteBuffer(bytes: bytes) : ByteBuffer())
            fileDigests.append(ByteBuffer())
        }
    }
}
