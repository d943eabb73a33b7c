#!/usr/bin/env python3
"""`glance serve` against malformed and hostile requests, sent over raw sockets.

Fills a temporary container from TestAssets/ (with a symbolic link that leads out of it, to a
file holding a marker), generates its thumbnails, serves it on a free loopback port, then sends a
bounded set of requests: crafted ones (path traversal in every spelling, NUL and control bytes,
bytes that are not UTF-8, huge and repeated headers, bad ranges and queries, unknown methods,
HTTP/0.9 and garbage, pipelined requests) and a fixed-seed series of mutations of good requests.
It checks that no answer is a 500 (or any 5xx but 503), that no answer carries the marker from
outside the container, and that the server still answers a normal request afterwards. Then it
opens 200 slow clients (headers dribbled a byte at a time) and checks that normal requests still
complete; it prints how much they were delayed (`make bench` is where speed is judged). Last, 200
clients ask for a 50 MB document and stop reading: the server's resident memory must grow by less
than 100 MiB, come back near its start once they close, and --send-timeout must disconnect them.

    python3 Tests/EndToEnd/Server/test_hostile_requests.py --glance .build/debug/glance

Exit status: 0 when every check passes, 1 when one fails (each failure is named), 2 when the test
could not run.
"""

import argparse
import os
import random
import shutil
import socket
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "support"))
import harness  # noqa: E402
from harness import CheckFailed, Process, TestError, free_port, log, wait_for  # noqa: E402

DOCUMENTS = {
    "photo.jpg": "samples/photo.jpg",
    "report.pdf": "samples/report.pdf",
    "notes.txt": "samples/README.txt",
    "sub/screenshot.png": "samples/screenshot.png",
}
MARKER = b"GLANCE-OUTSIDE-SECRET-4f1c"


def exchange(port, payload, timeout=10.0):
    """Sends raw bytes and reads until the server closes or stops sending; returns the bytes."""
    with socket.create_connection(("127.0.0.1", port), timeout=timeout) as connection:
        connection.sendall(payload)
        try:
            connection.shutdown(socket.SHUT_WR)
        except OSError:
            pass
        chunks = []
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            try:
                chunk = connection.recv(65536)
            except socket.timeout:
                break
            except ConnectionResetError:
                break
            if not chunk:
                break
            chunks.append(chunk)
        return b"".join(chunks)


def statuses(response):
    """Every status code in a (possibly pipelined) response."""
    codes = []
    for line in response.split(b"\r\n"):
        if line.startswith(b"HTTP/1.") and len(line) >= 12 and line[9:12].isdigit():
            codes.append(int(line[9:12]))
    return codes


def request(path, method=b"GET", headers=b"", version=b"HTTP/1.1"):
    return method + b" " + path + b" " + version + b"\r\nHost: 127.0.0.1\r\n" + headers + b"Connection: close\r\n\r\n"


def crafted():
    """The hand-written hostile requests."""
    traversals = [
        b"/documents/../outside/secret.txt", b"/documents/%2e%2e/outside/secret.txt",
        b"/documents/%2E%2E%2Foutside%2Fsecret.txt", b"/documents/..%2foutside%2fsecret.txt",
        b"/documents/%252e%252e/outside/secret.txt", b"/documents/leak.txt", b"/thumbnails/leak.txt",
        b"/documents//etc/passwd", b"/documents/%2fetc%2fpasswd", b"/documents/sub/../../outside/secret.txt",
        b"/thumbnails/../../outside/secret.txt", b"/preview/%2e%2e/outside/secret.txt",
        b"/api/items/..%2F..%2Foutside%2Fsecret.txt", b"/documents/photo.jpg%00.txt", b"/documents/.thumbnails/thumbnails.sqlite",
        b"/assets/..%2f..%2fPackage.swift", b"/c/x/../documents/photo.jpg", b"/documents/\\..\\outside\\secret.txt",
        b"/previews/leak.txt", b"/previews/../../outside/secret.txt", b"/previews/%2e%2e/outside/secret.txt?page=1",
    ]
    odd_paths = [
        b"/", b"/api/items", b"/api/items?limit=-1", b"/api/items?limit=99999999999999999999",
        b"/api/items?sort=%ff%fe", b"/api/items?type=%00", b"/api/items?status=" + b"A" * 5000,
        b"/api/items/%ff%fe.txt", b"/preview/%c3%28", b"/thumbnails/photo.jpg?size=-5", b"/%", b"/%zz",
        b"/previews/photo.jpg?page=%ff", b"/previews/photo.jpg?size=99999999999999999999", b"/previews/photo.jpg?page=-1",
        b"/" + b"a/" * 3000, b"/documents/" + b"x" * 9000, b"/events?since=abc", b"*", b"http://evil.example/",
        b"/documents/photo.jpg\x01\x02", b"/\x7f",
    ]
    requests = [request(path) for path in traversals + odd_paths]
    ranges = [b"bytes=", b"bytes=-", b"bytes=5-1", b"bytes=999999999999999999999-", b"bytes=0-0,0-0," * 200,
              b"bytes=-0", b"items=0-10", b"bytes=\xff-\x00"]
    requests += [request(b"/documents/photo.jpg", headers=b"Range: " + value + b"\r\n") for value in ranges]
    requests += [
        request(b"/thumbnails/photo.jpg", headers=b"If-None-Match: " + b'"x",' * 2000 + b"\r\n"),
        request(b"/thumbnails/photo.jpg", headers=b"If-Modified-Since: yesterday\r\n"),
        request(b"/", headers=b"X-Big: " + b"h" * 60000 + b"\r\n"),
        request(b"/", headers=b"".join(b"X-%d: v\r\n" % index for index in range(3000))),
        request(b"/", headers=b"Content-Length: -1\r\n"),
        request(b"/", headers=b"Content-Length: 10\r\nTransfer-Encoding: chunked\r\n"),
        request(b"/", method=b"POST", headers=b"Content-Length: 5\r\n") + b"hello",
        request(b"/documents/photo.jpg", method=b"DELETE"), request(b"/", method=b"PUT"),
        request(b"/", method=b"TRACE"), request(b"/", method=b"OPTIONS"), request(b"/", method=b"BREW"),
        request(b"/", method=b"G\x00ET"), request(b"/", version=b"HTTP/9.9"), request(b"/", version=b"HTTP/1.1x"),
        b"GET /\r\n\r\n", b"\r\n\r\n\r\n", b"\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03" + bytes(64),
        bytes(range(256)) * 4, b"GET / HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n",
        b"GET / HTTP/1.1\r\n" + b" folded\r\n" + b"Host: a\r\n\r\n",
        (b"GET /api/items HTTP/1.1\r\nHost: a\r\n\r\n" * 50) + b"GET / HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n",
        b"GET /documents/photo.jpg HTTP/1.1\r\nHost: a\r\nExpect: 100-continue\r\nContent-Length: 99999999\r\n\r\n",
    ]
    return requests


