# Shell helpers shared by the tests that run on the test cluster, and the
# names of the cluster (sourced; t/cluster/cluster.sh sources it too).

# One test cluster per instance: ATTRIB_CLUSTER_INSTANCE (0..9, default 0)
# names its network namespaces CLUSTER_PREFIX-node-NN, its bridge
# CLUSTER_BRIDGE, its subnet CLUSTER_SUBNET (10.251.INSTANCE) and its
# claim, so that clusters of two instances run at once (CI's Slurm 24.11
# leg, in its Debian 13 root, uses instance 1 beside the host's 0); within
# an instance, one cluster at a time.
ATTRIB_CLUSTER_INSTANCE=${ATTRIB_CLUSTER_INSTANCE:-0}
case $ATTRIB_CLUSTER_INSTANCE in [0-9]) ;; *) echo "ATTRIB_CLUSTER_INSTANCE must be 0..9" >&2; exit 2 ;; esac
if [ "$ATTRIB_CLUSTER_INSTANCE" = 0 ]; then CLUSTER_PREFIX=attrib; else CLUSTER_PREFIX=attrib$ATTRIB_CLUSTER_INSTANCE; fi
CLUSTER_BRIDGE=attrib-br$ATTRIB_CLUSTER_INSTANCE
CLUSTER_SUBNET=${ATTRIB_CLUSTER_SUBNET:-10.251.$ATTRIB_CLUSTER_INSTANCE}

# A test claims the instance before it starts its cluster: the claim file
# holds the claiming test's PID and is void once that process is gone, so
# nothing needs releasing (a file lock held through an inherited descriptor
# would outlive the test in any daemon it started).  The claim is taken
# under flock, so two tests never both get it; a cluster started by hand
# (namespaces with processes) also counts as busy.  Waits at most
# ATTRIB_CLUSTER_WAIT seconds (default 900).
if [ "$ATTRIB_CLUSTER_INSTANCE" = 0 ]; then
	ATTRIB_CLUSTER_CLAIM=${ATTRIB_CLUSTER_CLAIM:-/run/lock/attrib-test-cluster.pid}
else
	ATTRIB_CLUSTER_CLAIM=${ATTRIB_CLUSTER_CLAIM:-/run/lock/attrib-test-cluster-$ATTRIB_CLUSTER_INSTANCE.pid}
fi
claim_cluster() { # pid: 0 claimed, 1 another live test holds it
	flock "$ATTRIB_CLUSTER_CLAIM.lock" sh -c '
		p=$(cat "$1" 2>/dev/null)
		if [ -n "$p" ] && [ "$p" != "$2" ] && kill -0 "$p" 2>/dev/null; then exit 1; fi
		echo "$2" >"$1"' sh "$ATTRIB_CLUSTER_CLAIM" "$1"
}
wait_cluster_free() {
	local t0 ns busy
	t0=$(date +%s)
	while :; do
		busy=
		claim_cluster $$ || busy="test $(cat "$ATTRIB_CLUSTER_CLAIM" 2>/dev/null)"
		if [ -z "$busy" ]; then
			for ns in /run/netns/"$CLUSTER_PREFIX"-node-*; do
				[ -e "$ns" ] && [ -n "$(ip netns pids "${ns##*/}" 2>/dev/null)" ] && busy=${ns##*/}
			done
		fi
		[ -z "$busy" ] && return 0
		if [ $(($(date +%s) - t0)) -ge "${ATTRIB_CLUSTER_WAIT:-900}" ]; then
			echo "# another test cluster still runs ($busy) after ${ATTRIB_CLUSTER_WAIT:-900} s" >&2
			return 1
		fi
		[ $(($(date +%s) - t0)) -eq 0 ] && echo "# another test cluster runs ($busy): waiting" >&2
		sleep 2
	done
}

# wait_cluster_free sees only the node namespaces: also wait while another
# test's slurmctld of this instance runs (one whose nodes are down or not
# yet up); cluster.sh starts it with ATTRIB_CLUSTER_INSTANCE in its
# environment (none: instance 0)
ctld_of_instance() {
	local p i
	for p in $(pgrep -x slurmctld); do
		i=$(tr '\0' '\n' <"/proc/$p/environ" 2>/dev/null | sed -n 's/^ATTRIB_CLUSTER_INSTANCE=//p')
		[ "${i:-0}" = "$ATTRIB_CLUSTER_INSTANCE" ] && return 0
	done
	return 1
}
wait_no_ctld() {
	local t0
	t0=$(date +%s)
	while ctld_of_instance; do
		[ $(($(date +%s) - t0)) -ge "${ATTRIB_CLUSTER_WAIT:-900}" ] && return 1
		sleep 2
	done
}

# sacct is fed asynchronously: poll until the job's final state shows.
sacct_final() { # jobid [timeout, 120 s]
	local j=$1 limit=${2:-120} t0 line
	t0=$(date +%s)
	while :; do
		line=$(sacct -n -P -X -j "$j" -o State,JobName 2>/dev/null | head -n1 || true)
		case ${line%%|*} in
		FAILED | CANCELLED* | TIMEOUT | NODE_FAIL | COMPLETED)
			case $line in *'|allocation') ;; *) echo "${line%%|*}"; return 0 ;; esac ;;
		esac
		[ $(($(date +%s) - t0)) -ge "$limit" ] && { echo "${line:-none}"; return 1; }
		sleep 0.5
	done
}

