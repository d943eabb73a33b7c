"""Printing the results: a table per format, the extra measurements, the targets; the JSON file.

Numbers in the tables
  files/s      files in the folder / median wall time of the rounds
  MP/s         input megapixels (source width x height, summed) / median wall time; JPEG, PNG
  peak RSS     the largest peak resident set of any one process of the tool, over all rounds,
               in MB (10^6 bytes); see tools.py for how it is measured
  Glance/this  Glance's files/s divided by this tool's (> 1: Glance is faster)
  PSNR, SSIM   average over the folder against the reference (see quality.py), of the
               thumbnails as the tool wrote them (Glance: as stored, exported byte for byte).
               JPEG has two more rows, untimed: both tools writing PNG, i.e. the resampling
               without the loss of the JPEG encoder.
"""

import datetime
import json
import os
import colour
import grid
import previews
import terminal
import metrics
import formats as new_formats
import office
import archives
import servestore
import video
import scaleout
import xdg

MB = 1_000_000


def mb(kib):
    """KiB (as rusage reports) to MB."""
    return kib * 1024 / MB


def fmt_num(value, digits=1):
    return "—" if value is None else f"{value:.{digits}f}"


def format_table(fmt, result):
    """The lines of one format's table."""
    files = result["files"]
    mp = result.get("input_megapixels")
    head = f"{fmt.upper()}: {files} files"
    if mp:
        head += f", {mp:.1f} MP"
    head += f"; median of {result['rounds']} rounds"
    lines = [head, f"  {'tool':<52} {'files/s':>8} {'MP/s':>7} {'peak RSS':>9} {'Glance/this':>11} "
                   f"{'PSNR dB':>8} {'SSIM':>6}"]
    glance_rate = result["tools"]["glance"]["files_per_s"]
    for name, tool in result["tools"].items():
        ratio = None if name == "glance" else glance_rate / tool["files_per_s"]
        q = tool.get("quality") or {}
        rss = f"{mb(tool['peak_rss_kib']):.0f} MB"
        failed = "  FAILED: " + "; ".join(tool["failures"][:2]) if tool["failures"] else ""
        lines.append(f"  {tool['label']:<52} {tool['files_per_s']:>8.2f} {fmt_num(tool.get('mp_per_s')):>7} "
                     f"{rss:>9} {fmt_num(ratio, 2):>11} {fmt_num(q.get('psnr_db'), 2):>8} "
                     f"{fmt_num(q.get('ssim'), 4):>6}{failed}")
    floor = result["tools"].get("floor")
    vips = [tool for name, tool in result["tools"].items() if name.startswith("vips")]
    if floor and vips and floor["files_per_s"] > 0:
        # No tool that decodes with the same library beats the floor: its lead over vipsthumbnail
        # bounds every ratio to it, and moves from machine to machine.
        best_vips = max(tool["files_per_s"] for tool in vips)
        lines.append(f"  Glance at {100 * glance_rate / floor['files_per_s']:.0f}% of the floor's rate, "
                     f"vipsthumbnail's faster way at {100 * best_vips / floor['files_per_s']:.0f}%: "
                     f"a tool at the floor would be {floor['files_per_s'] / best_vips:.2f}x vipsthumbnail")
    procs = result.get("glance_processes")
    if procs:
        lines.append(f"  glance processes (one more, untimed run; VmHWM): coordinator "
                     f"{mb(procs['coordinator_peak_kib']):.0f} MB, largest of {procs['workers']} workers "
                     f"{mb(procs['worker_peak_kib']):.0f} MB")
    for row in result.get("resampling_only", {}).values():
        q = row["quality"] or {}
        lines.append(f"  {row['label']:<52} {'—':>8} {'—':>7} {'—':>9} {'—':>11} "
                     f"{fmt_num(q.get('psnr_db'), 2):>8} {fmt_num(q.get('ssim'), 4):>6}")
    small = result.get("small_folder")
    if small:
        lines.append(f"  a folder of its first {small['files']} files alone, start-up included: "
                     f"{small['median_seconds'] * 1000:.0f} ms, {small['documents_per_s']:.1f} documents/s "
                     f"(median of {len(small['seconds'])})")
    mix = result.get("mix")
    if mix:
        rates = mix["files_per_s"]
        lines.append(f"  a second set, {mix['files']} photos of 0.3-12 MP, half progressive, 4:2:0/4:4:4/4:2:2 "
                     f"({mix['megapixels']:.0f} MP): Glance {rates['glance']:.2f} files/s, vipsthumbnail "
                     f"{rates[mix['best_vips']]:.2f} ({mix['best_vips']}): {mix['ratio']:.2f}x")
    side = result.get("sidecar")
    if side:
        line = (f"  on disk per thumbnail: Glance sidecar {side['glance_bytes_per_thumbnail'] / 1000:.0f} kB "
                f"(encoded image {side['glance_encoded_bytes_per_thumbnail'] / 1000:.0f} kB)")
        if side.get("vips_bytes_per_thumbnail"):
            line += (f", vipsthumbnail files {side['vips_bytes_per_thumbnail'] / 1000:.0f} kB "
                     f"(ratio {side['glance_bytes_per_thumbnail'] / side['vips_bytes_per_thumbnail']:.2f})")
        lines.append(line)
    return lines


