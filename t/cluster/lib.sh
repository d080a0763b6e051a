# Shell helpers shared by the tests that run on the test cluster (sourced).

# One test cluster per machine (fixed namespace names): wait while another
# runs, at most ATTRIB_CLUSTER_WAIT seconds (default 900).
wait_cluster_free() {
	local t0 ns busy
	t0=$(date +%s)
	while :; do
		busy=
		for ns in /run/netns/attrib-node-*; do
			[ -e "$ns" ] && [ -n "$(ip netns pids "${ns##*/}" 2>/dev/null)" ] && busy=${ns##*/}
		done
		[ -z "$busy" ] && return 0
		if [ $(($(date +%s) - t0)) -ge "${ATTRIB_CLUSTER_WAIT:-900}" ]; then
			echo "# another test cluster still runs ($busy) after ${ATTRIB_CLUSTER_WAIT:-900} s" >&2
			return 1
		fi
		[ $(($(date +%s) - t0)) -eq 0 ] && echo "# another test cluster runs ($busy): waiting" >&2
		sleep 2
	done
}

# sacct is fed asynchronously: poll until the job's final state shows.
sacct_final() { # jobid [timeout]
	local j=$1 limit=${2:-60} t0 line
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
