#!/bin/sh
# One rank of a t/live-pipeline.sh job, started by `srun --label`: prints
# what a PyTorch/NCCL rank would print for the story and exits as it would.
#
#   rank.sh STORY DIR [GOFILE]
#
# STORY: gpu-fault  the first rank on node-02 (or $ATTRIB_FAULT_NODE) appends a
#                   real-format Xid 79 record to that node's fake kernel ring
#                   (DIR/nodes/NODE/kmsg, /dev/kmsg records), prints a CUDA
#                   error and exits 1;
#                   the others lose their NCCL peer a moment later and exit 1
#        user-exception  rank 3 raises KeyError: 'labels'; the others lose
#                   their NCCL peer and exit 1
#        link-down  the first rank on each node of $ATTRIB_LINK_NODES (space
#                   separated) appends the mlx5 driver's real-format "Link down"
#                   of its IB port to that node's fake kernel ring, prints NCCL's
#                   "port error" async event and exits 1; the others lose
#                   their NCCL peer and exit 1 (a leaf switch failing)
#        ok         prints a line, exits 0
#        sleep      sleeps (time limit, cancel, node failure)
#        requeue    sleeps in the job's first attempt, gpu-fault in the next
# GOFILE: wait until this file exists before the story's failure (the test
# uses it to stop the service first).  Each rank touches
# DIR/started/JOBID.RANK (a requeued attempt: JOBID-N.RANK) once it runs.
story=$1 dir=$2 go=${3:-}
rank=${SLURM_PROCID:-0} local=${SLURM_LOCALID:-0} node=${SLURMD_NODENAME:-$(hostname)}
job=${SLURM_JOB_ID:-0}
pid=$$
faulty=${ATTRIB_FAULT_NODE:-node-02}

# requeue: the first attempt sleeps (the test requeues it), the next one is
# a GPU fault
restart=${SLURM_RESTART_COUNT:-0} pci=0000:3b:00
if [ "$story" = requeue ]; then
	if [ "$restart" = 0 ]; then story=sleep; else story=gpu-fault pci=0000:5d:00; fi
fi
mkdir -p "$dir/started" 2>/dev/null
if [ "$restart" = 0 ]; then : >"$dir/started/$job.$rank"; else : >"$dir/started/$job-$restart.$rank"; fi
nccl() { echo "$node:$pid:$((pid + 64)) [$local] $*"; }

# the start of a training run
[ "$rank" = 0 ] && echo "NCCL version 2.21.5+cuda12.4"
nccl "NCCL INFO Bootstrap : Using eth0:10.251.0.1$(echo "$node" | tr -dc 0-9 | tail -c 1)<0>"
nccl "NCCL INFO comm 0x55d5c8a0000 rank $rank nRanks ${SLURM_NTASKS:-1} nNodes ${SLURM_NNODES:-1} localRanks 2 localRank $local MNNVL 0"

if [ -n "$go" ]; then
	while [ ! -e "$go" ]; do sleep 0.2; done
fi

remote_error() { # peer
	sleep 2
	ts=$(date -u '+%m%d %H:%M:%S')
	nccl "misc/socket.cc:50 NCCL WARN socketProgress: Connection closed by remote peer $1<41009>"
	echo "[rank$rank]:[E$ts.000000920 ProcessGroupNCCL.cpp:1720] [Rank $rank] Collective WorkNCCL(SeqNum=1201, OpType=ALLREDUCE, NumelIn=52428800, NumelOut=52428800, Timeout(ms)=600000) raised the following async exception: NCCL error: remote process exited or there was a network error, NCCL version 2.21.5"
	echo "ncclRemoteError: A call failed possibly due to a network error or a remote process exiting prematurely."
	exit 1
}

case $story in
gpu-fault)
	echo "[$(date -u '+%Y-%m-%d %H:%M:%S')] step 120 | loss 2.8964 | lr 3.000e-04"
	sleep 1
	if [ "$node" = "$faulty" ] && [ "$local" = 0 ]; then
		awk -v m="NVRM: Xid (PCI:$pci): 79, pid='<unknown>', name=<unknown>, GPU has fallen off the bus." \
			'{ printf "3,9,%.0f,-;%s\n", $1 * 1000000, m }' /proc/uptime >>"$dir/nodes/$node/kmsg"
		sleep 0.5
		cat <<EOF
Traceback (most recent call last):
  File "/workspace/pretrain.py", line 402, in <module>
    train(cfg)
  File "/workspace/pretrain.py", line 355, in train
    loss = model(batch).loss
RuntimeError: CUDA error: unspecified launch failure
CUDA kernel errors might be asynchronously reported at some other API call, so the stacktrace below might be incorrect.
For debugging consider passing CUDA_LAUNCH_BLOCKING=1.
EOF
		exit 1
	fi
	remote_error "$faulty"
	;;
user-exception)
	sleep 1
	if [ "$rank" = 3 ]; then
		cat <<EOF
[rank3]: Traceback (most recent call last):
[rank3]:   File "/workspace/finetune.py", line 211, in <module>
[rank3]:     main()
[rank3]:   File "/workspace/finetune.py", line 188, in main
[rank3]:     for step, batch in enumerate(loader):
[rank3]:   File "/workspace/data.py", line 77, in collate
[rank3]:     labels = [ex["labels"] for ex in examples]
[rank3]: KeyError: 'labels'
EOF
		exit 1
	fi
	remote_error node-02
	;;
link-down)
	sleep 1
	case " ${ATTRIB_LINK_NODES:-} " in
	*" $node "*)
		if [ "$local" = 0 ]; then
			# mlx5e_update_carrier's netdev_info: "<driver> <pci> <netdev>: Link down"
			awk -v m="mlx5_core 0000:3b:00.0 ibp59s0: Link down" \
				'{ printf "6,9,%.0f,-;%s\n", $1 * 1000000, m }' /proc/uptime >>"$dir/nodes/$node/kmsg"
		fi
		nccl "transport/net_ib.cc:93 NCCL WARN NET/IB : Got async event : port error"
		exit 1
		;;
	esac
	remote_error "${ATTRIB_LINK_NODES%% *}"
	;;
ok)
	echo "rank $rank on $node: done"
	exit 0
	;;
sleep)
	exec sleep 600
	;;
*)
	echo "rank.sh: unknown story $story" >&2
	exit 2
	;;
esac