def format_extras(extras):
    """The lines for the 10,000-document runs and the single thumbnails."""
    lines = []
    many = extras.get("many")
    if many:
        lines.append(f"10,000 documents ({many['documents']} tiny PNGs; store cached in bench/work/many):")
        lines.append(f"  warm-up generate: rendered {many['warmup_rendered']} in {many['warmup_seconds']:.1f} s "
                     f"(all 10,000 the first time, then only what is not fresh)")
        lines.append(f"  no-op re-run of generate: {many['noop_seconds']:.3f} s (median; rendered "
                     f"{many['noop_rendered']}), peak RSS {mb(many['noop_peak_rss_kib']):.0f} MB")
        lines.append(f"  glance list --json > /dev/null: {many['list_seconds']:.3f} s (median), "
                     f"peak RSS {mb(many['list_peak_rss_kib']):.0f} MB")
    saves = extras.get("onsave")
    if saves:
        lines.append(f"On-save ({saves['saves']} saves at {saves['saved_per_second']:.0f}/s into a container whose "
                     f"10,000 documents the watcher catches up on meanwhile; {saves['fresh']} fresh):")
        lines.append(f"  save-to-fresh p50 {saves['p50_ms']:.0f} ms, p95 {saves['p95_ms']:.0f} ms, "
                     f"p99 {saves['p99_ms']:.0f} ms, max {saves['max_ms']:.0f} ms")
        lines.append(f"  glance hook round trip (small text): with a watcher p50 {saves['hook_with_watcher_p50_ms']:.0f} ms, "
                     f"p95 {saves['hook_with_watcher_p95_ms']:.0f} ms; without p50 "
                     f"{saves['hook_without_watcher_p50_ms']:.0f} ms, p95 {saves['hook_without_watcher_p95_ms']:.0f} ms")
    lines += colour.format_colour(extras.get("colour"))
    lines += format_serve(extras.get("serve"))
    lines += grid.format_grid(extras.get("grid"))
    lines += previews.format_previews(extras.get("previews"))
    lines += terminal.format_terminal(extras.get("terminal"))
    lines += metrics.format_metrics(extras.get("metrics"))
    lines += new_formats.format_formats(extras.get("formats"))
    lines += video.format_lines(extras.get("video"))
    lines += office.format_lines(extras.get("office"))
    lines += archives.format_lines(extras.get("archives"))
    lines += xdg.format_xdg(extras.get("xdg"))
    lines += scaleout.format_scaleout(extras.get("scaleout"))
    lines += servestore.format_lines(extras.get("servestore"))
    singles = extras.get("single", [])
    if singles:
        lines.append("Single documents: `glance thumbnail` (wall time, peak RSS from /usr/bin/time) and the same "
                     "document alone under `generate --jobs 1` (each process's VmHWM):")
        for s in singles:
            lines.append(f"  {s['label']:<26} thumbnail {s['thumbnail_seconds']:.2f} s, "
                         f"{mb(s['thumbnail_peak_rss_kib']):.0f} MB; generate: worker {mb(s['worker_peak_rss_kib']):.0f} MB, "
                         f"coordinator {mb(s['coordinator_peak_rss_kib']):.0f} MB")
    return lines


SERVE_CASES = (("get", "thumbnail GET ?v=DIGEST"), ("revalidate", "If-None-Match -> 304"))


