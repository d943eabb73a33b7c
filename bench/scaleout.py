"""Scale-out: the PostgreSQL job queue with 1, 2, 4 and 8 worker hosts, each measured as a machine.

A PostgreSQL server is initdb'd into a temporary folder on a free loopback port (as user
`postgres` when run as root, as PostgreSQL requires) and removed at the end; it runs in a CPU
accounting cgroup of its own, so that its CPU (every backend, the WAL writer, the checkpointer,
autovacuum) is read exactly, and with `pg_stat_statements`, so that its statements are counted.

Each worker host is what an operator runs on a machine of its own: `glance worker --jobs 1` in
its own network namespace (no network: it reaches the database through the server's Unix
socket, as a host reaches it through the network), its own UTS namespace (its host name, which
its leases carry) and its own CPU cgroup with one quota (`--quota`, 0.15 of a core by default:
eight hosts and the database must fit on this 2-core machine). Its renderer processes are its
children and stay in its cgroup. The corpus (the bench corpus's JPEGs and PDFs, hard-linked
`copies` times) is enqueued with `glance generate --enqueue`, then drained by 1, 2, 4 and 8
hosts in turn, each into a fresh database; the same corpus rendered by `glance generate --jobs 1`
in a cgroup with the same quota is the local baseline (the queue's overhead per document).

Beside the curve: PostgreSQL's CPU per document, the statements it ran per document, its WAL
bytes per document, and the lease round trips' latency percentiles the workers report. Last, the
10,000-document container is generated into PostgreSQL and `glance list --json` timed over it.
"""

import glob
import os
import pwd
import re
import shutil
import socket
import statistics
import subprocess
import tempfile
import threading
import time

HOSTS = (1, 2, 4, 8)
QUOTA = 0.15
PERIOD_US = 100_000


class CPUGroups:
    """CPU cgroups made under the machine's hierarchy (v1 `cpu` + `cpuacct`, or v2 `cpu.max`),
    removed at the end. `make(name, quota)` gives a group; `usage(group)` its CPU seconds."""

    def __init__(self, prefix):
        self.v2 = None
        self.made = []
        unified = "/sys/fs/cgroup"
        if os.path.exists(os.path.join(unified, "cgroup.controllers")):
            with open(os.path.join(unified, "cgroup.controllers")) as handle:
                if "cpu" in handle.read().split():
                    self.v2 = os.path.join(unified, prefix)
        if self.v2 is None:
            self.cpu = os.path.join("/sys/fs/cgroup/cpu", prefix)
            self.acct = os.path.join("/sys/fs/cgroup/cpuacct", prefix)
            if not os.path.isdir(os.path.dirname(self.cpu)) or not os.path.isdir(os.path.dirname(self.acct)):
                raise RuntimeError("no CPU cgroup hierarchy (cgroup v1 cpu and cpuacct, or v2 with cpu) is mounted")
            if not os.access(os.path.dirname(self.cpu), os.W_OK):
                raise RuntimeError("CPU cgroups cannot be made here (run as root)")
            for folder in (self.cpu, self.acct):
                os.makedirs(folder, exist_ok=True)
                self.made.append(folder)
        else:
            if not os.access(unified, os.W_OK):
                raise RuntimeError("CPU cgroups cannot be made here (run as root)")
            os.makedirs(self.v2, exist_ok=True)
            self.made.append(self.v2)
            with open(os.path.join(unified, "cgroup.subtree_control"), "w") as handle:
                handle.write("+cpu")
            with open(os.path.join(self.v2, "cgroup.subtree_control"), "w") as handle:
                handle.write("+cpu")

    def make(self, name, quota=None):
        """A group `name` with `quota` cores (None: no limit); returns its folders."""
        if self.v2:
            folder = os.path.join(self.v2, name)
            os.makedirs(folder, exist_ok=True)
            self.made.append(folder)
            with open(os.path.join(folder, "cpu.max"), "w") as handle:
                handle.write(f"{int(quota * PERIOD_US)} {PERIOD_US}" if quota else f"max {PERIOD_US}")
            return [folder]
        folders = [os.path.join(self.cpu, name), os.path.join(self.acct, name)]
        for folder in folders:
            os.makedirs(folder, exist_ok=True)
            self.made.append(folder)
        with open(os.path.join(folders[0], "cpu.cfs_period_us"), "w") as handle:
            handle.write(str(PERIOD_US))
        with open(os.path.join(folders[0], "cpu.cfs_quota_us"), "w") as handle:
            handle.write(str(int(quota * PERIOD_US)) if quota else "-1")
        return folders

    @staticmethod
    def enter(folders, pid):
        for folder in folders:
            with open(os.path.join(folder, "cgroup.procs"), "w") as handle:
                handle.write(str(pid))

    def usage(self, folders):
        """CPU seconds the group's processes used so far (the ones that ended included)."""
        if self.v2:
            with open(os.path.join(folders[0], "cpu.stat")) as handle:
                for line in handle:
                    if line.startswith("usage_usec"):
                        return int(line.split()[1]) / 1e6
            return 0.0
        with open(os.path.join(folders[1], "cpuacct.usage")) as handle:
            return int(handle.read()) / 1e9

    @staticmethod
    def members(folders):
        with open(os.path.join(folders[0], "cgroup.procs")) as handle:
            return [int(line) for line in handle if line.strip()]

    def remove(self):
        for folder in reversed(self.made):
            for pid in self.members([folder]) if os.path.exists(os.path.join(folder, "cgroup.procs")) else []:
                try:
                    os.kill(pid, 9)
                except ProcessLookupError:
                    pass
            for _ in range(50):
                try:
                    os.rmdir(folder)
                    break
                except FileNotFoundError:
                    break
                except OSError:
                    time.sleep(0.1)


