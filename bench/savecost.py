"""What a worker's save costs PostgreSQL's CPU, by how many documents one statement saves.

A PostgreSQL server of its own (as bench/scaleout.py starts it, in a CPU cgroup) gets Glance's
schema (`glance generate --enqueue` of an empty folder) and a queue of pending jobs. pgbench then
runs a statement of the save's shape: documents and their three thumbnails from arrays, their
jobs marked done, claims released, the next jobs leased (what `glance worker` sends; each client
carries the jobs it leased to its next save with `\\gset`). Commits are deferred
(`synchronous_commit = off`), as a worker's are. The server's CPU is read from its cgroup.

Modes: `statement` saves N documents in one statement; `transaction` sends N one-document
statements in one transaction (what saving in one commit alone would give).

    python3 bench/savecost.py [--per 1,2,4] [--modes statement,transaction] [--rate 10]
                              [--documents 400] [--rounds 2]

`--rate` is documents a second (0: as fast as the server goes). Measured here (2026-12-07, ten
documents a second): 1.04-1.09 ms of the server's CPU a document saved alone, 0.71-0.79 ms two a
statement, 0.61 ms four a statement.
"""

import argparse
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import scaleout  # noqa: E402

DIGEST = "\\\\x" + "ab" * 32
HASH = "3OcRJYB4d3h/iIN+hmBoeHeGBxeHZ4c"

DOCUMENT_COLUMNS = ("container, path, device, inode, size, modified_ns, digest, content_type, state, error, "
                    "generator_version, generated_at, render_milliseconds, details")


def save_statement(limit):
    """The save of the documents whose jobs `:jobs` names, leasing `limit` next jobs into `jobs`."""
    updated = ", ".join(f"{c} = EXCLUDED.{c}" for c in DOCUMENT_COLUMNS.split(", ")[2:])
    sizes = ", ".join([
        "'{1024,256,512}'::text[]", "'{jpeg,webp,webp}'::text[]", "'{1024,256,512}'::int[]",
        "'{683,171,341}'::int[]", "'{200000,15000,43000}'::int[]", "'{#aabbcc,#aabbcc,#aabbcc}'::text[]",
        f"'{{{HASH},{HASH},{HASH}}}'::text[]"])
    return f"""WITH d AS (
    INSERT INTO glance.document AS doc ({DOCUMENT_COLUMNS})
    SELECT 'corpus', p, 2049, 1000 + n, 2000000 + n, 1700000000000000000 + n, 'sha256:' || md5(p), 'jpeg',
        'fresh', NULL, 'glance', now(), 120, NULL
    FROM unnest(:paths::text[]) WITH ORDINALITY AS x(p, n)
    ON CONFLICT (container, path) DO UPDATE SET {updated}
    RETURNING doc.id, doc.path
),
gone AS (
    DELETE FROM glance.thumbnail WHERE document_id = ANY(ARRAY(SELECT id FROM d))
        AND NOT (size_key = ANY('{{1024,256,512}}'::text[]))
),
put AS (
    INSERT INTO glance.thumbnail AS t (document_id, size_key, format, width, height, byte_count, average_colour,
        thumb_hash, data, file_digest)
    SELECT d.id, k, f, w, h, c, a, th, NULL, '{DIGEST}'::bytea
    FROM d, unnest({sizes}) AS x(k, f, w, h, c, a, th)
    ON CONFLICT (document_id, size_key) DO UPDATE SET format = EXCLUDED.format, width = EXCLUDED.width,
        height = EXCLUDED.height, byte_count = EXCLUDED.byte_count, average_colour = EXCLUDED.average_colour,
        thumb_hash = EXCLUDED.thumb_hash, data = EXCLUDED.data, file_digest = EXCLUDED.file_digest
),
unclaimed AS (DELETE FROM glance.claim WHERE container = 'corpus' AND path = ANY(:paths::text[])),
finished AS (
    UPDATE glance.job SET state = 'done', finished_at = now(), finished_by = 'h', error = NULL
    WHERE id = ANY(:jobs::bigint[]) AND lease_token = :token AND state = 'leased'
    RETURNING id
),
next AS (
    SELECT id FROM glance.job
    WHERE (state = 'pending' OR (state = 'leased' AND lease_expires < now() AND attempts < 3))
        AND id <> ALL(:jobs::bigint[])
    ORDER BY priority, id LIMIT {limit} FOR UPDATE SKIP LOCKED
),
leased AS (
    UPDATE glance.job AS j SET state = 'leased', attempts = j.attempts + 1, lease_token = :token,
        lease_host = 'h', lease_expires = now() + make_interval(secs => 600)
    FROM next WHERE j.id = next.id
    RETURNING j.id, j.container, j.path
)
SELECT (SELECT count(*) FROM finished) AS finished_count,
    coalesce((SELECT array_agg(a.id)::text FROM leased a), '{{}}') AS jobs,
    (SELECT count(*) FROM leased a LEFT JOIN glance.document d ON d.container = a.container AND d.path = a.path)
        AS records \\gset
"""


