"""Scale-out: the PostgreSQL job queue with one and with two worker hosts, against the local pool.

A PostgreSQL server is initdb'd into a temporary folder on a free loopback port (as user
`postgres` when run as root, as PostgreSQL requires) and removed at the end. The bench corpus
(every format) is enqueued with `glance generate --enqueue`; then `glance worker --jobs 1
--exit-when-idle` drains it, once as one host pinned to core 0 and once as two hosts pinned to
cores 0 and 1 (`taskset`; each host's renderer processes inherit its core). The same corpus
rendered by `glance generate --jobs 1` on core 0 into a sidecar is the local baseline: the
queue's overhead per document is (one host - local) / documents. Last, the 10,000-document
container is generated into PostgreSQL and `glance list --json` timed over it. PostgreSQL itself
is not pinned: it shares the two cores with the hosts, as a database server on one of them would.
"""

import glob
import os
import pwd
import shutil
import socket
import statistics
import subprocess
import tempfile
import threading
import time


class Postgres:
    """A throwaway PostgreSQL server; `address(db, container)` gives a --store URL."""

    def __init__(self, log):
        versions = sorted(glob.glob("/usr/lib/postgresql/*/bin/postgres"), reverse=True)
        if not versions:
            raise RuntimeError("PostgreSQL's server is not installed (apt-get install postgresql)")
        self.bin = os.path.dirname(versions[0])
        self.folder = tempfile.mkdtemp(prefix="glance-bench-postgres-")
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
        self.process = subprocess.Popen(
            self.prefix + [os.path.join(self.bin, "postgres"), "-D", data, "-p", str(self.port), "-k", self.folder,
                           "-c", "listen_addresses=127.0.0.1", "-c", "max_connections=200"],
            stdout=self.log_file, stderr=self.log_file)
        for _ in range(300):
            if subprocess.run(["pg_isready", "-q", "-h", "127.0.0.1", "-p", str(self.port)]).returncode == 0:
                break
            time.sleep(0.1)
        else:
            self.stop()
            raise RuntimeError("PostgreSQL did not start")
        log(f"  PostgreSQL {os.path.basename(os.path.dirname(self.bin))} on 127.0.0.1:{self.port}")

    def psql(self, sql, database="postgres"):
        return subprocess.run(["psql", "-X", "-q", "-A", "-t", "-h", "127.0.0.1", "-p", str(self.port), "-U", "glance",
                               "-d", database, "-c", sql], check=True, capture_output=True, text=True).stdout.strip()

    def database(self, name):
        self.psql(f"CREATE DATABASE {name}")
        return name

    def address(self, database, container=None):
        url = f"postgres://glance@127.0.0.1:{self.port}/{database}"
        return url + (f"?container={container}" if container else "")

    def stop(self):
        self.process.terminate()
        try:
            self.process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.process.kill()
        self.log_file.close()
        shutil.rmtree(self.folder, ignore_errors=True)


class CPUSampler:
    """CPU seconds used while it runs by the process trees under `roots` (pids), sampled from /proc.

    Every `interval` seconds it reads each process's own utime+stime and keeps the last value seen
    per process, counted against the root it descends from; a process that lives less than an
    interval may be missed, and one that ends loses what it used after its last sample. The difference between the
    first and the last sample of each process is what it used meanwhile.
    """

    def __init__(self, roots, interval=0.1):
        self.roots = dict(roots)  # name -> pid
        self.interval = interval
        self.first, self.last, self.owner = {}, {}, {}
        self.stopping = threading.Event()
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.tick = os.sysconf("SC_CLK_TCK")

    def __enter__(self):
        self._sample()
        self.thread.start()
        return self

    def __exit__(self, *_):
        self.stopping.set()
        self.thread.join()
        self._sample()

    def add_root(self, name, pid):
        self.roots[name] = pid

    def _sample(self):
        parents, times = {}, {}
        for stat in glob.glob("/proc/[0-9]*/stat"):
            try:
                with open(stat) as handle:
                    fields = handle.read().rsplit(")", 1)[1].split()
            except OSError:
                continue
            pid = int(stat.split("/")[2])
            parents[pid] = int(fields[1])
            times[pid] = int(fields[11]) + int(fields[12])  # utime + stime
        by_pid = {pid: name for name, pid in self.roots.items()}
        for pid, used in times.items():
            owner, walk = None, pid
            for _ in range(64):
                if walk in by_pid:
                    owner = by_pid[walk]
                    break
                walk = parents.get(walk)
                if not walk:
                    break
            if owner is None:
                continue
            # Only a process's own time: a root's reaped children may have run before the window.
            self.owner[pid] = owner
            self.first.setdefault(pid, used)
            self.last[pid] = used

    def _run(self):
        while not self.stopping.wait(self.interval):
            self._sample()

    def seconds(self, name):
        return sum(self.last[pid] - self.first[pid] for pid, owner in self.owner.items() if owner == name) / self.tick