class Postgres:
    """A throwaway PostgreSQL server in CPU cgroup `group` (when given), with pg_stat_statements;
    `address(db, container)` gives a --store URL over TCP, `socket_address` one over its socket."""

    def __init__(self, log, groups=None, group=None):
        versions = sorted(glob.glob("/usr/lib/postgresql/*/bin/postgres"), reverse=True)
        if not versions:
            raise RuntimeError("PostgreSQL's server is not installed (apt-get install postgresql)")
        self.bin = os.path.dirname(versions[0])
        self.folder = tempfile.mkdtemp(prefix="glance-bench-postgres-")
        os.chmod(self.folder, 0o755)
        self.prefix = []
        if os.geteuid() == 0:
            account = pwd.getpwnam("postgres")
            os.chown(self.folder, account.pw_uid, account.pw_gid)
            self.prefix = ["setpriv", "--reuid=postgres", "--regid=postgres", "--init-groups"]
        data = os.path.join(self.folder, "data")
        subprocess.run(self.prefix + [os.path.join(self.bin, "initdb"), "-D", data, "-U", "glance", "--auth=trust",
                                      "--encoding=UTF8", "--no-locale", "--no-sync"],
                       check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            self.port = probe.getsockname()[1]
        self.log_file = open(os.path.join(self.folder, "server.log"), "w")
        self.group = group
        self.process = subprocess.Popen(
            self.prefix + [os.path.join(self.bin, "postgres"), "-D", data, "-p", str(self.port), "-k", self.folder,
                           "-c", "listen_addresses=127.0.0.1", "-c", "max_connections=200",
                           "-c", "shared_preload_libraries=pg_stat_statements",
                           "-c", "pg_stat_statements.track=all", "-c", "pg_stat_statements.track_planning=on"],
            stdout=self.log_file, stderr=self.log_file,
            preexec_fn=(lambda: CPUGroups.enter(group, os.getpid())) if group else None)
        for _ in range(300):
            if subprocess.run(["pg_isready", "-q", "-h", "127.0.0.1", "-p", str(self.port)]).returncode == 0:
                break
            time.sleep(0.1)
        else:
            self.stop()
            raise RuntimeError("PostgreSQL did not start")
        log(f"  PostgreSQL {os.path.basename(os.path.dirname(self.bin))} on 127.0.0.1:{self.port}")

    def psql(self, sql, database="postgres"):
        return subprocess.run(["psql", "-X", "-q", "-A", "-t", "-F", "\t", "-h", "127.0.0.1", "-p", str(self.port),
                               "-U", "glance", "-d", database, "-c", sql],
                              check=True, capture_output=True, text=True).stdout.strip()

    def database(self, name):
        self.psql(f"CREATE DATABASE {name}")
        self.psql("CREATE EXTENSION IF NOT EXISTS pg_stat_statements", name)
        return name

    def address(self, database, container=None):
        url = f"postgres://glance@127.0.0.1:{self.port}/{database}"
        return url + (f"?container={container}" if container else "")

    def socket_address(self, database):
        """The address a host without a network uses: the server's Unix socket."""
        return f"postgres://glance@/{database}?host={self.folder}&port={self.port}"

    def stop(self):
        self.process.terminate()
        try:
            self.process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.process.kill()
        self.log_file.close()
        shutil.rmtree(self.folder, ignore_errors=True)


class UsageSampler:
    """A group's CPU seconds, sampled with the wall clock every `interval` seconds while it runs."""

    def __init__(self, groups, folders, interval=0.05):
        self.groups, self.folders, self.interval = groups, folders, interval
        self.samples = []
        self.stopping = threading.Event()
        self.thread = threading.Thread(target=self._run, daemon=True)

    def _sample(self):
        self.samples.append((time.time(), self.groups.usage(self.folders)))

    def _run(self):
        while not self.stopping.wait(self.interval):
            self._sample()

    def __enter__(self):
        self._sample()
        self.thread.start()
        return self

    def __exit__(self, *_):
        self.stopping.set()
        self.thread.join()
        self._sample()

    def at(self, moment):
        """The usage at wall time `moment`, interpolated between the samples around it."""
        before = max((s for s in self.samples if s[0] <= moment), default=self.samples[0])
        after = min((s for s in self.samples if s[0] >= moment), default=self.samples[-1])
        if after[0] == before[0]:
            return before[1]
        return before[1] + (after[1] - before[1]) * (moment - before[0]) / (after[0] - before[0])


def steady_window(sampler, finished, hosts):
    """PostgreSQL's CPU once every host is working: from the moment the first 2 x hosts jobs were
    done (each host connected and its statements prepared) to the moment all but the last `hosts`
    were (before hosts run dry and disconnect), as (CPU seconds, wall seconds, jobs finished
    between), or None for a run too short to have one. `finished`: every job's finishing time
    (the server's clock, this machine's)."""
    first, last = 2 * hosts - 1, len(finished) - hosts - 1
    if last - first < 8:
        return None
    used = sampler.at(finished[last]) - sampler.at(finished[first])
    return used, finished[last] - finished[first], last - first


def steady_cpu_per_document(window):
    """The steady window's CPU per document, in ms."""
    return window[0] * 1000 / window[2] if window else None


def split_steady_cpu(windows):
    """PostgreSQL's steady CPU split, by least squares over runs at different rates, into what it
    spends a second whatever the rate (its WAL writer's and background writer's rounds, the WAL
    flush that covers however many commits came since the last) and what each more document
    costs: (ms a second, ms a document), or None without two different rates. At one host's rate
    the first is a third of the steady figure; the second is what a database core's documents a
    second are bounded by."""
    windows = [w for w in windows if w]
    if len(windows) < 2:
        return None
    # Minimise sum (used - fixed*seconds - marginal*docs)^2: the 2x2 normal equations.
    ss = sum(s * s for _, s, _ in windows)
    sd = sum(s * d for _, s, d in windows)
    dd = sum(d * d for _, _, d in windows)
    us = sum(u * s for u, s, _ in windows)
    ud = sum(u * d for u, _, d in windows)
    determinant = ss * dd - sd * sd
    if abs(determinant) < 1e-9 * ss * dd:
        return None
    fixed = (us * dd - ud * sd) / determinant
    marginal = (ud * ss - us * sd) / determinant
    return fixed * 1000, marginal * 1000


def timed(argvs, preexec=None):
    """Starts every command at once and waits for all: (wall seconds, each one's standard error)."""
    start = time.monotonic()
    processes = [subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                                  preexec_fn=preexec[i] if preexec else None) for i, argv in enumerate(argvs)]
    errors = [p.communicate()[1].decode(errors="replace") for p in processes]
    seconds = time.monotonic() - start
    for process, error in zip(processes, errors):
        if process.returncode != 0:
            raise RuntimeError(f"{' '.join(map(str, process.args[:6]))}: exit {process.returncode}: {error[-300:]}")
    return seconds, errors