def format_serve(serve):
    """The lines for `glance serve` under wrk against nginx, and the 10,000-document pages."""
    if not serve:
        return []
    lines = []
    if serve.get("documents"):
        lines.append(f"glance serve against nginx (same bytes, static files): {serve['documents']} thumbnails of the "
                     f"corpus, {serve['thumbnail_bytes_average'] / 1000:.0f} kB on average; wrk, {serve['threads']} "
                     f"threads, {serve['connections']} connections, {serve['seconds']:g} s each, loopback:")
        lines.append(f"  {'requests':<26} {'server':<7} {'req/s':>7} {'p50 ms':>7} {'p99 ms':>7} {'max ms':>7} "
                     f"{'CPU ms/req':>10} {'Glance/this':>11}")
    for case, label in SERVE_CASES:
        runs = serve.get(case, {})
        if "glance" not in runs or "nginx" not in runs:
            continue
        for server in ("glance", "nginx"):
            run = runs[server]
            ratio = "—" if server == "glance" else f"{runs['glance']['requests_per_s'] / run['requests_per_s']:.2f}"
            lines.append(f"  {label if server == 'glance' else '':<26} {server:<7} {run['requests_per_s']:>7.0f} "
                         f"{run['p50_ms']:>7.2f} {run['p99_ms']:>7.2f} {run['max_ms']:>7.1f} "
                         f"{fmt_num(run.get('server_cpu_ms_per_request'), 3):>10} {ratio:>11}")
    tls = serve.get("tls") or {}
    if "glance-session" in tls and "nginx" in tls:
        lines.append("  over TLS (same certificate, HTTP/1.1 keep-alive), thumbnail GETs:")
        for name, label in (("glance-session", "glance, browser session"), ("nginx", "nginx"),
                            ("glance-basic", "glance, HTTP Basic"), ("glance-anonymous", "glance, no accounts")):
            if name not in tls:
                continue
            run = tls[name]
            ratio = f"{tls['glance-session']['requests_per_s'] / run['requests_per_s']:.2f}"
            lines.append(f"  {label:<26} {'':<7} {run['requests_per_s']:>7.0f} {run['p50_ms']:>7.2f} "
                         f"{run['p99_ms']:>7.2f} {run['max_ms']:>7.1f} "
                         f"{fmt_num(run.get('server_cpu_ms_per_request'), 3):>10} {ratio:>11}")
        if serve.get("tls_session_cost_us") is not None:
            lines.append(f"  checking sign-in costs {serve['tls_session_cost_us']:.0f} µs of CPU a request with a session, "
                         f"{serve.get('tls_basic_cost_us', 0):.0f} µs with HTTP Basic (against no accounts)")
    if serve.get("ceiling"):
        run = serve["ceiling"]
        lines.append(f"  the HTTP stack's ceiling here (glance serve's 3 kB stylesheet from memory): "
                     f"{run['requests_per_s']:.0f} req/s, p99 {run['p99_ms']:.2f} ms")
    if serve.get("glance_serve_peak_rss_kib"):
        lines.append(f"  glance serve peak RSS (VmHWM) after the load: {mb(serve['glance_serve_peak_rss_kib']):.0f} MB")
    for key, label in (("grid", "grid page"), ("api_page", "listing page")):
        row = serve.get(key)
        if not row:
            continue
        head = f"  GET {row['path']} ({label}) over 10,000 documents:"
        if row["measured"]:
            lines.append(f"{head} median {row['median_ms']:.1f} ms, max {row['max_ms']:.1f} ms of {row['requests']}, "
                         f"{row['bytes'] / 1000:.0f} kB")
        else:
            lines.append(f"{head} NOT MEASURED: status {row['status']}")
    for key, label in (("grid_100k", "grid page"), ("api_100k", "API page of 120")):
        row = serve.get(key)
        if row and row["measured"]:
            lines.append(f"  GET {row['path']} ({label}) over 100,000 documents, warm: median {row['median_ms']:.1f} ms, "
                         f"max {row['max_ms']:.1f} ms")
    if serve.get("many_startup_seconds") is not None:
        lines.append(f"  glance serve on 10,000 documents: URL printed after {serve['many_startup_seconds']:.2f} s, "
                     f"peak RSS {mb(serve.get('many_peak_rss_kib', 0)):.0f} MB")
    for problem in serve.get("problems", []):
        lines.append(f"  PROBLEM: {problem}")
    return lines


