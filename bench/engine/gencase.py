#!/usr/bin/env python3
"""Generate one large, deterministic case directory for the engine benchmark.

    gencase.py --nodes 64 --lines 200000 --days 3 --cause xid79 --out /var/tmp/c64

A case directory of doc/formats.md (job.json, nodes/NODE/<log>, app/slurm-JOB.out)
plus expected.json (the planted cause, for the benchmark's verdict check):

- N nodes x 8 ranks.  Every node log holds L lines of a GPU node's syslog
  noise spread over --days days that end shortly after the job: kernel
  USB/ACPI/audit/perf lines, systemd sessions, sshd, chronyd, slurmd
  prolog/epilog, nvidia-persistenced, mlx5 firmware and "Link up" lines,
  nhc, DCGM, rasdaemon, and benign lines that say "error" or "failed".
  The formats rotate over the nodes: RFC 3339 rsyslog (syslog), RFC 3164
  (messages) and journalctl -o short-iso (journal.log).  A few alarming but
  old events (a Xid 13 of an earlier job, a link flap, an OOM kill) sit days
  before the job, outside its window.
- The application log: NCCL INFO init lines of every rank, rank 0's
  progress lines, then the failure cascade: NCCL WARN lines and PyTorch
  watchdog reports from every rank (thousands of lines for large jobs).
- Exactly one real cause inside the job window, on one node:
  --cause xid79          GPU fallen off the bus (PCIe AER + Xid 79)
  --cause ib-link-down   an InfiniBand port of the node goes down

Scaling: node logs are built from a few seeded templates (one per format
and variant) in which only the host name differs, so generating 1,024
nodes costs little more than writing the bytes.  A line is ~133 bytes on
average: 1,024 nodes x 200k lines is 27.3 GB; check `df -h` first.

Python 3 standard library only; the same arguments give the same bytes.
"""
import argparse
import bisect
import datetime as dt
import json
import os
import random
import sys

UTC = dt.timezone.utc
MON = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec']
FORMATS = [('syslog', 'rfc3339'), ('messages', 'rfc3164'), ('journal.log', 'shortiso')]
PLACEHOLDER = 'gpu-@@@@'      # as wide as every node name (gpu-0001 .. gpu-9999)
PCI = ['18', '2a', '3a', '5d', '9a', 'ab', 'ba', 'db']     # H100 HGX bus ids
HCA = ['0c', '1a', '4b', '5e', '8c', '9c', 'cc', 'dc']
JOB_ID = 4815162


def node_name(i):
    return f'gpu-{i + 1:04d}'


def node_ip(i):
    return f'10.{128 + i // 250}.{(i % 250) // 50}.{10 + i % 50}'


def iso(t, frac=False):
    d = dt.datetime.fromtimestamp(t, UTC)
    return d.strftime('%Y-%m-%dT%H:%M:%S') + (f'.{d.microsecond:06d}' if frac else '') + 'Z'


