# The dashboard's tests' store and service (sourced by t/dashboard-*.sh,
# after t/lib/check.sh and t/lib/service.sh; needs A, AD, SRC, T).
#
#   dash_store DB       the project's own cases (t/cases, examples) analysed
#                       and stored as attribd stores them, plus a generated
#                       256-node job (gpu-137 the culprit, gpu-200..202 sent
#                       nothing) and a hostile one (job 666: markup, quotes
#                       and bidi characters in its name and its log line)
#   dash_start CONF     attribd --foreground with CONF; DURL its dashboard
#   dash_stop
FILL=${DASH_FILL:-$(dirname "$A")/t/dash-fill}
HOSTILE_NAME='<script>alert("x")</script>'"'"'&amp;<img src=x onerror=alert(1)>'

# a large case (N nodes, default 256, job 9256): gpu-137's Xid 149, the
# others' job start, gpu-200..202 sent nothing
dash_case256() { # DIR [N JOBID]
	python3 - "$1" "${2:-256}" "${3:-9256}" <<'PY'
import json, os, sys
d, n, job = sys.argv[1], int(sys.argv[2]), sys.argv[3]
nodes = ["gpu-%03d" % i for i in range(1, n + 1)]
os.makedirs(d + "/nodes", exist_ok=True)
json.dump({"schema": "attrib.job/v1", "job_id": job, "cluster": "lab", "user": "bob",
           "partition": "big", "name": "pretrain-%d" % n, "nodes": nodes, "gpus": 8 * n,
           "start_time": "2026-11-30T10:00:00Z", "end_time": "2026-11-30T10:30:00Z",
           "state": "FAILED", "exit_code": "1:0", "log_timezone": "UTC"}, open(d + "/job.json", "w"))
for n in nodes:
    if n in ("gpu-200", "gpu-201", "gpu-202"):
        continue	# sent nothing
    os.makedirs("%s/nodes/%s" % (d, n))
    with open("%s/nodes/%s/journal.txt" % (d, n), "w") as f:
        f.write("2026-11-30T09:59:59+0000 %s slurmd[3120]: slurmd: launch task StepId=%s.0 request from UID:1001 GID:1001 HOST:10.10.0.1 PORT:41234\n" % (n, job))
        if n == "gpu-137":
            f.write("2026-11-30T10:20:01+0000 gpu-137 kernel: NVRM: Xid (PCI:0000:43:00): 149, NETIR_LINK_EVT Fatal XC0 i0 Link 04 (0x0024c1c6 0x00000000 0x00000000 0x00000000 0x00000000 0x00000000)\n")
PY
}

# the hostile case: examples/xid149-nvlink with a hostile name and log line
dash_hostile() { # DIR
	cp -r "$SRC/examples/xid149-nvlink" "$1"
	python3 - "$1" "$HOSTILE_NAME" <<'PY'
import json, sys
d, name = sys.argv[1], sys.argv[2]
j = json.load(open(d + "/job.json"))
j["job_id"] = "666"
j["name"] = name + "\u202e\u2066evil"
j["user"] = "mallory"
json.dump(j, open(d + "/job.json", "w"))
p = d + "/nodes/node-02/journal.txt"
t = open(p).read().replace("0x00000000 0x00000000)", "0x00000000 0x00000000) <img src=x onerror=alert(2)>\"'\u202e")
open(p, "w").write(t)
PY
}

dash_store() { # DB: prints how many results it stored
	local db=$1 n=0 d now
	now=$(date +%s)
	mkdir -p "$T/cases"
	dash_case256 "$T/cases/big256"
	dash_hostile "$T/cases/hostile"
	# the made cases first (the newest): on the first page whatever the
	# number of t/cases
	for d in "$T/cases/hostile/" "$T/cases/big256/" "$SRC"/t/cases/*/ "$SRC"/examples/*/; do
		[ -f "$d/job.json" ] || continue
		"$A" --rules "$SRC/rules" analyze "$d" --json >"$T/r.json" 2>/dev/null
		[ -s "$T/r.json" ] || continue
		# one second apart: pages have a fixed order
		"$FILL" "$db" $((now - n)) "$d" "$T/r.json" >/dev/null || return 1
		n=$((n + 1))
	done
	echo "$n"
}

# dash_up FIRST_PORT: attribd on the store of $T/state with Dashboard = on,
# its conf in $T/attrib.conf, its ports in port and dport, its dashboard's
# URL in D; 2 when no port is free, 1 when it does not start
dash_up() {
	local base=$1 try
	# a port found free may be taken before attribd binds it (another
	# test on the machine): then again, further on
	for try in 1 2 3; do
		port=$(free_port "$base")
		dport=$(free_port $((${port:-$base} + 60)))
		[ -n "$port" ] && [ -n "$dport" ] || return 2
		cat >"$T/attrib.conf" <<EOF
SpoolDir = $T/spool
StateDir = $T/state
RulesDir = $SRC/rules
Listen = 127.0.0.1:$port
ReconcileInterval = 0
LogFile = $T/attrib.log
Dashboard = on
DashboardListen = 127.0.0.1:$dport
EOF
		D=http://127.0.0.1:$dport
		dash_start "$T/attrib.conf" && return 0
		grep -q "cannot listen" "$T/attrib.log" "$T/attribd.out" 2>/dev/null || return 1
		echo "# attribd could not listen on $port or $dport (taken meanwhile): try $((try + 1))"
		rm -f "$T/attrib.log"
		base=$((dport + 100))
	done
	return 1
}

dash_start() { # CONF
	"$AD" --config "$1" --foreground >"$T/attribd.out" 2>&1 &
	dpid=$!
	wait_for 60 dash_listens
	grep -q "dashboard on" "$T/attrib.log" 2>/dev/null
}
dash_listens() { # the dashboard listens, or attribd is gone
	grep -q "dashboard on" "$T/attrib.log" 2>/dev/null || ! kill -0 "$dpid" 2>/dev/null
}
dash_stop() {
	[ -n "${dpid:-}" ] && kill "$dpid" 2>/dev/null && wait "$dpid" 2>/dev/null
	dpid=
}