def make_corpus(root, folder, copies):
    """`copies` hard-linked copies of the bench corpus's JPEGs and PDFs, in `copy-NN` folders
    (hard links: every copy is a document of its own to the queue, without the disk)."""
    stamp = f"{folder}.made-{copies}"
    if os.path.exists(stamp) and os.path.isdir(folder):
        return folder, sum(len(files) for _, _, files in os.walk(folder))
    for old in glob.glob(f"{folder}.made-*"):
        os.remove(old)
    shutil.rmtree(folder, ignore_errors=True)
    sources = sorted(glob.glob(os.path.join(root, "jpeg", "*.jpg")) + glob.glob(os.path.join(root, "pdf", "*.pdf")))
    if not sources:
        raise RuntimeError(f"no JPEGs or PDFs in {root}")
    for copy in range(copies):
        target = os.path.join(folder, f"copy-{copy:02d}")
        os.makedirs(target)
        for source in sources:
            os.link(source, os.path.join(target, os.path.basename(source)))
    open(stamp, "w").close()
    return folder, copies * len(sources)


LEASE_LINE = re.compile(r"(\d+) lease round trips?(?:, p50 ([\d.]+) ms, p90 ([\d.]+) ms, p99 ([\d.]+) ms)?")


def lease_latencies(errors):
    """(round trips, [p50, p90, p99] of each host) from the workers' last lines."""
    trips, percentiles = 0, []
    for text in errors:
        found = LEASE_LINE.search(text)
        if found:
            trips += int(found.group(1))
            if found.group(2):
                percentiles.append([float(found.group(i)) for i in (2, 3, 4)])
    return trips, percentiles