class Stamper:
    """Line headers of one format, with the minute part cached."""

    def __init__(self, fmt, boot):
        self.fmt, self.boot, self.key, self.pre = fmt, boot, None, ''

    def head(self, t, tag):
        m = int(t // 60)
        if m != self.key:
            d = dt.datetime.fromtimestamp(m * 60, UTC)
            self.key = m
            if self.fmt == 'rfc3164':
                self.pre = f'{MON[d.month - 1]} {d.day:2d} {d:%H:%M}:'
            else:
                self.pre = f'{d:%Y-%m-%dT%H:%M}:'
        s = t - m * 60
        si = int(s)
        if self.fmt == 'rfc3339':
            h = f'{self.pre}{si:02d}.{int((s - si) * 1e6):06d}+00:00 {PLACEHOLDER} {tag}: '
        elif self.fmt == 'shortiso':
            h = f'{self.pre}{si:02d}+0000 {PLACEHOLDER} {tag}: '
        else:
            h = f'{self.pre}{si:02d} {PLACEHOLDER} {tag}: '
        if tag == 'kernel':
            h += f'[{t - self.boot:12.6f}] '
        return h


def noise_pool(rng, n, job_id):
    """n benign (tag, message) pairs, the mix of a GPU node's syslog."""
    pool = []
    sha = 'SHA256:0kQv1pM0cW7GqQmJvZr0qH1yY2bT4Qz3xLkA5sPj8cE'

    def pid():
        return rng.randint(1000, 4194303)

    def other_job():
        return job_id - rng.randint(3, 5000)

    gens = [
        # kernel: USB, ACPI, audit, perf, mlx5, nvidia, network, filesystems
        (6, lambda: ('kernel', f'usb 1-1.{rng.randint(1, 4)}: new high-speed USB device number {rng.randint(2, 60)} using xhci_hcd')),
        (4, lambda: ('kernel', f'usb 1-1.{rng.randint(1, 4)}: USB disconnect, device number {rng.randint(2, 60)}')),
        (2, lambda: ('kernel', 'hid-generic 0003:046B:FF10.%04X: input,hidraw0: USB HID v1.10 Keyboard [American Megatrends Inc. '
                     'Virtual Keyboard and Mouse] on usb-0000:00:14.0-1.3/input0' % rng.randint(1, 40))),
        (2, lambda: ('kernel', 'ACPI Error: AE_NOT_FOUND, During name lookup/catalog (20210730/psobject-220)')),
        (1, lambda: ('kernel', r'ACPI BIOS Error (bug): Could not resolve symbol [\_SB.PC00.PEX0._PRT], AE_NOT_FOUND (20210730/dswload2-162)')),
        (6, lambda: ('kernel', f'audit: type=1400 audit({rng.randint(1700000000, 1800000000)}.{rng.randint(0, 999):03d}:{rng.randint(100, 99999)}): '
                     f'apparmor="DENIED" operation="open" class="file" profile="snap.lxd.daemon" name="/proc/{pid()}/mountinfo" '
                     f'pid={pid()} comm="lxd" requested_mask="r" denied_mask="r" fsuid=0 ouid=0')),
        (5, lambda: ('kernel', f'audit: type=1130 audit({rng.randint(1700000000, 1800000000)}.{rng.randint(0, 999):03d}:{rng.randint(100, 99999)}): '
                     "pid=1 uid=0 auid=4294967295 ses=4294967295 subj=unconfined msg='unit=systemd-tmpfiles-clean comm=\"systemd\" "
                     "exe=\"/usr/lib/systemd/systemd\" hostname=? addr=? terminal=? res=success'")),
        (3, lambda: ('kernel', f'perf: interrupt took too long ({rng.randint(2501, 9000)} > 2500), lowering kernel.perf_event_max_sample_rate to {rng.choice([79750, 63750, 50000, 39750])}')),
        (3, lambda: ('kernel', f'mlx5_core 0000:{rng.choice(HCA)}:00.0: mlx5_cmd_out_err:838:(pid {pid()}): QUERY_VUID(0xb11) op_mod(0x0) failed, '
                     f'status bad parameter(0x3), syndrome (0x{rng.randint(0, 0xffffff):06x}), err(-22)')),
        (3, lambda: ('kernel', f'mlx5_core 0000:{rng.choice(HCA)}:00.0: mlx5_fw_tracer_handle_traces:735:(pid {pid()}): FWTracer: Events were lost')),
        (2, lambda: ('kernel', f'mlx5_core 0000:{rng.choice(HCA)}:00.0: firmware version: 28.39.2048')),
        (1, lambda: ('kernel', f'mlx5_core 0000:{rng.choice(HCA)}:00.0 ibp{rng.randint(12, 220)}s0: Link up')),
        (1, lambda: ('kernel', f'mlx5_core 0000:{rng.choice(HCA)}:00.0: Port module event: module {rng.randint(0, 7)}, Cable plugged')),
        (3, lambda: ('kernel', 'nvidia-peermem nv_get_p2p_free_callback:127 ERROR detected invalid context, skipping further processing')),
        (2, lambda: ('kernel', 'IPv6: ADDRCONF(NETDEV_CHANGE): ib0: link becomes ready')),
        (2, lambda: ('kernel', 'TCP: request_sock_TCP: Possible SYN flooding on port 6818. Sending cookies.  Check SNMP counters.')),
        (1, lambda: ('kernel', 'EXT4-fs (nvme0n1p2): re-mounted. Opts: errors=remount-ro. Quota mode: none.')),
        (1, lambda: ('kernel', 'ipmi_si dmi-ipmi-si.0: Could not set the global enables: 0xcc.')),
        # systemd sessions and units
        (8, lambda: ('systemd-logind[1650]', f'New session {rng.randint(100, 99999)} of user root.')),
        (8, lambda: ('systemd[1]', f'Started Session {rng.randint(100, 99999)} of User root.')),
        (6, lambda: ('systemd-logind[1650]', f'Session {rng.randint(100, 99999)} logged out. Waiting for processes to exit.')),
        (6, lambda: ('systemd-logind[1650]', f'Removed session {rng.randint(100, 99999)}.')),
        (3, lambda: ('systemd[1]', rng.choice(['Starting Cleanup of Temporary Directories...',
                                               'systemd-tmpfiles-clean.service: Deactivated successfully.',
                                               'Starting Daily apt download activities...',
                                               'apt-daily.service: Deactivated successfully.',
                                               'Starting Rotate log files...', 'logrotate.service: Deactivated successfully.',
                                               'Started Run anacron jobs.']))),
        (2, lambda: ('systemd[1]', rng.choice(['fwupd-refresh.service: Main process exited, code=exited, status=1/FAILURE',
                                               "fwupd-refresh.service: Failed with result 'exit-code'.",
                                               'Failed to start Refresh fwupd metadata and update motd.',
                                               'motd-news.service: Failed with result \'exit-code\'.']))),
        (2, lambda: ('systemd-journald[512]', 'Data hash table of /var/log/journal/5f0c8e2a9b1d4e7f8a6b3c2d1e0f9a8b/system.journal '
                     'has a fill level at 75.0 (174762 of 233016 items, 50331648 file size, 287 bytes per hash table item), suggesting rotation.')),
        # sshd
        (8, lambda: (f'sshd[{pid()}]', f'Accepted publickey for root from 10.0.0.{rng.randint(2, 9)} port {rng.randint(30000, 65000)} ssh2: ED25519 {sha}')),
        (6, lambda: (f'sshd[{pid()}]', 'pam_unix(sshd:session): session opened for user root(uid=0) by (uid=0)')),
        (5, lambda: (f'sshd[{pid()}]', f'Received disconnect from 10.0.0.{rng.randint(2, 9)} port {rng.randint(30000, 65000)}:11: disconnected by user')),
        (2, lambda: (f'sshd[{pid()}]', 'error: kex_exchange_identification: Connection closed by remote host')),
        (1, lambda: (f'sshd[{pid()}]', f'Connection closed by 10.0.3.{rng.randint(2, 250)} port {rng.randint(30000, 65000)} [preauth]')),
        # chronyd
        (4, lambda: ('chronyd[1402]', 'Selected source 10.0.0.1 (ntp1.mgmt.internal)')),
        (3, lambda: ('chronyd[1402]', f'System clock wrong by {rng.random() * 0.001:.6f} seconds, adjustment started')),
        (1, lambda: ('chronyd[1402]', 'Source 10.0.0.2 replaced with 10.0.0.3 (ntp2.mgmt.internal)')),
        # slurmd of other jobs
        (5, lambda: ('slurmd[2113]', f'slurmd: launch task StepId={other_job()}.0 request from UID:{rng.randint(1001, 1300)} '
                     f'GID:100 HOST:10.0.0.2 PORT:{rng.randint(30000, 65000)}')),
        (4, lambda: ('slurmd[2113]', f'slurmd: prolog for job {other_job()} ran for {rng.randint(1, 4)} seconds')),
        (4, lambda: ('slurmd[2113]', f'slurmd: epilog for job {other_job()} ran for {rng.randint(1, 9)} seconds')),
        (2, lambda: ('slurmd[2113]', f'slurmd: error: _rpc_terminate_job: JobId={other_job()}: signal the job step: Job/step already completing or completed')),
        (2, lambda: (f'slurmstepd[{pid()}]', f'[{other_job()}.0] done with job')),
        # nvidia, nhc, dcgm, metrics
        (3, lambda: ('nvidia-persistenced[1877]', f'device 0000:{rng.choice(PCI)}:00.0 - persistence mode enabled.')),
        (1, lambda: ('nvidia-persistenced[1877]', 'Verbose syslog connection opened')),
        (5, lambda: (f'CRON[{pid()}]', '(root) CMD (/usr/sbin/nhc >/dev/null 2>&1)')),
        (4, lambda: (f'nhc[{pid()}]', 'Node Health Check completed successfully (1s).')),
        (3, lambda: ('nv-hostengine[1911]', 'DCGM health watch: all 8 GPUs report PASS (memory, nvlink, pcie, thermal)')),
        (3, lambda: ('node_exporter[1733]', 'caller=collector.go:169 level=info msg="collector succeeded" name=nvidia')),
        (1, lambda: ('node_exporter[1733]', 'caller=textfile.go:227 level=error msg="failed to read textfile collector directory" '
                     'path=/var/lib/node_exporter err="open /var/lib/node_exporter: no such file or directory"')),
        (2, lambda: ('rasdaemon[1502]', 'rasdaemon: mc_event: error_count=0 CE on DIMM_B1 (periodic summary)')),
        (1, lambda: ('rsyslogd[998]', "action 'action-8-builtin:omfwd' suspended (module 'builtin:omfwd'), retry 0. There should be messages "
                     'before this one giving the reason for suspension. [v8.2302.0 try https://www.rsyslog.com/e/2007 ]')),
        (1, lambda: ('lldpd[1210]', 'unable to send packet on real device for ib0: No such device or address')),
    ]
    weights = [w for w, _ in gens]
    for g in rng.choices([g for _, g in gens], weights=weights, k=n):
        pool.append(g())
    return pool


class Story:
    """The job: times, nodes, ranks, the planted cause."""

    def __init__(self, a):
        self.nodes = [node_name(i) for i in range(a.nodes)]
        self.gpus = 8
        rng = random.Random(f'{a.seed}:story')
        # the fault, the job around it, the logs around the job
        self.tf = dt.datetime(2026, 11, 29, 14, 7, 31, tzinfo=UTC).timestamp() + 0.418211
        self.start = float(int(self.tf - a.job_hours * 3600 * 0.9))
        self.end = float(int(self.tf + 95))
        self.log_end = self.end + 600
        self.log_start = self.log_end - a.days * 86400
        self.bad = rng.randrange(a.nodes)
        self.bad_gpu = rng.randrange(self.gpus)
        self.cause = a.cause


def node_template(a, st, k):
    """Template k: L lines of one format with PLACEHOLDER for the host name.
    Returns (bytes, fmt, offsets, times): offsets/times of sampled lines
    to splice the cause in at the right place."""
    name, fmt = FORMATS[k % len(FORMATS)]
    rng = random.Random(f'{a.seed}:tpl:{k}')
    boot = st.log_start - rng.randint(3600, 20 * 86400)
    stamp = Stamper(fmt, boot)
    pool = noise_pool(rng, 6000, JOB_ID)
    span = st.log_end - st.log_start
    L = a.lines
    # extra lines: this job's own slurmd lines and a few old, alarming ones
    special = []
    if st.log_start < st.start < st.log_end:
        special.append((st.start + 1.2, 'slurmd[2113]', f'slurmd: launch task StepId={JOB_ID}.0 request from UID:1042 GID:100 '
                        f'HOST:10.0.0.2 PORT:{rng.randint(30000, 65000)}'))
        special.append((st.start + 0.8, 'slurmd[2113]', f'slurmd: prolog for job {JOB_ID} ran for 1 seconds'))
    if st.end + 4 < st.log_end:
        special.append((st.end + 4.1, 'slurmd[2113]', f'slurmd: epilog for job {JOB_ID} ran for 2 seconds'))
    old_until = st.start - 6 * 3600          # well outside the window
    if old_until - st.log_start > 3600:
        w = old_until - st.log_start
        t = st.log_start + w * (0.2 + 0.1 * (k % 3))
        g = rng.randrange(8)
        special.append((t, 'kernel', f"NVRM: Xid (PCI:0000:{PCI[g]}:00): 13, pid={rng.randint(10000, 999999)}, name=python3, "
                        'Graphics SM Warp Exception on (GPC 1, TPC 3, SM 0): Out Of Range Address'))
        t = st.log_start + w * 0.55
        special.append((t, 'kernel', f'mlx5_core 0000:{HCA[k % 8]}:00.0 ibp{12 + k}s0: Link down'))
        special.append((t + 7.3, 'kernel', f'mlx5_core 0000:{HCA[k % 8]}:00.0 ibp{12 + k}s0: Link up'))
        t = st.log_start + w * 0.8
        special.append((t, 'kernel', 'Memory cgroup out of memory: Killed process 184467 (python3) total-vm:412881232kB, '
                        'anon-rss:180227408kB, file-rss:81920kB, shmem-rss:0kB, UID:1077 pgtables:361240kB oom_score_adj:0'))
    special.sort()
    nspecial = len(special)
    n = max(L - nspecial, 0)
    step = span / max(n, 1)
    picks = rng.choices(pool, k=n)
    jit = [rng.random() for _ in range(n)]
    out = []
    offs, times = [], []
    pos = 0
    si = 0
    for i in range(n):
        t = st.log_start + (i + jit[i]) * step
        while si < nspecial and special[si][0] <= t:
            ts, tag, msg = special[si]
            line = stamp.head(ts, tag) + msg + '\n'
            out.append(line)
            pos += len(line)
            si += 1
        tag, msg = picks[i]
        line = stamp.head(t, tag) + msg + '\n'
        if not (i & 1023):
            offs.append(pos)
            times.append(t)
        out.append(line)
        pos += len(line)
    for ts, tag, msg in special[si:]:
        out.append(stamp.head(ts, tag) + msg + '\n')
    return ''.join(out).encode(), fmt, name, stamp, offs, times


def cause_lines(st, stamp, i):
    """The planted cause, as lines of the culprit node's log."""
    tf = st.tf
    g = st.bad_gpu
    out = []

    def L(t, tag, msg):
        out.append(stamp.head(t, tag) + msg + '\n')
    if st.cause == 'xid79':
        dev = f'0000:{PCI[g]}:00.0'
        port = f'0000:{int(PCI[g], 16) - 4:02x}:01.0'
        L(tf - 0.412, 'kernel', f'pcieport {port}: AER: Uncorrected (Fatal) error received: {dev}')
        L(tf - 0.412, 'kernel', f'nvidia {dev}: AER: PCIe Bus Error: severity=Uncorrected (Fatal), type=Transaction Layer, (Receiver ID)')
        L(tf - 0.412, 'kernel', f'nvidia {dev}: AER:   device [10de:2330] error status/mask=00040000/00000000')
        L(tf - 0.412, 'kernel', f'nvidia {dev}: AER:    [18] MalfTLP                (First)')
        L(tf - 0.411, 'kernel', f'pcieport {port}: AER: device recovery failed')
        L(tf, 'kernel', f"NVRM: Xid (PCI:0000:{PCI[g]}:00): 79, pid='<unknown>', name=<unknown>, GPU has fallen off the bus.")
        L(tf, 'kernel', f'NVRM: GPU {dev}: GPU has fallen off the bus.')
        L(tf + 0.01, 'kernel', 'NVRM: A GPU crash dump has been created. If possible, please run')
        L(tf + 0.01, 'kernel', 'NVRM: nvidia-bug-report.sh as root to collect this data before')
        L(tf + 0.01, 'kernel', 'NVRM: the NVIDIA kernel module is unloaded.')
        L(tf + 2.5, 'nvidia-persistenced[1877]', f'Failed to query NVML for device {dev}: GPU is lost')
    else:
        L(tf, 'kernel', f'mlx5_core 0000:{HCA[g]}:00.0 ibp{int(HCA[g], 16)}s0: Link down')
        L(tf + 0.002, 'kernel', f'mlx5_core 0000:{HCA[g]}:00.0: mlx5_ib_event:3142:(pid 0): IB_EVENT_PORT_ERR on device mlx5_{g} port 1')
        L(tf + 0.4, 'kernel', f'ib_srpt: received IB event IB_EVENT_PORT_ERR on device mlx5_{g} port 1')
    return ''.join(out).encode()


def app_log(st):
    """The job's stdout: NCCL init, progress, the failure cascade, srun's summary."""
    rng = random.Random('app')
    N, G = len(st.nodes), st.gpus
    nranks = N * G
    w = len(str(nranks - 1))
    lb = [f'{r:>{w}}: ' for r in range(nranks)]
    pid = [rng.randint(10000, 4194303) for _ in range(nranks)]
    out = [f'+ echo "job {JOB_ID} on {st.nodes[0]}"', f'job {JOB_ID} on {st.nodes[0]}',
           '+ export NCCL_DEBUG=INFO NCCL_IB_HCA=mlx5 NCCL_SOCKET_IFNAME=ib0',
           f'+ srun --label --ntasks-per-node={G} python -u pretrain.py --config configs/llm-70b.yaml']
    A = out.append
    ts = lambda t: dt.datetime.fromtimestamp(t, UTC)
    for r in range(nranks):
        i, g = divmod(r, G)
        h, p, tid = st.nodes[i], pid[r], pid[r] + 63
        A(f'{lb[r]}{h}:{p}:{p} [{g}] NCCL INFO Bootstrap : Using ib0:{node_ip(i)}<0>')
        if g == 0:
            A(f'{lb[r]}{h}:{p}:{p} [{g}] NCCL INFO NET/Plugin: Could not find: libnccl-net.so. Using internal network plugin.')
            A(f'{lb[r]}{h}:{p}:{p} [{g}] NCCL INFO cudaDriverVersion 12040')
        if r == 0:
            A(f'{lb[r]}NCCL version 2.21.5+cuda12.4')
        A(f'{lb[r]}{h}:{p}:{tid} [{g}] NCCL INFO NET/IB : Using ' + ' '.join(f'[{k}]mlx5_{k}:1/IB' for k in range(8)) +
          f' ; OOB ib0:{node_ip(i)}<0>')
        A(f'{lb[r]}{h}:{p}:{tid} [{g}] NCCL INFO comm 0x{0x55d5c8a0000 + r * 0x1f0:x} rank {r} nRanks {nranks} nNodes {N} '
          f'localRanks {G} localRank {g} MNNVL 0')
        A(f'{lb[r]}{h}:{p}:{tid} [{g}] NCCL INFO ncclCommInitRank comm 0x{0x55d5c8a0000 + r * 0x1f0:x} rank {r} nranks {nranks} '
          f'cudaDev {g} nvmlDev {g} busId {PCI[g]}000 commId 0x5f1e02c4d7b3a961 - Init COMPLETE')
    # progress of rank 0 every 30 s until the fault
    t, step, loss = st.start + 240, 0, 2.9
    while t < st.tf - 5:
        step += 15
        loss = max(1.4, loss - rng.random() * 0.002)
        A(f'{lb[0]}[{ts(t):%Y-%m-%d %H:%M:%S}] step {step} | loss {loss:.4f} | lr 3.000e-04 | '
          f'grad_norm {0.2 + rng.random() * 0.3:.3f} | {400 + rng.random() * 8 - 4:.1f} TFLOP/s')
        t += 30
    bad = st.bad
    br = bad * G + st.bad_gpu
    bip = node_ip(bad)

    def glog(t, r):
        d = ts(t)
        return f'[rank{r}]:[E{d.month:02d}{d.day:02d} {d:%H:%M:%S}.{d.microsecond:06d} {pid[r] + 70} ProcessGroupNCCL.cpp:'
    seq = 88213
    pg = lambda r: f'[PG ID 0 PG GUID 0(default_pg) Rank {r}]'
    if st.cause == 'xid79':
        for x in ['Traceback (most recent call last):', '  File "/workspace/pretrain.py", line 402, in <module>',
                  '    train(cfg)', '  File "/workspace/pretrain.py", line 355, in train', '    loss = model(batch).loss',
                  'RuntimeError: CUDA error: unspecified launch failure',
                  'CUDA kernel errors might be asynchronously reported at some other API call, so the stacktrace below might be incorrect.',
                  'For debugging consider passing CUDA_LAUNCH_BLOCKING=1.']:
            A(lb[br] + x)
        for g in range(G):
            r = bad * G + g
            if r != br:
                A(f'{lb[r]}{st.nodes[bad]}:{pid[r]}:{pid[r] + 63} [{g}] enqueue.cc:1556 NCCL WARN Cuda failure \'unspecified launch failure\'')
        last = 'NET/IB : Got completion from peer {ip}<{port}> with status=12 opcode=0 len=0 vendor err 129 (Recv) localGid ::ffff:{me} remoteGids::ffff:{ip} hca mlx5_{g}'
    else:
        for g in range(G):
            r = bad * G + g
            A(f'{lb[r]}{st.nodes[bad]}:{pid[r]}:{pid[r] + 63} [{g}] transport/net_ib.cc:171 NCCL WARN NET/IB : mlx5_{st.bad_gpu}:1 Got async error event: port error')
        last = 'NET/IB : Got completion from peer {ip}<{port}> with status=5 opcode=0 len=0 vendor err 249 (Send) localGid ::ffff:{me} remoteGids::ffff:{ip} hca mlx5_{g}'
    # every peer: completion errors naming the culprit's address, then the watchdog
    for r in range(nranks):
        i, g = divmod(r, G)
        if i == bad:
            continue
        msg = last.format(ip=bip, port=33000 + r % 20000, me=node_ip(i), g=g)
        A('')
        A(f'{lb[r]}{st.nodes[i]}:{pid[r]}:{pid[r] + 63} [{g}] transport/net_ib.cc:2121 NCCL WARN {msg}')
        A(f'{lb[r]}{st.nodes[i]}:{pid[r]}:{pid[r] + 63} [{g}] NCCL INFO transport/net_ib.cc:2270 -> 6')
    for r in range(nranks):
        i, g = divmod(r, G)
        if i == bad:
            continue
        t = st.tf + 30 + (r % 50) * 0.01
        p = glog(t, r)
        msg = last.format(ip=bip, port=33000 + r % 20000, me=node_ip(i), g=g)
        short = 'remote process exited or there was a network error'
        for x in [f'{p}1720] [Rank {r}] Collective WorkNCCL(SeqNum={seq}, OpType=ALLREDUCE, NumelIn=52428800, NumelOut=52428800, '
                  f'Timeout(ms)=600000) raised the following async exception: NCCL error: {short}, NCCL version 2.21.5',
                  'ncclRemoteError: A call failed possibly due to a network error or a remote process exiting prematurely.',
                  'Last error:', msg,
                  f'{p}1785] {pg(r)} Exception (either an error or timeout) detected by watchdog at work: {seq}, '
                  f'last enqueued NCCL work: {seq + 1}, last completed NCCL work: {seq - 1}.',
                  f'{p}1595] {pg(r)} Process group watchdog thread terminated with exception: NCCL error: {short}, NCCL version 2.21.5',
                  "terminate called after throwing an instance of 'c10::DistBackendError'",
                  f'  what():  {pg(r)} Process group watchdog thread terminated with exception: NCCL error: {short}, NCCL version 2.21.5']:
            A(lb[r] + x)
    A(f'srun: error: {st.nodes[bad]}: task {br}: Exited with exit code 1')
    A(f'srun: launch/slurm: _step_signal: Terminating StepId={JOB_ID}.0')
    A(f'slurmstepd: error: *** STEP {JOB_ID}.0 ON {st.nodes[0]} CANCELLED AT {iso(st.end - 3)[:-1]} ***')
    for i, h in enumerate(st.nodes):
        tasks = [r for r in range(i * G, i * G + G) if r != br]
        A(f'srun: error: {h}: tasks {tasks[0]}-{tasks[-1]}: Killed' if i != bad or st.cause != 'xid79'
          else f'srun: error: {h}: tasks ' + ','.join(map(str, tasks)) + ': Killed')
    return ('\n'.join(out) + '\n').encode(), br


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    ap.add_argument('--nodes', type=int, default=64)
    ap.add_argument('--lines', type=int, default=200000, help='lines per node log')
    ap.add_argument('--days', type=float, default=3.0, help='days the node logs span (ending 10 min after the job)')
    ap.add_argument('--job-hours', type=float, default=6.0, help='length of the job')
    ap.add_argument('--cause', choices=['xid79', 'ib-link-down'], default='xid79')
    ap.add_argument('--seed', default='attrib-bench')
    ap.add_argument('--variants', type=int, default=6, help='distinct node-log templates (rotating over the 3 formats)')
    ap.add_argument('--out', required=True)
    a = ap.parse_args()
    if not 1 <= a.nodes <= 9999 or a.lines < 100 or a.days <= 0:
        ap.error('need 1 <= --nodes <= 9999, --lines >= 100, --days > 0')
    st = Story(a)
    if not st.log_start < st.tf < st.log_end:
        ap.error('--days too short to hold the fault')
    os.makedirs(os.path.join(a.out, 'nodes'), exist_ok=True)
    os.makedirs(os.path.join(a.out, 'app'), exist_ok=True)
    app, br = app_log(st)
    with open(os.path.join(a.out, 'app', f'slurm-{JOB_ID}.out'), 'wb') as f:
        f.write(app)
    total = len(app)
    V = max(1, min(a.variants, a.nodes))
    for k in range(V):
        tpl, fmt, fname, stamp, offs, times = node_template(a, st, k)
        ph = PLACEHOLDER.encode()
        for i in range(k, a.nodes, V):
            data = tpl.replace(ph, st.nodes[i].encode())
            if i == st.bad:
                # splice the cause in time order; the header has the node's name already
                j = bisect.bisect_right(times, st.tf)
                off = offs[j - 1] if j else 0   # a sampled line older than the fault
                while off < len(data):          # then line by line to the first one not older
                    nl = data.find(b'\n', off)
                    nl = len(data) if nl < 0 else nl
                    if not line_before(data[off:nl], fmt, st.tf):
                        break
                    off = nl + 1
                cause = cause_lines(st, stamp, i).replace(ph, st.nodes[i].encode())
                data = data[:off] + cause + data[off:]
            d = os.path.join(a.out, 'nodes', st.nodes[i])
            os.makedirs(d, exist_ok=True)
            with open(os.path.join(d, fname), 'wb') as f:
                f.write(data)
            total += len(data)
        del tpl
    job = {
        'schema': 'attrib.job/v1', 'job_id': str(JOB_ID), 'cluster': 'bench', 'user': 'alice', 'partition': 'h100',
        'name': 'llm-70b-pretrain', 'nodes': st.nodes,
        'submit_time': iso(st.start - 1800), 'start_time': iso(st.start), 'end_time': iso(st.end),
        'state': 'FAILED', 'exit_code': '1:0', 'derived_exit_code': '1:0', 'reason': 'NonZeroExitCode',
        'restart_count': 0, 'time_limit': '2-00:00:00', 'log_timezone': 'UTC',
        'transitions': [{'time': iso(st.start - 1800), 'state': 'PENDING', 'reason': 'Priority'},
                        {'time': iso(st.start), 'state': 'RUNNING'},
                        {'time': iso(st.end), 'state': 'FAILED', 'reason': 'NonZeroExitCode'}],
        'ranks': [dict(rank=r, node=st.nodes[r // 8], local_rank=r % 8, gpu=str(r % 8),
                       exit_code=1 if r == br else 0, signal=0 if r == br else 9,
                       exit_time=iso(st.tf + 4) if r == br else iso(st.end - 3)) for r in range(len(st.nodes) * 8)],
    }
    with open(os.path.join(a.out, 'job.json'), 'w') as f:
        json.dump(job, f, indent=1)
        f.write('\n')
    code, sub = ('xid.79', 'InfraHW') if a.cause == 'xid79' else ('net.link_down', 'InfraNet')
    with open(os.path.join(a.out, 'expected.json'), 'w') as f:
        json.dump({'sub_domain': sub, 'root_code': code, 'culprit_nodes': [st.nodes[st.bad]],
                   'fault_time': iso(st.tf, True), 'job_start': st.start, 'job_end': st.end,
                   'log_start': st.log_start, 'log_end': st.log_end, 'nodes': a.nodes, 'lines_per_node': a.lines, 'days': a.days,
                   'bytes': total}, f, indent=1)
        f.write('\n')
    print(f'{a.out}: {a.nodes} nodes x {a.lines} lines over {a.days:g} days, cause {a.cause} on '
          f'{st.nodes[st.bad]}; {total / 1e6:.0f} MB')


def line_before(line, fmt, t):
    """Whether a header-stamped line is older than t (cheap: compares the text)."""
    d = dt.datetime.fromtimestamp(t, UTC)
    s = line.decode('ascii', 'replace')
    if fmt == 'rfc3164':
        key = f'{MON[d.month - 1]} {d.day:2d} {d:%H:%M:%S}'
        return s[:15] < key if s[:3] == key[:3] else True
    return s[:19] < f'{d:%Y-%m-%dT%H:%M:%S}'


if __name__ == '__main__':
    sys.exit(main())