# One sacct field of a job (times in UTC, RFC 3339).
field() { # jobid field
	TZ=UTC SLURM_TIME_FORMAT='%Y-%m-%dT%H:%M:%SZ' sacct -n -P -X -j "$1" -o "$2" 2>/dev/null | head -n1
}

# stored_is_analyzed STATE CONF PROG: one job, one truth (doc/formats.md,
# "The result"): for every case attribd kept in STATE, `PROG analyze
# --json` of the case, with the catalog the stored result names, prints the
# stored result (`PROG show --json`, without the fleet findings and the
# admin's label it adds).  A case the engine cannot read is stored as
# result_unusable()'s, which only the service makes: not compared, said.
# A check of check.sh (nothing when STATE holds no case).
stored_is_analyzed() {
	local state=$1 conf=$2 prog=$3 c name n=0 bad_cases='' rules
	for c in "$state"/cases/*.*/; do
		[ -f "$c/job.json" ] || continue
		name=$(basename "$c")
		if ! "$prog" show "${name%.*}" -a "${name##*.}" --json --config "$conf" >"$state/truth-stored.json" 2>/dev/null; then
			bad_cases="$bad_cases $name(no stored result)"
			continue
		fi
		rules=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1])).get("catalog") or "")' "$state/truth-stored.json" 2>/dev/null)
		if ! "$prog" ${rules:+--rules "$rules"} analyze --json "$c" >"$state/truth-analyzed.json" 2>/dev/null; then
			python3 -c 'import json,sys; r=json.load(open(sys.argv[1]))
sys.exit(not any(c.get("source") == "job.json" and c.get("status") == "error" for c in r.get("coverage", [])))' \
				"$state/truth-stored.json" || bad_cases="$bad_cases $name(analyze failed)"
			continue
		fi
		n=$((n + 1))
		python3 - "$state/truth-stored.json" "$state/truth-analyzed.json" <<'PY' || bad_cases="$bad_cases $name"
import json, sys
s, a = (json.load(open(f)) for f in sys.argv[1:3])
s.pop("findings", None)
s.pop("label", None)
if json.dumps(s) != json.dumps(a):
    for k in sorted(set(s) | set(a)):
        if s.get(k) != a.get(k):
            print("#   %s: stored %s, analyzed %s" % (k, json.dumps(s.get(k))[:200], json.dumps(a.get(k))[:200]))
    sys.exit(1)
PY
	done
	rm -f "$state/truth-stored.json" "$state/truth-analyzed.json"
	[ "$n" -gt 0 ] || [ -n "$bad_cases" ] || return 0
	check "attrib analyze of each of the $n stored cases gives its stored result${bad_cases:+ (not:$bad_cases)}" test -z "$bad_cases"
}
