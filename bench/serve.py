"""Load on `glance serve`, against nginx serving the same thumbnail bytes as static files.

    python3 bench/serve.py [--glance PATH] [--seconds S] [--connections N]

(run alone: this measurement only, printed as in the report; `make bench` runs it among the extras.)

A container holds the corpus's JPEGs, PNGs and PDFs (hard links); `glance generate` fills a fresh
store, then every thumbnail is exported (`glance export`) into a folder that nginx serves under the
same URL paths, `/thumbnails/PATH`. Both servers listen on loopback at once and wrk loads one at a
time, with `cores` threads and 64 connections, for a few seconds each (after a one-second warm-up):

  thumbnail GETs    the versioned URLs glance's pages use, `/thumbnails/PATH?v=DIGESTHEX`, cycling
                    through every document (nginx ignores the query)
  revalidations     the same URLs with `If-None-Match` carrying each server's own ETag: all `304`

Before the load, every URL is fetched once from each server with urllib: the body must be the
exported file byte for byte, glance's versioned answer must be immutable, and the conditional
request must answer `304` with no body. During the load wrk counts error statuses, and the bytes
read per response tell a `200` from a `304`. wrk's numbers come from a Lua `done` callback
(latency percentiles in microseconds, exact counts), not from its rounded text.

Then `glance serve` on the 10,000 tiny PNGs (bench/work/many, store already generated): `GET /`
(the grid page) and `GET /api/items?limit=200`, one request at a time on a fresh connection,
median and max. A status other than 200 is reported as "not measured", never skipped.
"""

import argparse
import http.client
import json
import os
import pwd
import grp
import re
import shutil
import signal
import socket
import ssl
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.parse

import tools

FORMATS = ("jpeg", "png", "pdf")
SECONDS = float(os.environ.get("BENCH_SERVE_SECONDS", "5"))
CONNECTIONS = 64
WARMUP_SECONDS = 1
GRID_REQUESTS = 10
API_REQUESTS = 20

# wrk: requests prepared once per thread, taken in turn (each thread starts at its own offset);
# `done` prints one line of exact numbers. PATHS and TAGS are filled in at run time.
WRK_SCRIPT = """
local paths = {PATHS}
local tags = {TAGS}
local extra = {EXTRA}
local prepared = {}
local next_index = 0
local thread_count = 0

function setup(thread)
  thread:set("thread_number", thread_count)
  thread_count = thread_count + 1
end

function init(args)
  for i, path in ipairs(paths) do
    local headers = {}
    for name, value in pairs(extra) do headers[name] = value end
    if #tags > 0 then headers["If-None-Match"] = tags[i] end
    prepared[i] = wrk.format("GET", path, headers)
  end
  next_index = math.floor((thread_number or 0) * #prepared / 2) % #prepared
end

function request()
  next_index = next_index % #prepared + 1
  return prepared[next_index]
end

function done(summary, latency, requests)
  local e = summary.errors
  io.write(string.format("BENCH-RESULT" .. string.rep(" %.0f", 13) .. "\\n",
    summary.duration, summary.requests, summary.bytes, e.connect, e.read, e.write, e.status, e.timeout,
    latency:percentile(50), latency:percentile(90), latency:percentile(99), latency.max, latency.mean))
end
"""


def lua_strings(values):
    return "{" + ", ".join(json.dumps(v) for v in values) + "}"  # JSON string escapes are valid Lua


def wrk_script(paths, tags=(), headers=None):
    """The Lua script that asks for `paths` in turn, with `tags` as If-None-Match and `headers` on each."""
    extra = "{" + ", ".join(f"[{json.dumps(k)}] = {json.dumps(v)}" for k, v in (headers or {}).items()) + "}"
    return (WRK_SCRIPT.replace("{PATHS}", lua_strings(paths)).replace("{TAGS}", lua_strings(list(tags)))
            .replace("{EXTRA}", extra))


# ---------------------------------------------------------------------------------------------
# The two servers
# ---------------------------------------------------------------------------------------------