def statement_profile(server, database, documents):
    """What PostgreSQL ran for the run just ended: statements per document, and the five that
    cost it the most (their share of its execution and planning time, in ms per document)."""
    rows = server.psql(
        "SELECT calls, total_exec_time + total_plan_time, regexp_replace(left(query, 70), '\\s+', ' ', 'g') "
        "FROM pg_stat_statements WHERE dbid = (SELECT oid FROM pg_database WHERE datname = current_database()) "
        "AND query NOT LIKE '%pg_stat_statements%' ORDER BY 2 DESC", database)
    statements, top = 0, []
    for line in rows.splitlines():
        calls, milliseconds, text = line.split("\t", 2)
        statements += int(calls)
        if len(top) < 6:
            top.append({"per_document": int(calls) / documents, "ms_per_document": float(milliseconds) / documents,
                        "query": text})
    return statements / documents, top


# Where the thumbnails' bytes are and how the workers commit: "database" is the rows with each
# commit flushed (as before issue 71), "files-durable" files with each commit flushed,
# "files-each-save" files with the workers' commits deferred and each save a statement of its own
# (`--saves-per-commit 1`, as before two went together), "files" files with the commits deferred
# and two batch documents' saves a statement (what `glance worker` does by default).
PLACES = ("database", "files-durable", "files-each-save", "files")