def mutated(seed, count):
    """Mutations of good requests: bytes flipped, inserted, removed, repeated (fixed seed)."""
    generator = random.Random(seed)
    bases = [request(b"/"), request(b"/api/items?limit=5&sort=name"), request(b"/documents/photo.jpg"),
             request(b"/thumbnails/sub/screenshot.png"), request(b"/preview/report.pdf"), request(b"/api/items/notes.txt")]
    for _ in range(count):
        data = bytearray(generator.choice(bases))
        for _ in range(generator.randint(1, 6)):
            position = generator.randrange(len(data))
            choice = generator.random()
            if choice < 0.35:
                data[position] = generator.randrange(256)
            elif choice < 0.6:
                data[position:position] = bytes(generator.randrange(256) for _ in range(generator.randint(1, 8)))
            elif choice < 0.8:
                del data[position:position + generator.randint(1, 4)]
            else:
                data[position:position] = bytes(data[position:position + 12]) * generator.randint(2, 50)
        yield bytes(data)


def answers(port, path, timeout):
    """Whether GET `path` is answered 200 (False while the server is not listening yet)."""
    return 200 in statuses(exchange(port, request(path), timeout))


def timed_get(port, path=b"/api/items?limit=5"):
    started = time.monotonic()
    response = exchange(port, request(path), timeout=30)
    return time.monotonic() - started, statuses(response)