def timed(argvs):
    """Starts every command at once and waits for all: wall seconds."""
    start = time.monotonic()
    processes = [subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE) for argv in argvs]
    errors = [p.communicate()[1] for p in processes]
    seconds = time.monotonic() - start
    for process, error in zip(processes, errors):
        if process.returncode != 0:
            raise RuntimeError(f"{' '.join(process.args[:4])}: exit {process.returncode}: {error.decode()[-300:]}")
    return seconds


def measure_scaleout(glance, root, many_docs, work_dir, rounds, log):
    folder = os.path.join(work_dir, "scaleout")
    shutil.rmtree(folder, ignore_errors=True)
    os.makedirs(folder)
    server = Postgres(log)
    try:
        count = int(subprocess.run([glance, "list", root, "--json", "--store", os.path.join(folder, "probe")],
                                   capture_output=True, text=True, check=True).stdout.count('"path"'))
        local, local2, one, two, enqueue, cpu = [], [], [], [], [], []
        for round_index in range(rounds):
            sidecar = os.path.join(folder, f"local-{round_index}")
            local.append(timed([["taskset", "-c", "0", glance, "generate", root, "--store", sidecar, "--jobs", "1",
                                 "--quiet"]]))
            # What the same two cores give without a queue: the machine's own scaling, for scale.
            local2.append(timed([["taskset", "-c", "0,1", glance, "generate", root, "--store", sidecar + "-2",
                                  "--jobs", "2", "--quiet"]]))
            for hosts, results in ((1, one), (2, two)):
                database = server.database(f"bench_{hosts}_{round_index}")
                store = server.address(database, "corpus")
                enqueue.append(timed([[glance, "generate", root, "--store", store, "--enqueue", "--quiet"]]))
                workers = [["taskset", "-c", str(core), glance, "worker", "--store", store, "--jobs", "1",
                            "--root", root, "--exit-when-idle"] for core in range(hosts)]
                with CPUSampler({"postgres": server.process.pid, "bench": os.getpid()}) as sampler:
                    results.append(timed(workers))
                cpu.append({"hosts": hosts, "postgres": sampler.seconds("postgres"),
                            "hosts_cpu": sampler.seconds("bench")})
                done = server.psql("SELECT count(*) FROM glance.job WHERE state = 'done'", database)
                if int(done) != count:
                    raise RuntimeError(f"{hosts} host(s): {done} of {count} jobs done")
            log(f"  round {round_index + 1}/{rounds}: local {local[-1]:.2f}s, local on 2 cores {local2[-1]:.2f}s, "
                f"1 host {one[-1]:.2f}s, 2 hosts {two[-1]:.2f}s ({count} documents)")
        result = {
            "documents": count,
            "local_seconds": statistics.median(local), "local_two_cores_seconds": statistics.median(local2),
            "one_host_seconds": statistics.median(one),
            "two_hosts_seconds": statistics.median(two), "enqueue_seconds": statistics.median(enqueue),
            "local_all": local, "local_two_cores_all": local2, "one_host_all": one, "two_hosts_all": two,
        }
        result["speedup"] = result["one_host_seconds"] / result["two_hosts_seconds"]
        # CPU: the hosts' trees (workers, their renderers) and the database server's, per run.
        two_runs = [c for c in cpu if c["hosts"] == 2]
        result["cpu_all"] = cpu
        result["postgres_cpu_ms_per_document"] = statistics.median(c["postgres"] for c in cpu) * 1000 / count
        result["hosts_cpu_ms_per_document"] = statistics.median(c["hosts_cpu"] for c in two_runs) * 1000 / count
        # Two hosts and the server share two cores: at best the two cores are busy with both.
        # One host's time is what a core alone needs for its share; the ceiling is the ratio of
        # one host's time to the time two cores need for all the CPU work of the 2-host run.
        two_cpu = statistics.median(c["hosts_cpu"] + c["postgres"] for c in two_runs)
        result["speedup_ceiling"] = result["one_host_seconds"] / (two_cpu / 2)
        result["postgres_share_of_two_cores"] = statistics.median(
            c["postgres"] for c in two_runs) / (2 * result["two_hosts_seconds"])
        result["local_speedup"] = result["local_seconds"] / result["local_two_cores_seconds"]
        result["overhead_ms_per_document"] = (result["one_host_seconds"] - result["local_seconds"]) * 1000 / count

        database = server.database("bench_many")
        store = server.address(database, "many")
        log("  10,000 documents into PostgreSQL (generate), then list --json ...")
        result["many_generate_seconds"] = timed([[glance, "generate", many_docs, "--store", store, "--quiet"]])
        listing = [timed([[glance, "list", many_docs, "--store", store, "--json"]]) for _ in range(max(rounds, 3))]
        result["many_list_seconds"] = statistics.median(listing)
        result["many_list_all"] = listing
        result["database_bytes"] = int(server.psql(f"SELECT pg_database_size('{database}')"))
        result["thumbnail_bytes"] = int(server.psql(
            "SELECT coalesce(sum(byte_count), 0) FROM glance.thumbnail", database))
        result["records"] = int(server.psql("SELECT count(*) FROM glance.document", database))
        return result
    finally:
        server.stop()


