#!/bin/bash
# Writes t/store/v3-0.1.0.sql: a store written by the previous release's own
# service and drain command (attrib 0.1.0, main at commit 6d62856, schema
# version 3), dumped as SQL.  Not a test: run by hand when a release's
# store becomes a fixture of t/store-migrate.c.
#   git worktree add --detach /tmp/prev 6d62856 && (cd /tmp/prev &&
#     autoreconf -fi && ./configure --without-slurm-source && make attrib)
#   t/store/previous-release.sh /tmp/prev/attrib > t/store/v3-0.1.0.sql
# Needs root, munged, munge, curl and sqlite3.  Three failed jobs of the
# example case (xid149-nvlink): 500 with every node's bundle, 501 twice
# (attempt 0 and its requeue, attempt 1), 502 with no bundle (its
# diagnosis notes the missing evidence); a Webhook nobody answers (its
# deliveries stay queued); attrib drain 500 --dry-run and attrib drain 502
# (refused): the drain decisions.
set -eu
OLD=$(realpath "$1")
SRC=$(cd "$(dirname "$0")/../.." && pwd)
EX=$SRC/examples/xid149-nvlink
T=$(mktemp -d /tmp/attrib-prev-XXXXXX)
chmod 0711 "$T"
trap 'kill $spid $mpid 2>/dev/null; sleep 0.3; rm -rf "$T"' EXIT
mkdir -p "$T/munge" "$T/spool/jobs" "$T/out" && chmod 0711 "$T/munge"
dd if=/dev/urandom of="$T/munge/key" bs=1024 count=1 2>/dev/null && chmod 0600 "$T/munge/key"
SOCK=$T/munge/sock
/usr/sbin/munged --socket="$SOCK" --key-file="$T/munge/key" --pid-file="$T/munge/pid" \
	--log-file="$T/munge/log" --seed-file="$T/munge/seed" --origin=127.0.0.1
for _ in $(seq 50); do [ -S "$SOCK" ] && break; sleep 0.1; done
mpid=$(cat "$T/munge/pid")
export ATTRIB_MUNGE_SOCKET=$SOCK SLURM_CONF=$T/no-slurm.conf
port=$((30000 + $$ % 20000))
cat >"$T/attrib.conf" <<CONF
SpoolDir = $T/spool
StateDir = $T/state
RulesDir = $SRC/rules
Listen = 127.0.0.1:$port
BundleDeadline = 2
ReconcileInterval = 0
LogFile = $T/attrib.log
Webhook = http://127.0.0.1:1/hook
NodeAddresses = node-01=127.0.0.1, node-02=127.0.0.1, node-03=127.0.0.1, node-04=127.0.0.1
CONF
"$OLD" serve --config "$T/attrib.conf" --foreground 2>"$T/serve.err" &
spid=$!
for _ in $(seq 100); do curl -sf "http://127.0.0.1:$port/v1/health" -o /dev/null && break; sleep 0.1; done
json_text() {
	awk 'BEGIN { ORS = ""; print "\"" }
	     { gsub(/\\/, "\\\\"); gsub(/"/, "\\\""); gsub(/\t/, "\\t"); gsub(/\r/, "\\r"); print $0 "\\n" }
	     END { print "\"" }' "$1"
}
bundle() { # JOB NODE
	local f files=
	for f in "$EX/nodes/$2"/*; do
		files="${files:+$files,}{\"name\":\"$(basename "$f")\",\"source\":\"/var/log/$(basename "$f")\",\"origin\":\"kernel\",\"text\":$(json_text "$f")}"
	done
	printf '{"schema":"attrib.bundle/v1","job_id":"%s","node":"%s","collected_at":"2026-11-29T08:15:00Z","files":[%s],"ranks":[{"rank":0,"node":"%s","local_rank":0,"gpu":"0","step":"0"}],"coverage":[]}' \
		"$1" "$2" "$files" "$2" >"$T/b.json"
	curl -s -o /dev/null -H "X-Attrib-Credential: $(munge -S "$SOCK" -s "attrib-bundle:v1:$1:$2:$(sha256sum <"$T/b.json" | cut -d' ' -f1)")" \
		--data-binary @"$T/b.json" "http://127.0.0.1:$port/v1/bundle"
}
record() { # JOB ATTEMPT BUNDLES?
	cp "$EX/app/slurm-4242.out" "$T/out/slurm-$1.out"
	sed -e "s/\"job_id\": \"4242\"/\"job_id\": \"$1\"/" \
		-e "s|^{|{\"uid\": 0, \"gid\": 0, \"attempt\": $2, \"std_out\": \"$T/out/slurm-$1.out\",|" \
		"$EX/job.json" >"$T/spool/jobs/.$1.$2.json.tmp"
	mv "$T/spool/jobs/.$1.$2.json.tmp" "$T/spool/jobs/$1.$2.json"
	if [ "$3" = yes ]; then for n in node-01 node-02 node-03 node-04; do bundle "$1" $n; done; fi
	for _ in $(seq 100); do "$OLD" show "$1" --attempt "$2" --config "$T/attrib.conf" >/dev/null 2>&1 && return; sleep 0.1; done
	echo "job $1.$2 was not attributed" >&2
	exit 1
}
record 500 0 yes
record 501 0 yes
record 501 1 yes
record 502 0 no
"$OLD" drain 500 --dry-run --config "$T/attrib.conf" >/dev/null
"$OLD" drain 502 --config "$T/attrib.conf" >/dev/null 2>&1 || true
sleep 1	# a webhook try or two
kill -TERM $spid && wait $spid || true
spid=
echo "-- A store written by attrib 0.1.0 itself (main at commit 6d62856, schema"
echo "-- version 3): t/store/previous-release.sh made it; read by t/store-migrate.c."
echo "PRAGMA user_version=$(sqlite3 "$T/state/attrib.db" 'PRAGMA user_version');"
sqlite3 "$T/state/attrib.db" .dump