def resident_mib(pid):
    """The resident memory of process `pid`, in MiB."""
    with open(f"/proc/{pid}/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return 0.0


def readers_that_stop(glance, work, count):
    """`count` clients ask for a 50 MB document and never read: the server's memory grows by less
    than 100 MiB and comes back near its start once they close; with --send-timeout 3 they are
    disconnected; --max-connections holds the rest in the listen queue. Returns the failures."""
    failures = []
    container = work / "big"
    container.mkdir()
    with open(container / "big.bin", "wb") as big:
        big.write(random.Random(35).randbytes(50 * 1000 * 1000))
    port = free_port()
    # All from 127.0.0.1: what this measures is the memory of clients that stop reading, so one
    # client may hold them all here.
    server = Process("glance-serve-big", [glance, "serve", str(container), "--port", str(port), "--send-timeout",
                                          "3", "--max-connections", str(count + 20),
                                          "--max-connections-per-client", str(count + 20)], work)
    clients = []
    try:
        try:
            wait_for("glance serve answers", lambda: answers(port, b"/api/items", 5), 30, 0.2, ignore=(OSError,))
        except CheckFailed:
            pass  # the requests below fail and say so
        start = resident_mib(server.pid)
        for _ in range(count):
            client = socket.socket()
            client.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
            client.connect(("127.0.0.1", port))
            client.sendall(b"GET /documents/big.bin HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
            clients.append(client)
        time.sleep(2)
        stalled = resident_mib(server.pid)
        # Still answering others meanwhile.
        if 200 not in timed_get(port, b"/api/items")[1]:
            failures.append(f"with {count} clients that stopped reading, a normal request failed")
        # Past --send-timeout, the server has hung up on them: what is left to read ends.
        time.sleep(4)
        cut = 0
        for client in clients:
            client.settimeout(5)
            try:
                while client.recv(1 << 20):
                    pass
                cut += 1
            except OSError:
                cut += 1
        for client in clients:
            client.close()
        clients = []
        try:
            wait_for("the server's memory given back", lambda: resident_mib(server.pid) - start < 50, 10, 0.2)
        except CheckFailed:
            pass  # said below, with the figure
        after = resident_mib(server.pid)
        log(f"{count} clients that stopped reading a 50 MB document: server {start:.0f} MiB at start, "
              f"{stalled:.0f} MiB with them, {after:.0f} MiB after they closed; {cut} disconnected by --send-timeout")
        if stalled - start >= 100:
            failures.append(f"{count} clients that stopped reading grew the server by {stalled - start:.0f} MiB")
        if after - start >= 50:
            failures.append(f"after the clients closed, the server kept {after - start:.0f} MiB more than at start")
        if cut != count:
            failures.append(f"--send-timeout disconnected {cut} of {count} clients that stopped reading")
    finally:
        for client in clients:
            client.close()
        server.stop(grace=10)
    return failures


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--glance", required=True, help="the glance executable")
    parser.add_argument("--mutations", type=int, default=400, help="mutated requests to send")
    parser.add_argument("--slow-clients", type=int, default=200)
    parser.add_argument("--stalled-clients", type=int, default=200,
                        help="clients that ask for a large document and stop reading")
    arguments = parser.parse_args()
    try:
        glance = str(harness.find_glance(arguments.glance))
    except TestError as error:
        log(f"cannot run: {error}")
        return 2
    work = Path(tempfile.mkdtemp(prefix="glance-hostile-"))
    failures = []
    server = None
    slow = []
    try:
        container = work / "container"
        harness.make_container(container, DOCUMENTS)
        (work / "outside").mkdir()
        (work / "outside" / "secret.txt").write_bytes(MARKER + b"\n")
        os.symlink("../outside/secret.txt", container / "leak.txt")
        harness.generate(glance, container)  # exit 1 (some documents failed) is fine here
        port = free_port()
        server = Process("glance-serve", [glance, "serve", str(container), "--host", "127.0.0.1", "--port", str(port)],
                         work)
        try:
            wait_for("glance serve answers", lambda: answers(port, b"/", 2), 30, 0.2, ignore=(OSError,))
        except CheckFailed:
            raise TestError("glance serve did not answer within 30 s") from None

        sent = 0
        seen = {}
        for payload in list(crafted()) + list(mutated(20261123, arguments.mutations)):
            sent += 1
            try:
                response = exchange(port, payload)
            except OSError as error:
                failures.append(f"request {sent}: connection failed: {error}")
                continue
            for code in statuses(response):
                seen[code] = seen.get(code, 0) + 1
                if code >= 500 and code != 503:
                    failures.append(f"request {sent} {payload[:80]!r}: status {code}")
            if MARKER in response:
                failures.append(f"request {sent} {payload[:80]!r}: answered with the file outside the container")
            if not server.alive():
                failures.append(f"request {sent} {payload[:80]!r}: glance serve exited ({server.returncode})")
                break
        log(f"sent {sent} hostile requests; statuses: "
              + ", ".join(f"{code}x{count}" for code, count in sorted(seen.items())))
        for path in [b"/", b"/thumbnails/photo.jpg", b"/documents/notes.txt"]:
            if 200 not in timed_get(port, path)[1]:
                failures.append(f"after the hostile requests, GET {path.decode()} is not 200")

        baseline = [timed_get(port)[0] for _ in range(20)]
        # From four other loopback addresses, 50 each: one client's share of the connections is
        # a quarter of them (128), and the normal requests below come from 127.0.0.1.
        for index in range(arguments.slow_clients):
            source = f"127.0.0.{2 + index % 4}"
            connection = socket.create_connection(("127.0.0.1", port), timeout=5, source_address=(source, 0))
            connection.sendall(b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ")
            slow.append(connection)
        loaded = []
        for round_ in range(20):
            for connection in slow:
                try:
                    connection.send(b"a")
                except OSError:
                    pass
            elapsed, codes = timed_get(port)
            loaded.append(elapsed)
            if 200 not in codes:
                failures.append(f"with {len(slow)} slow clients, a normal request got {codes}")
        delay = statistics.median(loaded) - statistics.median(baseline)
        log(f"normal request with {len(slow)} slow clients: median {statistics.median(loaded) * 1000:.1f} ms "
              f"(alone {statistics.median(baseline) * 1000:.1f} ms, delay {delay * 1000:.1f} ms), "
              f"worst {max(loaded) * 1000:.1f} ms")
        if not server.alive():
            failures.append(f"glance serve exited ({server.returncode})")
        for connection in slow:
            connection.close()
        slow = []
        failures += readers_that_stop(glance, work, arguments.stalled_clients)
    except TestError as error:
        log(f"cannot run: {error}")
        return 2
    finally:
        for connection in slow:
            connection.close()
        if server is not None:
            server.stop(grace=10)
        shutil.rmtree(work, ignore_errors=True)
    return harness.verdict(failures)


if __name__ == "__main__":
    sys.exit(main())
