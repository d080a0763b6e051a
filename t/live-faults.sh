#!/bin/bash
# Faults on the real test cluster (t/cluster), with the whole live pipeline
# as t/live-pipeline.sh sets it up: jobcomp/attrib, spank attrib, the Epilog
# attrib-collect on every node (each with its own attrib.conf and spool) and
# `attrib serve`.  Runs only with ATTRIB_LIVE_TESTS=1 (else skipped, 77);
# needs root.  `make check-hardening` runs it.
#
#   unreachable  node-03's collector has a wrong ServiceURL for one 3-node
#                failing job: its epilog still exits 0 (node-03 not drained),
#                it retries within CollectTimeout and keeps the bundle in its
#                outbox; the diagnosis, made at BundleDeadline, lists
#                node-03's evidence as missing
#   slurmdbd     slurmdbd stopped; N failing jobs: their diagnoses are stored
#                with their comments queued (store, attrib_comment_queue);
#                slurmdbd started: every AdminComment lands (count = N)
#   sigkill      a burst of 50 failing jobs while `attrib serve` is SIGKILLed
#                every 2-4 s (5 times) and restarted: every job has exactly
#                one stored diagnosis and one "attrib:" in its AdminComment;
#                PRAGMA integrity_check says ok
#   diskfull     StateDir on a 4 MB tmpfs, filled: failing jobs meanwhile get
#                no diagnosis, the service logs "No space left on device",
#                keeps running, the store stays intact; space freed: the
#                pending jobs are diagnosed and commented
#   throughput   N trivial jobs with the service stopped and again with it
#                running: submitting is as fast (slurmctld and jobcomp/attrib
#                never wait for the service); every job's record waits in the
#                spool while the service is down and is consumed once it is
#                back; the jobs' end is later by at most the Epilog's retry
#                budget (CollectTimeout a job on each node); the ratios printed
#
# Last line: "N passed, N failed".  Takes about 2 minutes on the 2-core
# machine (5 min 16 s including the wait for another test's cluster).
#
#   ATTRIB, SRCDIR, ATTRIB_BUILDDIR   as t/live-pipeline.sh
#   ATTRIB_FAULTS_CLUSTER_DIR   cluster state [/tmp/attrib-cluster-faults]
#   ATTRIB_FAULTS=LIST          the parts to run, in this order
#                               [unreachable slurmdbd sigkill diskfull throughput]
#   ATTRIB_FAULTS_BURST         jobs of the SIGKILL burst [50]
#   ATTRIB_FAULTS_TP_JOBS       jobs of each throughput run [40]
#   ATTRIB_LIVE_KEEP=1          keep the temporary directory
set -u

[ "${ATTRIB_LIVE_TESTS:-0}" = 1 ] || { echo "SKIP: set ATTRIB_LIVE_TESTS=1 to run on the test cluster"; exit 77; }

