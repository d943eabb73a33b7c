#!/bin/sh
# The whole measurement: inputs (once), build, REPS timed rounds (default 15), report.
#   sh bench/deflate/run.sh            -> bench/deflate/work/report-<UTC time>.md (+ .tsv of every sample)
# Run nothing else meanwhile: one process, one core; the ratios are taken within each round.
set -eu
cd "$(dirname "$0")"
if [ ! -f work/inputs.tsv ]; then /usr/bin/python3 make_inputs.py ${GLANCE:+--glance "$GLANCE"}; fi
./build.sh
stamp=$(date -u +%Y%m%dT%H%M%SZ)
before=$(cut -d' ' -f1-3 /proc/loadavg)
./compare --reps "${REPS:-15}" --out "work/results-$stamp.tsv" work/raw/*.pam
after=$(cut -d' ' -f1-3 /proc/loadavg)
{
    echo "run $stamp on $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $(nproc) cores;" \
         "load average before $before, after $after"
    echo
    /usr/bin/python3 report.py "work/results-$stamp.tsv"
} > "work/report-$stamp.md"
echo "work/report-$stamp.md"