def measure_scaleout(glance, root, many_docs, work_dir, rounds, log, copies=6, quota=QUOTA, hosts_list=HOSTS,
                     places=PLACES):
    """The curve for each of `places` (see PLACES), in the same rounds: the result's curve is the
    last one's, `by_place` has each one's."""
    folder = os.path.join(work_dir, "scaleout")
    os.makedirs(folder, exist_ok=True)
    docs, count = make_corpus(root, os.path.join(work_dir, "scaleout-docs"), copies)
    groups = CPUGroups(f"glance-bench-{os.getpid()}")
    server = None
    try:
        postgres_group = groups.make("postgres")
        server = Postgres(log, groups, postgres_group)
        local, local_cpu = [], []
        every_run = {place: {hosts: [] for hosts in hosts_list} for place in places}
        for round_index in range(rounds):
            # The local pool under the same quota: what one machine does without the queue.
            local_group = groups.make(f"local-{round_index}", quota)
            sidecar = os.path.join(folder, f"local-{round_index}")
            shutil.rmtree(sidecar, ignore_errors=True)
            seconds, _ = timed([[glance, "generate", docs, "--store", sidecar, "--jobs", "1", "--quiet"]],
                               [lambda g=local_group: CPUGroups.enter(g, os.getpid())])
            local.append(seconds)
            local_cpu.append(groups.usage(local_group))
            shutil.rmtree(sidecar, ignore_errors=True)
            line = [f"local {seconds:.1f}s"]
            for place, hosts in ((place, hosts) for hosts in hosts_list for place in places):
                runs = every_run[place]
                database = server.database(f"bench_{place.replace('-', '_')}_{hosts}_{round_index}")
                timed([[glance, "generate", docs, "--store", server.address(database, "corpus"), "--enqueue",
                        "--quiet"]])
                server.psql("SELECT pg_stat_statements_reset()", database)
                host_groups = [groups.make(f"r{round_index}-{place}-h{hosts}-{k}", quota) for k in range(hosts)]
                store = server.socket_address(database)
                durable = []
                if place.startswith("files"):
                    thumbnails = os.path.join(folder, f"files-{hosts}-{round_index}")
                    shutil.rmtree(thumbnails, ignore_errors=True)
                    store += f"&thumbnails={thumbnails}"
                if place in ("database", "files-durable"):
                    # As before worker commits were deferred: each one waits for the log's flush.
                    durable = ["--durable-commits"]
                if place in ("database", "files-durable", "files-each-save"):
                    # As before saves went to the database two at a time.
                    durable.append("--saves-per-commit=1")
                workers = [["unshare", "--net", "--uts", "--", "sh", "-c", 'hostname "$0" && exec "$@"',
                            f"bench-host-{k}", glance, "worker", "--store", store, "--jobs", "1", "--root", docs,
                            "--exit-when-idle", *durable] for k in range(hosts)]
                wal_before = server.psql("SELECT pg_current_wal_lsn()")
                sessions_before = int(server.psql(
                    f"SELECT sessions FROM pg_stat_database WHERE datname = '{database}'"))
                with UsageSampler(groups, postgres_group) as sampler:
                    seconds, errors = timed(workers,
                                            [lambda g=g: CPUGroups.enter(g, os.getpid()) for g in host_groups])
                postgres_cpu = sampler.samples[-1][1] - sampler.samples[0][1]
                # The hosts' sessions: the count taken before counts itself once it ended.
                sessions = int(server.psql(
                    f"SELECT sessions FROM pg_stat_database WHERE datname = '{database}'")) - sessions_before - 1
                finished = [float(t) for t in server.psql(
                    "SELECT extract(epoch FROM finished_at) FROM glance.job WHERE state = 'done' ORDER BY 1",
                    database).split()]
                wal = int(server.psql(f"SELECT pg_wal_lsn_diff(pg_current_wal_lsn(), '{wal_before}')"))
                hosts_cpu = sum(groups.usage(g) for g in host_groups)
                done = server.psql("SELECT count(*) FROM glance.job WHERE state = 'done'", database)
                if int(done) != count:
                    raise RuntimeError(f"{hosts} host(s): {done} of {count} jobs done")
                statements, top = statement_profile(server, database, count)
                trips, percentiles = lease_latencies(errors)
                window = steady_window(sampler, finished, hosts)
                runs[hosts].append({
                    "seconds": seconds, "postgres_cpu_ms_per_document": postgres_cpu * 1000 / count,
                    "postgres_steady_ms_per_document": steady_cpu_per_document(window),
                    "postgres_steady_window": window,
                    "sessions": sessions,
                    "hosts_cpu_ms_per_document": hosts_cpu * 1000 / count, "statements_per_document": statements,
                    "wal_bytes_per_document": wal / count, "lease_round_trips": trips,
                    "lease_ms_p50": max((p[0] for p in percentiles), default=None),
                    "lease_ms_p90": max((p[1] for p in percentiles), default=None),
                    "lease_ms_p99": max((p[2] for p in percentiles), default=None),
                    "top_statements": top})
                if place.startswith("files"):
                    shutil.rmtree(thumbnails, ignore_errors=True)
                line.append(f"{hosts} host{'s' if hosts > 1 else ''} ({place}) {seconds:.1f}s")
            log(f"  round {round_index + 1}/{rounds} ({count} documents, {quota} core a host): " + ", ".join(line))
        result = {"documents": count, "quota": quota, "local_seconds": statistics.median(local), "local_all": local,
                  "by_place": {place: summarise(every_run[place], hosts_list, count) for place in places}}
        result.update(result["by_place"][places[-1]])
        result["place"] = places[-1]
        runs = every_run[places[-1]]
        one = result["curve"][0]["seconds"]
        result["overhead_ms_per_document"] = (one - result["local_seconds"]) * 1000 / count
        # The same in CPU: under a quota, wall time is CPU time over the quota, so a host's extra
        # CPU shows 1/quota times larger in seconds. CPU is what a host without a quota pays.
        result["local_cpu_ms_per_document"] = statistics.median(local_cpu) * 1000 / count
        result["overhead_cpu_ms_per_document"] = (
            statistics.median(r["hosts_cpu_ms_per_document"] for r in runs[hosts_list[0]])
            - result["local_cpu_ms_per_document"])

        database = server.database("bench_many")
        store = server.address(database, "many")
        log("  10,000 documents into PostgreSQL (generate), then list --json ...")
        result["many_generate_seconds"], _ = timed([[glance, "generate", many_docs, "--store", store, "--quiet"]])
        listing = [timed([[glance, "list", many_docs, "--store", store, "--json"]])[0] for _ in range(max(rounds, 3))]
        result["many_list_seconds"] = statistics.median(listing)
        result["many_list_all"] = listing
        result["database_bytes"] = int(server.psql(f"SELECT pg_database_size('{database}')"))
        result["thumbnail_bytes"] = int(server.psql(
            "SELECT coalesce(sum(byte_count), 0) FROM glance.thumbnail", database))
        result["records"] = int(server.psql("SELECT count(*) FROM glance.document", database))
        return result
    finally:
        if server:
            server.stop()
        groups.remove()


