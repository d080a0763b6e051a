#!/bin/sh
# Paired runs of several builds of attrib on one case (bench/README.md,
# "Paired runs"): each round runs every build once, the order rotating from
# round to round, so that a machine shared with others loads them alike.
# Prints each build's median CPU (user + sys, the kernel's accounting) and
# wall time, and the median of the round-by-round ratios of each build to
# the first.
#
#   bench/engine/pairs.sh CASE ROUNDS LABEL=ATTRIB [LABEL=ATTRIB ...]
#
# A build outside the source tree finds its rules with ATTRIB_RULES (or
# with the rules/ of the tree it was built in).  Needs /usr/bin/time.
set -eu
[ $# -ge 3 ] || { echo "usage: $0 CASE ROUNDS LABEL=ATTRIB [LABEL=ATTRIB ...]" >&2; exit 2; }
case=$1
rounds=$2
shift 2
[ -f "$case/job.json" ] || { echo "$0: $case: no job.json" >&2; exit 2; }
[ -x /usr/bin/time ] || { echo "$0: needs /usr/bin/time (apt-get install time)" >&2; exit 2; }
labels=""
for build in "$@"; do labels="$labels ${build%%=*}"; done
tsv=$(mktemp)
trap 'rm -f "$tsv"' EXIT
for r in $(seq 1 "$rounds"); do
	for build in "$@"; do
		/usr/bin/time -f "$r ${build%%=*} %e %U %S" -a -o "$tsv" "${build#*=}" analyze "$case" --json >/dev/null
	done
	first=$1
	shift
	set -- "$@" "$first"
done
python3 - "$tsv" $labels <<'EOF'
import collections, statistics, sys
by = collections.defaultdict(dict)
for line in open(sys.argv[1]):
    f = line.split()
    if len(f) == 5 and f[0].isdigit():
        by[int(f[0])][f[1]] = (float(f[2]), float(f[3]) + float(f[4]))
labels = sys.argv[2:]
rounds = [r for r in by if all(l in by[r] for l in labels)]
print(f"{len(rounds)} rounds, load {open('/proc/loadavg').read().split()[0]}")
print("| build | CPU s (median) | wall s (median) | CPU ratio to %s | wall ratio |" % labels[0])
print("|---|---|---|---|---|")
for l in labels:
    cpu = statistics.median(by[r][l][1] for r in rounds)
    wall = statistics.median(by[r][l][0] for r in rounds)
    rc = statistics.median(by[r][l][1] / by[r][labels[0]][1] for r in rounds)
    rw = statistics.median(by[r][l][0] / by[r][labels[0]][0] for r in rounds)
    print(f"| {l} | {cpu:.2f} | {wall:.2f} | {rc:.2f} | {rw:.2f} |")
EOF