PATHS = "SELECT coalesce(array_agg('p' || j)::text, '{}') AS paths FROM unnest(:jobs::bigint[]) j \\gset\n"


def script(per, mode):
    if mode == "statement":
        return PATHS + save_statement(per)
    return "BEGIN;\n" + (PATHS + save_statement(1)) * per + "COMMIT;\n"


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--per", default="1,2,4", help="documents a statement (or a transaction), in turn")
    parser.add_argument("--modes", default="statement", help="statement, transaction or both")
    parser.add_argument("--rate", type=float, default=10, help="documents a second (0: unthrottled)")
    parser.add_argument("--documents", type=int, default=400, help="documents saved a measurement")
    parser.add_argument("--rounds", type=int, default=2)
    repo = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    parser.add_argument("--glance", default=os.path.join(repo, ".build-static/release/glance"))
    args = parser.parse_args()
    groups = scaleout.CPUGroups(f"glance-savecost-{os.getpid()}")
    group = groups.make("postgres")
    server = scaleout.Postgres(print, groups, group)
    empty = tempfile.mkdtemp(prefix="glance-savecost-")
    try:
        for round_index in range(args.rounds):
            for per in (int(p) for p in args.per.split(",")):
                for mode in args.modes.split(","):
                    database = server.database(f"savecost_{mode}_{per}_{round_index}")
                    subprocess.run([args.glance, "generate", empty, "--store", server.address(database, "corpus"),
                                    "--enqueue", "--quiet"], check=True, capture_output=True)
                    server.psql("INSERT INTO glance.job (container, root, path, priority) SELECT 'corpus', '/r', "
                                f"'p' || g, 1 FROM generate_series(1, {args.documents * 3}) g; ANALYZE glance.job",
                                database)
                    path = os.path.join(empty, "script.sql")
                    with open(path, "w") as handle:
                        handle.write(script(per, mode))
                    base = ["pgbench", "-n", "-M", "prepared", "-f", path, "-h", "127.0.0.1", "-p", str(server.port),
                            "-U", "glance", "-D", "jobs={}", "-D", "token=t", database]
                    environment = dict(os.environ, PGOPTIONS="-c synchronous_commit=off")
                    # Warmed: the client's plans made, its first jobs leased.
                    subprocess.run(base[:1] + ["-t", "20"] + base[1:], env=environment, check=True,
                                   capture_output=True)
                    throttle = ["-R", str(args.rate / per)] if args.rate > 0 else []
                    before = groups.usage(group)
                    subprocess.run(base[:1] + ["-t", str(args.documents // per)] + throttle + base[1:],
                                   env=environment, check=True, capture_output=True)
                    cpu = groups.usage(group) - before
                    saved = (args.documents // per) * per
                    print(f"round {round_index + 1}: {per} a {mode}: {cpu * 1000 / saved:.3f} ms of the server's CPU "
                          f"a document", flush=True)
                    server.psql(f"DROP DATABASE {database}")
    finally:
        server.stop()
        groups.remove()
        subprocess.run(["rm", "-rf", empty])


if __name__ == "__main__":
    main()
