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

/// Leases the next jobs (see ``PostgresStore/lease(limit:under:maxAttempts:onlyContainer:holding:)``),
/// with each one's document record and its thumbnails described: the worker's look at whether the
/// document is fresh needs no round trip of its own.
struct LeaseJobsStatement: StoreStatement {
    static let name = "glance_lease_jobs_v4"
    static let sql = """
        WITH \(leasingCTEs(
            maxAttempts: "$1", onlyContainer: "$2", host: "$3", limit: "$4", token: "$5", seconds: "$6", except: "$7"))
        SELECT \(leasedColumns(alias: "l")), \(leasedRecordColumns(from: "leased l", alias: "l"))
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
                RETURNING j.id, j.container, j.root, j.path, j.force, j.attempts, j.priority
            )
            """
    }

    /// A leased job's own columns, of the jobs `alias` names (as `leased` returns them): what
    /// ``PostgresStore/leasedJob(in:at:)`` reads first.
    static func leasedColumns(alias: String) -> String {
        ["id", "container", "root", "path", "force", "attempts", "priority"].map { "\(alias).\($0)" }
            .joined(separator: ", ")
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

    static let bindingDataTypes: [PostgresDataType] = [.int4, .text, .text, .int8, .text, .float8, .int8Array]

    var maxAttempts: Int32
    var onlyContainer: String?
    var lease: Lease
    var limit: Int64
    /// Jobs the leasing host holds: neither failed nor leased again, even when their lease ran out
    /// (the database was away while they rendered).
    var holding: [Int64] = []

    func makeBindings() throws -> PostgresBindings {
        var bindings = PostgresBindings(capacity: 7)
        bindings.append(maxAttempts)
        bindings.append(onlyContainer)
        bindings.append(lease.host)
        bindings.append(limit)
        bindings.append(lease.token)
        bindings.append(lease.seconds)
        bindings.append(holding)
        return bindings
    }
}

/// A heartbeat: the expiry of every job held under a lease moved on.
struct RenewJobsStatement: StoreStatement {
    static let name = "glance_renew_jobs_v2"
    static let sql = """
        UPDATE glance.job SET lease_expires = now() + make_interval(secs => $1)
        WHERE lease_token = $2 AND state = 'leased' AND id = ANY($3)
        """
    static let bindingDataTypes: [PostgresDataType] = [.float8, .text, .int8Array]

    var lease: Lease
    /// The jobs the host still holds.
    var jobs: [Int64]