def summarise(runs, hosts_list, count):
    """One place's curve and medians from its runs (`runs[hosts]`: each round's measures)."""
    result = {"curve": []}
    one = statistics.median(r["seconds"] for r in runs[hosts_list[0]])
    for hosts in hosts_list:
        rs = runs[hosts]
        seconds = statistics.median(r["seconds"] for r in rs)
        median = lambda key: statistics.median(r[key] for r in rs) if rs[0][key] is not None else None
        result["curve"].append({
            "hosts": hosts, "seconds": seconds, "all": [r["seconds"] for r in rs],
            "documents_per_second": count / seconds, "speedup": one / seconds,
            **{key: median(key) for key in ("postgres_cpu_ms_per_document", "postgres_steady_ms_per_document",
                                            "sessions", "hosts_cpu_ms_per_document",
                                            "statements_per_document", "wal_bytes_per_document",
                                            "lease_round_trips", "lease_ms_p50", "lease_ms_p90", "lease_ms_p99")},
            "top_statements": rs[-1]["top_statements"]})
    every = [r for rs in runs.values() for r in rs]
    result["postgres_cpu_ms_per_document"] = statistics.median(r["postgres_cpu_ms_per_document"] for r in every)
    steady = [r["postgres_steady_ms_per_document"] for r in every if r["postgres_steady_ms_per_document"]]
    result["postgres_steady_ms_per_document"] = statistics.median(steady) if steady else None
    result["statements_per_document"] = statistics.median(r["statements_per_document"] for r in every)
    split = split_steady_cpu([r.get("postgres_steady_window") for r in every])
    result["postgres_ms_per_second"], result["postgres_marginal_ms_per_document"] = split or (None, None)
    return result


