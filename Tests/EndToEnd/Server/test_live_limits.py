#!/usr/bin/env python3
"""`glance serve` against clients that hold what they should not: connections that say nothing
over TLS, and previews asked for and dropped by the hundred. Real sockets, a real certificate.

TLS (`--tls-cert`, `--idle-timeout 3`): a TCP connection that sends nothing, one that sends half a
ClientHello, an HTTP/2 connection that opens no stream and an HTTP/1.1 one that sends no request
must each be closed within a few seconds of the idle time; a client (one loopback address) past
its `--max-connections-per-client` is closed as it connects, while another address is answered;
HTTP/2 and HTTP/1.1 requests are answered (curl).

Previews (a PDF of 80 pages with photos, one renderer): 300 requests for pages, sent and dropped from one
address, must leave no render queued and no descriptor held, and another client's small preview
must be answered within a few seconds; 40 requests held open from one address get `503` with
`Retry-After` past the client's share of the queue, at once, and the rest their pages.

    python3 Tests/EndToEnd/Server/test_live_limits.py --glance .build/debug/glance

Exit status: 0 when every check passes, 1 when one fails (each failure is named), 2 when the test
could not run.
"""

import argparse
import os
import shutil
import socket
import ssl
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "support"))
import harness  # noqa: E402
from harness import ASSETS, CheckFailed, Process, TestError, free_port, log, wait_for  # noqa: E402

IDLE = 3
HTTP2_PREFACE = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"
EMPTY_SETTINGS = b"\x00\x00\x00\x04\x00\x00\x00\x00\x00"


def client_context(alpn):
    context = ssl.create_default_context()
    context.check_hostname = False
    context.verify_mode = ssl.CERT_NONE
    context.set_alpn_protocols(alpn)
    return context


def client_hello():
    """The bytes of a real ClientHello (TLS 1.2 and 1.3, ALPN h2 and http/1.1)."""
    incoming, outgoing = ssl.MemoryBIO(), ssl.MemoryBIO()
    handshake = client_context(["h2", "http/1.1"]).wrap_bio(incoming, outgoing, server_side=False)
    try:
        handshake.do_handshake()
    except ssl.SSLWantReadError:
        pass
    return outgoing.read()


def connect(port, source="127.0.0.1"):
    return socket.create_connection(("127.0.0.1", port), timeout=5, source_address=(source, 0))


def seconds_until_closed(connection, limit):
    """How long until the server closes `connection` (reads until the end), or None past `limit`."""
    started = time.monotonic()
    connection.settimeout(0.5)
    while time.monotonic() - started < limit:
        try:
            if not connection.recv(65536):
                return time.monotonic() - started
        except (socket.timeout, ssl.SSLWantReadError):
            continue
        except (ConnectionResetError, ssl.SSLError, OSError):
            return time.monotonic() - started
    return None


def curl(url, *options):
    result = subprocess.run(["curl", "-sk", "--max-time", "10", "-o", "/dev/null", "-w", "%{http_version} %{http_code}",
                             *options, url], capture_output=True, text=True)
    return result.stdout.strip()