def evaluate_targets(results, extras):
    """[(target, measured text, ratio, passed)] for every target of the issue."""
    targets = []

    def speed(fmt, need):
        tools = results.get(fmt, {}).get("tools")
        if not tools:
            return
        best_name = max(("vips1", "vips2"), key=lambda n: tools[n]["files_per_s"])
        ratio = tools["glance"]["files_per_s"] / tools[best_name]["files_per_s"]
        targets.append((f"{fmt.upper()}: Glance >= {need}x vipsthumbnail (faster config: {tools[best_name]['label']})",
                        f"{tools['glance']['files_per_s']:.2f} vs {tools[best_name]['files_per_s']:.2f} files/s",
                        ratio, ratio >= need))

    def quality(fmt, min_psnr=35.0, min_ssim=0.97):
        tools = results.get(fmt, {}).get("tools")
        if not tools or not tools["glance"].get("quality"):
            return
        g = tools["glance"]["quality"]
        v = tools["vips1"].get("quality") or {}
        targets.append((f"{fmt.upper()} quality: PSNR >= {min_psnr} dB", f"{g['psnr_db']:.2f} dB "
                        f"(worst {g['worst_psnr_db']:.2f})", g["psnr_db"] / min_psnr, g["psnr_db"] >= min_psnr))
        targets.append((f"{fmt.upper()} quality: SSIM >= {min_ssim}", f"{g['ssim']:.4f} (worst {g['worst_ssim']:.4f})",
                        g["ssim"] / min_ssim, g["ssim"] >= min_ssim))
        if v:
            ok = g["psnr_db"] >= v["psnr_db"] and g["ssim"] >= v["ssim"]
            targets.append((f"{fmt.upper()} quality: no worse than vipsthumbnail",
                            f"PSNR {g['psnr_db']:.2f} vs {v['psnr_db']:.2f} dB, SSIM {g['ssim']:.4f} vs {v['ssim']:.4f}",
                            g["psnr_db"] / v["psnr_db"], ok))

    speed("jpeg", 1.25)
    speed("png", 1.2)
    speed("pdf", 1.2)
    # Colour and speed (#11)'s targets.
    speed("jpeg", 1.8)
    speed("png", 1.6)
    speed("pdf", 1.8)
    mix = results.get("jpeg", {}).get("mix")
    if mix:
        rates = mix["files_per_s"]
        targets.append(("JPEG, the second set (smaller, progressive, 4:4:4, 4:2:2): Glance >= 1.8x vipsthumbnail",
                        f"{rates['glance']:.2f} vs {rates[mix['best_vips']]:.2f} files/s", mix["ratio"],
                        mix["ratio"] >= 1.8))
    pdf = results.get("pdf", {}).get("tools")
    if pdf and "pdftoppm" in pdf:
        ratio = pdf["glance"]["files_per_s"] / pdf["pdftoppm"]["files_per_s"]
        targets.append(("PDF: Glance >= 4x pdftoppm per file", f"{ratio:.2f}x", ratio, ratio >= 4))
    text = results.get("text", {}).get("tools")
    if text:
        rate = text["glance"]["files_per_s"]
        targets.append(("Text: >= 100 documents/s", f"{rate:.1f} documents/s", rate / 100, rate >= 100))
        targets.append(("Text: >= 200 documents/s (#11)", f"{rate:.1f} documents/s", rate / 200, rate >= 200))
    small = results.get("text", {}).get("small_folder")
    if small:
        rate = small["documents_per_s"]
        targets.append((f"Text, a folder of {small['files']} small files, start-up included: >= 200 documents/s",
                        f"{rate:.1f} documents/s ({small['median_seconds'] * 1000:.0f} ms)", rate / 200, rate >= 200))
    many = extras.get("many")
    if many:
        targets.append(("No-op re-run of 10,000 documents <= 1 s", f"{many['noop_seconds']:.3f} s",
                        many["noop_seconds"] / 1.0, many["noop_seconds"] <= 1.0 and many["noop_rendered"] == 0))
        targets.append(("list of 10,000 documents <= 0.3 s", f"{many['list_seconds']:.3f} s",
                        many["list_seconds"] / 0.3, many["list_seconds"] <= 0.3))
    saves = extras.get("onsave")
    if saves:
        targets.append(("On-save: save-to-fresh p95 <= 1 s during a 10,000-document catch-up",
                        f"{saves['p95_ms']:.0f} ms ({saves['logged']} of {saves['saves']} saves)",
                        saves["p95_ms"] / 1000, saves["p95_ms"] <= 1000 and saves["logged"] == saves["saves"]))
        targets.append(("On-save: glance hook round trip p95 <= 50 ms with a watcher",
                        f"{saves['hook_with_watcher_p95_ms']:.0f} ms", saves["hook_with_watcher_p95_ms"] / 50,
                        saves["hook_with_watcher_p95_ms"] <= 50))
    serve = extras.get("serve") or {}
    for case, label in SERVE_CASES:
        runs = serve.get(case, {})
        if "glance" not in runs or "nginx" not in runs:
            continue
        g, n = runs["glance"], runs["nginx"]
        ratio = g["requests_per_s"] / n["requests_per_s"]
        connections = serve["connections"]
        targets.append((f"Serve, {label} at {connections} connections: glance >= 0.7x nginx requests/s",
                        f"{g['requests_per_s']:.0f} vs {n['requests_per_s']:.0f} requests/s", ratio, ratio >= 0.7))
        targets.append((f"Serve, {label} at {connections} connections: glance p99 <= 10 ms", f"{g['p99_ms']:.2f} ms",
                        g["p99_ms"] / 10, g["p99_ms"] <= 10))
    for key, label in (("grid_100k", "a grid page"), ("api_100k", "an API page of 120")):
        row = serve.get(key)
        if row and row["measured"]:
            targets.append((f"Serve: {label} at 100,000 documents, warm, <= 30 ms (median)",
                            f"{row['median_ms']:.1f} ms", row["median_ms"] / 30, row["median_ms"] <= 30))
    tls = serve.get("tls") or {}
    if "glance-session" in tls and "nginx" in tls:
        g, n = tls["glance-session"], tls["nginx"]
        ratio = g["requests_per_s"] / n["requests_per_s"]
        targets.append((f"Serve over TLS with a session, thumbnail GETs at {serve['connections']} connections: "
                        f"glance >= 0.7x nginx over TLS", f"{g['requests_per_s']:.0f} vs {n['requests_per_s']:.0f} "
                        f"requests/s", ratio, ratio >= 0.7))
    targets += grid.targets(extras.get("grid"))
    targets += previews.targets(extras.get("previews"))
    targets += terminal.targets(extras.get("terminal"))
    targets += metrics.targets(extras.get("metrics"))
    targets += new_formats.targets(extras.get("formats"))
    targets += video.targets(extras.get("video"))
    targets += office.targets(extras.get("office"))
    targets += archives.targets(extras.get("archives"))
    desktop = extras.get("xdg") or {}
    if desktop.get("ratio"):
        targets.append(("Desktop cache (xx-large): glance generate --xdg >= 3x one thumbnailer process a file",
                        f"{desktop['glance_per_s']:.1f} vs {desktop['desktop_per_s']:.1f} documents/s",
                        desktop["ratio"], desktop["ratio"] >= 3 and not desktop.get("problems")))
    by_key = {s["key"]: s for s in extras.get("single", [])}
    for key, label in (("jpeg-6000x4000", "6000x4000 JPEG"), ("png-4000x3000", "4000x3000 PNG")):
        if key in by_key:
            peak = mb(by_key[key]["worker_peak_rss_kib"])
            targets.append((f"Peak RSS per worker <= 150 MB on the {label} (alone)", f"{peak:.0f} MB",
                            peak / 150, peak <= 150))
    for fmt in ("jpeg", "png"):
        procs = results.get(fmt, {}).get("glance_processes")
        if procs:
            peak = mb(procs["worker_peak_kib"])
            targets.append((f"Peak RSS per worker <= 150 MB over the whole {fmt.upper()} batch (long-lived workers)",
                            f"{peak:.0f} MB", peak / 150, peak <= 150))
    if "png-rows-1000" in by_key and "png-rows-4000" in by_key:
        low = by_key["png-rows-1000"]["worker_peak_rss_kib"]
        high = by_key["png-rows-4000"]["worker_peak_rss_kib"]
        ratio = high / low
        targets.append(("PNG worker RSS flat (+-10%) from 1000 to 4000 rows",
                        f"{mb(low):.0f} MB -> {mb(high):.0f} MB", ratio, abs(ratio - 1) <= 0.10))
    targets += scaleout.scaleout_targets(extras.get("scaleout"))
    targets += servestore.targets(extras.get("servestore"))
    quality("jpeg")
    quality("png")
    quality("pdf")
    return targets


def format_targets(targets):
    lines = ["Targets (ratio: Glance/anchor for speed, measured/target otherwise):"]
    for name, measured, ratio, passed in targets:
        lines.append(f"  {'PASS' if passed else 'FAIL'}  {ratio:6.3f}  {name}: {measured}")
    passed = sum(1 for t in targets if t[3])
    lines.append(f"  {passed} of {len(targets)} targets met")
    return lines


def write_json(results_dir, payload):
    """Writes payload to results_dir/<UTC timestamp>.json and returns the path."""
    os.makedirs(results_dir, exist_ok=True)
    stamp = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H-%M-%SZ")
    path = os.path.join(results_dir, stamp + ".json")
    with open(path, "w") as f:
        json.dump(payload, f, indent=2, sort_keys=False)
        f.write("\n")
    return path