def format_scaleout(scaleout):
    if not scaleout:
        return []
    s = scaleout
    return [
        "Scale-out (PostgreSQL job queue; hosts are worker processes pinned to one core each):",
        f"  {s['documents']} documents: local pool (1 core) {s['local_seconds']:.2f} s, 1 host {s['one_host_seconds']:.2f} s, "
        f"2 hosts {s['two_hosts_seconds']:.2f} s: {s['speedup']:.2f}x from 1 to 2 hosts; queue overhead "
        f"{s['overhead_ms_per_document']:.1f} ms per document; enqueue {s['enqueue_seconds']:.2f} s",
        f"  for scale, the local pool on both cores: {s['local_two_cores_seconds']:.2f} s "
        f"({s['local_speedup']:.2f}x from 1 to 2 cores on this machine)",
        f"  CPU: PostgreSQL {s['postgres_cpu_ms_per_document']:.1f} ms per document "
        f"({100 * s['postgres_share_of_two_cores']:.0f}% of the two cores in the 2-host run), the hosts "
        f"{s['hosts_cpu_ms_per_document']:.1f} ms; with the server on the hosts' cores, 2 hosts can reach at most "
        f"{s['speedup_ceiling']:.2f}x here",
        f"  10,000 documents in PostgreSQL: generate {s['many_generate_seconds']:.1f} s, list --json "
        f"{s['many_list_seconds']:.3f} s; database {s['database_bytes'] / 1e6:.1f} MB for {s['records']} records "
        f"and {s['thumbnail_bytes'] / 1e6:.1f} MB of thumbnails",
    ]


def scaleout_targets(scaleout):
    """(name, measured, ratio, passed) for the report's target list."""
    if not scaleout:
        return []
    s = scaleout
    return [
        ("Scale-out: >= 1.8x from 1 to 2 worker hosts", f"{s['speedup']:.2f}x", s["speedup"] / 1.8,
         s["speedup"] >= 1.8),
        ("Scale-out: queue overhead <= 5 ms per document against the local pool",
         f"{s['overhead_ms_per_document']:.1f} ms", s["overhead_ms_per_document"] / 5,
         s["overhead_ms_per_document"] <= 5),
        ("Scale-out: list of 10,000 documents from PostgreSQL <= 0.5 s", f"{s['many_list_seconds']:.3f} s",
         s["many_list_seconds"] / 0.5, s["many_list_seconds"] <= 0.5),
    ]


if __name__ == "__main__":
    # `python3 bench/scaleout.py`: this part alone, on the bench corpus made by a `make bench` before.
    import json
    import sys
    repo = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import corpus
    work = os.path.join(repo, "bench", "work")
    root, _ = corpus.ensure_corpus(lambda m: print(m, flush=True))
    rounds = int(os.environ.get("BENCH_ROUNDS", "3"))
    found = measure_scaleout(os.path.join(repo, ".build-static/release/glance"), root, corpus.ensure_many(), work, rounds,
                             lambda m: print(m, flush=True))
    print("\n".join(format_scaleout(found)))
    for name, measured, _, passed in scaleout_targets(found):
        print(("PASS " if passed else "FAIL ") + name + ": " + measured)
    print(json.dumps(found))