A=${ATTRIB:-./attrib}
case $A in /*) ;; *) A=$(pwd)/$A ;; esac
SRC=${SRCDIR:-$(cd "$(dirname "$0")/.." && pwd)}
export ATTRIB_CLUSTER_DIR=${ATTRIB_FAULTS_CLUSTER_DIR:-/tmp/attrib-cluster-faults}
. "$SRC/t/cluster/pipeline.sh"
WAIT_FOR_POLL=0.3
DEADLINE=15	# BundleDeadline
PARTS=${ATTRIB_FAULTS:-unreachable slurmdbd sigkill diskfull throughput}
BURST=${ATTRIB_FAULTS_BURST:-50}
TPJOBS=${ATTRIB_FAULTS_TP_JOBS:-40}
require_built

pipeline_workdir attrib-live-faults

small=''
wants() { case " $PARTS " in *" $1 "*) return 0 ;; esac; return 1; }
cleanup_more() {
	dbd_start_if_stopped
	[ -n "$small" ] && umount "$small" 2>/dev/null
}

require_root_and slurmctld slurmd slurmdbd sbatch sacct squeue nsenter curl sqlite3 mount

# ---- helpers (the rest: t/cluster/pipeline.sh) ----------------------------------------
fail_jobs() { # name count [sbatch-args]: that many failing one-node jobs; prints their ids
	local name=$1 n=$2 i
	shift 2
	for i in $(seq 1 "$n"); do submit "$name" -N1 -n1 "$@" --wrap 'echo failing on purpose; exit 3'; done
}
ids_sql() { printf "'%s'," "$@" | sed 's/,$//'; }	# JOBID... -> 'a','b'
db() { sqlite3 -cmd '.timeout 5000' "$STATE/attrib.db" "$@" 2>/dev/null; }
results_of() { db "SELECT count(*) FROM results WHERE job_id IN ($(ids_sql "$@"))"; }
queued_of() { db "SELECT count(*) FROM comment_queue WHERE done = 0 AND job_id IN ($(ids_sql "$@"))"; }
all_results() { # count JOBID...
	local want=$1
	shift
	[ "$(results_of "$@")" = "$want" ]
}
commented() { # JOBID...: how many have attrib: in their AdminComment
	sacct -n -P -X -j "$(IFS=,; echo "$*")" -o AdminComment 2>/dev/null | grep -c 'attrib:'
}
all_commented() { # count JOBID...
	local want=$1
	shift
	[ "$(commented "$@")" = "$want" ]
}
ended() { # JOBID...: none is pending or running any more
	[ -z "$(squeue -h -j "$(IFS=,; echo "$*")" -o %i 2>/dev/null)" ]
}
metric() { curl -s "$URL/metrics" | awk -v m="attrib_$1" '$1 == m { print $2 }'; }
metric_ge() { local v; v=$(metric "$1"); [ "${v:-0}" -ge "$2" ]; }
# slurmdbd, as t/cluster/cluster.sh starts it and records it (run/slurmdbd.ours:
# "PID STARTTIME"), so that `cluster.sh stop` stops the new one
dbd_stopped=
dbd_stop() {
	local pid start
	read -r pid start <"$ATTRIB_CLUSTER_DIR/run/slurmdbd.ours" || return 1
	kill -TERM "$pid" || return 1
	dbd_stopped=1
	wait_for 60 sh -c "! kill -0 $pid 2>/dev/null"
}
dbd_start() {
	local pid
	SLURM_CONF=$ATTRIB_CLUSTER_DIR/etc/slurm.conf setsid slurmdbd -D </dev/null \
		>>"$ATTRIB_CLUSTER_DIR/log/slurmdbd.out" 2>&1 &
	pid=$!
	echo "$pid $(awk '{ print $22 }' "/proc/$pid/stat")" >"$ATTRIB_CLUSTER_DIR/run/slurmdbd.ours"
	dbd_stopped=
	wait_for 60 sacctmgr -n show cluster >/dev/null 2>&1
}
dbd_start_if_stopped() { [ -n "$dbd_stopped" ] && [ -n "$started_cluster" ] && dbd_start; }

# ---- the test directory (t/cluster/pipeline.sh) --------------------------------------
pipeline_dirs
chmod 0777 "$W/out"
for n in $NODES; do boot_log "$n" >"$W/nodes/$n/kmsg"; done
cat >"$W/epilog.sh" <<EOF
#!/bin/sh
# slurmd's Epilog: the collector with this node's attrib.conf; its exit
# status is what slurmd sees (non-zero would drain the node)
n=\${SLURMD_NODENAME:-\$(hostname)}
ATTRIB_COLLECT_KMSG=$W/nodes/\$n/kmsg
export ATTRIB_COLLECT_KMSG
"$COLLECT" -c "$W/nodes/\$n/attrib.conf" >>"$W/nodes/\$n/epilog.out" 2>&1
rc=\$?
echo "\$SLURM_JOB_ID \$rc" >>"$W/nodes/\$n/epilog.rc"
exit \$rc
EOF
chmod 0755 "$W/epilog.sh"

# ---- the cluster ---------------------------------------------------------------------
start_cluster
ok "the test cluster starts with jobcomp/attrib, spank attrib and the Epilog ($(since "$cluster_t0") s)"
for n in $NODES; do bind_spool "$n" || echo "#   $n: spool not bound"; done

pick_port 27521 27570
STATE=$W/state
write_conf() { # file state-dir
	service_conf "$1" "$2" <<EOF
BundleDeadline = $DEADLINE
ReconcileInterval = 0
CommentField = AdminComment
EOF
}
write_conf "$W/attrib.conf" "$W/state"
for n in $NODES; do node_conf "$n" "$URL"; done
service_up "attrib serve starts on $URL"

# ---- a node's collector cannot reach the service ------------------------------------
if wants unreachable; then
	note "unreachable: node-03's collector sends to port $((port + 1)), where nothing listens"
	node_conf node-03 "http://$ATTRIB_CLUSTER_CTLD_ADDR:$((port + 1))"
	ju=$(submit unreachable -N3 -n3 --wrap 'srun true; exit 3')
	check "unreachable: job $ju ends FAILED" test "$(sacct_final "$ju")" = FAILED
	check "unreachable: node-03's epilog ran and exited 0" \
		wait_for 60 grep -qs "^$ju 0\$" "$W/nodes/node-03/epilog.rc"
	check "unreachable: node-03 is not drained" \
		sh -c "! sinfo -h -n node-03 -o %T | grep -qi drain"
	check "unreachable: node-03's collector kept its bundle in its outbox" \
		sh -c "ls '$W/nodespool/node-03/outbox/'*'$ju'* >/dev/null 2>&1"
	grep "job $ju" "$W/nodes/node-03/collect.log" | sed 's/^/#   collector: /' | tail -3
	check "unreachable: the collector tried and gave up within its budget (logged)" \
		grep -q "job $ju: bundle not sent .*outbox" "$W/nodes/node-03/collect.log"
	t=$(date +%s)
	if wait_for $((DEADLINE + 40)) all_results 1 "$ju"; then
		note "diagnosis of $ju after $(($(date +%s) - t)) s (BundleDeadline $DEADLINE s)"
		cov=$(db "SELECT result_json FROM results WHERE job_id = '$ju'" |
			python3 -c 'import json,sys; r=json.load(sys.stdin); print(json.dumps([c for c in r["coverage"] if "node-03" in c["source"]]))')
		echo "#   coverage of node-03: $cov"
		check "unreachable: the diagnosis lists node-03's evidence as missing" \
			grep -q '"source": "nodes/node-03", "status": "missing"' <<<"$cov"
		check "unreachable: and has node-01's and node-02's bundles" sh -c \
			"grep -c 'bundle of job $ju from node-0[12] accepted' '$W/attrib.log' | grep -qx 2"
	else
		bad "unreachable: job $ju is diagnosed at BundleDeadline"
	fi
	node_conf node-03 "$URL"
fi

# ---- slurmdbd stopped while diagnoses are written -------------------------------------
if wants slurmdbd; then
	NDBD=5
	if dbd_stop; then
		ok "slurmdbd stopped"
		t=$(date +%s)
		# shellcheck disable=SC2207
		jd=($(fail_jobs dbd "$NDBD"))
		note "slurmdbd: jobs ${jd[*]}"
		check "slurmdbd down: ${#jd[@]} jobs submitted" test "${#jd[@]}" = "$NDBD"
		check "slurmdbd down: $NDBD diagnoses stored" wait_for 90 all_results "$NDBD" "${jd[@]}"
		check "slurmdbd down: their $NDBD comments are queued in the store" \
			test "$(queued_of "${jd[@]}")" = "$NDBD"
		wait_for 60 metric_ge comment_queue "$NDBD"
		q=$(metric comment_queue)
		check "slurmdbd down: attrib_comment_queue shows them ($q)" test "${q:-0}" -ge "$NDBD"
		check "slurmdbd down: the service logged the failed writes" \
			grep -q "AdminComment not written" "$W/attrib.log"
		sleep 15	# a longer outage: the writes are retried (30 s backoff)
		note "slurmdbd down for $(($(date +%s) - t)) s; starting it"
		if dbd_start; then
			ok "slurmdbd started again"
			t=$(date +%s)
			if wait_for 300 all_commented "$NDBD" "${jd[@]}"; then
				ok "slurmdbd back: all $NDBD AdminComments landed ($(($(date +%s) - t)) s)"
			else
				bad "slurmdbd back: $(commented "${jd[@]}") of $NDBD AdminComments landed in 300 s"
			fi
			check "slurmdbd back: none left queued" test "$(queued_of "${jd[@]}")" = 0
		else
			bad "slurmdbd started again"
		fi
	else
		bad "slurmdbd stopped"
	fi
fi

# ---- SIGKILL during a burst ------------------------------------------------------------
if wants sigkill; then
	note "sigkill: $BURST failing jobs, one every 0.3 s; attrib serve killed every 2-4 s meanwhile"
	# the jobs are short: submitted all at once they are all diagnosed
	# within seconds; spread out, the kills fall while records and bundles
	# arrive and diagnoses are written
	(for _ in $(seq 1 "$BURST"); do fail_jobs burst 1; sleep 0.3; done) >"$W/burst.ids" &
	bpid=$!
	kills=0
	for i in 1 2 3 4 5; do
		sleep $((2 + RANDOM % 3)).$((RANDOM % 10))
		kill -KILL "$spid" && wait "$spid" 2>/dev/null
		spid=
		kills=$((kills + 1))
		# shellcheck disable=SC2207
		jb=($(cat "$W/burst.ids"))
		note "sigkill: kill $kills: ${#jb[@]} submitted, $(results_of "${jb[@]}") diagnosed"
		start_service || { bad "sigkill: attrib serve restarts after kill $kills"; break; }
	done
	wait "$bpid"
	# shellcheck disable=SC2207
	jb=($(cat "$W/burst.ids"))
	check "sigkill: $BURST jobs submitted" test "${#jb[@]}" = "$BURST"
	check "sigkill: attrib serve restarted after each of $kills SIGKILLs" test -n "$spid"
	check "sigkill: all $BURST jobs ended" wait_for 180 ended "${jb[@]}"
	t=$(date +%s)
	if wait_for $((DEADLINE + 120)) all_results "$BURST" "${jb[@]}"; then
		ok "sigkill: all $BURST jobs diagnosed ($(($(date +%s) - t)) s after the last ended)"
	else
		bad "sigkill: $(results_of "${jb[@]}") of $BURST jobs diagnosed"
	fi
	dup=$(db "SELECT count(*) FROM (SELECT job_id FROM results WHERE job_id IN ($(ids_sql "${jb[@]}")) GROUP BY job_id HAVING count(*) > 1)")
	check "sigkill: no job has two diagnoses ($dup with more than one)" test "$dup" = 0
	wait_for 120 all_commented "$BURST" "${jb[@]}"
	check "sigkill: every job's AdminComment has attrib: ($(commented "${jb[@]}") of $BURST)" \
		all_commented "$BURST" "${jb[@]}"
	twice=$(sacct -n -P -X -j "$(IFS=,; echo "${jb[*]}")" -o AdminComment 2>/dev/null |
		awk '{ n = gsub(/attrib:/, "&"); if (n > 1) c++ } END { print c + 0 }')
	check "sigkill: no AdminComment has the summary twice ($twice)" test "$twice" = 0
	check "sigkill: PRAGMA integrity_check: ok" test "$(db 'PRAGMA integrity_check')" = ok
fi

# ---- disk full on the state directory --------------------------------------------------
if wants diskfull; then
	stop_service
	small=$W/small
	mkdir -p "$small"
	if mount -t tmpfs -o size=4m,mode=0700 attrib-faults "$small"; then
		STATE=$small/state
		write_conf "$W/attrib-small.conf" "$STATE"
		if start_service "$W/attrib-small.conf"; then
			ok "diskfull: attrib serve runs with StateDir on a 4 MB tmpfs"
			dd if=/dev/zero of="$small/filler" bs=64k >/dev/null 2>&1
			note "diskfull: $(df -k --output=avail "$small" | tail -1 | tr -d ' ') KB left"
			log0=$(wc -l <"$W/attrib.log")
			# shellcheck disable=SC2207
			jf=($(fail_jobs full 3))
			check "diskfull: 3 jobs end" wait_for 60 ended "${jf[@]}"
			# (their diagnoses fail to be stored at BundleDeadline at the latest)
			nospace() { tail -n +"$log0" "$W/attrib.log" | grep -q 'No space left on device'; }
			check "diskfull: the log says No space left on device" wait_for $((DEADLINE + 120)) nospace
			tail -n +"$log0" "$W/attrib.log" | grep -i 'space' | head -4 | sed 's/^/#   log: /'
			check "diskfull: attrib serve still runs" \
				sh -c "kill -0 $spid && curl -sf '$URL/v1/health' -o /dev/null"
			check "diskfull: no diagnosis could be stored meanwhile" test "$(results_of "${jf[@]}")" = 0
			check "diskfull: the store is intact (integrity_check ok)" \
				test "$(db 'PRAGMA integrity_check')" = ok
			rm -f "$small/filler"
			note "diskfull: space freed"
			t=$(date +%s)
			if wait_for 120 all_results 3 "${jf[@]}"; then
				ok "diskfull: space back: the 3 pending jobs are diagnosed ($(($(date +%s) - t)) s)"
			else
				bad "diskfull: space back: $(results_of "${jf[@]}") of 3 pending jobs diagnosed"
			fi
			check "diskfull: and commented" wait_for 120 all_commented 3 "${jf[@]}"
			check "diskfull: PRAGMA integrity_check: ok" test "$(db 'PRAGMA integrity_check')" = ok
		else
			bad "diskfull: attrib serve starts with StateDir on a tmpfs"
		fi
		stop_service
		umount "$small" && small=
		STATE=$W/state
	else
		bad "diskfull: a 4 MB tmpfs mounts"
	fi
	start_service || bad "attrib serve starts again on the normal StateDir"
fi

# ---- slurmctld throughput with the service down ----------------------------------------
if wants throughput; then
	# The job ids are the jobs slurmctld accepted, from their output files
	# (-o W/out/%x-%j.out), not sbatch's answers: under Slurm 24.11 on the
	# loaded test machine slurmctld sometimes answers a submission later
	# than MessageTimeout (5 s here); sbatch then reports "Socket timed out"
	# although the job was queued and runs.  Counting sbatch's ids made such
	# a job look like a lost record; a job slurmctld never accepted is its
	# own failure below.
	tp_out() { ls "$W/out/tp-$1-"*.out 2>/dev/null | wc -l; }
	tp_run() { # label: TPJOBS trivial jobs; sets tp_submit, tp_total, tp_ids, tp_timeouts
		local t0 id
		tp_timeouts=0
		t0=$(date +%s.%N)
		for _ in $(seq 1 "$TPJOBS"); do
			submit "tp-$1" -N1 -n1 --wrap true >/dev/null 2>>"$W/sbatch-tp.err" || tp_timeouts=$((tp_timeouts + 1))
		done
		tp_submit=$(since "$t0")
		wait_for 120 sh -c "[ \$(ls '$W/out/tp-$1-'*.out 2>/dev/null | wc -l) -ge $TPJOBS ]"
		tp_ids=()
		for id in $(ls "$W/out/tp-$1-"*.out 2>/dev/null | sed 's/.*-\([0-9]*\)\.out$/\1/'); do tp_ids+=("$id"); done
		wait_for 300 ended "${tp_ids[@]}"
		tp_total=$(since "$t0")
		[ "$tp_timeouts" = 0 ] || echo "# throughput, service $1: $tp_timeouts of $TPJOBS sbatch calls timed out ($(sort -u "$W/sbatch-tp.err" | head -1)); their jobs were queued all the same"
		check "throughput, service $1: slurmctld accepted and ran all $TPJOBS jobs ($(tp_out "$1"))" test "$(tp_out "$1")" = "$TPJOBS"
	}
	records() { local n=0 j; for j in "$@"; do [ -f "$W/spool/jobs/$j.0.json" ] && n=$((n + 1)); done; echo $n; }
	stop_service
	tp_run down
	down_ids=("${tp_ids[@]}")
	down_submit=$tp_submit down_total=$tp_total
	note "throughput, service down: $TPJOBS jobs submitted in $down_submit s, all ended after $down_total s"
	check "throughput: with the service down, all $TPJOBS records wait in the spool" \
		wait_for 60 sh -c "[ \$(ls '$W/spool/jobs' | wc -l) -ge $TPJOBS ]"
	check "throughput: every one of the $TPJOBS jobs has its record ($(records "${down_ids[@]}"))" \
		test "$(records "${down_ids[@]}")" = "$TPJOBS"
	start_service || bad "attrib serve starts again"
	check "throughput: the service consumes the waiting records once back" \
		wait_for 120 sh -c "[ \$(ls '$W/spool/jobs' | wc -l) -eq 0 ]"
	tp_run up
	note "throughput, service up: $TPJOBS jobs submitted in $tp_submit s, all ended after $tp_total s"
	ratio=$(awk -v d="$down_total" -v u="$tp_total" 'BEGIN { printf "%.2f", d / u }')
	sratio=$(awk -v d="$down_submit" -v u="$tp_submit" 'BEGIN { printf "%.2f", d / u }')
	echo "# throughput: down/up = $ratio (end of the last job), $sratio (submission)"
	# (a bound of a few seconds' noise: the two runs last seconds, on a
	# machine whose load changes meanwhile; a slurmctld that waited for the
	# absent service, 1 s a job, would take TPJOBS (40) s more)
	sbound=$(awk -v u="$tp_submit" 'BEGIN { printf "%.0f", 2 * u + 10 }')
	check "throughput: submitting with the service down is as fast (ratio $sratio; $down_submit s <= $sbound s)" \
		awk -v d="$down_submit" -v b="$sbound" 'BEGIN { exit !(d <= b) }'
	# The jobs themselves end later: each node's Epilog (the collector)
	# spends its retry budget, CollectTimeout (3 s), on the absent service
	# before it keeps the bundle in its outbox.  That costs the nodes, not
	# slurmctld, and is bounded: at most CollectTimeout per job on a node.
	bound=$(awk -v u="$tp_total" -v n="$TPJOBS" 'BEGIN { printf "%.0f", u + n * 3 / 3 + 10 }')
	check "throughput: the jobs' end is delayed at most by the Epilog's budget ($down_total s <= $bound s)" \
		awk -v d="$down_total" -v b="$bound" 'BEGIN { exit !(d <= b) }'
fi

finish