def tls_checks(glance, work):
    failures = []
    container = work / "tls"
    harness.make_container(container, {"photo.jpg": "samples/photo.jpg"})
    harness.generate(glance, container)
    key, certificate = work / "key.pem", work / "certificate.pem"
    subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", str(key), "-out",
                    str(certificate), "-days", "2", "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1"],
                   check=True, capture_output=True)
    port = free_port()
    server = Process("glance-serve-tls", [glance, "serve", str(container), "--port", str(port), "--tls-cert",
                                          str(certificate), "--tls-key", str(key), "--idle-timeout", str(IDLE),
                                          "--max-connections", "16", "--max-connections-per-client", "4"], work)
    held = []
    try:
        url = f"https://127.0.0.1:{port}"
        try:
            wait_for("glance serve answers over TLS", lambda: curl(url + "/healthz", "--http1.1") == "1.1 200", 30, 0.3)
        except CheckFailed as error:
            raise TestError(f"{error}\n{server.tail()}") from None
        for options, expected in [(("--http2",), "2 200"), (("--http1.1",), "1.1 200")]:
            answer = curl(url + "/thumbnails/photo.jpg", *options)
            if answer != expected:
                failures.append(f"GET /thumbnails/photo.jpg with curl {options[0]}: {answer!r}, not {expected!r}")

        # Each kind of silent connection, all at once, each from an address of its own.
        silent = connect(port, "127.0.0.2")
        half = connect(port, "127.0.0.3")
        hello = client_hello()
        half.sendall(hello[: len(hello) // 2])
        http2 = client_context(["h2"]).wrap_socket(connect(port, "127.0.0.4"))
        if http2.selected_alpn_protocol() != "h2":
            failures.append(f"the server did not agree to HTTP/2 (ALPN: {http2.selected_alpn_protocol()!r})")
        http2.sendall(HTTP2_PREFACE + EMPTY_SETTINGS)
        http1 = client_context(["http/1.1"]).wrap_socket(connect(port, "127.0.0.5"))
        held += [silent, half, http2, http1]
        closed = {}
        threads = []
        for name, connection in [("a connection that sends nothing", silent), ("half a ClientHello", half),
                                 ("HTTP/2 with no stream", http2), ("HTTP/1.1 over TLS with no request", http1)]:
            thread = threading.Thread(target=lambda n=name, c=connection: closed.__setitem__(
                n, seconds_until_closed(c, IDLE + 12)))
            thread.start()
            threads.append(thread)
        for thread in threads:
            thread.join()
        for name, seconds in closed.items():
            if seconds is None:
                failures.append(f"{name}: still open {IDLE + 12} s later (--idle-timeout {IDLE})")
            else:
                log(f"{name}: closed by the server after {seconds:.1f} s")
                if seconds < IDLE - 1:
                    failures.append(f"{name}: closed after {seconds:.1f} s, before --idle-timeout {IDLE}")

        # One address holds its four connections; a fifth is closed as it connects; another
        # address is still answered.
        # Each of the four shakes hands, so the server has taken it before the fifth comes.
        share = [client_context(["http/1.1"]).wrap_socket(connect(port, "127.0.0.6")) for _ in range(4)]
        held += share
        fifth = connect(port, "127.0.0.6")
        held.append(fifth)
        seconds = seconds_until_closed(fifth, 2)
        if seconds is None:
            failures.append("a fifth connection of one address (--max-connections-per-client 4) was not closed")
        else:
            log(f"a fifth connection of one address: closed after {seconds:.2f} s")
        answer = curl(url + "/healthz", "--http1.1")
        if answer != "1.1 200":
            failures.append(f"with one address holding its share, another got {answer!r} for /healthz")
        if not server.alive():
            failures.append(f"glance serve exited ({server.returncode}):\n{server.tail()}")
    finally:
        for connection in held:
            connection.close()
        server.stop(grace=10)
    return failures


def descriptors(pid):
    return len(os.listdir(f"/proc/{pid}/fd"))


def get(port, path, source="127.0.0.1", timeout=30):
    """GET `path`: (status, headers as lowercase names, seconds), status 0 when nothing came."""
    started = time.monotonic()
    with connect(port, source) as connection:
        connection.settimeout(timeout)
        connection.sendall(f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n".encode())
        data = b""
        try:
            while chunk := connection.recv(65536):
                data += chunk
        except OSError:
            pass
    head = data.split(b"\r\n\r\n", 1)[0].decode(errors="replace").split("\r\n")
    status = int(head[0][9:12]) if head[0].startswith("HTTP/1.1 ") else 0
    headers = {line.split(":", 1)[0].strip().lower(): line.split(":", 1)[1].strip() for line in head[1:] if ":" in line}
    return status, headers, time.monotonic() - started


def preview_checks(glance, work):
    failures = []
    container = work / "previews"
    container.mkdir()
    # A page with a photo: a render of one takes a good part of a second at these sizes.
    subprocess.run(["pdfunite"] + [str(ASSETS / "pdf/with-photo.pdf")] * 80 + [str(container / "long.pdf")],
                   check=True, capture_output=True)
    harness.generate(glance, container)
    port = free_port()
    server = Process("glance-serve-previews", [glance, "serve", str(container), "--port", str(port), "--jobs", "1",
                                               "--timeout", "120"], work)
    try:
        try:
            wait_for("glance serve answers", lambda: get(port, "/api/items", timeout=5)[0] == 200, 30, 0.3,
                     ignore=(OSError,))
        except CheckFailed as error:
            raise TestError(f"{error}\n{server.tail()}") from None
        first = get(port, "/previews/long.pdf?page=80&size=256")
        if first[0] != 200:
            failures.append(f"the last page's preview: {first[0]}, not 200")
        before = descriptors(server.pid)

        # 300 requests for pages, each dropped as soon as it is sent.
        started = time.monotonic()
        for index in range(300):
            page, size = index % 80 + 1, 2048 + 256 * (index // 80)
            with connect(port, "127.0.0.2") as dropped:
                dropped.sendall(f"GET /previews/long.pdf?page={page}&size={size} HTTP/1.1\r\n"
                                f"Host: 127.0.0.1\r\n\r\n".encode())
        log(f"300 preview requests sent and dropped in {time.monotonic() - started:.2f} s")
        # The sockets of the dropped requests close as the server sees their ends, within a
        # second or so; no document stays open for a render nobody waits for.
        try:
            settled = wait_for("descriptors back near where they were", lambda: (
                count := descriptors(server.pid)) <= before + 8 and count, 3, 0.1)
        except CheckFailed as error:
            failures.append(f"300 dropped preview requests: {error} ({before} before)")
            settled = descriptors(server.pid)
        status, _, seconds = get(port, "/previews/long.pdf?page=79&size=1024", timeout=60)
        log(f"descriptors: {before} before, {settled} after; another client's small preview: {status} "
            f"in {seconds:.2f} s")
        if status != 200 or seconds > 5:
            failures.append(f"after 300 dropped requests, another client's preview took {seconds:.1f} s ({status})")

        # 40 requests held open from one address: past its share, 503 with Retry-After at once.
        answers = [None] * 40

        def ask(index):
            answers[index] = get(port, f"/previews/long.pdf?page={index % 80 + 1}&size=1024", "127.0.0.3", 120)

        threads = [threading.Thread(target=ask, args=(index,)) for index in range(40)]
        for thread in threads:
            thread.start()
        # Meanwhile a grid's thumbnail, from another client, is answered at once.
        time.sleep(0.3)
        status, _, seconds = get(port, "/thumbnails/long.pdf", "127.0.0.4", 30)
        log(f"a thumbnail while 40 previews are asked for: {status} in {seconds * 1000:.0f} ms")
        if status != 200 or seconds > 1:
            failures.append(f"with 40 previews asked for, a thumbnail took {seconds:.2f} s ({status})")
        for thread in threads:
            thread.join()
        refused = [answer for answer in answers if answer[0] == 503]
        drawn = [answer for answer in answers if answer[0] == 200]
        log(f"40 held requests of one client: {len(drawn)} drawn, {len(refused)} refused (503)")
        if not refused:
            failures.append("40 previews of one client were all queued: no share of the queue was kept")
        if len(drawn) + len(refused) != 40:
            failures.append(f"40 held requests got {sorted(answer[0] for answer in answers)}")
        if any("retry-after" not in headers for _, headers, _ in refused):
            failures.append("a refused preview had no Retry-After")
        if refused and max(seconds for _, _, seconds in refused) > 3:
            failures.append("a refused preview waited before its 503")
        if not server.alive():
            failures.append(f"glance serve exited ({server.returncode}):\n{server.tail()}")
    finally:
        server.stop(grace=10)
    return failures


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--glance", required=True, help="the glance executable")
    arguments = parser.parse_args()
    try:
        glance = str(harness.find_glance(arguments.glance))
    except TestError as error:
        log(f"cannot run: {error}")
        return 2
    work = Path(tempfile.mkdtemp(prefix="glance-live-limits-"))
    failures = []
    try:
        failures += tls_checks(glance, work)
        failures += preview_checks(glance, work)
    except TestError as error:
        log(f"cannot run: {error}")
        return 2
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return harness.verdict(failures)


if __name__ == "__main__":
    sys.exit(main())