def start_glance(glance, container, store, cores, log_path, timeout=120, extra=()):
    """Starts `glance serve --port 0` with `extra` options; returns (process, base URL, seconds until it printed
    its URL)."""
    out_path = log_path + ".stdout"
    with open(out_path, "w") as out, open(log_path, "w") as err:
        began = time.monotonic()
        process = subprocess.Popen([glance, "serve", container, "--store", store, "--port", "0",
                                    "--jobs", str(cores), *extra], stdout=out, stderr=err, stdin=subprocess.DEVNULL)
    deadline = began + timeout
    while time.monotonic() < deadline:
        with open(out_path) as f:
            found = re.search(r"serving .* at (https?://\S+)", f.read())
        if found:
            return process, found.group(1).rstrip("/"), time.monotonic() - began
        if process.poll() is not None:
            break
        time.sleep(0.01)
    stop(process)
    with open(log_path) as f:
        tail = f.read().strip().splitlines()[-3:]
    raise RuntimeError(f"glance serve printed no URL (exit {process.returncode}): " + " | ".join(tail))


def start_floor(floor, root, log_path, tls=None, timeout=30):
    """Starts bench-floor (bench/floor: a bare Hummingbird application) serving the files below
    `root` from memory, over TLS with `tls` (certificate, key); returns (process, base URL)."""
    out_path = log_path + ".stdout"
    with open(out_path, "w") as out, open(log_path, "w") as err:
        process = subprocess.Popen([floor, root, *(["--tls", *tls] if tls else [])], stdout=out, stderr=err,
                                   stdin=subprocess.DEVNULL)
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        with open(out_path) as f:
            found = re.search(r"^(https?://\S+)$", f.read(), re.MULTILINE)
        if found:
            return process, found.group(1)
        if process.poll() is not None:
            break
        time.sleep(0.01)
    stop(process)
    raise RuntimeError(f"bench-floor printed no URL (exit {process.returncode})")


def make_certificate(folder):
    """A self-signed certificate for 127.0.0.1 in `folder`: (certificate, key)."""
    certificate, key = os.path.join(folder, "cert.pem"), os.path.join(folder, "key.pem")
    subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", key, "-out", certificate,
                    "-days", "2", "-subj", "/CN=localhost", "-addext", "subjectAltName=DNS:localhost,IP:127.0.0.1"],
                   check=True, capture_output=True)
    return certificate, key


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def nginx_config(folder, root, port, cores, tls=None):
    """A minimal static-file nginx: everything under folder, no access log, no request cap per connection;
    with `tls` (certificate, key), HTTPS with TLS 1.2 and 1.3 as glance serve speaks them."""
    user = ""
    if os.geteuid() == 0:  # workers would drop to `nobody`, who may not read the bench folder
        user = f"user {pwd.getpwuid(os.geteuid()).pw_name} {grp.getgrgid(os.getegid()).gr_name};\n"
    temp = "\n".join(f"  {kind}_temp_path {os.path.join(folder, kind)};"
                     for kind in ("client_body", "proxy", "fastcgi", "uwsgi", "scgi"))
    return f"""{user}worker_processes {cores};
pid {os.path.join(folder, "nginx.pid")};
error_log {os.path.join(folder, "error.log")} warn;
events {{ worker_connections 1024; }}
http {{
  access_log off;
  sendfile on;
  tcp_nopush on;
  keepalive_requests 1000000;
  types {{ image/jpeg jpg jpeg; image/png png; }}
  default_type application/octet-stream;
{temp}
  server {{
    listen 127.0.0.1:{port}{" ssl" if tls else ""};
{f'    ssl_certificate "{tls[0]}";{chr(10)}    ssl_certificate_key "{tls[1]}";{chr(10)}    ssl_protocols TLSv1.2 TLSv1.3;' if tls else ""}
    root "{root}";
  }}
}}
"""