    func makeBindings() throws -> PostgresBindings {
        var bindings = PostgresBindings(capacity: 3)
        bindings.append(lease.seconds)
        bindings.append(lease.token)
        bindings.append(jobs)
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

/// Records saved with their thumbnail dictionaries, their claims released, the queue's jobs for
/// them marked done and the worker's next jobs leased: one statement, one transaction, one round
/// trip for one document or several (see ``PostgresStore/save(_:thumbnails:)``). Its rows: the
/// ids of the jobs marked done, then each job leased (as ``LeaseJobsStatement`` gives them; NULL
/// when none).
///
/// Several documents a statement is what a worker's saves cost the database least. Measured with
/// pgbench running a statement of the same shape (documents, thumbnails and jobs from arrays,
/// the next jobs leased) at ten documents a second against a PostgreSQL 15 of its own
/// (`synchronous_commit = off`, the server's CPU read from its cgroup): 1.04–1.09 ms of the
/// server's CPU a document saved alone, 0.71–0.79 ms two at a time, 0.61 ms four at a time. Two
/// saves as two statements in one transaction cost what they cost alone (0.78–0.84 against
/// 0.79–0.83 ms, unthrottled): the statement, not the commit, is the price. Each run locks some
/// twenty tables and indexes and starts its plan's nodes.
struct SaveDocumentsStatement: StoreStatement {
    static let name = "glance_save_documents_v2"
    // The documents' columns are arrays, one element a document (`n` its place); the
    // thumbnails' are arrays with one element a thumbnail, `owner` the place of its document.
    // The sub-statements touch disjoint rows: old size keys that are gone are deleted, the new
    // ones inserted or updated in place; the jobs' rows are the queue's. The old thumbnails are
    // found by an array of ids, not a join with `d`, whose size the plan cannot know: a generic
    // plan may read a table whole for a join.
    static let sql = """
        WITH given AS (
            SELECT * FROM unnest($2::text[], $3::int8[], $4::int8[], $5::int8[], $6::int8[], $7::text[], $8::text[],
                $9::text[], $10::bool[], $11::text[], $12::text[], $13::timestamptz[], $14::int4[], $15::text[])
                WITH ORDINALITY AS x(path, device, inode, size, modified_ns, digest, content_type, state, failed,
                    error, generator_version, generated_at, render_milliseconds, details, n)
        ),
        d AS (
            INSERT INTO glance.document AS doc (container, path, device, inode, size, modified_ns, digest,
                content_type, state, error, generator_version, generated_at, render_milliseconds, details)
            SELECT $1, path, device, inode, size, modified_ns, NULLIF(digest, ''), NULLIF(content_type, ''), state,
                CASE WHEN failed THEN error END, generator_version, generated_at, NULLIF(render_milliseconds, -1),
                NULLIF(details, '')
            FROM given ORDER BY n
            ON CONFLICT (container, path) DO UPDATE SET device = EXCLUDED.device, inode = EXCLUDED.inode,
                size = EXCLUDED.size, modified_ns = EXCLUDED.modified_ns, digest = EXCLUDED.digest,
                content_type = EXCLUDED.content_type, state = EXCLUDED.state, error = EXCLUDED.error,
                generator_version = EXCLUDED.generator_version, generated_at = EXCLUDED.generated_at,
                render_milliseconds = EXCLUDED.render_milliseconds, details = EXCLUDED.details
            RETURNING doc.id, doc.path
        ),
        sizes AS (
            SELECT d.id AS document_id, k, f, w, h, c, a, t, b, g
            FROM unnest($16::int8[], $17::text[], $18::text[], $19::integer[], $20::integer[], $21::integer[],
                $22::text[], $23::text[], $24::bytea[], $25::bytea[]) AS x(owner, k, f, w, h, c, a, t, b, g)
            JOIN given ON given.n = x.owner JOIN d ON d.path = given.path
        ),
        gone AS (
            DELETE FROM glance.thumbnail AS old
            WHERE old.document_id = ANY(ARRAY(SELECT id FROM d))
                AND NOT EXISTS (
                    SELECT 1 FROM sizes WHERE sizes.document_id = old.document_id AND sizes.k = old.size_key)
        ),
        put AS (
            INSERT INTO glance.thumbnail AS t (document_id, size_key, format, width, height, byte_count,
                average_colour, thumb_hash, data, file_digest)
            SELECT document_id, k, f, w, h, c, NULLIF(a, ''), NULLIF(t, ''), NULLIF(b, ''::bytea),
                NULLIF(g, ''::bytea)
            FROM sizes
            ON CONFLICT (document_id, size_key) DO UPDATE SET format = EXCLUDED.format,
                width = EXCLUDED.width, height = EXCLUDED.height, byte_count = EXCLUDED.byte_count,
                average_colour = EXCLUDED.average_colour, thumb_hash = EXCLUDED.thumb_hash, data = EXCLUDED.data,
                file_digest = EXCLUDED.file_digest
        ),
        unclaimed AS (
            DELETE FROM glance.claim WHERE container = $1 AND path = ANY($2::text[])
        ),
        finished AS (
            UPDATE glance.job SET state = 'done', finished_at = now(), finished_by = $28, error = NULL
            WHERE id = ANY($26::bigint[]) AND lease_token = $27 AND state = 'leased'
            RETURNING id
        ),
        \(LeaseJobsStatement.leasingCTEs(
            maxAttempts: "$30", onlyContainer: "$31", host: "$28", limit: "$29", token: "$27", seconds: "$32",
            except: "$33"))
        SELECT coalesce((SELECT array_agg(id) FROM finished), '{}'::bigint[]),
            \(LeaseJobsStatement.leasedColumns(alias: "a")),
            \(LeaseJobsStatement.leasedRecordColumns(from: "(SELECT 1) AS one LEFT JOIN leased a ON true", alias: "a"))
        """
    static let bindingDataTypes: [PostgresDataType] = [
        .text, .textArray, .int8Array, .int8Array, .int8Array, .int8Array, .textArray, .textArray, .textArray,
        .boolArray, .textArray, .textArray, .timestamptzArray, .int4Array, .textArray,
        .int8Array, .textArray, .textArray, .int4Array, .int4Array, .int4Array, .textArray, .textArray, .byteaArray,
        .byteaArray,
        .int8Array, .text, .text, .int8, .int4, .text, .float8, .int8Array,
    ]

    /// One document's part of the statement.
    struct Document: Sendable {
        var record: DocumentRecord
        var thumbnails: ThumbnailColumns
    }

    var container: String
    var documents: [Document]
    /// The jobs these saves complete, and the lease they are held under (none: no job).
    var jobs: [Int64] = []
    var lease: Lease?
    /// The next jobs to lease under `lease` with the saves (none: 0 jobs).
    var leaseAhead: LeaseAhead?
    /// Jobs that lease must neither fail nor lease again: those these saves complete and the
    /// others their host holds.
    var spared: [Int64] = []

    func makeBindings() throws -> PostgresBindings {
        var bindings = PostgresBindings(capacity: 33)
        bindings.append(container)
        let records = documents.map(\.record)
        bindings.append(records.map(\.path))
        bindings.append(records.map { Int64(bitPattern: $0.identity.device) })
        bindings.append(records.map { Int64(bitPattern: $0.identity.inode) })
        bindings.append(records.map(\.identity.size))
        bindings.append(records.map(\.identity.modifiedNanoseconds))
        // Arrays hold no NULL here: "" (or -1, or `failed` false) stands for none, as NULLIF and
        // CASE read them back. No record has an empty digest, type or details, or a negative time.
        bindings.append(records.map { $0.digest ?? "" })
        bindings.append(records.map { $0.contentType?.rawValue ?? "" })
        bindings.append(records.map(\.state.rawValue))
        bindings.append(records.map { $0.error != nil })
        bindings.append(records.map { $0.error ?? "" })
        bindings.append(records.map(\.generatorVersion))
        bindings.append(records.map(\.generatedAt))
        bindings.append(records.map { $0.renderMilliseconds.map { max(0, Int32(clamping: $0)) } ?? -1 })
        bindings.append(records.map { $0.details.flatMap { $0.isEmpty ? nil : $0.json } ?? "" })
        var owners: [Int64] = []
        var sizes = ThumbnailColumns()
        for (index, document) in documents.enumerated() {
            owners.append(contentsOf: repeatElement(Int64(index + 1), count: document.thumbnails.keys.count))
            sizes.append(document.thumbnails)
        }
        bindings.append(owners)
        bindings.append(sizes.keys)
        bindings.append(sizes.formats)
        bindings.append(sizes.widths)
        bindings.append(sizes.heights)
        bindings.append(sizes.counts)
        bindings.append(sizes.colours)
        bindings.append(sizes.hashes)
        bindings.append(sizes.images)
        bindings.append(sizes.fileDigests)
        bindings.append(jobs)
        bindings.append(lease?.token)
        bindings.append(lease?.host)
        bindings.append(Int64(lease == nil ? 0 : leaseAhead?.limit ?? 0))
        bindings.append(Int32(clamping: leaseAhead?.maxAttempts ?? 0))
        bindings.append(leaseAhead?.onlyContainer)
        bindings.append(lease?.seconds ?? 0)
        bindings.append(spared)
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

    /// No thumbnails.
    init() {}

    /// Adds `other`'s rows after these.
    mutating func append(_ other: ThumbnailColumns) {
        keys += other.keys
        formats += other.formats
        widths += other.widths
        heights += other.heights
        counts += other.counts
        colours += other.colours
        hashes += other.hashes
        images += other.images
        fileDigests += other.fileDigests
    }

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