def format_scaleout(scaleout):
    if not scaleout:
        return []
    s = scaleout
    fmt = lambda value, spec: format(value, spec) if value is not None else "-"
    lines = [
        f"Scale-out (PostgreSQL job queue; each worker host in its own network and UTS namespace and CPU cgroup "
        f"of {s['quota']} core, {s['documents']} JPEGs and PDFs; {s.get('place', 'database')}):",
        f"  {'hosts':>5} {'seconds':>8} {'docs/s':>7} {'speedup':>8} {'PG ms/doc':>10} {'steady':>7} "
        f"{'sessions':>8} {'stmts/doc':>10} {'WAL kB/doc':>11} {'leases':>7} {'lease p50/p90/p99 ms':>21}",
    ]
    for c in s["curve"]:
        lease = ("/".join(f"{c[k]:.1f}" for k in ("lease_ms_p50", "lease_ms_p90", "lease_ms_p99"))
                 if c["lease_ms_p50"] is not None else "-")
        lines.append(f"  {c['hosts']:>5} {c['seconds']:>8.2f} {c['documents_per_second']:>7.2f} "
                     f"{c['speedup']:>7.2f}x {c['postgres_cpu_ms_per_document']:>10.2f} "
                     f"{fmt(c['postgres_steady_ms_per_document'], '.2f'):>7} {c['sessions']:>8.0f} "
                     f"{c['statements_per_document']:>10.1f} {c['wal_bytes_per_document'] / 1000:>11.1f} "
                     f"{c['lease_round_trips']:>7.0f} {lease:>21}")
    for place, other in s.get("by_place", {}).items():
        if place == s.get("place"):
            continue
        last = other["curve"][-1]
        lines.append(f"  {place} instead (the same rounds): PostgreSQL "
                     f"{fmt(other['postgres_steady_ms_per_document'], '.2f')} ms a document steady, "
                     f"{other['postgres_cpu_ms_per_document']:.2f} ms over whole runs; {last['hosts']} hosts "
                     f"{last['speedup']:.2f}x one, WAL {last['wal_bytes_per_document'] / 1000:.1f} kB a document")
    steady = s["postgres_steady_ms_per_document"]
    one = s["curve"][0]["documents_per_second"]
    lines.append(f"  PostgreSQL's CPU per document: {s['postgres_cpu_ms_per_document']:.2f} ms over whole runs "
                 f"(each host's connections made and warmed included), {fmt(steady, '.2f')} ms once every host "
                 f"works (\"steady\")")
    if steady:
        per_core = 1000 / steady
        lines.append(f"  one database core carries {per_core:.0f} documents/s at the steady cost: "
                     f"{per_core / one:.0f} hosts like these")
    if s.get("postgres_marginal_ms_per_document") is not None:
        marginal = s["postgres_marginal_ms_per_document"]
        lines.append(f"  the steady CPU split over the runs' rates: {s['postgres_ms_per_second']:.2f} ms a second "
                     f"whatever the rate, {marginal:.2f} ms a document more (one core: "
                     f"{1000 / marginal if marginal > 0 else float('inf'):.0f} documents/s)")
    lines += [
        f"  local pool under the same quota {s['local_seconds']:.2f} s, {s['local_cpu_ms_per_document']:.1f} ms of "
        f"CPU per document; the queue's overhead per document: {s['overhead_cpu_ms_per_document']:.1f} ms of the "
        f"host's CPU ({s['overhead_ms_per_document']:.1f} ms of wall time under the quota)",
        "  where PostgreSQL's time went (the largest run; ms per document, executing and planning):",
    ]
    for t in s["curve"][-1]["top_statements"]:
        lines.append(f"    {t['ms_per_document']:6.3f} ms  {t['per_document']:5.2f}x  {t['query']}")
    lines.append(
        f"  10,000 documents in PostgreSQL: generate {s['many_generate_seconds']:.1f} s, list --json "
        f"{s['many_list_seconds']:.3f} s; database {s['database_bytes'] / 1e6:.1f} MB for {s['records']} records "
        f"and {s['thumbnail_bytes'] / 1e6:.1f} MB of thumbnails")
    return lines