def start_nginx(folder, root, cores, timeout=10, tls=None):
    """Starts nginx in the foreground on a free loopback port; returns (process, base URL)."""
    port = free_port()
    config = os.path.join(folder, "nginx.conf")
    with open(config, "w") as f:
        f.write(nginx_config(folder, root, port, cores, tls))
    with open(os.path.join(folder, "stderr.log"), "w") as err:
        process = subprocess.Popen(["nginx", "-p", folder, "-e", os.path.join(folder, "error.log"), "-c", config,
                                    "-g", "daemon off;"], stdout=subprocess.DEVNULL, stderr=err,
                                   stdin=subprocess.DEVNULL)
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline and process.poll() is None:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            return process, f"{'https' if tls else 'http'}://127.0.0.1:{port}"
        except OSError:
            time.sleep(0.02)
    stop(process)
    with open(os.path.join(folder, "error.log")) as f:
        tail = f.read().strip().splitlines()[-3:]
    raise RuntimeError(f"nginx did not start (exit {process.returncode}): " + " | ".join(tail))


def stop(process, sig=signal.SIGTERM):
    """Stops one server we started; returns its exit status."""
    if process.poll() is None:
        process.send_signal(sig)
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
    return process.returncode


def cpu_seconds(pid):
    """User + system CPU seconds of a process and its descendants so far (the server's workers)."""
    ticks = 0
    for member in tools.process_tree(pid):
        try:
            with open(f"/proc/{member}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
            ticks += int(fields[11]) + int(fields[12])
        except (OSError, IndexError, ValueError):
            pass
    return ticks / os.sysconf("SC_CLK_TCK")


def log_complaints(path):
    """The lines of a server's log at level warning or above."""
    try:
        with open(path, errors="replace") as f:
            return [line.strip() for line in f if re.search(r"\b(warning|error|critical|crit|alert|emerg)\b", line)]
    except OSError:
        return []


# ---------------------------------------------------------------------------------------------
# HTTP with the standard library
# ---------------------------------------------------------------------------------------------


def fetch(base, path, method="GET", headers=None, body=None, cafile=None):
    """One request on a fresh connection (HTTPS trusting `cafile`): (status, headers dict with lower-case names,
    body, seconds)."""
    parts = urllib.parse.urlsplit(base)
    began = time.perf_counter()
    if parts.scheme == "https":
        context = ssl.create_default_context(cafile=cafile)
        connection = http.client.HTTPSConnection(parts.hostname, parts.port, timeout=60, context=context)
    else:
        connection = http.client.HTTPConnection(parts.hostname, parts.port, timeout=60)
    try:
        connection.request(method, path, body=body, headers=headers or {})
        response = connection.getresponse()
        body = response.read()
        seconds = time.perf_counter() - began
        return response.status, {k.lower(): v for k, v in response.getheaders()}, body, seconds
    finally:
        connection.close()


def thumbnail_url(path, digest=None):
    url = "/thumbnails/" + urllib.parse.quote(path, safe="/")
    return url + f"?v={digest}" if digest else url


def digest_of(item, etag):
    """The document's digest in hex: the listing's `digest` field when it has one, else the ETag's hex part."""
    value = item.get("digest")
    if isinstance(value, str) and value:
        return value.split(":", 1)[-1], "listing"
    found = re.match(r'"([0-9a-f]{64})', etag or "")
    return (found.group(1), "etag") if found else (None, None)


def check_urls(glance_url, nginx_url, docs, problems):
    """Fetches every URL once from both servers: bytes, immutable caching, 304. Returns nginx's ETags."""
    nginx_tags = []
    for doc in docs:
        url = doc["url"]
        status, headers, body, _ = fetch(glance_url, url)
        if status != 200 or body != doc["bytes"]:
            problems.append(f"glance GET {url}: status {status}, {len(body)} bytes, "
                            f"{'not ' if body != doc['bytes'] else ''}the exported bytes")
        if "immutable" not in headers.get("cache-control", ""):
            problems.append(f"glance GET {url}: Cache-Control {headers.get('cache-control')!r}, not immutable")
        if headers.get("etag") != doc["glance_etag"]:
            problems.append(f"glance GET {url}: ETag {headers.get('etag')} after HEAD gave {doc['glance_etag']}")
        status, headers, body, _ = fetch(glance_url, url, headers={"If-None-Match": doc["glance_etag"]})
        if status != 304 or body:
            problems.append(f"glance If-None-Match {url}: status {status}, {len(body)} bytes")
        status, headers, body, _ = fetch(nginx_url, url)
        if status != 200 or body != doc["bytes"]:
            problems.append(f"nginx GET {url}: status {status}, {len(body)} bytes")
        nginx_tags.append(headers.get("etag", ""))
        status, _, body, _ = fetch(nginx_url, url, headers={"If-None-Match": nginx_tags[-1]})
        if status != 304 or body:
            problems.append(f"nginx If-None-Match {url}: status {status}, {len(body)} bytes")
    return nginx_tags


# ---------------------------------------------------------------------------------------------
# wrk
# ---------------------------------------------------------------------------------------------


def run_wrk(base, script, seconds, connections, threads, output_path):
    """One wrk run; returns its numbers (latencies in ms)."""
    argv = ["wrk", f"-t{threads}", f"-c{connections}", f"-d{seconds:g}s", "--latency", "-s", script, base + "/"]
    done = subprocess.run(argv, capture_output=True, text=True, timeout=seconds + 60)
    with open(output_path, "a") as f:
        f.write(" ".join(argv) + "\n" + done.stdout + done.stderr + "\n")
    found = re.search(r"^BENCH-RESULT (.*)$", done.stdout, re.MULTILINE)
    if done.returncode != 0 or not found:
        raise RuntimeError(f"wrk failed (exit {done.returncode}): {done.stderr.strip()[:200]}")
    (duration_us, requests, read, connect, read_errors, write, status, timeout,
     p50, p90, p99, worst, mean) = (float(v) for v in found.group(1).split())
    return {"requests": int(requests), "seconds": duration_us / 1e6, "requests_per_s": requests / (duration_us / 1e6),
            "bytes_per_response": read / requests if requests else 0.0,
            "p50_ms": p50 / 1000, "p90_ms": p90 / 1000, "p99_ms": p99 / 1000, "max_ms": worst / 1000,
            "mean_ms": mean / 1000,
            "errors": {"connect": int(connect), "read": int(read_errors), "write": int(write),
                       "status": int(status), "timeout": int(timeout)}}


def check_wrk(name, run, expect_bytes, problems):
    """Error counts, and bytes per response: about the average thumbnail for 200s (the run may stop
    within a cycle through the documents, hence the 10%), headers only for 304s."""
    errors = {k: v for k, v in run["errors"].items() if v}
    if errors:
        problems.append(f"{name}: wrk errors {errors}")
    per = run["bytes_per_response"]
    if expect_bytes is None and per > 1000:
        problems.append(f"{name}: {per:.0f} bytes per response, not 304s")
    if expect_bytes is not None and not (0.9 * expect_bytes <= per <= 1.1 * expect_bytes + 1000):
        problems.append(f"{name}: {per:.0f} bytes per response, the thumbnails average {expect_bytes:.0f}")


# ---------------------------------------------------------------------------------------------
# The measurement
# ---------------------------------------------------------------------------------------------


def make_container(root, folder):
    """folder/container: hard links to the corpus's JPEGs, PNGs and PDFs (copies across devices)."""
    container = tools.fresh_dir(os.path.join(folder, "container"))
    count = 0
    for fmt in FORMATS:
        os.makedirs(os.path.join(container, fmt))
        for name in sorted(os.listdir(os.path.join(root, fmt))):
            source, target = os.path.join(root, fmt, name), os.path.join(container, fmt, name)
            try:
                os.link(source, target)
            except OSError:
                shutil.copyfile(source, target)
            count += 1
    return container, count


def load_thumbnails(glance, root, work_dir, cores, log, seconds, connections, result, problems):
    """The wrk runs: glance and nginx, thumbnail GETs and 304s."""
    folder = os.path.join(work_dir, "serve")
    container, count = make_container(root, folder)
    store = tools.fresh_dir(os.path.join(folder, "store"))
    static = tools.fresh_dir(os.path.join(folder, "static"))
    generated = subprocess.run([glance, "generate", container, "--store", store, "--jobs", str(cores), "--json",
                                "--quiet"], capture_output=True, text=True)
    summary = json.loads(generated.stdout or "{}")
    if summary.get("rendered") != count:
        problems.append(f"generate rendered {summary.get('rendered')} of {count} (exit {generated.returncode})")
    threads = max(1, min(cores, connections))
    with tempfile.TemporaryDirectory(prefix="bench-serve-") as temp:
        glance_server = nginx_server = None
        try:
            glance_server, glance_url, _ = start_glance(glance, container, store, cores,
                                                        os.path.join(folder, "glance-serve.log"))
            status, _, body, _ = fetch(glance_url, "/api/items")
            if status != 200:
                raise RuntimeError(f"GET /api/items: status {status}")
            docs, sources = [], set()
            for item in json.loads(body):
                if not item.get("thumbnails"):
                    problems.append(f"{item.get('path')}: no thumbnail ({item.get('state')})")
                    continue
                status, headers, _, _ = fetch(glance_url, thumbnail_url(item["path"]), method="HEAD")
                digest, source = digest_of(item, headers.get("etag"))
                if status != 200 or not digest:
                    problems.append(f"HEAD {thumbnail_url(item['path'])}: status {status}, ETag {headers.get('etag')}")
                    continue
                sources.add(source)
                exported = os.path.join(static, "thumbnails", item["path"])
                os.makedirs(os.path.dirname(exported), exist_ok=True)
                subprocess.run([glance, "export", container, item["path"], "--store", store, "-o", exported],
                               check=True, stdout=subprocess.DEVNULL)
                with open(exported, "rb") as f:
                    data = f.read()
                docs.append({"path": item["path"], "url": thumbnail_url(item["path"], digest), "bytes": data,
                             "glance_etag": headers["etag"]})
            if not docs:
                raise RuntimeError("no thumbnails to serve")
            nginx_server, nginx_url = start_nginx(temp, static, cores)
            nginx_tags = check_urls(glance_url, nginx_url, docs, problems)
            average = sum(len(d["bytes"]) for d in docs) / len(docs)
            result.update(documents=len(docs), thumbnail_bytes_average=average, digest_from=sorted(sources),
                          connections=connections, threads=threads, seconds=seconds)
            urls = [d["url"] for d in docs]
            scripts = {}
            for name, tags in (("get", []), ("glance-304", [d["glance_etag"] for d in docs]),
                               ("nginx-304", nginx_tags)):
                scripts[name] = os.path.join(temp, f"{name}.lua")
                with open(scripts[name], "w") as f:
                    f.write(wrk_script(urls, tags))
            wrk_log = os.path.join(folder, "wrk.log")
            if os.path.exists(wrk_log):
                os.remove(wrk_log)
            runs = (("get", "glance", glance_url, "get", average), ("get", "nginx", nginx_url, "get", average),
                    ("revalidate", "glance", glance_url, "glance-304", None),
                    ("revalidate", "nginx", nginx_url, "nginx-304", None))
            for case, server, url, script, expect in runs:
                pid = (glance_server if server == "glance" else nginx_server).pid
                run_wrk(url, scripts[script], WARMUP_SECONDS, connections, threads, wrk_log)
                cpu_before = cpu_seconds(pid)
                run = run_wrk(url, scripts[script], seconds, connections, threads, wrk_log)
                run["server_cpu_ms_per_request"] = (cpu_seconds(pid) - cpu_before) * 1000 / max(1, run["requests"])
                check_wrk(f"{case} {server}", run, expect, problems)
                result.setdefault(case, {})[server] = run
                log(f"  serve: {case} {server}: {run['requests_per_s']:.0f} requests/s, p99 {run['p99_ms']:.2f} ms")
            # The framework's own ceiling on this machine: the smallest answer glance serve gives
            # (its stylesheet, from memory, no file or store touched), so that the thumbnail and
            # 304 numbers can be read against what the HTTP stack allows at all.
            status, _, page, _ = fetch(glance_url, "/")
            match = re.search(r'/assets/glance\.css\?v=[0-9a-f]+', page.decode() if isinstance(page, bytes) else page)
            if status == 200 and match:
                scripts["ceiling"] = os.path.join(temp, "ceiling.lua")
                with open(scripts["ceiling"], "w") as f:
                    f.write(wrk_script([match.group(0)]))
                run_wrk(glance_url, scripts["ceiling"], WARMUP_SECONDS, connections, threads, wrk_log)
                run = run_wrk(glance_url, scripts["ceiling"], seconds, connections, threads, wrk_log)
                result["ceiling"] = run
                log(f"  serve: ceiling (stylesheet from memory): {run['requests_per_s']:.0f} requests/s, "
                    f"p99 {run['p99_ms']:.2f} ms")
            else:
                problems.append(f"ceiling not measured: GET / gave {status} without a stylesheet link")
            result["glance_serve_peak_rss_kib"] = tools.high_water_mark(glance_server.pid)
            stop(nginx_server)
            nginx_server = None
            load_over_tls(glance, container, store, static, docs, temp, folder, cores, log, seconds, connections,
                          threads, average, result, problems)
        finally:
            for server in (nginx_server, glance_server):
                if server is not None:
                    code = stop(server)
                    if server is glance_server:
                        result["glance_serve_exit"] = code
                        if code != 0:
                            problems.append(f"glance serve exited with status {code} on SIGTERM")
        for line in log_complaints(os.path.join(folder, "glance-serve.log"))[:5]:
            problems.append(f"glance serve log: {line}")
        for line in log_complaints(os.path.join(temp, "error.log"))[:5]:
            problems.append(f"nginx log: {line}")


TLS_USER, TLS_PASSWORD = "bench", "a password for the bench only"
# Rounds of the TLS scenarios: one run each moved a credential's cost by 100 µs between runs.
TLS_ROUNDS = 3


def load_over_tls(glance, container, store, static, docs, temp, folder, cores, log, seconds, connections, threads,
                  average, result, problems):
    """Thumbnail GETs over TLS (HTTP/1.1 keep-alive: wrk speaks no HTTP/2): glance serve with accounts and a
    browser session's cookie, against nginx serving the same bytes with the same certificate; and glance
    with HTTP Basic (its checked-credentials memory) and without accounts, whose CPU time per request
    against the session's is the cost of checking sign-in; TLS_ROUNDS rounds of each, in turn."""
    certificate, key = make_certificate(temp)
    users = os.path.join(temp, "users")
    subprocess.run([glance, "user", "add", TLS_USER, "--users", users], input=TLS_PASSWORD + "\n", text=True,
                   check=True, capture_output=True)
    tls = ["--tls-cert", certificate, "--tls-key", key]
    urls = [d["url"] for d in docs]
    basic = "Basic " + __import__("base64").b64encode(f"{TLS_USER}:{TLS_PASSWORD}".encode()).decode()
    wrk_log = os.path.join(folder, "wrk.log")
    servers = []
    runs = {}
    every = {}
    try:
        signed, signed_url, _ = start_glance(glance, container, store, cores, os.path.join(folder, "glance-tls.log"),
                                             extra=tls + ["--users", users])
        servers.append(signed)
        form = urllib.parse.urlencode({"name": TLS_USER, "password": TLS_PASSWORD, "next": "/"})
        status, headers, _, _ = fetch(signed_url, "/sign-in", method="POST", body=form, cafile=certificate,
                                      headers={"Content-Type": "application/x-www-form-urlencoded"})
        cookie = (headers.get("set-cookie") or "").split(";")[0]
        if status != 303 or not cookie.startswith("glance_session="):
            raise RuntimeError(f"sign-in over TLS: status {status}, no session cookie")
        for doc in docs[:3]:
            got, _, body, _ = fetch(signed_url, doc["url"], headers={"Cookie": cookie}, cafile=certificate)
            if got != 200 or body != doc["bytes"]:
                problems.append(f"glance over TLS with a session, GET {doc['url']}: status {got}, {len(body)} bytes")
        anonymous, anonymous_url, _ = start_glance(glance, container, store, cores,
                                                   os.path.join(folder, "glance-tls-anonymous.log"), extra=tls)
        servers.append(anonymous)
        nginx, nginx_url = start_nginx(temp, static, cores, tls=(certificate, key))
        servers.append(nginx)
        plan = (("glance-session", signed, signed_url, {"Cookie": cookie}),
                ("nginx", nginx, nginx_url, {"Cookie": cookie}),
                ("glance-basic", signed, signed_url, {"Authorization": basic}),
                ("glance-anonymous", anonymous, anonymous_url, {}))
        scripts = {}
        for name, _, url, headers in plan:
            scripts[name] = os.path.join(temp, f"tls-{name}.lua")
            with open(scripts[name], "w") as f:
                f.write(wrk_script(urls, headers=headers))
            run_wrk(url, scripts[name], WARMUP_SECONDS, connections, threads, wrk_log)
        # TLS_ROUNDS rounds, the order turning each round; a scenario's figures are its median
        # round's, and a credential's cost the median of its rounds' differences from no accounts.
        every = {name: [] for name, _, _, _ in plan}
        for r in range(TLS_ROUNDS):
            for name, process, url, _ in plan[r % len(plan):] + plan[:r % len(plan)]:
                cpu_before = cpu_seconds(process.pid)
                run = run_wrk(url, scripts[name], seconds, connections, threads, wrk_log)
                run["server_cpu_ms_per_request"] = ((cpu_seconds(process.pid) - cpu_before) * 1000
                                                    / max(1, run["requests"]))
                check_wrk(f"TLS {name}", run, average, problems)
                every[name].append(run)
                log(f"  serve over TLS, round {r + 1}/{TLS_ROUNDS}: {name}: {run['requests_per_s']:.0f} requests/s, "
                    f"p99 {run['p99_ms']:.2f} ms, {run['server_cpu_ms_per_request'] * 1000:.0f} µs CPU a request")
        for name, rounds in every.items():
            runs[name] = sorted(rounds, key=lambda run: run["requests_per_s"])[len(rounds) // 2]
            runs[name]["rounds"] = len(rounds)
    finally:
        for process in servers:
            stop(process)
    result["tls"] = runs
    if every.get("glance-session") and every.get("glance-anonymous"):
        for credential in ("session", "basic"):
            result[f"tls_{credential}_cost_us"] = statistics.median(
                (signed["server_cpu_ms_per_request"] - plain["server_cpu_ms_per_request"]) * 1000
                for signed, plain in zip(every[f"glance-{credential}"], every["glance-anonymous"]))
    for name in ("glance-tls.log", "glance-tls-anonymous.log"):
        for line in log_complaints(os.path.join(folder, name))[:5]:
            if "serving anonymously" not in line:
                problems.append(f"{name}: {line}")


def time_requests(base, path, count):
    """`count` GETs one after another, each on a fresh connection, after one untimed: status and times."""
    status, _, body, _ = fetch(base, path)
    if status != 200:
        return {"path": path, "status": status, "measured": False}
    times, statuses = [], set()
    for _ in range(count):
        status, headers, body, seconds = fetch(base, path)
        statuses.add(status)
        times.append(seconds * 1000)
    if statuses != {200}:
        return {"path": path, "status": sorted(statuses)[-1], "measured": False}
    return {"path": path, "status": 200, "measured": True, "requests": count, "bytes": len(body),
            "total_count": headers.get("x-total-count"), "median_ms": statistics.median(times), "max_ms": max(times),
            "all_ms": times}


def hundred_thousand_pages(glance, work_dir, cores, log, result, problems):
    """GET / and /api/items?limit=120 on 100,000 documents (never rendered: missing), warm: each
    timed after an untimed first request, at least 2 s apart from a change (none happens)."""
    import corpus
    docs = corpus.ensure_hundred_thousand()
    store = tools.fresh_dir(os.path.join(work_dir, "100k", "store"))
    process = None
    try:
        process, url, _ = start_glance(glance, docs, store, cores, os.path.join(work_dir, "serve", "glance-100k.log"))
        for key, path in (("grid_100k", "/"), ("api_100k", "/api/items?limit=120")):
            result[key] = time_requests(url, path, GRID_REQUESTS)
            row = result[key]
            if row["measured"]:
                log(f"  serve: GET {path} over 100,000 documents, warm: median {row['median_ms']:.1f} ms, "
                    f"max {row['max_ms']:.1f} ms")
            else:
                problems.append(f"GET {path} over 100,000 documents: not measured: status {row['status']}")
    finally:
        if process is not None:
            stop(process)


def grid_page(glance, many_docs, many_store, work_dir, cores, log, result, problems):
    """GET / and /api/items?limit=200 on the 10,000-document container."""
    process = None
    try:
        process, url, startup = start_glance(glance, many_docs, many_store, cores,
                                             os.path.join(work_dir, "serve", "glance-serve-many.log"))
        result["many_startup_seconds"] = startup
        result["grid"] = time_requests(url, "/", GRID_REQUESTS)
        result["api_page"] = time_requests(url, "/api/items?limit=200", API_REQUESTS)
        result["many_peak_rss_kib"] = tools.high_water_mark(process.pid)
    finally:
        if process is not None:
            result["many_serve_exit"] = stop(process)
            if result["many_serve_exit"] != 0:
                problems.append(f"glance serve (10,000 documents) exited with status {result['many_serve_exit']}")
    for key in ("grid", "api_page"):
        row = result[key]
        if row["measured"]:
            log(f"  serve: GET {row['path']} over 10,000 documents: median {row['median_ms']:.1f} ms, "
                f"max {row['max_ms']:.1f} ms, {row['bytes']} bytes")
        else:
            problems.append(f"GET {row['path']} over 10,000 documents: not measured: status {row['status']}")
            log(f"  serve: GET {row['path']} over 10,000 documents: NOT MEASURED: status {row['status']}")


def measure_serve(glance, root, many_docs, many_store, work_dir, cores, log, seconds=SECONDS,
                  connections=CONNECTIONS):
    """Everything above; returns the result dict for the report (problems listed, never raised)."""
    result = {"problems": []}
    for name in ("wrk", "nginx"):
        if not shutil.which(name):
            result["problems"].append(f"not measured: {name} is missing (apt-get install wrk nginx-light)")
    if result["problems"]:
        return result
    try:
        load_thumbnails(glance, root, work_dir, cores, log, seconds, connections, result, result["problems"])
    except (OSError, RuntimeError, ValueError, subprocess.SubprocessError) as error:
        result["problems"].append(f"thumbnail load not measured: {error}")
    try:
        grid_page(glance, many_docs, many_store, work_dir, cores, log, result, result["problems"])
    except (OSError, RuntimeError, ValueError, subprocess.SubprocessError) as error:
        result["problems"].append(f"10,000-document pages not measured: {error}")
    try:
        hundred_thousand_pages(glance, work_dir, cores, log, result, result["problems"])
    except (OSError, RuntimeError, ValueError, subprocess.SubprocessError) as error:
        result["problems"].append(f"100,000-document pages not measured: {error}")
    for problem in result["problems"]:
        log(f"  serve: PROBLEM: {problem}")
    return result


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--glance", default=os.environ.get("GLANCE", ".build-static/release/glance"),
                        help="the glance executable, relative to the repository root or absolute")
    parser.add_argument("--seconds", type=float, default=SECONDS, help="length of each wrk run (BENCH_SERVE_SECONDS)")
    parser.add_argument("--connections", type=int, default=CONNECTIONS)
    args = parser.parse_args()
    bench_dir = os.path.dirname(os.path.abspath(__file__))
    glance = os.path.abspath(os.path.join(os.path.dirname(bench_dir), args.glance))
    if not shutil.which(glance):
        sys.exit(f"bench: missing {glance}")
    import corpus  # numpy and scipy, for the corpus (cached in bench/work after the first run)
    import report

    def log(message):
        print(message, flush=True)

    root, _ = corpus.ensure_corpus(log)
    work_dir = os.path.join(bench_dir, "work")
    many_docs = corpus.ensure_many()
    many_store = os.path.join(work_dir, "many", "store")
    log("10,000 documents: generate (renders only what is not fresh in bench/work/many/store) ...")
    subprocess.run([glance, "generate", many_docs, "--store", many_store, "--jobs", str(os.cpu_count()), "--quiet"],
                   stdout=subprocess.DEVNULL)
    load = os.getloadavg()
    result = measure_serve(glance, root, many_docs, many_store, work_dir, os.cpu_count(), log, args.seconds,
                           args.connections)
    extras = {"serve": result}
    lines = [""] + report.format_extras(extras) + [""] + report.format_targets(report.evaluate_targets({}, extras))
    lines.append(f"Load average before {load[0]:.2f}, after {os.getloadavg()[0]:.2f} (1 min); {os.cpu_count()} cores")
    log("\n".join(lines))
    sys.exit(1 if result["problems"] else 0)


if __name__ == "__main__":
    main()
