#!/usr/bin/python3
"""Tables from a compare run: python3 report.py [--wall] work/results.tsv > work/report.md

Time: the thread's CPU time of each encode (user + system; --wall: wall-clock time), the median over rounds of each image's encode time. Totals: the sums of those medians.
Ratios against Glance: the median over rounds of (the encoder's total in that round / Glance's
total in the same round), so that only times taken in the same round are compared."""
import statistics
import sys
from collections import defaultdict

wall = "--wall" in sys.argv[1:]
path = [a for a in sys.argv[1:] if a != "--wall"][0]
header_line = None
checks, times = [], defaultdict(list)       # (image, encoder) -> [ns]
round_ns = defaultdict(float)               # (round, kind or '*', encoder) -> ns
meta = {}
encoders, images = [], []
with open(path) as f:
    for line in f:
        if line.startswith("#"):
            header_line = line[1:].strip()
            continue
        p = line.rstrip("\n").split("\t")
        if p[0] == "record":
            continue
        rec, image, kind, w, h, c, enc, rnd, ns, nbytes, heap, held, cpu = p
        if not wall:
            ns = cpu
        if enc not in encoders:
            encoders.append(enc)
        if image not in meta:
            images.append(image)
            meta[image] = dict(kind=kind, w=int(w), h=int(h), c=int(c))
        if rec == "check":
            checks.append(dict(image=image, enc=enc, bytes=int(nbytes), heap=int(heap), held=int(held)))
            meta[image].setdefault("bytes", {})[enc] = int(nbytes)
            meta[image].setdefault("heap", {})[enc] = int(heap)
            meta[image].setdefault("held", {})[enc] = int(held)
        else:
            times[(image, enc)].append(float(ns))
            round_ns[(int(rnd), kind, enc)] += float(ns)
            round_ns[(int(rnd), "*", enc)] += float(ns)

CORE = "libdeflate-1-compress-only"
for i in images:
    for key in ("bytes", "heap", "held"):
        if CORE in encoders:
            meta[i][key][CORE] = meta[i][key]["libdeflate-1"]
if CORE in encoders:   # shown right after libdeflate-1
    encoders.remove(CORE)
    encoders.insert(encoders.index("libdeflate-1") + 1, CORE)
rounds = sorted({r for (r, _, _) in round_ns})
kinds = ["photo", "screenshot", "pdf", "text"]
kinds = [k for k in kinds if any(meta[i]["kind"] == k for i in images)]
med = {key: statistics.median(v) for key, v in times.items()}
short = {"glance": "Glance", "libdeflate-1": "ldf-1", "libdeflate-4": "ldf-4", "libdeflate-6": "ldf-6",
         "spng-default": "spng-def", "spng-1": "spng-1", "spng-1-glancefilter": "spng-1-Up",
         "libpng-zlib-1": "libpng-z1", "zlib-1-rows": "zlib-1", CORE: "ldf-1 core"}


def ratio(kind, enc):
    return statistics.median(round_ns[(r, kind, enc)] / round_ns[(r, kind, "glance")] for r in rounds)


def group(kind):
    return [i for i in images if kind == "*" or meta[i]["kind"] == kind]


print(f"{header_line}; {len(rounds)} timed rounds, {len(images)} images; "
      f"times are {'wall-clock' if wall else 'CPU time of the encoding thread'}\n")
print("### Totals, per kind and overall\n")
print("time: sum of per-image medians, ms (×: median over rounds of the round's total against Glance's in that round); "
      "size: sum of PNG bytes, KB (×: against Glance)\n")
print("| kind (images) | " + " | ".join(short[e] for e in encoders) + " |")
print("|---|" + "---:|" * len(encoders))
for kind in kinds + ["*"]:
    imgs = group(kind)
    label = ("all" if kind == "*" else kind) + f" ({len(imgs)})"
    tcells, bcells = [], []
    gbytes = sum(meta[i]["bytes"]["glance"] for i in imgs)
    for e in encoders:
        t = sum(med[(i, e)] for i in imgs) / 1e6
        b = sum(meta[i]["bytes"][e] for i in imgs)
        if e == "glance":
            tcells.append(f"**{t:.1f} ms**")
            bcells.append(f"**{b / 1000:.0f} KB**")
        else:
            tcells.append(f"{t:.1f} ms ({ratio(kind, e):.2f}×)")
            bcells.append(f"{b / 1000:.0f} KB ({b / gbytes:.3f}×)")
    print(f"| {label} time | " + " | ".join(tcells) + " |")
    print(f"| {label} size | " + " | ".join(bcells) + " |")

print("\nSpread of the overall time ratio over the rounds (min / median / max of each round's total against "
      "Glance's total in that round):\n")
print("| " + " | ".join(short[e] for e in encoders if e != "glance") + " |")
print("|" + "---:|" * (len(encoders) - 1))
cells = []
for e in encoders:
    if e == "glance":
        continue
    rs = sorted(round_ns[(r, "*", e)] / round_ns[(r, "*", "glance")] for r in rounds)
    cells.append(f"{rs[0]:.2f} / {statistics.median(rs):.2f} / {rs[-1]:.2f}")
print("| " + " | ".join(cells) + " |")

print("\n### Per image: median encode time (ms) and PNG size (KB)\n")
print("| image | W×H×C | " + " | ".join(short[e] for e in encoders) + " |")
print("|---|---|" + "---:|" * len(encoders))
for kind in kinds:
    for i in group(kind):
        m = meta[i]
        cells = [f"{med[(i, e)] / 1e6:.2f} / {m['bytes'][e] / 1000:.1f}" for e in encoders]
        print(f"| {i} | {m['w']}×{m['h']}×{m['c']} | " + " | ".join(cells) + " |")

print("\n### Memory per encode (KiB)\n")
print("heap: peak bytes the allocator handed out during the encode (state, row buffers, the whole filtered image "
      "for libdeflate), measured by wrapping malloc; out: output the encoder needs held at once outside its heap "
      "(Glance's photographic path: the largest piece sent to the sink or left at the end; whole-buffer encoders: "
      "the whole PNG; libspng and libpng stream to a callback). Max over the images of each kind.\n")
mem_encoders = [e for e in encoders if e != CORE]
print("| kind | " + " | ".join(short[e] for e in mem_encoders) + " |")
print("|---|" + "---:|" * len(mem_encoders))
for kind in kinds:
    imgs = group(kind)
    cells = []
    for e in mem_encoders:
        heap = max(meta[i]["heap"][e] for i in imgs)
        held = max(meta[i]["held"][e] for i in imgs)
        cells.append(f"{heap / 1024:.0f} + {held / 1024:.0f}")
    print(f"| {kind} | " + " | ".join(cells) + " |")