SPEEDUP_TARGETS = {2: 1.9, 4: 3.6, 8: 6.5}


def scaleout_targets(scaleout):
    """(name, measured, ratio, passed) for the report's target list."""
    if not scaleout:
        return []
    s = scaleout
    targets = []
    for c in s["curve"]:
        target = SPEEDUP_TARGETS.get(c["hosts"])
        if target:
            targets.append((f"Scale-out: {c['hosts']} hosts >= {target}x one host, each under {s['quota']} core",
                            f"{c['speedup']:.2f}x", c["speedup"] / target, c["speedup"] >= target))
    pg = s["postgres_steady_ms_per_document"] or s["postgres_cpu_ms_per_document"]
    beside = ""
    for place, words in (("files-each-save", "each save a statement"),
                         ("database", "the bytes in the rows and each commit flushed")):
        before = s.get("by_place", {}).get(place)
        if before and s.get("place") != place:
            old_pg = before["postgres_steady_ms_per_document"] or before["postgres_cpu_ms_per_document"]
            beside += f"; {old_pg:.2f} ms with {words}"
    targets += [
        (f"Scale-out: PostgreSQL CPU <= 1 ms a document (steady, {s.get('place', 'database')})",
         f"{pg:.2f} ms ({s['postgres_cpu_ms_per_document']:.2f} ms over whole runs{beside})", pg / 1, pg <= 1),
        ("Scale-out: queue overhead <= 5 ms of a host's CPU per document against the local pool",
         f"{s['overhead_cpu_ms_per_document']:.1f} ms ({s['overhead_ms_per_document']:.1f} ms of wall time under "
         f"the quota)", s["overhead_cpu_ms_per_document"] / 5, s["overhead_cpu_ms_per_document"] <= 5),
        ("Scale-out: list of 10,000 documents from PostgreSQL <= 0.5 s", f"{s['many_list_seconds']:.3f} s",
         s["many_list_seconds"] / 0.5, s["many_list_seconds"] <= 0.5),
    ]
    return targets


if __name__ == "__main__":
    # `python3 bench/scaleout.py [--rounds N] [--copies N] [--quota CORES] [--glance PATH]`: this part
    # alone, on the bench corpus (made when missing).
    import argparse
    import json
    import sys
    repo = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import corpus
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=int(os.environ.get("BENCH_ROUNDS", "1")))
    parser.add_argument("--copies", type=int, default=6)
    parser.add_argument("--quota", type=float, default=QUOTA)
    parser.add_argument("--hosts", default=",".join(map(str, HOSTS)))
    parser.add_argument("--glance", default=os.path.join(repo, ".build-static/release/glance"))
    parser.add_argument("--places", default=",".join(PLACES),
                        help="where the thumbnails' bytes are kept, in order: database, files")
    args = parser.parse_args()
    work = os.path.join(repo, "bench", "work")
    root, _ = corpus.ensure_corpus(lambda m: print(m, flush=True))
    found = measure_scaleout(args.glance, root, corpus.ensure_many(), work, args.rounds,
                             lambda m: print(m, flush=True), copies=args.copies, quota=args.quota,
                             hosts_list=tuple(int(h) for h in args.hosts.split(",")),
                             places=tuple(args.places.split(",")))
    print("\n".join(format_scaleout(found)))
    for name, measured, _, passed in scaleout_targets(found):
        print(("PASS " if passed else "FAIL ") + name + ": " + measured)
    print(json.dumps(found))
