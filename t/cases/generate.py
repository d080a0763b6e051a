#!/usr/bin/env python3
"""Generate attrib's own end-to-end cases under t/cases/.

Every case is a case directory of the evidence contract (job.json,
nodes/NODE/*, app/*, optional scheduler/*) plus expected.json, the answer an
experienced administrator would give. The stories, node names, job ids and
log formats are this project's own; the bulk is benign noise drawn from a
seeded PRNG, so running this script again rewrites every file byte for byte:

    python3 t/cases/generate.py          # (re)writes t/cases/*/

Only the generated files are read by the tests (make t/e2e && ./t/e2e).
"""
import datetime as dt
import json
import os
import random
import shutil
from collections import defaultdict
from zoneinfo import ZoneInfo

HERE = os.path.dirname(os.path.abspath(__file__))
UTC = dt.timezone.utc

PCI_H100 = ['18', '2a', '3a', '5d', '9a', 'ab', 'ba', 'db']
PCI_A100 = ['07', '0f', '47', '4e', '87', '90', 'b7', 'bd']
PCI_4GPU = ['17', '65', 'ca', 'e3']
PCI_GB200 = ['0008:01', '0009:01', '0018:01', '0019:01']


def T(s):
    """'2026-11-29T08:12:01Z' (or with fraction) -> aware UTC datetime."""
    return dt.datetime.fromisoformat(s.replace('Z', '+00:00')).astimezone(UTC)


def zulu(t):
    return t.astimezone(UTC).strftime('%Y-%m-%dT%H:%M:%SZ')


def sec(n):
    return dt.timedelta(seconds=n)


MON = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec']
DAY = ['Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat', 'Sun']


class Rank:
    def __init__(self, rank, node, local, gpu_count, pid, host, ip, pci):
        self.rank, self.node, self.local = rank, node, local
        self.gpu = local
        self.pid, self.host, self.ip, self.pci = pid, host, ip, pci
        self.tid = pid + 63 + local
        self.gpu_count = gpu_count


class Case:
    def __init__(self, name, *, job_id, nodes, start, end, state, exit_code, reason,
                 time_limit='12:00:00', tz='UTC', gpus=8, pci=PCI_H100, cluster='lab',
                 user='alice', partition='gpu', jobname='train', submit=None,
                 derived=None, transitions=None, restart_count=0, loghost=None,
                 apphost=None, ipbase='10.40.1.', iface='ib0', node_ip=None,
                 kernel='5.15.0-105-generic', driver='535.161.08'):
        self.name = name
        self.rng = random.Random(name)
        self.job_id = str(job_id)
        self.nodes = nodes
        self.start, self.end = T(start), T(end)
        self.state, self.exit_code, self.reason = state, exit_code, reason
        self.time_limit, self.tz = time_limit, tz
        self.zone = ZoneInfo(tz)
        self.cluster, self.user, self.partition, self.jobname = cluster, user, partition, jobname
        self.submit = T(submit) if submit else self.start - sec(97 + self.rng.randint(0, 3000))
        self.derived = derived or exit_code
        self.transitions = transitions
        self.restart_count = restart_count
        self.loghost = loghost or {n: n for n in nodes}
        self.apphost = apphost or dict(self.loghost)
        self.kernel_version, self.driver = kernel, driver
        self.logs = defaultdict(list)      # node -> [(t, seq, tag, msg)]
        self.seq = 0
        self.app = {}                      # file -> [lines]
        self.sched = []                    # [(t, msg)]
        self.boot = {}
        self.boots = {}
        self.rank_exit = {}                # rank -> (exit_code, signal, time)
        self.ranks_in_json = True
        self.alloc_gpus = None             # the record's gpus (AllocTRES gres/gpu); None: not known
        self.gpus = gpus
        self.pci = pci
        self.iface = iface
        self.ranks = []
        r = 0
        for i, n in enumerate(nodes):
            ip = node_ip[n] if node_ip else f'{ipbase}{11 + i * 3 + self.rng.randint(0, 2)}'
            for g in range(gpus):
                pid = self.rng.randint(20000, 3900000)
                self.ranks.append(Rank(r, n, g, gpus, pid, self.apphost[n], ip, pci[g]))
                r += 1
        self.nranks = r
        self.missing = set()
        self.extra_files = {}
        self.clock = {}                    # node -> seconds its clock is ahead

    # ---- node logs -------------------------------------------------------
    def log(self, node, t, tag, msg):
        self.seq += 1
        self.logs[node].append((t, self.seq, tag, msg))

    def klog(self, node, t, msg):
        self.log(node, t, 'kernel', msg)

    def pci_full(self, g):
        p = self.pci[g]
        return f'{p}:00' if ':' in p else f'0000:{p}:00'

    def pci_dev(self, g):
        return self.pci_full(g) + '.0'

    def bus_id(self, g):
        p = self.pci_full(g)
        dom, bus, dev = p.split(':')
        # NCCL's busIdToInt64: the hex digits of dddd:bb:dd.f as one number
        return '%x' % ((int(dom, 16) << 20) | (int(bus, 16) << 12) | (int(dev, 16) << 4))

    def boot_seq(self, node, t, *, hca_pci='0000:0c:00.0', eth='ens2f0np0'):
        """A node (re)boot: the kernel's boot chatter, benign errors included."""
        self.boot[node] = t
        self.boots.setdefault(node, []).append(t)
        rng = self.rng
        k = lambda dt_, m: self.klog(node, t + sec(dt_), m)
        k(0, f'Linux version {self.kernel_version} (buildd@lcy02-amd64-0{rng.randint(10, 99)}) '
             '(gcc (Ubuntu 11.4.0-1ubuntu1~22.04) 11.4.0, GNU ld (GNU Binutils for Ubuntu) 2.38) '
             '#115-Ubuntu SMP Mon Apr 15 09:52:04 UTC 2024')
        k(0.001, 'Command line: BOOT_IMAGE=/vmlinuz-%s root=UUID=3f1c2a9e-8d2b-4d55-9a61-0b7a1d9f2c11 ro '
                 'iommu=pt pci=realloc=off console=ttyS0,115200n8' % self.kernel_version)
        k(1.204, 'ACPI: Added _OSI(Linux-Dell-Video)')
        k(1.733, r'ACPI BIOS Error (bug): Could not resolve symbol [\_SB.PC00.PEX0._PRT], AE_NOT_FOUND (20210730/dswload2-162)')
        k(1.733, 'ACPI Error: AE_NOT_FOUND, During name lookup/catalog (20210730/psobject-220)')
        k(1.812, r'ACPI Error: Aborting method \_SB.PMI0._GHL due to previous error (AE_NOT_FOUND) (20210730/psparse-529)')
        k(2.950, 'pci 0000:00:14.0: [8086:a1af] type 00 class 0x0c0330')
        k(4.121, 'usb 1-1: new high-speed USB device number 2 using xhci_hcd')
        k(4.302, 'usb 1-1: New USB device found, idVendor=046b, idProduct=ff01, bcdDevice= 1.00')
        k(4.302, 'usb 1-1: New USB device strings: Mfr=1, Product=2, SerialNumber=3')
        k(4.410, 'usb 1-1.3: new high-speed USB device number 3 using xhci_hcd')
        k(4.652, 'hid-generic 0003:046B:FF10.0001: input,hidraw0: USB HID v1.10 Keyboard '
                 '[American Megatrends Inc. Virtual Keyboard and Mouse] on usb-0000:00:14.0-1.3/input0')
        k(6.010, 'EDAC MC0: Giving out device to module skx_edac controller Skylake Socket#0 IMC#0: DEV 0000:3a:0a.0 (INTERRUPT)')
        k(6.011, 'EDAC MC1: Giving out device to module skx_edac controller Skylake Socket#1 IMC#0: DEV 0000:ae:0a.0 (INTERRUPT)')
        k(6.013, 'EDAC skx: ECC is enabled.')
        k(9.884, 'nvidia: loading out-of-tree module taints kernel.')
        k(9.901, 'nvidia-nvlink: Nvlink Core is being initialized, major device number 508')
        k(10.02, f'NVRM: loading NVIDIA UNIX x86_64 Kernel Module  {self.driver}  Tue Mar  5 22:42:15 UTC 2024')
        k(10.31, 'nvidia_uvm: module uses symbols nvUvmInterfaceDisableAccessCntr from proprietary module nvidia, inheriting taint.')
        k(11.40, f'mlx5_core {hca_pci}: firmware version: 28.39.2048')
        k(11.52, f'mlx5_core {hca_pci}: 252.048 Gb/s available PCIe bandwidth (16.0 GT/s PCIe x16 link)')
        k(12.66, f'mlx5_core {hca_pci}: Port module event: module 0, Cable plugged')
        k(12.90, f'mlx5_core {hca_pci}: mlx5_pcie_event:301:(pid 1192): PCIe slot advertised sufficient power (75W).')
        k(14.02, f'mlx5_core 0000:5e:00.0 {eth}: Link up')
        k(15.33, 'IPv6: ADDRCONF(NETDEV_CHANGE): ib0: link becomes ready')
        k(19.75, 'usb 1-1.3: USB disconnect, device number 3')
        self.log(node, t + sec(25.2), 'systemd[1]', 'Started Slurm node daemon.')
        self.log(node, t + sec(26.1), 'rasdaemon[1502]', 'rasdaemon: mc_event: error_count=0 CE on DIMM_A1 (summary since boot)')
        self.log(node, t + sec(31.4), 'nvidia-persistenced[1877]', 'Started (1877)')

    def noise(self, node, t0, t1, n, *, jobs=True):
        """n benign lines spread over [t0, t1) on one node."""
        rng = self.rng
        span = (t1 - t0).total_seconds()
        h = self.loghost[node].split('.')[0]
        for _ in range(n):
            t = t0 + sec(round(rng.random() * span, 6))
            c = rng.randint(0, 13)
            p = rng.randint(1000, 999999)
            if c == 0:
                s = rng.randint(100, 9999)
                self.log(node, t, 'systemd-logind[1650]', f'New session {s} of user root.')
                self.log(node, t + sec(0.01), 'systemd[1]', f'Started Session {s} of User root.')
            elif c == 1:
                self.log(node, t, f'sshd[{p}]', f'Accepted publickey for root from 10.0.0.5 port {rng.randint(30000, 65000)} '
                         'ssh2: ED25519 SHA256:0kQv1pM0cW7GqQmJvZr0qH1yY2bT4Qz3xLkA5sPj8cE')
            elif c == 2:
                self.log(node, t, f'CRON[{p}]', '(root) CMD (/usr/sbin/nhc >/dev/null 2>&1)')
            elif c == 3:
                self.log(node, t, 'chronyd[1402]', 'Selected source 10.0.0.1 (ntp1.mgmt.internal)')
            elif c == 4 and jobs:
                j = int(self.job_id) - rng.randint(3, 900)
                self.log(node, t, 'slurmd[2113]', f'slurmd: launch task StepId={j}.0 request from UID:{rng.randint(1001, 1300)} '
                         f'GID:100 HOST:10.0.0.2 PORT:{rng.randint(30000, 65000)}')
            elif c == 5:
                self.log(node, t, 'systemd[1]', 'Starting Cleanup of Temporary Directories...')
                self.log(node, t + sec(0.2), 'systemd[1]', 'systemd-tmpfiles-clean.service: Deactivated successfully.')
            elif c == 6:
                self.klog(node, t, f'perf: interrupt took too long ({rng.randint(2501, 4000)} > 2500), '
                          'lowering kernel.perf_event_max_sample_rate to 79750')
            elif c == 7:
                self.log(node, t, 'node_exporter[1733]', 'ts=%s caller=collector.go:169 level=info msg="collector succeeded" name=nvidia'
                         % zulu(t))
            elif c == 8:
                self.log(node, t, 'systemd-logind[1650]', f'Session {rng.randint(100, 9999)} logged out. Waiting for processes to exit.')
            elif c == 9:
                self.log(node, t, 'rasdaemon[1502]', 'rasdaemon: mc_event: error_count=0 CE on DIMM_B1 (periodic summary)')
            elif c == 10:
                self.log(node, t, 'nv-hostengine[1911]', 'DCGM health watch: all 8 GPUs report PASS (memory, nvlink, pcie, thermal)')
            elif c == 11:
                self.klog(node, t, 'nvidia-peermem nv_get_p2p_free_callback:127 ERROR detected invalid context, skipping further processing')
            elif c == 12:
                self.log(node, t, 'systemd[1]', 'Starting Daily apt download activities...')
                self.log(node, t + sec(1.3), 'systemd[1]', 'apt-daily.service: Deactivated successfully.')
            else:
                self.log(node, t, 'slurmd[2113]', f'slurmd: epilog for job {int(self.job_id) - rng.randint(3, 900)} ran for 3 seconds')

    def job_slurmd(self, node):
        self.log(node, self.start + sec(1.2), 'slurmd[2113]', f'slurmd: Launching batch job {self.job_id} for UID 1042'
                 if node == self.nodes[0] else f'slurmd: launch task StepId={self.job_id}.0 request from UID:1042 GID:100 '
                 f'HOST:10.0.0.2 PORT:{self.rng.randint(30000, 65000)}')
        self.log(node, self.end + sec(4.1), 'slurmd[2113]', f'slurmd: epilog for job {self.job_id} ran for 2 seconds')

    def standard_node(self, node, *, boot_days=3.2, noise=120, jobs=True, before_h=8):
        b = self.start - dt.timedelta(days=boot_days, seconds=self.rng.randint(0, 20000))
        self.boot_seq(node, b)
        t0 = max(b + sec(60), self.start - dt.timedelta(hours=before_h))
        if len(self.nodes) > 3:
            noise = noise * 3 // 5
        self.noise(node, t0, self.end + sec(1200), noise, jobs=jobs)
        self.job_slurmd(node)

    def fmt_line(self, node, fmt, t, tag, msg, host):
        if fmt == 'rfc3164':
            lt = t.astimezone(self.zone)
            head = f'{MON[lt.month - 1]} {lt.day:2d} {lt:%H:%M:%S} {host} {tag}: '
            if tag == 'kernel':
                b = max((x for x in self.boots.get(node, []) if x <= t), default=t - dt.timedelta(days=2))
                up = (t - b).total_seconds()
                return head + f'[{up:12.6f}] {msg}'
            return head + msg
        if fmt == 'rfc3339':
            lt = t.astimezone(self.zone)
            off = lt.strftime('%z')
            return f'{lt:%Y-%m-%dT%H:%M:%S}.{lt.microsecond:06d}{off[:3]}:{off[3:]} {host} {tag}: {msg}'
        if fmt == 'iso':
            lt = t.astimezone(self.zone)
            return f'{lt:%Y-%m-%dT%H:%M:%S%z} {host} {tag}: {msg}'
        if fmt == 'isoprecise':
            lt = t.astimezone(self.zone)
            return f'{lt:%Y-%m-%dT%H:%M:%S}.{lt.microsecond:06d}{lt:%z} {host} {tag}: {msg}'
        if fmt == 'precise':  # journalctl -o short-precise: short's time with microseconds
            lt = t.astimezone(self.zone)
            return f'{MON[lt.month - 1]} {lt.day:02d} {lt:%H:%M:%S}.{lt.microsecond:06d} {host} {tag}: {msg}'
        if fmt == 'dmesg':
            lt = t.astimezone(self.zone)
            return f'[{DAY[lt.weekday()]} {MON[lt.month - 1]} {lt.day:2d} {lt:%H:%M:%S} {lt.year}] {msg}'
        raise ValueError(fmt)

    def write_node(self, node, files):
        """files: [(name, fmt, which)] with which in 'all', 'kernel', 'nonkernel'."""
        ev = sorted(self.logs[node], key=lambda e: (e[0], e[1]))
        out = {}
        for name, fmt, which, *opt in files:
            lines = []
            for t, _, tag, msg in ev:
                if which == 'kernel' and tag != 'kernel':
                    continue
                if which == 'nonkernel' and tag == 'kernel':
                    continue
                if fmt == 'dmesg' and tag != 'kernel':
                    continue
                lines.append(self.fmt_line(node, fmt, t + sec(self.clock.get(node, 0)), tag, msg, self.loghost[node]))
            eol = '\r\n' if 'crlf' in opt else '\n'
            if 'wrap80' in opt:  # copied from an 80-column terminal: each long line cut into 80-column pieces
                lines = [ln[i:i + 80] for ln in lines for i in range(0, max(len(ln), 1), 80)]
            out[name] = eol.join(lines) + eol
        self.node_files = getattr(self, 'node_files', {})
        self.node_files[node] = out

    # ---- app -------------------------------------------------------------
    def nccl_init(self, ver, *, transport='IB', hcas=8, ranks=None, torch_prefix=None, label=False, file_line=True):
        """NCCL_DEBUG=INFO init lines of every rank (the Bootstrap line maps IP -> node)."""
        out = []
        major = tuple(int(x) for x in ver.split('.')[:2])
        for r in (ranks or self.ranks):
            h, p, g = r.host, r.pid, r.gpu
            pre = f'{r.rank:>{len(str(self.nranks - 1))}}: ' if label else ''
            L = lambda s: out.append(pre + s)
            L(f'{h}:{p}:{p} [{g}] NCCL INFO Bootstrap : Using {self.iface}:{r.ip}<0>')
            if r.local == 0:
                if major < (2, 19):
                    L(f'{h}:{p}:{p} [{g}] NCCL INFO NET/Plugin : No plugin found (libnccl-net.so), using internal implementation')
                else:
                    L(f'{h}:{p}:{p} [{g}] NCCL INFO NET/Plugin: Could not find: libnccl-net.so. Using internal network plugin.')
                L(f'{h}:{p}:{p} [{g}] NCCL INFO cudaDriverVersion 12040')
            if r.rank == 0:
                L(f'NCCL version {ver}+cuda12.4')
            devs = ' '.join(f'[{i}]mlx5_{i}:1/{transport}' for i in range(hcas))
            L(f'{h}:{p}:{r.tid} [{g}] NCCL INFO NET/IB : Using {devs} ; OOB {self.iface}:{r.ip}<0>')
            if r.local == 0:
                L(f'{h}:{p}:{r.tid} [{g}] NCCL INFO Using network IB')
            if major >= (2, 19):
                L(f'{h}:{p}:{r.tid} [{g}] NCCL INFO comm 0x{0x55d5c8a0000 + r.rank * 0x1f0:x} rank {r.rank} nRanks {self.nranks} '
                  f'nNodes {len(self.nodes)} localRanks {self.gpus} localRank {r.local} MNNVL 0')
            if major >= (2, 18):
                fn = 'ncclCommInitRank ' if major >= (2, 21) else ''
                L(f'{h}:{p}:{r.tid} [{g}] NCCL INFO {fn}comm 0x{0x55d5c8a0000 + r.rank * 0x1f0:x} rank {r.rank} nranks {self.nranks} '
                  f'cudaDev {g} nvmlDev {g} busId {self.bus_id(g)} commId 0x5f1e02c4d7b3a961 - Init COMPLETE')
            else:
                L(f'{h}:{p}:{r.tid} [{g}] NCCL INFO comm 0x{0x55d5c8a0000 + r.rank * 0x1f0:x} rank {r.rank} nranks {self.nranks} '
                  f'cudaDev {g} busId {self.bus_id(g)} - Init COMPLETE')
        return out

    def progress(self, t0, t1, every, *, step0=0, stamp='iso', tflops=410.0, label=None, limit=None):
        """rank 0's progress lines from t0 to t1."""
        out, t, step = [], t0, step0
        rng = self.rng
        loss = 2.9 - step0 * 0.00001
        while t < t1:
            step += int(every.total_seconds() // 2)
            loss = max(1.4, loss - rng.random() * 0.01)
            msg = (f'step {step} | loss {loss:.4f} | lr 3.000e-04 | grad_norm {0.2 + rng.random() * 0.3:.3f} | '
                   f'{tflops + rng.random() * 8 - 4:.1f} TFLOP/s')
            if stamp == 'iso':
                msg = f'[{t:%Y-%m-%d %H:%M:%S}] ' + msg
            elif stamp == 'py':
                msg = f'{t:%Y-%m-%d %H:%M:%S},{t.microsecond // 1000:03d} - INFO - train - ' + msg
            if label is not None:
                msg = f'{label}: ' + msg
            out.append(msg)
            t += every
        return out

    def lbl(self, rank):
        return f'{rank:>{len(str(self.nranks - 1))}}: '

    def set_exit(self, rank, code, t, signal=0):
        self.rank_exit[rank] = (code, signal, t)

    def write(self, expected):
        d = os.path.join(HERE, self.name)
        if os.path.isdir(d):
            shutil.rmtree(d)
        os.makedirs(d)
        job = {
            'schema': 'attrib.job/v1',
            'job_id': self.job_id,
            'cluster': self.cluster,
            'user': self.user,
            'partition': self.partition,
            'name': self.jobname,
            'nodes': self.nodes,
            'submit_time': zulu(self.submit),
            'start_time': zulu(self.start),
            'end_time': zulu(self.end),
            'state': self.state,
            'exit_code': self.exit_code,
            'derived_exit_code': self.derived,
            'reason': self.reason,
            'restart_count': self.restart_count,
        }
        if self.time_limit:
            job['time_limit'] = self.time_limit
        if self.alloc_gpus is not None:
            job['gpus'] = self.alloc_gpus
        job['log_timezone'] = self.tz
        job['transitions'] = self.transitions or [
            {'time': zulu(self.submit), 'state': 'PENDING', 'reason': 'Priority'},
            {'time': zulu(self.start), 'state': 'RUNNING'},
            {'time': zulu(self.end), 'state': self.state, 'reason': self.reason},
        ]
        if self.ranks_in_json:
            rl = []
            for r in self.ranks:
                e = {'rank': r.rank, 'node': r.node, 'local_rank': r.local, 'gpu': str(r.gpu)}
                if r.rank in self.rank_exit:
                    code, sig, t = self.rank_exit[r.rank]
                    e.update({'exit_code': code, 'signal': sig})
                    if t is not None:
                        e['exit_time'] = zulu(t)
                rl.append(e)
            job['ranks'] = rl
        else:
            job['ranks'] = []
        with open(os.path.join(d, 'job.json'), 'w') as f:
            json.dump(job, f, indent=1)
            f.write('\n')
        for node, files in getattr(self, 'node_files', {}).items():
            if node in self.missing:
                continue
            nd = os.path.join(d, 'nodes', node)
            os.makedirs(nd, exist_ok=True)
            for name, text in files.items():
                with open(os.path.join(nd, name), 'w', newline='') as f:
                    f.write(text)
        os.makedirs(os.path.join(d, 'app'), exist_ok=True)
        for name, lines in self.app.items():
            with open(os.path.join(d, 'app', name), 'w') as f:
                f.write('\n'.join(lines) + '\n')
        if self.sched:
            os.makedirs(os.path.join(d, 'scheduler'), exist_ok=True)
            with open(os.path.join(d, 'scheduler', 'slurmctld.log'), 'w') as f:
                for t, m in sorted(self.sched, key=lambda x: x[0]):
                    lt = t.astimezone(self.zone)
                    f.write(f'[{lt:%Y-%m-%dT%H:%M:%S}.{lt.microsecond // 1000:03d}] {m}\n')
        exp = dict(expected)
        with open(os.path.join(d, 'expected.json'), 'w') as f:
            json.dump(exp, f, indent=1)
            f.write('\n')

    # ---- scheduler helpers ----------------------------------------------
    def ctld_start(self, nodelist):
        self.sched.append((self.submit, f'_slurm_rpc_submit_batch_job: JobId={self.job_id} InitPrio=10342 usec=912'))
        self.sched.append((self.start, f'sched: Allocate JobId={self.job_id} NodeList={nodelist} #CPUs={len(self.nodes) * 96} '
                           f'Partition={self.partition}'))

    def ctld_other(self, n=40):
        """slurmctld lines about other jobs."""
        rng = self.rng
        span = (self.end - self.start).total_seconds() + 3600
        for _ in range(n):
            t = self.start - sec(1800) + sec(rng.random() * span)
            j = int(self.job_id) + rng.randint(-400, 400)
            if j == int(self.job_id):
                j += 1
            c = rng.randint(0, 3)
            if c == 0:
                self.sched.append((t, f'_job_complete: JobId={j} WEXITSTATUS 0'))
                self.sched.append((t + sec(0.001), f'_job_complete: JobId={j} done'))
            elif c == 1:
                self.sched.append((t, f'_slurm_rpc_submit_batch_job: JobId={j} InitPrio={rng.randint(1000, 20000)} usec={rng.randint(300, 2000)}'))
            elif c == 2:
                self.sched.append((t, f'sched: Allocate JobId={j} NodeList=cpu{rng.randint(1, 300):03d} #CPUs=32 Partition=cpu'))
            else:
                self.sched.append((t, f'_job_complete: JobId={j} WEXITSTATUS 1'))
                self.sched.append((t + sec(0.001), f'_job_complete: JobId={j} done'))


# ---------------------------------------------------------------------------
# application-output building blocks

def torch_watchdog_timeout(ver, rank, seq, t, timeout_ms=600000, op='ALLREDUCE', numel=52428800):
    """The c10d watchdog's collective-timeout report, as each PyTorch version words it."""
    ran = timeout_ms + 37 + rank * 3
    g = f'{t.month:02d}{t.day:02d} {t:%H:%M:%S}.{t.microsecond:06d}{rank % 10}{rank % 7}{rank % 3}'
    if ver == '1.13':
        w = f'[Rank {rank}] Watchdog caught collective operation timeout: WorkNCCL(SeqNum={seq}, OpType={op}, Timeout(ms)={timeout_ms}) ran for {ran} milliseconds before timing out.'
        return [f'[E ProcessGroupNCCL.cpp:821] {w}',
                '[E ProcessGroupNCCL.cpp:456] Some NCCL operations have failed or timed out. Due to the asynchronous nature of CUDA kernels, subsequent GPU operations might run on corrupted/incomplete data.',
                '[E ProcessGroupNCCL.cpp:461] To avoid data inconsistency, we are taking the entire process down.',
                "terminate called after throwing an instance of 'std::runtime_error'",
                f'  what():  {w}']
    if ver in ('2.0', '2.1'):
        w = (f'[Rank {rank}] Watchdog caught collective operation timeout: WorkNCCL(SeqNum={seq}, OpType={op}, NumelIn={numel}, '
             f'NumelOut={numel}, Timeout(ms)={timeout_ms}) ran for {ran} milliseconds before timing out.')
        return [f'[E ProcessGroupNCCL.cpp:475] {w}',
                '[E ProcessGroupNCCL.cpp:489] Some NCCL operations have failed or timed out. Due to the asynchronous nature of CUDA kernels, subsequent GPU operations might run on corrupted/incomplete data.',
                '[E ProcessGroupNCCL.cpp:495] To avoid data inconsistency, we are taking the entire process down.',
                f'[E ProcessGroupNCCL.cpp:916] [Rank {rank}] NCCL watchdog thread terminated with exception: {w}',
                "terminate called after throwing an instance of 'std::runtime_error'",
                f'  what():  [Rank {rank}] NCCL watchdog thread terminated with exception: {w}']
    if ver == '2.2':
        w = (f'[Rank {rank}] Watchdog caught collective operation timeout: WorkNCCL(SeqNum={seq}, OpType={op}, NumelIn={numel}, '
             f'NumelOut={numel}, Timeout(ms)={timeout_ms}) ran for {ran} milliseconds before timing out.')
        p = f'[rank{rank}]:'
        return [f'{p}[E ProcessGroupNCCL.cpp:523] {w}',
                f'{p}[E ProcessGroupNCCL.cpp:537] Some NCCL operations have failed or timed out. Due to the asynchronous nature of CUDA kernels, subsequent GPU operations might run on corrupted/incomplete data.',
                f'{p}[E ProcessGroupNCCL.cpp:543] To avoid data inconsistency, we are taking the entire process down.',
                f'{p}[E ProcessGroupNCCL.cpp:1182] [Rank {rank}] NCCL watchdog thread terminated with exception: {w}',
                "terminate called after throwing an instance of 'c10::DistBackendError'",
                f'  what():  [Rank {rank}] NCCL watchdog thread terminated with exception: {w}']
    # 2.3 .. 2.5: glog time in the prefix, PG naming changes
    pg = '[PG 0 (default_pg) Rank %d]' % rank if ver in ('2.3', '2.4') else '[PG ID 0 PG GUID 0(default_pg) Rank %d]' % rank
    w = (f'[Rank {rank}] Watchdog caught collective operation timeout: WorkNCCL(SeqNum={seq}, OpType={op}, NumelIn={numel}, '
         f'NumelOut={numel}, Timeout(ms)={timeout_ms}) ran for {ran} milliseconds before timing out.')
    p = f'[rank{rank}]:[E{g} ProcessGroupNCCL.cpp:'
    return [f'{p}{"607" if ver == "2.3" else "616" if ver == "2.4" else "632"}] {w}',
            f'{p}1664] {pg} Exception (either an error or timeout) detected by watchdog at work: {seq}, last enqueued NCCL work: {seq + 1}, last completed NCCL work: {seq - 1}.',
            f'{p}630] [Rank {rank}] Some NCCL operations have failed or timed out. Due to the asynchronous nature of CUDA kernels, subsequent GPU operations might run on corrupted/incomplete data.',
            f'{p}636] [Rank {rank}] To avoid data inconsistency, we are taking the entire process down.',
            f'{p}1515] {pg} Process group watchdog thread terminated with exception: {w}',
            "terminate called after throwing an instance of 'c10::DistBackendError'",
            f'  what():  {pg} Process group watchdog thread terminated with exception: {w}',
            'Exception raised from checkTimeout at /opt/pytorch/pytorch/torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:618 (most recent call first):']


def torch_nccl_error(ver, rank, seq, t, err, nccl_ver, last_error=None, op='ALLREDUCE', numel=52428800):
    """The c10d watchdog's report of an async NCCL error (remote/system/cuda)."""
    kinds = {
        'remote': ('remote process exited or there was a network error',
                   'ncclRemoteError: A call failed possibly due to a network error or a remote process exiting prematurely.'),
        'system': ('unhandled system error (run with NCCL_DEBUG=INFO for details)',
                   'ncclSystemError: System call (e.g. socket, malloc) or external library call failed or device error. '),
        'cuda': ('unhandled cuda error (run with NCCL_DEBUG=INFO for details)',
                 'ncclUnhandledCudaError: Call to CUDA function failed.'),
    }
    short, long_ = kinds[err]
    g = f'{t.month:02d}{t.day:02d} {t:%H:%M:%S}.{t.microsecond:06d}{rank % 10}{rank % 7}{rank % 3}'
    out = []
    if ver == '1.13':
        out += ['Traceback (most recent call last):',
                '  File "/workspace/train.py", line 311, in <module>',
                '    main()',
                '  File "/workspace/train.py", line 274, in main',
                '    loss.backward()',
                '  File "/usr/local/lib/python3.8/dist-packages/torch/_tensor.py", line 487, in backward',
                '    torch.autograd.backward(',
                f'RuntimeError: NCCL error in: ../torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:1269, {short.split(" (")[0]}, NCCL version {nccl_ver}',
                long_]
        if last_error:
            out += ['Last error:', last_error]
        return out
    if ver in ('2.0', '2.1', '2.2'):
        p = f'[rank{rank}]:' if ver == '2.2' else ''
        out += [f'{p}[E ProcessGroupNCCL.cpp:916] [Rank {rank}] NCCL watchdog thread terminated with exception: NCCL error: {short}, NCCL version {nccl_ver}',
                long_]
        if last_error:
            out += ['Last error:', last_error]
        out += ["terminate called after throwing an instance of 'std::runtime_error'",
                f'  what():  [Rank {rank}] NCCL watchdog thread terminated with exception: NCCL error: {short}, NCCL version {nccl_ver}']
        return out
    pg = '[PG 0 (default_pg) Rank %d]' % rank if ver in ('2.3', '2.4') else '[PG ID 0 PG GUID 0(default_pg) Rank %d]' % rank
    p = f'[rank{rank}]:[E{g} ProcessGroupNCCL.cpp:'
    out += [f'{p}1720] [Rank {rank}] Collective WorkNCCL(SeqNum={seq}, OpType={op}, NumelIn={numel}, NumelOut={numel}, Timeout(ms)=600000) '
            f'raised the following async exception: NCCL error: {short}, NCCL version {nccl_ver}', long_]
    if last_error:
        out += ['Last error:', last_error]
    out += [f'{p}1785] {pg} Exception (either an error or timeout) detected by watchdog at work: {seq}, last enqueued NCCL work: {seq + 1}, last completed NCCL work: {seq - 1}.',
            f'{p}1595] {pg} Process group watchdog thread terminated with exception: NCCL error: {short}, NCCL version {nccl_ver}',
            "terminate called after throwing an instance of 'c10::DistBackendError'",
            f'  what():  {pg} Process group watchdog thread terminated with exception: NCCL error: {short}, NCCL version {nccl_ver}']
    return out


def nccl_warn(r, msg, where=None, blank=True):
    """A NCCL WARN line of rank r (NCCL prints an empty line before each WARN)."""
    w = f'{where} ' if where else ''
    return ([''] if blank else []) + [f'{r.host}:{r.pid}:{r.tid} [{r.gpu}] {w}NCCL WARN {msg}']


def child_failed(script, t, host, rank, local, pid, exitcode=1, others=()):
    out = ['Traceback (most recent call last):',
           '  File "/usr/local/bin/torchrun", line 8, in <module>',
           '    sys.exit(main())',
           '  File "/usr/local/lib/python3.10/dist-packages/torch/distributed/elastic/multiprocessing/errors/__init__.py", line 348, in wrapper',
           '    return f(*args, **kwargs)',
           '  File "/usr/local/lib/python3.10/dist-packages/torch/distributed/launcher/api.py", line 263, in launch_agent',
           '    raise ChildFailedError(',
           'torch.distributed.elastic.multiprocessing.errors.ChildFailedError: ',
           '============================================================',
           f'{script} FAILED',
           '------------------------------------------------------------',
           'Failures:']
    if not others:
        out.append('  <NO_OTHER_FAILURES>')
    for i, (ot, orank, olocal, opid, oexit) in enumerate(others, 1):
        out += [f'[{i}]:', f'  time      : {ot:%Y-%m-%d_%H:%M:%S}', f'  host      : {host}',
                f'  rank      : {orank} (local_rank: {olocal})', f'  exitcode  : {oexit} (pid: {opid})',
                '  error_file: <N/A>', '  traceback : To enable traceback see: https://pytorch.org/docs/stable/elastic/errors.html']
    out += ['------------------------------------------------------------',
            'Root Cause (first observed failure):', '[0]:',
            f'  time      : {t:%Y-%m-%d_%H:%M:%S}', f'  host      : {host}',
            f'  rank      : {rank} (local_rank: {local})', f'  exitcode  : {exitcode} (pid: {pid})',
            '  error_file: <N/A>', '  traceback : To enable traceback see: https://pytorch.org/docs/stable/elastic/errors.html',
            '============================================================']
    return out


def script_banner(c, extra=()):
    out = [f'+ export NCCL_DEBUG=INFO', f'+ echo "job {c.job_id} on {c.nodes[0]}"', f'job {c.job_id} on {c.nodes[0]}']
    out += list(extra)
    return out


def hostlist(nodes):
    return ','.join(nodes)


# ---------------------------------------------------------------------------
# the cases

def case_xid79_aer_fqdn():
    """Xid 79 with PCIe AER first; job.json short names, logs and NCCL use FQDNs; srun --label."""
    nodes = ['n041', 'n042', 'n043', 'n044']
    c = Case('xid79-aer-fqdn', job_id=731204, nodes=nodes, start='2026-03-14T02:10:07Z', end='2026-03-14T05:47:52Z',
             state='FAILED', exit_code='1:0', reason='NonZeroExitCode', time_limit='2-00:00:00', cluster='orca',
             user='mkowalski', partition='h100', jobname='moe-8x7b-pt',
             loghost={n: f'{n}.cluster.example.org' for n in nodes}, ipbase='10.128.4.')
    for n in nodes:
        c.standard_node(n, noise=77)
    bad = c.ranks[11]                                     # n042, local 3
    tf = T('2026-03-14T05:46:40.418211Z')
    port = '0000:59:01.0'
    c.klog('n042', tf - sec(0.412), f'pcieport {port}: AER: Uncorrected (Fatal) error received: {c.pci_dev(3)}')
    c.klog('n042', tf - sec(0.412), f'nvidia {c.pci_dev(3)}: AER: PCIe Bus Error: severity=Uncorrected (Fatal), type=Transaction Layer, (Receiver ID)')
    c.klog('n042', tf - sec(0.412), f'nvidia {c.pci_dev(3)}: AER:   device [10de:2330] error status/mask=00040000/00000000')
    c.klog('n042', tf - sec(0.412), f'nvidia {c.pci_dev(3)}: AER:    [18] MalfTLP                (First)')
    c.klog('n042', tf - sec(0.411), f'pcieport {port}: AER: device recovery failed')
    c.klog('n042', tf, f"NVRM: Xid (PCI:{c.pci_full(3)}): 79, pid='<unknown>', name=<unknown>, GPU has fallen off the bus.")
    c.klog('n042', tf, f'NVRM: GPU {c.pci_dev(3)}: GPU has fallen off the bus.')
    c.klog('n042', tf + sec(0.01), f'NVRM: GPU at PCI:{c.pci_full(3)}: GPU-7c1d2e0a-55b1-9c3e-2a41-0f5d93e1b6a7')
    c.klog('n042', tf + sec(0.01), 'NVRM: A GPU crash dump has been created. If possible, please run')
    c.klog('n042', tf + sec(0.01), 'NVRM: nvidia-bug-report.sh as root to collect this data before')
    c.klog('n042', tf + sec(0.01), 'NVRM: the NVIDIA kernel module is unloaded.')
    c.log('n042', tf + sec(2.5), 'nvidia-persistenced[1877]', f'Failed to query NVML for device {c.pci_dev(3)}: GPU is lost')
    for n in nodes:
        c.write_node(n, [('messages', 'rfc3164', 'all')])
    app = script_banner(c, ['+ srun --label --ntasks-per-node=8 python -u pretrain.py --config configs/moe-8x7b.yaml'])
    app += c.nccl_init('2.18.6', label=True)
    app += ['0: ' + x for x in c.progress(c.start + sec(180), tf - sec(20), dt.timedelta(minutes=4), stamp='iso', tflops=388)]
    lb = c.lbl
    app += [lb(11) + 'Traceback (most recent call last):',
            lb(11) + '  File "/workspace/pretrain.py", line 402, in <module>',
            lb(11) + '    train(cfg)',
            lb(11) + '  File "/workspace/pretrain.py", line 355, in train',
            lb(11) + '    loss = model(batch).loss',
            lb(11) + '  File "/usr/local/lib/python3.10/dist-packages/torch/nn/modules/module.py", line 1518, in _wrapped_call_impl',
            lb(11) + '    return self._call_impl(*args, **kwargs)',
            lb(11) + 'RuntimeError: CUDA error: unspecified launch failure',
            lb(11) + 'CUDA kernel errors might be asynchronously reported at some other API call, so the stacktrace below might be incorrect.',
            lb(11) + 'For debugging consider passing CUDA_LAUNCH_BLOCKING=1.',
            lb(11) + 'Compile with `TORCH_USE_CUDA_DSA` to enable device-side assertions.']
    for r in c.ranks[8:16]:
        if r.rank == 11:
            continue
        app += [lb(r.rank) + x for x in nccl_warn(r, "Cuda failure 'unspecified launch failure'", 'enqueue.cc:1556', blank=False)]
    peers = [r for r in c.ranks if r.node != 'n042']
    for r in peers[::3]:
        app += [lb(r.rank) + x for x in nccl_warn(r, f'NET/IB : Got completion from peer {bad.ip}<{40000 + r.rank}> with error 12, opcode 0, len 0, vendor err 129 (Recv) localGid ::ffff:{r.ip} remoteGid ::ffff:{bad.ip}', 'transport/net_ib.cc:1295', blank=False)]
    for r in peers[::5]:
        app += [lb(r.rank) + x for x in torch_nccl_error('2.1', r.rank, 88213, tf + sec(30), 'remote', '2.18.6',
                                                         f'NET/IB : Got completion from peer {bad.ip}<{40000 + r.rank}> with error 12, opcode 0, len 0, vendor err 129 (Recv)')]
    app += [f'srun: error: n042: task 11: Exited with exit code 1',
            'srun: launch/slurm: _step_signal: Terminating StepId=731204.0',
            'slurmstepd: error: *** STEP 731204.0 ON n041 CANCELLED AT 2026-03-14T05:47:49 ***',
            'srun: error: n041: tasks 0-7: Killed', 'srun: error: n043: tasks 16-23: Killed',
            'srun: error: n044: tasks 24-31: Killed', 'srun: error: n042: tasks 8-10,12-15: Killed']
    c.app['slurm-731204.out'] = app
    c.set_exit(11, 1, tf + sec(4))
    for r in c.ranks:
        if r.rank != 11:
            c.set_exit(r.rank, 0, T('2026-03-14T05:47:49Z'), 9)
    c.write({'confidence': 'high', 'sub_domain': ['InfraHW'], 'culprit_nodes': ['n042'], 'drain_ok': ['n042'], 'root_code': 'xid.79',
             'evidence_contains': 'fallen off the bus',
             'why': 'GPU 0000:5d:00 on n042 fell off the bus (Xid 79, preceded by a fatal PCIe AER on its root port); '
                    'rank 11 died with unspecified launch failure and every other rank only saw the NCCL fallout.'})


def case_xid79_dmesg_crlf():
    """Xid 79 without AER, older driver wording, dmesg -T files, culprit's file with CRLF, torch 1.13 / NCCL 2.14, torchrun."""
    nodes = ['gpu15', 'gpu16', 'gpu17']
    c = Case('xid79-dmesg-crlf', job_id=58812, nodes=nodes, start='2026-01-20T19:02:44Z', end='2026-01-20T23:31:09Z',
             state='FAILED', exit_code='1:0', reason='NonZeroExitCode', time_limit='1-00:00:00', gpus=4, pci=PCI_4GPU,
             cluster='ml-lab', user='jdoe', partition='a100', jobname='vit-l-finetune', ipbase='192.168.50.',
             driver='470.223.02', kernel='5.4.0-169-generic')
    for n in nodes:
        c.standard_node(n, noise=105)
    tf = T('2026-01-20T23:00:12Z')
    c.klog('gpu17', tf, f'NVRM: Xid (PCI:{c.pci_full(2)}): 79, pid=0, GPU has fallen off the bus.')
    c.klog('gpu17', tf, 'NVRM: GPU has fallen off the bus.')
    c.klog('gpu17', tf + sec(0.02), f'NVRM: GPU at PCI:{c.pci_full(2)}: GPU-1e0f2a77-98cc-4b5e-a1d2-66c0e3d3f7b2')
    c.klog('gpu17', tf + sec(0.02), 'NVRM: A GPU crash dump has been created. If possible, please run')
    c.klog('gpu17', tf + sec(0.02), 'NVRM: nvidia-bug-report.sh as root to collect this data before')
    c.klog('gpu17', tf + sec(0.02), 'NVRM: the NVIDIA kernel module is unloaded.')
    for n in nodes:
        c.write_node(n, [('dmesg-T.txt', 'dmesg', 'kernel', 'crlf') if n == 'gpu17' else ('dmesg-T.txt', 'dmesg', 'kernel')])
    bad = c.ranks[10]
    app = script_banner(c, ['+ srun torchrun --nnodes=3 --nproc_per_node=4 --rdzv_backend=c10d --rdzv_endpoint=gpu15:29500 finetune.py'])
    app += ['WARNING:torch.distributed.run:', '*****************************************',
            'Setting OMP_NUM_THREADS environment variable for each process to be 1 in default, to avoid your system being overloaded, please further tune the variable for optimal performance in your application as needed. ',
            '*****************************************'] * 3
    app += c.nccl_init('2.14.3')
    app += c.progress(c.start + sec(300), tf - sec(60), dt.timedelta(minutes=5), stamp='py', tflops=142)
    app += ['Traceback (most recent call last):',
            '  File "/home/jdoe/vit/finetune.py", line 188, in <module>',
            '    main(args)',
            '  File "/home/jdoe/vit/finetune.py", line 151, in main',
            '    scaler.scale(loss).backward()',
            'RuntimeError: CUDA error: unspecified launch failure',
            'CUDA kernel errors might be asynchronously reported at some other API call,so the stacktrace below might be incorrect.',
            'For debugging consider passing CUDA_LAUNCH_BLOCKING=1.']
    for r in c.ranks:
        if r.node != 'gpu17':
            wd = torch_watchdog_timeout('1.13', r.rank, 40211, tf + sec(1800), timeout_ms=1800000)
            app += wd if r.rank % 4 == 0 else wd[:1]
            app += [f'RuntimeError: NCCL communicator was aborted on rank {r.rank}.  Original reason for failure was: '
                    + wd[-1].split('what():  ')[1]]
    app += ['ERROR:torch.distributed.elastic.multiprocessing.api:failed (exitcode: 1) local_rank: 2 (pid: %d) of binary: /usr/bin/python3' % bad.pid]
    app += child_failed('finetune.py', tf + sec(2), 'gpu17', 10, 2, bad.pid)
    app += ['srun: error: gpu17: task 2: Exited with exit code 1',
            'ERROR:torch.distributed.elastic.multiprocessing.api:failed (exitcode: -6) local_rank: 0 (pid: %d) of binary: /usr/bin/python3' % c.ranks[0].pid,
            'srun: error: gpu15: task 0: Exited with exit code 1', 'srun: error: gpu16: task 1: Exited with exit code 1']
    c.app['slurm-58812.out'] = app
    c.write({'sub_domain': ['InfraHW'], 'culprit_nodes': ['gpu17'], 'drain_ok': ['gpu17'], 'root_code': 'xid.79',
             'evidence_contains': 'GPU has fallen off the bus',
             'why': 'gpu17 dmesg shows Xid 79 (GPU 0000:ca:00 fell off the bus) right before its rank died with unspecified '
                    'launch failure; the other ranks then hit the 30-minute NCCL watchdog.'})


def case_xid48_64_journal():
    """Xid 48 DBE then Xid 64 remap failure; journalctl short-iso-precise; DGX naming; torch 2.2 / NCCL 2.19."""
    nodes = ['dgx-a100-001', 'dgx-a100-002', 'dgx-a100-003', 'dgx-a100-004']
    c = Case('xid48-64-journal', job_id=1200417, nodes=nodes, start='2026-06-02T11:00:31Z', end='2026-06-02T14:12:58Z',
             state='FAILED', exit_code='1:0', reason='NonZeroExitCode', time_limit='06:00:00', pci=PCI_A100,
             cluster='selene-lab', user='rpatel', partition='dgx', jobname='gpt-13b', ipbase='172.16.8.')
    for n in nodes:
        c.standard_node(n, noise=84)
    tf = T('2026-06-02T14:11:03.551902Z')
    p = c.pci_full(6)
    c.klog('dgx-a100-003', tf, f'NVRM: Xid (PCI:{p}): 48, pid=\'<unknown>\', name=<unknown>, An uncorrectable double bit error (DBE) has been detected on GPU in the framebuffer at partition 3, subpartition 1.')
    c.klog('dgx-a100-003', tf + sec(0.004), f"NVRM: Xid (PCI:{p}): 64, pid='<unknown>', name=<unknown>, Failed to persist row remap information: (0x00000000000a71c0)")
    c.klog('dgx-a100-003', tf + sec(0.2), f'NVRM: Xid (PCI:{p}): 45, pid={c.ranks[22].pid}, name=python, Ch 00000008')
    for n in nodes:
        c.write_node(n, [('journal.txt', 'isoprecise', 'all')])
    app = script_banner(c, ['+ srun --ntasks-per-node=1 torchrun --nproc-per-node=8 train_gpt.py'])
    app += c.nccl_init('2.19.3')
    app += c.progress(c.start + sec(240), tf - sec(30), dt.timedelta(minutes=3), stamp='iso', tflops=151)
    bad = c.ranks[22]
    app += [f'[rank22]: Traceback (most recent call last):',
            f'[rank22]:   File "/opt/megatron/pretrain_gpt.py", line 221, in <module>',
            f'[rank22]:     pretrain(train_valid_test_datasets_provider, model_provider, ModelType.encoder_or_decoder, forward_step)',
            f'[rank22]:   File "/opt/megatron/megatron/training/training.py", line 312, in pretrain',
            f'[rank22]:     iteration, num_floating_point_operations_so_far = train(',
            f'[rank22]: RuntimeError: CUDA error: uncorrectable ECC error encountered',
            f'[rank22]: CUDA kernel errors might be asynchronously reported at some other API call, so the stacktrace below might be incorrect.']
    for r in c.ranks:
        if r.node == 'dgx-a100-003' and r.rank != 22:
            app += nccl_warn(r, "Cuda failure 'uncorrectable ECC error encountered'", 'enqueue.cc:1123')
    for r in c.ranks[::4]:
        if r.node != 'dgx-a100-003':
            app += torch_nccl_error('2.2', r.rank, 61190, tf + sec(20), 'remote', '2.19.3')
    app += child_failed('train_gpt.py', tf + sec(3), 'dgx-a100-003', 22, 6, bad.pid)
    app += ['srun: error: dgx-a100-003: task 2: Exited with exit code 1',
            'srun: Job step aborted: Waiting up to 32 seconds for job step to finish.',
            'slurmstepd: error: *** STEP 1200417.0 ON dgx-a100-001 CANCELLED AT 2026-06-02T14:12:50 ***',
            'srun: error: dgx-a100-001: task 0: Terminated', 'srun: error: dgx-a100-002: task 1: Terminated',
            'srun: error: dgx-a100-004: task 3: Terminated']
    c.app['slurm-1200417.out'] = app
    c.write({'confidence': 'high', 'sub_domain': ['InfraHW'], 'culprit_nodes': ['dgx-a100-003'], 'drain_ok': ['dgx-a100-003'], 'root_code': 'xid.48',
             'evidence_contains': 'double bit error',
             'why': 'GPU 0000:b7:00 on dgx-a100-003 reported an uncorrectable DBE (Xid 48) and then failed to persist the row '
                    'remap (Xid 64); rank 22 died with an uncorrectable ECC error and the rest is NCCL fallout.'})


def case_xid63_info_user():
    """Xid 63 (row remap pending, informational) early on one node; the job dies of a user ValueError on another."""
    nodes = ['dgx-a100-011', 'dgx-a100-012']
    c = Case('xid63-info-usercode', job_id=1200533, nodes=nodes, start='2026-06-03T08:30:00Z', end='2026-06-03T09:51:27Z',
             state='FAILED', exit_code='1:0', reason='NonZeroExitCode', time_limit='04:00:00', pci=PCI_A100,
             cluster='selene-lab', user='lnguyen', partition='dgx', jobname='rlhf-ppo', ipbase='172.16.9.')
    for n in nodes:
        c.standard_node(n, noise=98)
    t63 = T('2026-06-03T08:52:19.100334Z')
    c.klog('dgx-a100-011', t63, f"NVRM: Xid (PCI:{c.pci_full(4)}): 63, pid='<unknown>', name=<unknown>, Row Remapper: New row (0x0000000000d2a180) is marked for remapping, reset gpu to activate.")
    for n in nodes:
        c.write_node(n, [('syslog', 'rfc3339', 'all')])
    tf = T('2026-06-03T09:40:51Z')
    app = script_banner(c) + c.nccl_init('2.20.5')
    app += c.progress(c.start + sec(120), tf, dt.timedelta(minutes=2), stamp='iso', tflops=97)
    app += ['[rank12]: Traceback (most recent call last):',
            '[rank12]:   File "/workspace/rlhf/ppo_trainer.py", line 640, in <module>',
            '[rank12]:     trainer.fit()',
            '[rank12]:   File "/workspace/rlhf/ppo_trainer.py", line 517, in fit',
            '[rank12]:     rewards = self.reward_fn(samples)',
            '[rank12]:   File "/workspace/rlhf/reward.py", line 88, in reward_fn',
            '[rank12]:     raise ValueError(f"reward model returned {len(scores)} scores for {len(samples)} samples")',
            '[rank12]: ValueError: reward model returned 31 scores for 32 samples']
    for r in c.ranks:
        if r.rank != 12:
            app += torch_watchdog_timeout('2.3', r.rank, 20417, tf + sec(600))[:2]
    app += child_failed('ppo_trainer.py', tf, 'dgx-a100-012', 12, 4, c.ranks[12].pid)
    app += ['srun: error: dgx-a100-012: task 1: Exited with exit code 1', 'srun: error: dgx-a100-011: task 0: Exited with exit code 1']
    c.app['slurm-1200533.out'] = app
    c.write({'sub_domain': ['UserCode'], 'culprit_nodes': [], 'drain_ok': [],
             'evidence_contains': 'ValueError',
             'why': 'Rank 12 raised ValueError in the reward function and the others waited for it; the Xid 63 on dgx-a100-011 '
                    'is only a row-remap notice (reset pending), not a fault.'})


def case_xid94_contained():
    """Xid 94 contained ECC error whose pid is the rank's own process (still hardware); journalctl short-iso."""
    nodes = ['hgx-h100-12', 'hgx-h100-13', 'hgx-h100-14']
    c = Case('xid94-contained-shortiso', job_id=442018, nodes=nodes, start='2026-09-09T21:14:00Z', end='2026-09-10T01:02:33Z',
             state='FAILED', exit_code='1:0', reason='NonZeroExitCode', time_limit='08:00:00',
             cluster='atlas', user='s.moreau', partition='batch', jobname='diffusion-xl', ipbase='10.20.0.')
    for n in nodes:
        c.standard_node(n, noise=70)
    bad = c.ranks[9]                       # hgx-h100-13 gpu 1
    tf = T('2026-09-10T01:01:40Z')
    c.klog('hgx-h100-13', tf, f'NVRM: Xid (PCI:{c.pci_full(1)}): 94, pid={bad.pid}, name=python, Contained: SM (0x1). RST: No, D-RST: No')
    c.klog('hgx-h100-13', tf + sec(1), f"NVRM: Xid (PCI:{c.pci_full(1)}): 63, pid='<unknown>', name=<unknown>, Row Remapper: New row (0x00000000007f3a00) is marked for remapping, reset gpu to activate.")
    for n in nodes:
        c.write_node(n, [('journal-short-iso.log', 'iso', 'all')])
    app = script_banner(c) + c.nccl_init('2.20.5')
    app += c.progress(c.start + sec(60), tf, dt.timedelta(minutes=4), stamp='iso', tflops=301)
    app += ['[rank9]: Traceback (most recent call last):',
            '[rank9]:   File "/app/train_sdxl.py", line 977, in <module>',
            '[rank9]:     main(args)',
            '[rank9]:   File "/app/train_sdxl.py", line 850, in main',
            '[rank9]:     accelerator.backward(loss)',
            '[rank9]: RuntimeError: CUDA error: uncorrectable ECC error encountered',
            '[rank9]: Compile with `TORCH_USE_CUDA_DSA` to enable device-side assertions.']
    for r in c.ranks:
        if r.rank != 9 and r.rank % 3 == 0:
            app += torch_nccl_error('2.4', r.rank, 33871, tf + sec(25), 'remote', '2.20.5')
    app += ['srun: error: hgx-h100-13: task 9: Exited with exit code 1',
            'srun: error: hgx-h100-12: tasks 0-7: Exited with exit code 1',
            'srun: error: hgx-h100-13: tasks 8,10-15: Exited with exit code 1',
            'srun: error: hgx-h100-14: tasks 16-23: Exited with exit code 1']
    c.app['slurm-442018.out'] = app
    c.set_exit(9, 1, tf + sec(3))
    for r in c.ranks:
        if r.rank != 9:
            c.set_exit(r.rank, 1, tf + sec(30))
    c.write({'sub_domain': ['InfraHW'], 'culprit_nodes': ['hgx-h100-13'], 'drain_ok': ['hgx-h100-13'], 'root_code': 'xid.94',
             'evidence_contains': 'Contained',
             'why': 'Xid 94 (contained uncorrectable ECC error) on hgx-h100-13 GPU 0000:2a:00 killed the process using the bad memory '
                    '(rank 9, hence its pid in the Xid); it is a GPU memory fault, not an application fault.'})


def case_xid95_uncontained():
    """Xid 95 uncontained; RFC 3164 syslog; 4 GPUs per node; srun --label; torch 2.0 / NCCL 2.16."""
    nodes = ['g0113', 'g0114', 'g0115', 'g0116']
    c = Case('xid95-uncontained-3164', job_id=3301876, nodes=nodes, start='2026-10-30T13:45:12Z', end='2026-10-30T16:20:41Z',
             state='FAILED', exit_code='1:0', reason='NonZeroExitCode', time_limit='12:00:00', gpus=4, pci=PCI_4GPU,
             cluster='greenfield', user='tbauer', partition='gpu4', jobname='wav2vec-ft', ipbase='10.9.3.')
    for n in nodes:
        c.standard_node(n, noise=70)
    tf = T('2026-10-30T16:19:55.003117Z')
    for g in (0, 1):
        pass
    c.klog('g0115', tf, f"NVRM: Xid (PCI:{c.pci_full(1)}): 95, pid='<unknown>', name=<unknown>, Uncontained: FBHUB. RST: Yes, D-RST: No")
    c.klog('g0115', tf + sec(0.5), f'NVRM: Xid (PCI:{c.pci_full(1)}): 154, GPU recovery action changed from 0x0 (None) to 0x1 (GPU Reset Required)')
    for n in nodes:
        c.write_node(n, [('messages', 'rfc3164', 'all')])
    lb = c.lbl
    app = script_banner(c) + c.nccl_init('2.16.5', label=True)
    app += c.progress(c.start + sec(100), tf, dt.timedelta(minutes=3), stamp='none', tflops=88, label=0)
    for r in c.ranks:
        if r.node == 'g0115':
            app += [lb(r.rank) + 'RuntimeError: CUDA error: uncorrectable ECC error encountered']
    for r in c.ranks:
        if r.node != 'g0115':
            app += [lb(r.rank) + x for x in torch_nccl_error('2.0', r.rank, 9912, tf + sec(15), 'remote', '2.16.5')][:2]
    app += ['srun: error: g0115: tasks 8-11: Exited with exit code 1',
            'srun: error: g0113: tasks 0-3: Exited with exit code 1', 'srun: error: g0114: tasks 4-7: Exited with exit code 1',
            'srun: error: g0116: tasks 12-15: Exited with exit code 1']
    c.app['slurm-3301876.out'] = app
    for r in c.ranks:
        c.set_exit(r.rank, 1, tf + sec(2 if r.node == 'g0115' else 20))
    c.write({'sub_domain': ['InfraHW'], 'culprit_nodes': ['g0115'], 'drain_ok': ['g0115'], 'root_code': 'xid.95',
             'evidence_contains': 'Uncontained',
             'why': 'Xid 95 uncontained ECC error on g0115 GPU 0000:65:00 (GPU reset required) took down all four ranks of that node; '
                    'the NCCL errors on the other nodes follow it.'})


def case_xid74_nvlink():
    """Xid 74 NVLink fatal; rsyslog RFC 3339 with kernel lines duplicated in kern.log and syslog; torch 2.0 / NCCL 2.16."""
    nodes = ['a100-r07-n1', 'a100-r07-n2', 'a100-r07-n3', 'a100-r07-n4']
    c = Case('xid74-nvlink-3339', job_id=90017, nodes=nodes, start='2026-04-18T06:00:00Z', end='2026-04-18T06:48:40Z',
             state='FAILED', exit_code='1:0', reason='NonZeroExitCode', time_limit='10:00:00', pci=PCI_A100,
             cluster='rack7', user='chen', partition='a100', jobname='bert-large', ipbase='10.77.0.')
    for n in nodes:
        c.standard_node(n, noise=56)
    tf = T('2026-04-18T06:47:30.902114Z')
    c.klog('a100-r07-n2', tf, f"NVRM: Xid (PCI:{c.pci_full(5)}): 74, pid='<unknown>', name=<unknown>, NVLink: fatal error detected on link 3(0x0, 0x0, 0x20000, 0x0, 0x0, 0x0, 0x0)")
    c.klog('a100-r07-n2', tf + sec(0.001), f"NVRM: Xid (PCI:{c.pci_full(4)}): 74, pid='<unknown>', name=<unknown>, NVLink: fatal error detected on link 9(0x0, 0x0, 0x20000, 0x0, 0x0, 0x0, 0x0)")
    for n in nodes:
        c.write_node(n, [('kern.log', 'rfc3339', 'kernel'), ('syslog', 'rfc3339', 'all')])
    app = script_banner(c) + c.nccl_init('2.16.5')
    app += c.progress(c.start + sec(60), tf, dt.timedelta(minutes=1), stamp='iso', tflops=120)
    bad = c.ranks[13]
    app += ['RuntimeError: CUDA error: uncorrectable NVLink error detected during the execution',
            'CUDA kernel errors might be asynchronously reported at some other API call,so the stacktrace below might be incorrect.']
    app += nccl_warn(c.ranks[12], "Cuda failure 'uncorrectable NVLink error detected during the execution'", 'enqueue.cc:1087')
    for r in c.ranks[::6]:
        if r.node != 'a100-r07-n2':
            app += torch_nccl_error('2.0', r.rank, 4410, tf + sec(12), 'remote', '2.16.5')
    app += child_failed('run_pretraining.py', tf + sec(2), 'a100-r07-n2', 13, 5, bad.pid)
    app += ['srun: error: a100-r07-n2: task 1: Exited with exit code 1']
    c.app['slurm-90017.out'] = app
    c.write({'sub_domain': ['InfraHW'], 'culprit_nodes': ['a100-r07-n2'], 'drain_ok': ['a100-r07-n2'], 'root_code': 'xid.74',
             'evidence_contains': 'NVLink: fatal error',
             'why': 'Two GPUs of a100-r07-n2 logged Xid 74 NVLink fatal errors at the same instant and its rank failed with an '
                    'uncorrectable NVLink error; the others are downstream.'})


def case_xid149_si():
    """Xid 149 NETIR_LINK_EVT fatal with signal-integrity sub-code (4); GB200 trays, PCI domains; NCCL 2.23 / torch 2.5."""
    nodes = ['gb200-r2-t05', 'gb200-r2-t06', 'gb200-r2-t07', 'gb200-r2-t08']
    c = Case('xid149-si-gb200', job_id=7000213, nodes=nodes, start='2026-12-01T00:05:00Z', end='2026-12-01T03:33:16Z',
             state='FAILED', exit_code='1:0', reason='NonZeroExitCode', time_limit='1-00:00:00', gpus=4, pci=PCI_GB200,
             cluster='nvl72-a', user='okafor', partition='gb200', jobname='llama4-pt', ipbase='10.150.2.',
             driver='570.124.06', kernel='6.8.0-1021-nvidia-64k')
    for n in nodes:
        c.standard_node(n, noise=63)
    tf = T('2026-12-01T03:31:58.220917Z')
    p = c.pci_full(2)
    c.klog('gb200-r2-t07', tf, f"NVRM: Xid (PCI:{p}): 149, pid='<unknown>', name=<unknown>, NETIR_LINK_EVT Fatal XC0 i0 Link 11 (0x004701c6 0x00000000 0x00000000 0x00000000 0x00000000 0x00000000)")
    c.klog('gb200-r2-t07', tf + sec(0.003), f'NVRM: Xid (PCI:{p}): 154, GPU recovery action changed from 0x0 (None) to 0x2 (Node Reboot Required)')
    for n in nodes:
        c.write_node(n, [('journal.log', 'iso', 'all')])
    app = script_banner(c) + c.nccl_init('2.23.4', hcas=4)
    app += c.progress(c.start + sec(200), tf, dt.timedelta(minutes=5), stamp='iso', tflops=1890)
    bad = c.ranks[10]
    app += ['[rank10]: Traceback (most recent call last):',
            '[rank10]:   File "/workspace/nemo/train.py", line 88, in <module>',
            '[rank10]: RuntimeError: CUDA error: uncorrectable NVLink error detected during the execution']
    for r in c.ranks:
        if r.node != 'gb200-r2-t07':
            app += torch_nccl_error('2.5', r.rank, 150221, tf + sec(3), 'remote', '2.23.4')[:3]
    app += child_failed('train.py', tf + sec(2), 'gb200-r2-t07', 10, 2, bad.pid)
    c.app['slurm-7000213.out'] = app
    c.write({'sub_domain': ['InfraHW'], 'culprit_nodes': ['gb200-r2-t07'], 'drain_ok': ['gb200-r2-t07'], 'root_code': 'xid.149',
             'evidence_contains': 'NETIR_LINK_EVT',
             'why': 'Xid 149 NETIR_LINK_EVT Fatal with sub-code 4 (NVLink signal integrity) on gb200-r2-t07 GPU 0018:01:00, then '
                    'recovery action Node Reboot Required; rank 10 failed with an NVLink error and the rest is fallout.'})


def case_xid119_gsp_berlin():
    """Xid 119 GSP RPC timeout; log_timezone Europe/Berlin (CEST) with zone-less RFC 3164 logs; an old, rebooted Xid 79 on the other node."""
    nodes = ['bm-gpu-07', 'bm-gpu-08']
    c = Case('xid119-gsp-berlin', job_id=250731, nodes=nodes, start='2026-07-14T11:10:00Z', end='2026-07-14T12:41:31Z',
             state='FAILED', exit_code='134:0', reason='NonZeroExitCode', time_limit='03:00:00', tz='Europe/Berlin',
             cluster='hpc-muc', user='fschmidt', partition='gpu', jobname='t5-xxl', ipbase='10.61.7.')
    for n in nodes:
        c.standard_node(n, noise=77, before_h=4)
    # an old GPU fault 65 min before the job (outside the job window) and the reboot that followed
    old = T('2026-07-14T10:05:12Z')
    c.klog('bm-gpu-07', old, f"NVRM: Xid (PCI:{c.pci_full(6)}): 79, pid='<unknown>', name=<unknown>, GPU has fallen off the bus.")
    c.log('bm-gpu-07', old + sec(300), 'systemd[1]', 'Stopping Slurm node daemon...')
    c.log('bm-gpu-07', old + sec(302), 'systemd-shutdown[1]', 'Syncing filesystems and block devices.')
    c.boot_seq('bm-gpu-07', old + sec(900))
    tf = T('2026-07-14T12:31:07.517120Z')
    bad = c.ranks[13]
    c.klog('bm-gpu-08', tf, f'NVRM: Xid (PCI:{c.pci_full(5)}): 119, pid={bad.pid}, name=python3, Timeout after 6s of waiting for RPC response from GPU5 GSP! Expected function 76 (GSP_RM_CONTROL) (0x20802a02 0x8).')
    c.klog('bm-gpu-08', tf + sec(0.001), 'NVRM: GPU5 GSP RPC buffer contains function 76 (GSP_RM_CONTROL) and data 0x0000000020802a02 0x0000000000000008.')
    c.klog('bm-gpu-08', tf + sec(0.001), 'NVRM: GPU5 RPC history (CPU -> GSP):')
    c.klog('bm-gpu-08', tf + sec(6.2), f'NVRM: Xid (PCI:{c.pci_full(5)}): 119, pid={bad.pid}, name=python3, Timeout after 6s of waiting for RPC response from GPU5 GSP! Expected function 10 (FREE) (0xa55a0040 0x0).')
    c.klog('bm-gpu-08', tf + sec(40), 'INFO: task python3:%d blocked for more than 122 seconds.' % bad.pid)
    c.klog('bm-gpu-08', tf + sec(40), '      Tainted: P           OE     5.15.0-105-generic #115-Ubuntu')
    for n in nodes:
        c.write_node(n, [('messages', 'rfc3164', 'all')])
    # slurmctld writes local time too
    c.ctld_start('bm-gpu-[07-08]')
    c.ctld_other(30)
    c.sched.append((c.end, f'_job_complete: JobId={c.job_id} WEXITSTATUS 134'))
    c.sched.append((c.end + sec(0.001), f'_job_complete: JobId={c.job_id} done'))
    app = script_banner(c) + c.nccl_init('2.19.3')
    app += c.progress(c.start + sec(200), tf, dt.timedelta(minutes=3), stamp='none', tflops=205)
    for r in c.ranks:
        if r.rank != 13:
            app += torch_watchdog_timeout('2.2', r.rank, 7781, tf + sec(600))
    app += ['srun: error: bm-gpu-07: task 0: Aborted (core dumped)', 'srun: error: bm-gpu-08: task 1: Aborted (core dumped)']
    c.app['slurm-250731.out'] = app
    c.write({'sub_domain': ['InfraSW', 'InfraHW'], 'culprit_nodes': ['bm-gpu-08'], 'drain_ok': ['bm-gpu-08'], 'root_code': 'xid.119',
             'evidence_contains': 'GSP',
             'why': 'GSP of GPU 0000:ab:00 on bm-gpu-08 stopped answering RPCs (Xid 119 at 14:31 local = 12:31Z), its rank hung '
                    'and the others hit the 10-minute watchdog; the Xid 79 on bm-gpu-07 predates the job and was followed by a reboot.'})


def case_xid13_app_pid():
    """Xid 13 whose pid is the failing rank's (NCCL prefix pid); illegal address in a user kernel -> UserCode."""
    nodes = ['cn-0101', 'cn-0102']
    c = Case('xid13-app-pid', job_id=88120, nodes=nodes, start='2026-02-11T15:20:00Z', end='2026-02-11T15:38:09Z',
             state='FAILED', exit_code='1:0', reason='NonZeroExitCode', time_limit='02:00:00',
             cluster='dev', user='ahmed', partition='debug', jobname='fused-rope-test', ipbase='10.3.3.')
    for n in nodes:
        c.standard_node(n, noise=63)
    bad = c.ranks[14]
    tf = T('2026-02-11T15:37:41.200300Z')
    p = c.pci_full(6)
    c.klog('cn-0102', tf, f'NVRM: Xid (PCI:{p}): 13, pid={bad.pid}, name=python3, Graphics SM Warp Exception on (GPC 4, TPC 1, SM 0): Out Of Range Address')
    c.klog('cn-0102', tf, f'NVRM: Xid (PCI:{p}): 13, pid={bad.pid}, name=python3, Graphics SM Global Exception on (GPC 4, TPC 1, SM 0): Multiple Warp Errors')
    c.klog('cn-0102', tf + sec(0.001), f'NVRM: Xid (PCI:{p}): 13, pid={bad.pid}, name=python3, Graphics Exception: ESR 0x524648=0x103000e 0x524650=0x20 0x524644=0xd3eff2 0x52464c=0x17f')
    c.klog('cn-0102', tf + sec(0.6), f'NVRM: Xid (PCI:{p}): 43, pid={bad.pid}, name=python3, Ch 00000018')
    for n in nodes:
        c.write_node(n, [('journal.txt', 'isoprecise', 'all')])
    app = script_banner(c) + c.nccl_init('2.21.5')
    app += c.progress(c.start + sec(60), tf, dt.timedelta(seconds=90), stamp='iso', tflops=250)
    app += nccl_warn(bad, "Cuda failure 'an illegal memory access was encountered'", 'enqueue.cc:1556')
    app += [f'[rank14]: Traceback (most recent call last):',
            f'[rank14]:   File "/home/ahmed/rope/bench.py", line 142, in <module>',
            f'[rank14]:     out = fused_rope_fwd(q, k, cos, sin, seq_offsets)',
            f'[rank14]:   File "/home/ahmed/rope/fused_rope/ops.py", line 61, in fused_rope_fwd',
            f'[rank14]:     torch.cuda.synchronize()',
            f'[rank14]: RuntimeError: CUDA error: an illegal memory access was encountered',
            f'[rank14]: CUDA kernel errors might be asynchronously reported at some other API call, so the stacktrace below might be incorrect.',
            f'[rank14]: For debugging consider passing CUDA_LAUNCH_BLOCKING=1']
    for r in c.ranks[:8]:
        app += torch_nccl_error('2.4', r.rank, 312, tf + sec(9), 'remote', '2.21.5')[:2]
    app += ['srun: error: cn-0102: task 14: Exited with exit code 1', 'srun: error: cn-0101: tasks 0-7: Exited with exit code 1',
            'srun: error: cn-0102: tasks 8-13,15: Exited with exit code 1']
    c.app['slurm-88120.out'] = app
    c.set_exit(14, 1, tf + sec(1))
    for r in c.ranks:
        if r.rank != 14:
            c.set_exit(r.rank, 1, tf + sec(11))
    c.write({'sub_domain': ['UserCode'], 'culprit_nodes': [], 'drain_ok': [],
             'why': 'The Xid 13 (out-of-range address) on cn-0102 names pid %d, which is rank 14 itself; that rank died with an '
                    'illegal memory access in the user\'s fused_rope kernel, so the GPU fault is application-induced.' % bad.pid})


def case_xid31_mmu_torchrun():
    """Xid 31 MMU fault by the rank's own pid; torchrun --tee with [defaultN]: prefixes; torch 1.13 / NCCL 2.14; RFC 3339."""
    nodes = ['gpua01', 'gpua02']
    c = Case('xid31-mmu-torchrun', job_id=660315, nodes=nodes, start='2026-08-21T09:00:00Z', end='2026-08-21T09:54:12Z',
             state='FAILED', exit_code='1:0', reason='NonZeroExitCode', time_limit='04:00:00', gpus=4, pci=PCI_4GPU,
             cluster='uni', user='p.ricci', partition='gpu', jobname='gnn-sparse', ipbase='10.10.10.',
             driver='525.147.05')
    for n in nodes:
        c.standard_node(n, noise=63)
    bad = c.ranks[6]                         # gpua02 local 2
    tf = T('2026-08-21T09:23:52.441002Z')
    c.klog('gpua02', tf, f'NVRM: Xid (PCI:{c.pci_full(2)}): 31, pid={bad.pid}, name=python, Ch 00000010, intr 10000000. '
                         'MMU Fault: ENGINE GRAPHICS GPCCLIENT_T1_0 faulted @ 0x7f1b_20a00000. Fault is of type FAULT_PDE ACCESS_TYPE_VIRT_READ')
    for n in nodes:
        c.write_node(n, [('syslog', 'rfc3339', 'all')])
    app = script_banner(c, ['+ srun torchrun --nnodes 2 --nproc_per_node 4 --tee 3 train_gnn.py'])
    init = c.nccl_init('2.14.3')
    app += [f'[default{int(x.split(" [")[1].split("]")[0]) if " [" in x else 0}]:' + x for x in init]
    app += ['[default0]:' + x for x in c.progress(c.start + sec(60), tf, dt.timedelta(minutes=1), stamp='none', tflops=40)]
    app += ['[default2]:Traceback (most recent call last):',
            '[default2]:  File "/home/pricci/gnn/train_gnn.py", line 203, in <module>',
            '[default2]:    out = spmm_csr(adj, h)',
            '[default2]:  File "/home/pricci/gnn/kernels/spmm.py", line 77, in spmm_csr',
            '[default2]:    return _C.spmm_csr_fwd(adj.crow_indices(), adj.col_indices(), adj.values(), h)',
            '[default2]:RuntimeError: CUDA error: an illegal memory access was encountered',
            '[default2]:CUDA kernel errors might be asynchronously reported at some other API call,so the stacktrace below might be incorrect.']
    for r in c.ranks:
        if r.rank != 6:
            app += [f'[default{r.local}]:' + x for x in torch_watchdog_timeout('1.13', r.rank, 1804, tf + sec(1800), timeout_ms=1800000)[:1]]
    app += ['ERROR:torch.distributed.elastic.multiprocessing.api:failed (exitcode: 1) local_rank: 2 (pid: %d) of binary: /usr/bin/python' % bad.pid]
    app += child_failed('train_gnn.py', tf + sec(1), 'gpua02', 6, 2, bad.pid)
    app += ['srun: error: gpua02: task 1: Exited with exit code 1']
    c.app['slurm-660315.out'] = app
    c.ranks_in_json = True
    c.write({'confidence': 'low', 'sub_domain': ['UserCode'], 'culprit_nodes': [], 'drain_ok': [],
             'why': 'Xid 31 MMU fault on gpua02 was raised by pid %d, the process of rank 6, which crashed with an illegal memory '
                    'access in the user\'s spmm extension; the fault is the application\'s.' % bad.pid})


def case_user_exception_missing_node():
    """User AssertionError on rank 5, NCCL errors everywhere, one node's evidence missing; user prints 'Xid test'."""
    nodes = ['trn-001', 'trn-002', 'trn-003', 'trn-004']
    c = Case('user-exception-missing-node', job_id=51022, nodes=nodes, start='2026-05-05T17:45:00Z', end='2026-05-05T18:03:27Z',
             state='FAILED', exit_code='1:0', reason='NonZeroExitCode', time_limit='12:00:00',
             cluster='trn', user='gwen', partition='train', jobname='longctx-8k', ipbase='10.200.0.')
    for n in nodes:
        c.standard_node(n, noise=70)
    c.missing.add('trn-004')
    for n in nodes:
        c.write_node(n, [('syslog', 'rfc3339', 'all')])
    tf = T('2026-05-05T18:02:10Z')
    app = script_banner(c) + c.nccl_init('2.21.5')
    app += ['[rank0]: [debug] Xid test: fault-injection hook installed (disabled, XID_INJECT=0)',
            '[rank0]: [debug] printing "Xid 79" here is a test of the log pipeline, ignore']
    app += c.progress(c.start + sec(90), tf, dt.timedelta(minutes=1), stamp='iso', tflops=310)
    app += ['[rank5]: Traceback (most recent call last):',
            '[rank5]:   File "/workspace/longctx/train.py", line 512, in <module>',
            '[rank5]:     main()',
            '[rank5]:   File "/workspace/longctx/train.py", line 460, in main',
            '[rank5]:     batch = packer.pack(next(it))',
            '[rank5]:   File "/workspace/longctx/data/packing.py", line 97, in pack',
            '[rank5]:     assert total <= self.max_len, f"sequence length {total} exceeds max_position_embeddings {self.max_len}"',
            '[rank5]: AssertionError: sequence length 8193 exceeds max_position_embeddings 8192']
    for r in c.ranks:
        if r.rank != 5 and r.rank % 2:
            app += nccl_warn(r, f'socketProgress: Connection closed by remote peer {c.ranks[5].host}<{41000 + r.rank}>', 'misc/socket.cc:50')
            app += torch_nccl_error('2.4', r.rank, 1201, tf + sec(2), 'remote', '2.21.5',
                                    f'socketProgress: Connection closed by remote peer {c.ranks[5].host}<{41000 + r.rank}>')[:4]
    app += child_failed('train.py', tf, 'trn-001', 5, 5, c.ranks[5].pid)
    app += ['srun: error: trn-001: task 0: Exited with exit code 1', 'srun: error: trn-002: task 1: Exited with exit code 1',
            'srun: error: trn-003: task 2: Exited with exit code 1', 'srun: error: trn-004: task 3: Exited with exit code 1']
    c.app['slurm-51022.out'] = app
    c.write({'sub_domain': ['UserCode'], 'culprit_nodes': [], 'drain_ok': [],
             'evidence_contains': 'AssertionError',
             'why': 'Rank 5 hit an AssertionError in the user\'s sequence packer and every other rank lost its NCCL peer; '
                    'the missing trn-004 logs do not change that, and the "Xid test" prints are the user\'s own.'})


def case_cuda_oom_legacy():
    """torch 1.13 'RuntimeError: CUDA out of memory.' wording; RFC 3164; srun --label; NCCL 2.14."""
    nodes = ['v100-01', 'v100-02']
    c = Case('cuda-oom-legacy', job_id=19876, nodes=nodes, start='2026-02-27T10:00:00Z', end='2026-02-27T10:07:45Z',
             state='FAILED', exit_code='1:0', reason='NonZeroExitCode', time_limit='08:00:00', gpus=4, pci=PCI_4GPU,
             cluster='legacy', user='kim', partition='v100', jobname='seg-unet', ipbase='10.1.1.', driver='470.223.02')
    for n in nodes:
        c.standard_node(n, noise=49)
    for n in nodes:
        c.write_node(n, [('messages', 'rfc3164', 'all')])
    lb = c.lbl
    tf = T('2026-02-27T10:07:20Z')
    app = script_banner(c) + c.nccl_init('2.14.3', label=True)
    app += c.progress(c.start + sec(60), tf, dt.timedelta(seconds=40), stamp='none', tflops=22, label=0)
    app += [lb(6) + 'Traceback (most recent call last):',
            lb(6) + '  File "train_seg.py", line 233, in <module>',
            lb(6) + '    logits = model(images)',
            lb(6) + '  File "/opt/conda/lib/python3.8/site-packages/torch/nn/functional.py", line 2450, in batch_norm',
            lb(6) + '    return torch.batch_norm(',
            lb(6) + 'RuntimeError: CUDA out of memory. Tried to allocate 1.53 GiB (GPU 2; 31.75 GiB total capacity; 28.02 GiB already allocated; '
                    '1.21 GiB free; 29.40 GiB reserved in total by PyTorch) If reserved memory is >> allocated memory try setting max_split_size_mb '
                    'to avoid fragmentation.  See documentation for Memory Management and PYTORCH_CUDA_ALLOC_CONF']
    for r in c.ranks:
        if r.rank != 6:
            app += [lb(r.rank) + x for x in torch_nccl_error('1.13', r.rank, 88, tf + sec(5), 'remote', '2.14.3')[-2:]]
    app += ['srun: error: v100-02: task 6: Exited with exit code 1',
            'srun: error: v100-01: tasks 0-3: Exited with exit code 1', 'srun: error: v100-02: tasks 4-5,7: Exited with exit code 1']
    c.app['slurm-19876.out'] = app
    c.set_exit(6, 1, tf + sec(1))
    for r in c.ranks:
        if r.rank != 6:
            c.set_exit(r.rank, 1, tf + sec(8))
    c.write({'confidence': 'high', 'sub_domain': ['UserResource'], 'culprit_nodes': [], 'drain_ok': [],
             'evidence_contains': 'out of memory',
             'why': 'Rank 6 ran out of GPU memory (CUDA out of memory, 1.53 GiB requested on a 32 GiB V100); the NCCL errors on the '
                    'other ranks follow it.'})


def case_cuda_oom_torch24():
    """torch 2.4 'torch.OutOfMemoryError' wording with [rankN]: prefix; journalctl short-iso; NCCL 2.21."""
    nodes = ['h100-pod3-17', 'h100-pod3-18']
    c = Case('cuda-oom-torch24', job_id=2310044, nodes=nodes, start='2026-11-11T22:00:00Z', end='2026-11-11T22:41:02Z',
             state='FAILED', exit_code='1:0', reason='NonZeroExitCode', time_limit='3-00:00:00',
             cluster='pod3', user='marta', partition='h100', jobname='mixtral-sft', ipbase='10.33.17.')
    for n in nodes:
        c.standard_node(n, noise=56)
    for n in nodes:
        c.write_node(n, [('journal.txt', 'iso', 'all')])
    tf = T('2026-11-11T22:30:30Z')
    app = script_banner(c) + c.nccl_init('2.21.5')
    app += c.progress(c.start + sec(200), tf, dt.timedelta(minutes=2), stamp='iso', tflops=402)
    app += ['[rank9]: Traceback (most recent call last):',
            '[rank9]:   File "/workspace/sft/train.py", line 301, in <module>',
            '[rank9]:     loss.backward()',
            '[rank9]:   File "/usr/local/lib/python3.10/dist-packages/torch/autograd/graph.py", line 769, in _engine_run_backward',
            '[rank9]:     return Variable._execution_engine.run_backward(  # Calls into the C++ engine to run the backward pass',
            '[rank9]: torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 3.50 GiB. GPU 1 has a total capacity of 79.11 GiB of which '
            '2.19 GiB is free. Including non-PyTorch memory, this process has 76.90 GiB memory in use. Of the allocated memory 73.28 GiB is '
            'allocated by PyTorch, and 2.12 GiB is reserved by PyTorch but unallocated. If reserved but unallocated memory is large try setting '
            'PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True to avoid fragmentation.  See documentation for Memory Management  '
            '(https://pytorch.org/docs/stable/notes/cuda.html#environment-variables)']
    for r in c.ranks:
        if r.rank != 9:
            app += torch_watchdog_timeout('2.4', r.rank, 5521, tf + sec(600))[:2]
    app += child_failed('train.py', tf, 'h100-pod3-18', 9, 1, c.ranks[9].pid)
    c.app['slurm-2310044.out'] = app
    c.write({'sub_domain': ['UserResource'], 'culprit_nodes': [], 'drain_ok': [],
             'evidence_contains': 'OutOfMemoryError',
             'why': 'Rank 9 raised torch.OutOfMemoryError (CUDA out of memory) in backward; the watchdog timeouts elsewhere are its consequence.'})


def case_host_oom_cgroup():
    """Kernel cgroup OOM killer + slurmstepd oom-kill + state OUT_OF_MEMORY; RFC 3164."""
    nodes = ['ggpu-101', 'ggpu-102', 'ggpu-103']
    c = Case('host-oom-cgroup', job_id=662901, nodes=nodes, start='2026-04-01T04:00:00Z', end='2026-04-01T04:51:19Z',
             state='OUT_OF_MEMORY', exit_code='0:125', reason='OutOfMemory', time_limit='1-00:00:00',
             cluster='gg', user='wei', partition='gpu', jobname='data-prep-dist', ipbase='10.5.1.')
    for n in nodes:
        c.standard_node(n, noise=63)
    bad = c.ranks[9]
    tf = T('2026-04-01T04:50:33.700001Z')
    k = lambda d, m: c.klog('ggpu-102', tf + sec(d), m)
    k(0, 'pt_data_worker invoked oom-killer: gfp_mask=0x140cca(GFP_HIGHUSER_MOVABLE|__GFP_COMP), order=0, oom_score_adj=0')
    k(0, f'CPU: 41 PID: {bad.pid + 17} Comm: pt_data_worker Tainted: P           OE     5.15.0-105-generic #115-Ubuntu')
    k(0, 'Hardware name: Supermicro SYS-821GE-TNHR/X13DEG-OAD, BIOS 2.1 11/28/2023')
    k(0.01, 'memory: usage 1006632960kB, limit 1006632960kB, failcnt 4412')
    k(0.01, 'swap: usage 0kB, limit 9007199254740988kB, failcnt 0')
    k(0.02, f'oom-kill:constraint=CONSTRAINT_MEMCG,nodemask=(null),cpuset=step_0,mems_allowed=0-1,oom_memcg=/slurm/uid_1044/job_662901,'
            f'task_memcg=/slurm/uid_1044/job_662901/step_0/task_1,task=python,pid={bad.pid},uid=1044')
    k(0.02, f'Memory cgroup out of memory: Killed process {bad.pid} (python) total-vm:412345672kB, anon-rss:187331004kB, file-rss:402112kB, '
            'shmem-rss:8192kB, UID:1044 pgtables:380112kB oom_score_adj:0')
    k(1.9, f'oom_reaper: reaped process {bad.pid} (python), now anon-rss:0kB, file-rss:0kB, shmem-rss:8192kB')
    for n in nodes:
        c.write_node(n, [('messages', 'rfc3164', 'all')])
    lb = c.lbl
    app = script_banner(c) + c.nccl_init('2.18.6', label=True)
    app += [lb(0) + f'loaded shard {i:04d}/2048 (rows={c.rng.randint(900000, 1100000)})' for i in range(0, 2048, 37)]
    for r in c.ranks:
        if r.node != 'ggpu-102':
            app += [lb(r.rank) + x for x in torch_nccl_error('2.1', r.rank, 77, tf + sec(6), 'remote', '2.18.6')[:2]]
    app += [f'slurmstepd: error: Detected 1 oom-kill event(s) in StepId={c.job_id}.0. Some of your processes may have been killed by the '
            'cgroup out-of-memory handler.',
            'srun: error: ggpu-102: task 9: Out Of Memory',
            'srun: error: ggpu-101: tasks 0-7: Exited with exit code 1', 'srun: error: ggpu-102: tasks 8,10-15: Exited with exit code 1',
            'srun: error: ggpu-103: tasks 16-23: Exited with exit code 1']
    c.app['slurm-662901.out'] = app
    c.set_exit(9, 0, tf + sec(0.1), 9)
    for r in c.ranks:
        if r.rank != 9:
            c.set_exit(r.rank, 1, tf + sec(8))
    c.write({'sub_domain': ['UserResource'], 'culprit_nodes': [], 'drain_ok': [],
             'why': 'The job\'s cgroup on ggpu-102 hit its memory limit and the kernel OOM killer killed rank 9 '
                    '(slurmstepd: 1 oom-kill event, state OUT_OF_MEMORY); host memory exhaustion by the job itself.'})


def case_ib_port_error_peers():
    """IB cable error + NCCL 'port error' on the culprit's ranks; peers name its IP (NCCL 2.14 'with error 12' wording)."""
    nodes = ['hpc-gpu-107', 'hpc-gpu-108', 'hpc-gpu-109']
    ips = {'hpc-gpu-107': '10.44.0.107', 'hpc-gpu-108': '10.44.0.108', 'hpc-gpu-109': '10.44.0.109'}
    c = Case('ib-port-error-peers', job_id=3988, nodes=nodes, start='2026-03-03T03:03:03Z', end='2026-03-03T07:40:55Z',
             state='FAILED', exit_code='1:0', reason='NonZeroExitCode', time_limit='10:00:00',
             cluster='hpc', user='ines', partition='gpu', jobname='protein-lm', node_ip=ips, driver='525.147.05')
    for n in nodes:
        c.standard_node(n, noise=70)
    tf = T('2026-03-03T07:38:21.010101Z')
    c.klog('hpc-gpu-108', tf, 'mlx5_core 0000:4b:00.0: mlx5_port_module_event:1131:(pid 0): Port module event[error]: module 2, Cable error, Bad or shorted cable/module')
    c.klog('hpc-gpu-108', tf + sec(0.4), 'ib_srpt: received IB event IB_EVENT_PORT_ERR on device mlx5_2 port 1')
    for n in nodes:
        c.write_node(n, [('kern.log', 'rfc3339', 'kernel'), ('syslog', 'rfc3339', 'nonkernel')])
    app = script_banner(c) + c.nccl_init('2.14.3')
    app += c.progress(c.start + sec(120), tf, dt.timedelta(minutes=3), stamp='iso', tflops=190)
    for r in c.ranks:
        if r.node == 'hpc-gpu-108' and r.local in (2, 3):
            app += nccl_warn(r, 'NET/IB : Got async event : port error', 'transport/net_ib.cc:93')
    for r in c.ranks:
        if r.node != 'hpc-gpu-108' and r.local in (2, 3, 6):
            app += nccl_warn(r, f'NET/IB : Got completion from peer 10.44.0.108<{50000 + r.rank * 7}> with error 12, opcode 0, len 0, vendor err 129',
                             'transport/net_ib.cc:1237')
            app += [f'{r.host}:{r.pid}:{r.tid} [{r.gpu}] NCCL INFO transport/net_ib.cc:1300 -> 6']
    for r in c.ranks:
        if r.node != 'hpc-gpu-108' and r.local in (2, 3):
            app += torch_nccl_error('1.13', r.rank, 31770, tf + sec(4), 'remote', '2.14.3',
                                    'NET/IB : Got completion from peer 10.44.0.108<50021> with error 12, opcode 0, len 0, vendor err 129')
    app += ['srun: error: hpc-gpu-107: task 0: Exited with exit code 1', 'srun: error: hpc-gpu-109: task 2: Exited with exit code 1',
            'srun: error: hpc-gpu-108: task 1: Exited with exit code 1']
    c.app['slurm-3988.out'] = app
    c.write({'sub_domain': ['InfraNet'], 'culprit_nodes': ['hpc-gpu-108'], 'drain_ok': ['hpc-gpu-108'],
             'why': 'hpc-gpu-108\'s HCA mlx5_2 reported a bad cable and an IB port error (kernel and NCCL "port error" on its ranks); '
                    'the peers\' IB completion errors (status 12) all name 10.44.0.108, hpc-gpu-108\'s bootstrap address.'})


def case_timeout_plain():
    """TIMEOUT after a full day of healthy progress; journalctl short-iso; time_limit with days; benign Link up / Cable plugged."""
    nodes = ['dgx-h100-021', 'dgx-h100-022', 'dgx-h100-023', 'dgx-h100-024']
    c = Case('timeout-plain', job_id=99812, nodes=nodes, start='2026-05-11T09:14:02Z', end='2026-05-12T09:14:22Z',
             state='TIMEOUT', exit_code='0:0', reason='TimeLimit', time_limit='1-00:00:00',
             cluster='eos-lab', user='dana', partition='long', jobname='llama-8b-cont', ipbase='10.88.2.', derived='0:0')
    for n in nodes:
        c.standard_node(n, noise=98, before_h=6)
    # benign mid-run NIC chatter on one node: the port flaps up, the module reports plugged
    t = T('2026-05-11T15:22:10Z')
    c.klog('dgx-h100-022', t, 'mlx5_core 0000:0c:00.0: Port module event: module 0, Cable plugged')
    c.klog('dgx-h100-022', t + sec(3), 'mlx5_core 0000:5e:00.0 ens2f0np0: Link up')
    for n in nodes:
        c.write_node(n, [('journal.txt', 'iso', 'all')])
    c.ctld_start('dgx-h100-[021-024]')
    c.ctld_other(40)
    c.sched.append((c.end, f'Time limit exhausted for JobId={c.job_id}'))
    c.sched.append((c.end + sec(33), f'_job_complete: JobId={c.job_id} WTERMSIG 15'))
    c.sched.append((c.end + sec(33.001), f'_job_complete: JobId={c.job_id} done'))
    app = script_banner(c) + c.nccl_init('2.20.5')
    app += c.progress(c.start + sec(300), c.end - sec(30), dt.timedelta(minutes=15), stamp='iso', tflops=455)
    app += [f'slurmstepd: error: *** JOB {c.job_id} ON dgx-h100-021 CANCELLED AT 2026-05-12T09:14:22 DUE TO TIME LIMIT ***',
            'srun: Job step aborted: Waiting up to 32 seconds for job step to finish.',
            f'slurmstepd: error: *** STEP {c.job_id}.0 ON dgx-h100-021 CANCELLED AT 2026-05-12T09:14:22 DUE TO TIME LIMIT ***',
            'W0512 09:14:22.411000 140011 torch/distributed/elastic/agent/server/api.py:704] Received Signals.SIGTERM death signal, shutting down workers',
            'srun: error: dgx-h100-022: task 1: Terminated', 'srun: error: dgx-h100-023: task 2: Terminated',
            'srun: error: dgx-h100-024: task 3: Terminated', 'srun: error: dgx-h100-021: task 0: Terminated',
            'srun: Force Terminated StepId=99812.0']
    c.app['slurm-99812.out'] = app
    c.write({'confidence': 'medium', 'sub_domain': ['SchedTimeLimit'], 'culprit_nodes': [], 'drain_ok': [],
             'why': 'Progress lines continue every 15 minutes until Slurm cancelled the job DUE TO TIME LIMIT at exactly 1-00:00:00; '
                    'no fault anywhere, the job simply needed more time.'})


def case_timeout_hang_roce():
    """TIMEOUT where a RoCE link went down mid-run, NCCL warned, and the job hung (torch 1.13, no async error handling)."""
    nodes = ['roce-gpu-31', 'roce-gpu-32', 'roce-gpu-33', 'roce-gpu-34']
    c = Case('timeout-hang-roce', job_id=140077, nodes=nodes, start='2026-08-08T00:00:00Z', end='2026-08-08T08:00:31Z',
             state='TIMEOUT', exit_code='0:0', reason='TimeLimit', time_limit='08:00:00', iface='ens2f0np0',
             cluster='roce', user='yuki', partition='gpu', jobname='cv-pretrain', ipbase='10.66.4.', driver='525.147.05')
    for n in nodes:
        c.standard_node(n, noise=84)
    tf = T('2026-08-08T03:10:44.812000Z')
    c.klog('roce-gpu-33', tf, 'mlx5_core 0000:5e:00.0 ens2f0np0: Link down')
    c.log('roce-gpu-33', tf + sec(0.3), 'systemd-networkd[1011]', 'ens2f0np0: Lost carrier')
    for n in nodes:
        c.write_node(n, [('kern.log', 'rfc3339', 'kernel'), ('syslog', 'rfc3339', 'nonkernel')])
    bad = [r for r in c.ranks if r.node == 'roce-gpu-33'][0]
    c.ctld_start('roce-gpu-[31-34]')
    c.ctld_other(30)
    c.sched.append((c.end - sec(31), f'Time limit exhausted for JobId={c.job_id}'))
    app = script_banner(c, ['+ export NCCL_IB_TIMEOUT=22 NCCL_ASYNC_ERROR_HANDLING=0']) + c.nccl_init('2.14.3', transport='RoCE', hcas=2)
    app += c.progress(c.start + sec(300), tf - sec(40), dt.timedelta(minutes=5), stamp='iso', tflops=133)
    for r in c.ranks:
        if r.node != 'roce-gpu-33' and r.local % 4 == 1:
            app += nccl_warn(r, f'NET/IB : Got completion from peer {bad.ip}<{47000 + r.rank}> with error 12, opcode 1, len 0, vendor err 129',
                             'transport/net_ib.cc:1237')
    app += [f'slurmstepd: error: *** JOB {c.job_id} ON roce-gpu-31 CANCELLED AT 2026-08-08T08:00:00 DUE TO TIME LIMIT ***',
            'srun: Job step aborted: Waiting up to 32 seconds for job step to finish.',
            'srun: error: roce-gpu-31: tasks 0-7: Terminated', 'srun: error: roce-gpu-32: tasks 8-15: Terminated',
            'srun: error: roce-gpu-33: tasks 16-23: Terminated', 'srun: error: roce-gpu-34: tasks 24-31: Terminated']
    c.app['slurm-140077.out'] = app
    c.write({'sub_domain': ['InfraNet'], 'culprit_nodes': ['roce-gpu-33'], 'drain_ok': ['roce-gpu-33'],
             'why': 'roce-gpu-33\'s RoCE port ens2f0np0 went down at 03:10Z, peers got IB completion errors naming its address, '
                    'and progress stopped there; the job then hung until the 8 h limit, so the link, not the limit, explains it.'})


def case_preempted():
    """PREEMPTED with the slurmctld line; RFC 3164; ranks catch SIGTERM and checkpoint."""
    nodes = ['gpu201', 'gpu202', 'gpu203', 'gpu204']
    c = Case('preempted-scavenger', job_id=41230, nodes=nodes, start='2026-02-03T01:00:00Z', end='2026-02-03T04:05:36Z',
             state='PREEMPTED', exit_code='0:15', reason='Preempted', time_limit='2-00:00:00',
             cluster='campus', user='ola', partition='scavenger', jobname='sweep-17', ipbase='10.2.20.')
    for n in nodes:
        c.standard_node(n, noise=63)
    for n in nodes:
        c.write_node(n, [('messages', 'rfc3164', 'all')])
    tp = T('2026-02-03T04:05:06Z')
    c.ctld_start('gpu[201-204]')
    c.ctld_other(30)
    c.sched.append((tp, f'_job_check_grace_internal: preempted JobId={c.job_id} has been killed to reclaim resources for JobId=41302'))
    c.sched.append((tp + sec(30), f'_job_complete: JobId={c.job_id} WTERMSIG 15'))
    app = script_banner(c) + c.nccl_init('2.18.6')
    app += c.progress(c.start + sec(60), tp, dt.timedelta(minutes=4), stamp='py', tflops=200)
    app += [f'slurmstepd: error: *** JOB {c.job_id} ON gpu201 CANCELLED AT 2026-02-03T04:05:06 DUE TO PREEMPTION ***',
            f'slurmstepd: error: *** STEP {c.job_id}.0 ON gpu201 CANCELLED AT 2026-02-03T04:05:06 DUE TO PREEMPTION ***',
            'Received SIGTERM: saving emergency checkpoint to /scratch/ola/sweep-17/ckpt-emergency ...']
    for r in c.ranks[::5]:
        app += nccl_warn(r, f'socketProgress: Connection closed by remote peer {c.ranks[0].host}<{45000 + r.rank}>', 'misc/socket.cc:49')
    app += ['srun: error: gpu202: tasks 8-15: Terminated', 'srun: error: gpu203: tasks 16-23: Terminated',
            'srun: error: gpu204: tasks 24-31: Terminated', 'srun: error: gpu201: tasks 0-7: Terminated']
    c.app['slurm-41230.out'] = app
    c.write({'sub_domain': ['SchedPreempted'], 'culprit_nodes': [], 'drain_ok': [],
             'why': 'slurmctld preempted the job to reclaim resources for JobId=41302 (state PREEMPTED, DUE TO PREEMPTION banner); '
                    'the socket errors are the shutdown.'})


def case_cancelled_user():
    """CANCELLED by the user (REQUEST_KILL_JOB uid), dying ranks spew NCCL errors afterwards; Cray nid names; short-iso-precise."""
    nodes = ['nid001234', 'nid001235', 'nid001236', 'nid001237']
    c = Case('cancelled-by-user', job_id=7714, nodes=nodes, start='2026-10-10T10:10:10Z', end='2026-10-10T12:00:48Z',
             state='CANCELLED', exit_code='0:15', reason='None', time_limit='06:00:00', gpus=4, pci=PCI_4GPU,
             cluster='shasta', user='abe', partition='standard-g', jobname='climate-emu', ipbase='10.100.4.',
             iface='hsn0')
    for n in nodes:
        c.standard_node(n, noise=63)
    for n in nodes:
        c.write_node(n, [('journal.txt', 'isoprecise', 'all')])
    tc = T('2026-10-10T12:00:17Z')
    c.ctld_start('nid[001234-001237]')
    c.ctld_other(30)
    c.sched.append((tc, f'_slurm_rpc_kill_job: REQUEST_KILL_JOB JobId={c.job_id} uid 21034'))
    c.sched.append((tc + sec(31), f'_job_complete: JobId={c.job_id} WTERMSIG 15'))
    lb = c.lbl
    app = script_banner(c) + c.nccl_init('2.19.3', label=True, hcas=4)
    app += c.progress(c.start + sec(120), tc, dt.timedelta(minutes=5), stamp='iso', tflops=60, label=0)
    app += [f'slurmstepd: error: *** JOB {c.job_id} ON nid001234 CANCELLED AT 2026-10-10T12:00:17 ***',
            'srun: Job step aborted: Waiting up to 32 seconds for job step to finish.',
            f'slurmstepd: error: *** STEP {c.job_id}.0 ON nid001234 CANCELLED AT 2026-10-10T12:00:17 ***']
    for r in c.ranks[1::3]:
        app += [lb(r.rank) + x for x in nccl_warn(r, f'socketProgress: Connection closed by remote peer {c.ranks[0].ip}<{39000 + r.rank}>', 'misc/socket.cc:50', blank=False)]
        app += [lb(r.rank) + x for x in torch_nccl_error('2.3', r.rank, 9100, tc + sec(2), 'remote', '2.19.3')[:2]]
    app += ['srun: error: nid001235: tasks 4-7: Terminated', 'srun: error: nid001236: tasks 8-11: Terminated',
            'srun: error: nid001237: tasks 12-15: Terminated', 'srun: error: nid001234: tasks 0-3: Terminated']
    c.app['slurm-7714.out'] = app
    for r in c.ranks:
        c.set_exit(r.rank, 0, tc + sec(3), 15)
    c.write({'sub_domain': ['SchedCancelled'], 'culprit_nodes': [], 'drain_ok': [],
             'why': 'uid 21034 cancelled the job (REQUEST_KILL_JOB, plain CANCELLED banner); the NCCL connection errors come '
                    'after the cancel and are the teardown.'})


def case_node_fail_missing():
    """NODE_FAIL: c7-gpu-03 died, no nodes/ dir for it, slurmctld 'not responding, setting DOWN'; peers lose it."""
    nodes = ['c7-gpu-01', 'c7-gpu-02', 'c7-gpu-03', 'c7-gpu-04']
    c = Case('node-fail-missing-dir', job_id=808080, nodes=nodes, start='2026-09-01T12:00:00Z', end='2026-09-01T14:26:40Z',
             state='NODE_FAIL', exit_code='0:0', reason='NodeDown', time_limit='1-00:00:00',
             cluster='c7', user='harp', partition='gpu', jobname='asr-conformer', ipbase='10.7.0.')
    for n in nodes:
        c.standard_node(n, noise=70)
    c.missing.add('c7-gpu-03')
    for n in nodes:
        c.write_node(n, [('syslog', 'rfc3339', 'all')])
    tdie = T('2026-09-01T14:19:31Z')
    bad = [r for r in c.ranks if r.node == 'c7-gpu-03'][0]
    c.ctld_start('c7-gpu-[01-04]')
    c.ctld_other(40)
    c.sched.append((tdie + sec(123), 'error: Nodes c7-gpu-03 not responding'))
    c.sched.append((tdie + sec(428), 'error: Nodes c7-gpu-03 not responding, setting DOWN'))
    c.sched.append((tdie + sec(428.01), f'Killing JobId={c.job_id} on failed node c7-gpu-03'))
    c.sched.append((tdie + sec(428.02), f'_job_complete: JobId={c.job_id} done'))
    app = script_banner(c) + c.nccl_init('2.20.5')
    app += c.progress(c.start + sec(200), tdie, dt.timedelta(minutes=3), stamp='iso', tflops=170)
    for r in c.ranks:
        if r.node != 'c7-gpu-03' and r.local in (0, 4):
            app += nccl_warn(r, f'NET/IB : Got completion from peer {bad.ip}<{51000 + r.rank}> with status=12 opcode=0 len=0 vendor err 129 (Send) '
                                f'localGid ::ffff:{r.ip} remoteGids::ffff:{bad.ip}', None if r.local == 4 else 'transport/net_ib.cc:1696')
    app += ['srun: error: Node failure on c7-gpu-03',
            f'slurmstepd: error: *** JOB {c.job_id} ON c7-gpu-01 CANCELLED AT 2026-09-01T14:26:39 DUE TO NODE FAILURE, SEE SLURMCTLD LOG FOR DETAILS ***',
            'srun: Job step aborted: Waiting up to 32 seconds for job step to finish.']
    c.app['slurm-808080.out'] = app
    c.write({'confidence': 'medium', 'sub_domain': ['InfraHW'], 'culprit_nodes': ['c7-gpu-03'], 'drain_ok': ['c7-gpu-03'],
             'why': 'c7-gpu-03 stopped answering (slurmctld: not responding, setting DOWN; no logs could be collected from it) and '
                    'its peers lost their IB connections to it; the job ended NODE_FAIL.'})


def case_nfs_io_error():
    """NFS server not responding on every node, then OSError EIO on a checkpoint write; mixed dmesg -T and RFC 3164."""
    nodes = ['lm-01', 'lm-02', 'lm-03']
    c = Case('nfs-io-error', job_id=22101, nodes=nodes, start='2026-04-22T20:00:00Z', end='2026-04-22T23:17:42Z',
             state='FAILED', exit_code='1:0', reason='NonZeroExitCode', time_limit='1-00:00:00',
             cluster='lm', user='rosa', partition='gpu', jobname='opt-6b', ipbase='10.12.0.')
    for n in nodes:
        c.standard_node(n, noise=70)
    ts = T('2026-04-22T23:09:05Z')
    for i, n in enumerate(nodes):
        c.klog(n, ts + sec(i * 0.7), 'nfs: server nfs-home.cluster.local not responding, still trying')
        c.klog(n, ts + sec(180 + i * 0.7), 'nfs: server nfs-home.cluster.local not responding, timed out')
        c.klog(n, ts + sec(300 + i), f'INFO: task python:{c.ranks[i * 8].pid} blocked for more than 120 seconds.')
    c.write_node('lm-01', [('dmesg-T.txt', 'dmesg', 'kernel')])
    for n in nodes[1:]:
        c.write_node(n, [('messages', 'rfc3164', 'all')])
    tf = T('2026-04-22T23:16:40Z')
    app = script_banner(c) + c.nccl_init('2.18.6')
    app += c.progress(c.start + sec(60), ts, dt.timedelta(minutes=4), stamp='iso', tflops=150)
    app += ['saving checkpoint to /home/rosa/runs/opt-6b/step_18000.pt',
            'Traceback (most recent call last):',
            '  File "/home/rosa/opt/train.py", line 410, in <module>',
            '    save_checkpoint(model, optimizer, step, args.out)',
            '  File "/home/rosa/opt/train.py", line 122, in save_checkpoint',
            '    torch.save(state, path)',
            '  File "/usr/local/lib/python3.10/dist-packages/torch/serialization.py", line 628, in save',
            '    with _open_zipfile_writer(f) as opened_zipfile:',
            "OSError: [Errno 5] Input/output error: '/home/rosa/runs/opt-6b/step_18000.pt'"]
    for r in c.ranks[1::4]:
        app += torch_nccl_error('2.1', r.rank, 18000, tf + sec(5), 'remote', '2.18.6')[:2]
    app += ['srun: error: lm-01: task 0: Exited with exit code 1', 'srun: error: lm-02: task 1: Exited with exit code 1',
            'srun: error: lm-03: task 2: Exited with exit code 1']
    c.app['slurm-22101.out'] = app
    c.write({'sub_domain': ['InfraStorage'], 'culprit_nodes': [], 'drain_ok': [],
             'why': 'All three nodes lost the NFS server nfs-home.cluster.local (not responding, then timed out) and the checkpoint '
                    'write failed with EIO; the shared filesystem, not a node or the code, caused it.'})


def case_pyxis_bad_image():
    """pyxis/enroot import of a non-existent tag (404); nothing ran, ranks []."""
    nodes = ['dgx-b200-05', 'dgx-b200-06']
    c = Case('pyxis-bad-image', job_id=5150, nodes=nodes, start='2026-12-12T12:12:12Z', end='2026-12-12T12:13:40Z',
             state='FAILED', exit_code='1:0', reason='NonZeroExitCode', time_limit='04:00:00',
             cluster='b200', user='nico', partition='b200', jobname='nemo-sft', ipbase='10.55.0.')
    for n in nodes:
        c.standard_node(n, noise=56)
    for n in nodes:
        c.write_node(n, [('journal.txt', 'iso', 'all')])
    c.ranks_in_json = False
    img = 'nvcr.io#nvidia/nemo:25.13'
    app = script_banner(c, [f'+ srun --container-image={img} --container-mounts=/lustre/proj:/proj python /opt/NeMo/examples/nlp/sft.py'])
    app += [f'pyxis: importing docker image: {img}']
    for n in nodes:
        app += [f'slurmstepd: error: pyxis: child {c.rng.randint(100000, 900000)} failed with error code: 1',
                f'slurmstepd: error: pyxis: failed to import docker image: {img}',
                'slurmstepd: error: pyxis: printing enroot log file:',
                'slurmstepd: error: pyxis:     [INFO] Querying registry for permission grant',
                'slurmstepd: error: pyxis:     [INFO] Authenticating with user: $oauthtoken',
                'slurmstepd: error: pyxis:     [INFO] Using credentials from file: /home/nico/.config/enroot/.credentials',
                'slurmstepd: error: pyxis:     [INFO] Authentication succeeded',
                'slurmstepd: error: pyxis:     [INFO] Fetching image manifest list',
                'slurmstepd: error: pyxis:     [INFO] Fetching image manifest',
                'slurmstepd: error: pyxis:     [ERROR] URL https://nvcr.io/v2/nvidia/nemo/manifests/25.13 returned error code: 404 Not Found',
                'slurmstepd: error: pyxis: couldn\'t start container',
                'slurmstepd: error: spank: required plugin spank_pyxis.so: task_init_privileged() failed with rc=-1',
                'slurmstepd: error: Failed to invoke spank plugin stack']
    app += ['srun: error: dgx-b200-05: tasks 0-7: Exited with exit code 1', 'srun: error: dgx-b200-06: tasks 8-15: Exited with exit code 1']
    c.app['slurm-5150.out'] = app
    c.write({'confidence': 'medium', 'sub_domain': ['UserConfig'], 'culprit_nodes': [], 'drain_ok': [],
             'why': 'The container image nvcr.io/nvidia/nemo:25.13 does not exist (registry returned 404 for its manifest), '
                    'so pyxis could not start the container on any node.'})


def case_pyxis_bad_mounts():
    """pyxis --container-mounts source path that does not exist (newer pyxis wording)."""
    nodes = ['sp-gpu-1', 'sp-gpu-2']
    c = Case('pyxis-bad-mounts', job_id=88123, nodes=nodes, start='2026-06-06T06:06:06Z', end='2026-06-06T06:06:51Z',
             state='FAILED', exit_code='1:0', reason='NonZeroExitCode', time_limit='01:00:00', gpus=4, pci=PCI_4GPU,
             cluster='sp', user='omar', partition='gpu', jobname='eval', ipbase='10.6.6.')
    for n in nodes:
        c.standard_node(n, noise=42)
    for n in nodes:
        c.write_node(n, [('syslog', 'rfc3339', 'all')])
    c.ranks_in_json = False
    app = ['+ srun --container-image=/lustre/fs1/images/pytorch-24.05.sqsh --container-mounts=/lustre/fs1/proj/eval-data:/data,/scratch/omar:/out python eval.py']
    for n in nodes:
        app += ['slurmstepd: error: pyxis: --container-mounts: source path does not exist: /lustre/fs1/proj/eval-data',
                'slurmstepd: error: spank: required plugin spank_pyxis.so: task_init_privileged() failed with rc=-1',
                'slurmstepd: error: Failed to invoke spank plugin stack']
    app += ['srun: error: sp-gpu-1: tasks 0-3: Exited with exit code 1', 'srun: error: sp-gpu-2: tasks 4-7: Exited with exit code 1']
    c.app['eval-88123.err'] = app
    c.app['eval-88123.out'] = ['starting eval job 88123']
    c.write({'sub_domain': ['UserConfig'], 'culprit_nodes': [], 'drain_ok': [],
             'why': 'The --container-mounts source /lustre/fs1/proj/eval-data does not exist, so pyxis refused to start the container.'})


def case_missing_shard():
    """FileNotFoundError for a dataset shard from a DataLoader worker; no storage fault anywhere; benign Lustre lines."""
    nodes = ['w-gpu-11', 'w-gpu-12']
    c = Case('missing-shard', job_id=30303, nodes=nodes, start='2026-03-30T14:00:00Z', end='2026-03-30T14:50:16Z',
             state='FAILED', exit_code='1:0', reason='NonZeroExitCode', time_limit='2-00:00:00',
             cluster='w', user='lee', partition='gpu', jobname='rp2-pt', ipbase='10.11.0.')
    for n in nodes:
        c.standard_node(n, noise=56)
        c.klog(n, c.boot[n] + sec(40), 'Lustre: Lustre: Build Version: 2.15.4')
        c.klog(n, c.boot[n] + sec(41), 'Lustre: Mounted lfs01-client')
    c.write_node('w-gpu-11', [('syslog', 'rfc3339', 'all')])
    c.write_node('w-gpu-12', [('journal.txt', 'iso', 'all')])
    tf = T('2026-03-30T14:39:30Z')
    app = script_banner(c) + c.nccl_init('2.20.5')
    app += c.progress(c.start + sec(60), tf, dt.timedelta(minutes=2), stamp='iso', tflops=380)
    app += ['[rank3]: Traceback (most recent call last):',
            '[rank3]:   File "/workspace/rp2/train.py", line 288, in <module>',
            '[rank3]:     for step, batch in enumerate(loader):',
            '[rank3]:   File "/usr/local/lib/python3.10/dist-packages/torch/utils/data/dataloader.py", line 1480, in _process_data',
            '[rank3]:     data.reraise()',
            '[rank3]: FileNotFoundError: Caught FileNotFoundError in DataLoader worker process 3.',
            '[rank3]: Original Traceback (most recent call last):',
            '[rank3]:   File "/workspace/rp2/data/parquet_ds.py", line 54, in __getitem__',
            '[rank3]:     table = pq.read_table(self.files[shard])',
            "[rank3]: FileNotFoundError: [Errno 2] No such file or directory: '/lustre/lfs01/datasets/redpajama-v2/en/shard_00931.parquet'"]
    for r in c.ranks:
        if r.rank != 3:
            app += torch_watchdog_timeout('2.4', r.rank, 2290, tf + sec(600))[:1]
    app += child_failed('train.py', tf, 'w-gpu-11', 3, 3, c.ranks[3].pid)
    c.app['slurm-30303.out'] = app
    c.write({'sub_domain': ['UserConfig'], 'culprit_nodes': [], 'drain_ok': [],
             'evidence_contains': 'No such file or directory',
             'why': 'A dataset shard listed by the user\'s config does not exist (FileNotFoundError, Errno 2); Lustre is mounted and '
                    'healthy on both nodes, so it is a missing path, not a storage fault.'})


def case_pass_old_xid():
    """COMPLETED 0:0; an Xid 79 three days earlier on one node (followed by a reboot); HPE xnames; RFC 3164; user prints 'Xid'."""
    nodes = ['x1000c2s4b0n0', 'x1000c2s4b0n1', 'x1000c2s4b1n0', 'x1000c2s4b1n1']
    c = Case('pass-old-xid', job_id=1717, nodes=nodes, start='2026-11-29T06:00:00Z', end='2026-11-29T09:12:44Z',
             state='COMPLETED', exit_code='0:0', reason='None', time_limit='12:00:00', gpus=4, pci=PCI_4GPU,
             cluster='ex', user='noor', partition='gpu', jobname='eval-suite', ipbase='10.150.0.', iface='hsn0')
    for n in nodes:
        c.standard_node(n, noise=70, before_h=80)
    old = T('2026-11-26T02:17:40Z')
    c.klog('x1000c2s4b1n0', old, f"NVRM: Xid (PCI:{c.pci_full(3)}): 79, pid='<unknown>', name=<unknown>, GPU has fallen off the bus.")
    c.klog('x1000c2s4b1n0', old, f'NVRM: GPU {c.pci_full(3)}.0: GPU has fallen off the bus.')
    c.boot_seq('x1000c2s4b1n0', old + sec(5400))
    for n in nodes:
        c.write_node(n, [('messages', 'rfc3164', 'all')])
    app = script_banner(c) + c.nccl_init('2.21.5', hcas=4)
    app += ['Xid test: checking that the harness tolerates "NVRM: Xid" strings in stdout... ok']
    app += c.progress(c.start + sec(60), c.end - sec(60), dt.timedelta(minutes=5), stamp='iso', tflops=120)
    app += ['evaluation finished: 14 tasks, mean score 0.7134', 'writing results to /scratch/noor/eval/results.json']
    c.app['slurm-1717.out'] = app
    for r in c.ranks:
        c.set_exit(r.rank, 0, c.end - sec(10))
    c.write({'confidence': 'high', 'sub_domain': ['Pass'], 'culprit_nodes': [], 'drain_ok': [],
             'why': 'The job COMPLETED with 0:0; the Xid 79 on x1000c2s4b1n0 is three days older than the job and the node rebooted since.'})


def case_soft_lockup_fqdn_job():
    """Soft lockup on one node; job.json uses FQDNs, logs and NCCL use short names; short-iso-precise; torch 2.3 watchdog."""
    fq = lambda s: f'{s}.hpc.example.net'
    short = ['gpu-a07', 'gpu-a08', 'gpu-a09', 'gpu-a10']
    nodes = [fq(s) for s in short]
    c = Case('soft-lockup-fqdn-job', job_id=600913, nodes=nodes, start='2026-10-01T18:00:00Z', end='2026-10-01T19:52:06Z',
             state='FAILED', exit_code='134:0', reason='NonZeroExitCode', time_limit='12:00:00',
             cluster='hpc', user='ivan', partition='gpu', jobname='dlrm', ipbase='10.14.2.',
             loghost={fq(s): s for s in short})
    for n in nodes:
        c.standard_node(n, noise=70)
    bad_node = fq('gpu-a09')
    bad = [r for r in c.ranks if r.node == bad_node][3]
    tf = T('2026-10-01T19:40:12.004455Z')
    for i in range(4):
        c.klog(bad_node, tf + sec(28 * i), f'watchdog: BUG: soft lockup - CPU#{52 + i % 2} stuck for {23 + 28 * i}s! [python3:{bad.pid}]')
        c.klog(bad_node, tf + sec(28 * i + 0.001), 'Modules linked in: nvidia_peermem(OE) nvidia_uvm(OE) nvidia_drm(POE) nvidia_modeset(POE) nvidia(POE) mlx5_ib ib_uverbs mlx5_core')
        c.klog(bad_node, tf + sec(28 * i + 0.002), f'CPU: {52 + i % 2} PID: {bad.pid} Comm: python3 Tainted: P           OEL    5.15.0-105-generic #115-Ubuntu')
        c.klog(bad_node, tf + sec(28 * i + 0.003), 'RIP: 0010:native_queued_spin_lock_slowpath+0x13e/0x2a0')
    c.klog(bad_node, tf + sec(60), 'rcu: INFO: rcu_sched self-detected stall on CPU')
    c.klog(bad_node, tf + sec(60), f'rcu: \t52-....: (14999 ticks this GP) idle=a3e/1/0x4000000000000000 softirq=881234/881234 fqs=6911')
    for n in nodes:
        c.write_node(n, [('journal.txt', 'isoprecise', 'all')])
    app = script_banner(c) + c.nccl_init('2.20.5')
    app += c.progress(c.start + sec(90), tf, dt.timedelta(minutes=3), stamp='iso', tflops=260)
    for r in c.ranks:
        if r.node != bad_node:
            app += torch_watchdog_timeout('2.3', r.rank, 60231, tf + sec(640))[:2]
    app += ['srun: error: gpu-a07: task 0: Aborted (core dumped)', 'srun: error: gpu-a08: task 1: Aborted (core dumped)',
            'srun: error: gpu-a10: task 3: Aborted (core dumped)', 'srun: error: gpu-a09: task 2: Killed']
    c.app['slurm-600913.out'] = app
    c.write({'sub_domain': ['InfraSW', 'InfraHW'], 'culprit_nodes': [bad_node], 'drain_ok': [bad_node],
             'why': 'gpu-a09 (gpu-a09.hpc.example.net in job.json) had repeated CPU soft lockups and an RCU stall that froze its '
                    'ranks; every other rank then hit the NCCL watchdog timeout 10 minutes later.'})


def case_two_hw_faults():
    """Two hardware faults one second apart on two nodes: Xid 79 and Xid 48 -> ambiguous, both culprits."""
    nodes = ['dgx-a100-021', 'dgx-a100-022', 'dgx-a100-023', 'dgx-a100-024']
    c = Case('two-hw-faults', job_id=1201999, nodes=nodes, start='2026-06-20T03:00:00Z', end='2026-06-20T05:12:19Z',
             state='FAILED', exit_code='1:0', reason='NonZeroExitCode', time_limit='12:00:00', pci=PCI_A100,
             cluster='selene-lab', user='kwame', partition='dgx', jobname='gpt-moe', ipbase='172.16.10.')
    for n in nodes:
        c.standard_node(n, noise=63)
    t1 = T('2026-06-20T05:11:02.300000Z')
    c.klog('dgx-a100-022', t1, f"NVRM: Xid (PCI:{c.pci_full(1)}): 79, pid='<unknown>', name=<unknown>, GPU has fallen off the bus.")
    c.klog('dgx-a100-022', t1, f'NVRM: GPU {c.pci_dev(1)}: GPU has fallen off the bus.')
    c.klog('dgx-a100-024', t1 + sec(1.2), f"NVRM: Xid (PCI:{c.pci_full(5)}): 48, pid='<unknown>', name=<unknown>, An uncorrectable double bit error (DBE) has been detected on GPU in the framebuffer at partition 1, subpartition 0.")
    c.write_node('dgx-a100-021', [('syslog', 'rfc3339', 'all')])
    c.write_node('dgx-a100-022', [('syslog', 'rfc3339', 'all')])
    c.write_node('dgx-a100-023', [('journal.txt', 'iso', 'all')])
    c.write_node('dgx-a100-024', [('journal.txt', 'iso', 'all')])
    app = script_banner(c) + c.nccl_init('2.19.3')
    app += c.progress(c.start + sec(120), t1, dt.timedelta(minutes=3), stamp='iso', tflops=140)
    app += ['[rank9]: RuntimeError: CUDA error: unspecified launch failure',
            '[rank29]: RuntimeError: CUDA error: uncorrectable ECC error encountered']
    for r in c.ranks[::7]:
        if r.rank not in (9, 29):
            app += torch_nccl_error('2.3', r.rank, 70001, t1 + sec(10), 'remote', '2.19.3')[:2]
    c.app['slurm-1201999.out'] = app
    c.write({'sub_domain': ['ambiguous'], 'culprit_nodes': ['dgx-a100-022', 'dgx-a100-024'],
             'drain_ok': ['dgx-a100-022', 'dgx-a100-024'],
             'why': 'Two independent GPU faults 1.2 s apart: Xid 79 on dgx-a100-022 and Xid 48 DBE on dgx-a100-024; either alone '
                    'would have killed the job, so both are candidates.'})


def case_no_evidence():
    """FAILED 1:0, one rank exits 1 with nothing printed, node logs clean (dmesg -T): unattributed."""
    nodes = ['hgx-07', 'hgx-08']
    c = Case('no-evidence', job_id=4404, nodes=nodes, start='2026-01-02T08:00:00Z', end='2026-01-02T09:47:05Z',
             state='FAILED', exit_code='1:0', reason='NonZeroExitCode', time_limit='04:00:00',
             cluster='h', user='ben', partition='gpu', jobname='run-3', ipbase='10.0.40.')
    for n in nodes:
        c.standard_node(n, noise=56)
    for n in nodes:
        c.write_node(n, [('dmesg-T.txt', 'dmesg', 'kernel'), ('syslog', 'rfc3339', 'nonkernel')])
    tf = T('2026-01-02T09:46:50Z')
    app = script_banner(c)
    app += c.progress(c.start + sec(60), tf, dt.timedelta(minutes=2), stamp='iso', tflops=300)
    app += ['srun: error: hgx-08: task 1: Exited with exit code 1']
    c.app['slurm-4404.out'] = app
    c.write({'confidence': 'low', 'sub_domain': ['unattributed'], 'culprit_nodes': [], 'drain_ok': [],
             'why': 'The job exited 1 with no error message in its output and nothing in either node\'s logs; there is no evidence to name a cause.'})


def case_nccl_watchdog_only():
    """Only NCCL watchdog timeouts on every rank (torch 2.5 wording, heartbeat monitor) and clean nodes: unattributed."""
    nodes = ['gpu301', 'gpu302']
    c = Case('nccl-watchdog-only', job_id=3030301, nodes=nodes, start='2026-07-07T07:00:00Z', end='2026-07-07T08:21:17Z',
             state='FAILED', exit_code='134:0', reason='NonZeroExitCode', time_limit='06:00:00',
             cluster='c', user='zoe', partition='gpu', jobname='hang-repro', ipbase='10.30.3.')
    for n in nodes:
        c.standard_node(n, noise=56)
    for n in nodes:
        c.write_node(n, [('syslog', 'rfc3339', 'all')])
    tf = T('2026-07-07T08:20:55Z')
    app = script_banner(c) + c.nccl_init('2.21.5')
    app += c.progress(c.start + sec(60), tf - sec(600), dt.timedelta(minutes=2), stamp='iso', tflops=310)
    for r in c.ranks:
        app += torch_watchdog_timeout('2.5', r.rank, 40033, tf)
    for r in c.ranks[::5]:
        g = f'{tf.month:02d}{tf.day:02d} {tf:%H:%M:%S}.{r.rank:06d}'
        app += [f'[rank{r.rank}]:[F{g} ProcessGroupNCCL.cpp:1306] [PG ID 0 PG GUID 0(default_pg) Rank {r.rank}] [PG ID 0 PG GUID 0(default_pg) '
                f'Rank {r.rank}] Terminating the process after attempting to dump debug info, due to collective timeout or exception.']
    app += ['srun: error: gpu301: task 0: Aborted (core dumped)', 'srun: error: gpu302: task 1: Aborted (core dumped)']
    c.app['slurm-3030301.out'] = app
    c.write({'sub_domain': ['unattributed', 'ambiguous'], 'culprit_nodes': [], 'drain_ok': [],
             'why': 'Every rank reports the same collective timeout at the same time and no node shows a fault; the hang itself is the only evidence.'})


def case_ib_nccl223_async():
    """IB port error in NCCL 2.23 wording ('Got async error event: port error'), peers' 2.23 completion lines with hca; dmesg -T."""
    nodes = ['ibn-a1', 'ibn-a2', 'ibn-a3', 'ibn-a4']
    c = Case('ib-port-nccl223', job_id=919191, nodes=nodes, start='2026-11-02T05:00:00Z', end='2026-11-02T05:58:12Z',
             state='FAILED', exit_code='1:0', reason='NonZeroExitCode', time_limit='06:00:00',
             cluster='ibn', user='lars', partition='gpu', jobname='mamba-pt', ipbase='10.90.1.',
             driver='560.35.03')
    for n in nodes:
        c.standard_node(n, noise=63)
    bad_node = 'ibn-a1'
    tf = T('2026-11-02T05:57:01.000100Z')
    c.klog(bad_node, tf, 'mlx5_core 0000:1a:00.0: mlx5_port_module_event:1131:(pid 0): Port module event[error]: module 0, Cable error, Power budget exceeded')
    for n in nodes:
        c.write_node(n, [('dmesg-T.txt', 'dmesg', 'kernel'), ('syslog', 'rfc3339', 'nonkernel')])
    bad = [r for r in c.ranks if r.node == bad_node]
    app = script_banner(c) + c.nccl_init('2.23.4')
    app += c.progress(c.start + sec(60), tf, dt.timedelta(minutes=2), stamp='iso', tflops=330)
    for r in bad[:3]:
        app += nccl_warn(r, 'NET/IB : mlx5_0:1 Got async error event: port error', 'transport/net_ib.cc:171')
    for r in c.ranks:
        if r.node != bad_node and r.local == 0:
            app += nccl_warn(r, f'NET/IB: Got completion from peer {bad[0].ip}<{33000 + r.rank}> with status=12 opcode=0 len=0 vendor err 129 (Recv) '
                                f'localGid ::ffff:{r.ip} remoteGids::ffff:{bad[0].ip} hca mlx5_0', 'transport/net_ib.cc:2121')
            app += torch_nccl_error('2.5', r.rank, 14455, tf + sec(1), 'remote', '2.23.4')[:2]
    c.app['slurm-919191.out'] = app
    c.write({'sub_domain': ['InfraNet'], 'culprit_nodes': ['ibn-a1'], 'drain_ok': ['ibn-a1'],
             'why': 'ibn-a1\'s mlx5_0 port failed (module power budget exceeded, NCCL "port error" on its ranks) and the peers\' '
                    'completion errors name its bootstrap address %s.' % bad[0].ip})


def case_timeout_mgmt_flap():
    """TIMEOUT; a management-NIC flap hours before (down, up 3 s later) and progress continues to the limit -> SchedTimeLimit."""
    nodes = ['ares-g01', 'ares-g02', 'ares-g03']
    c = Case('timeout-mgmt-flap', job_id=612044, nodes=nodes, start='2026-03-21T02:00:00Z', end='2026-03-21T06:00:27Z',
             state='TIMEOUT', exit_code='0:0', reason='TimeLimit', time_limit='04:00:00',
             cluster='ares', user='mina', partition='gpu', jobname='ssl-vit', ipbase='10.21.5.')
    for n in nodes:
        c.standard_node(n, noise=49)
    tf = T('2026-03-21T02:41:09.120000Z')
    c.klog('ares-g02', tf, 'igb 0000:02:00.0 eno1: igb: eno1 NIC Link is Down')
    c.log('ares-g02', tf + sec(0.1), 'systemd-networkd[1011]', 'eno1: Lost carrier')
    c.klog('ares-g02', tf + sec(3.2), 'igb 0000:02:00.0 eno1: igb: eno1 NIC Link is Up 1000 Mbps Full Duplex, Flow Control: RX/TX')
    c.log('ares-g02', tf + sec(3.3), 'systemd-networkd[1011]', 'eno1: Gained carrier')
    c.write_node('ares-g01', [('messages', 'rfc3164', 'all')])
    c.write_node('ares-g02', [('journal.txt', 'iso', 'all')])
    c.write_node('ares-g03', [('messages', 'rfc3164', 'all')])
    c.ctld_start('ares-g[01-03]')
    c.ctld_other(20)
    c.sched.append((c.end - sec(27), f'Time limit exhausted for JobId={c.job_id}'))
    app = script_banner(c) + c.nccl_init('2.21.5')
    app += c.progress(c.start + sec(120), c.end - sec(40), dt.timedelta(minutes=5), stamp='iso', tflops=280)
    app += [f'slurmstepd: error: *** JOB {c.job_id} ON ares-g01 CANCELLED AT 2026-03-21T06:00:00 DUE TO TIME LIMIT ***',
            'srun: Job step aborted: Waiting up to 32 seconds for job step to finish.',
            'srun: error: ares-g01: tasks 0-7: Terminated', 'srun: error: ares-g02: tasks 8-15: Terminated',
            'srun: error: ares-g03: tasks 16-23: Terminated']
    c.app['slurm-612044.out'] = app
    c.write({'sub_domain': ['SchedTimeLimit'], 'culprit_nodes': [], 'drain_ok': [],
             'why': 'The management port eno1 of ares-g02 flapped for 3 s at 02:41Z, but training progress continued for more than '
                    'three hours afterwards until the 4 h limit; the flap explains nothing, the job ran out of time.'})


def case_cancelled_after_hang():
    """Xid 74 NVLink fault hangs the job (long collective timeout); the user notices and scancels 50 min later -> InfraHW."""
    nodes = ['sxm-17', 'sxm-18', 'sxm-19', 'sxm-20']
    c = Case('cancelled-after-nvlink-hang', job_id=77420, nodes=nodes, start='2026-05-19T13:00:00Z', end='2026-05-19T16:32:51Z',
             state='CANCELLED', exit_code='0:15', reason='None', time_limit='1-00:00:00', pci=PCI_A100,
             cluster='sxm', user='paul', partition='a100', jobname='t2i-pt', ipbase='10.17.0.')
    for n in nodes:
        c.standard_node(n, noise=42)
    tf = T('2026-05-19T15:41:18.000400Z')
    c.klog('sxm-19', tf, f"NVRM: Xid (PCI:{c.pci_full(2)}): 74, pid='<unknown>', name=<unknown>, NVLink: fatal error detected on link 7(0x0, 0x0, 0x10000, 0x0, 0x0, 0x0, 0x0)")
    c.write_node('sxm-17', [('syslog', 'rfc3339', 'all')])
    c.write_node('sxm-18', [('syslog', 'rfc3339', 'all')])
    c.write_node('sxm-19', [('dmesg-T.txt', 'dmesg', 'kernel'), ('syslog', 'rfc3339', 'nonkernel')])
    c.write_node('sxm-20', [('syslog', 'rfc3339', 'all')])
    tc = T('2026-05-19T16:32:20Z')
    c.ctld_start('sxm-[17-20]')
    c.ctld_other(25)
    c.sched.append((tc, f'_slurm_rpc_kill_job: REQUEST_KILL_JOB JobId={c.job_id} uid 5012'))
    app = script_banner(c, ['+ export TORCH_NCCL_BLOCKING_WAIT=0 NCCL_TIMEOUT_MIN=180']) + c.nccl_init('2.19.3')
    app += c.progress(c.start + sec(60), tf - sec(20), dt.timedelta(minutes=3), stamp='iso', tflops=133)
    app += [f'slurmstepd: error: *** JOB {c.job_id} ON sxm-17 CANCELLED AT 2026-05-19T16:32:20 ***',
            'srun: Job step aborted: Waiting up to 32 seconds for job step to finish.',
            'srun: error: sxm-17: tasks 0-7: Terminated', 'srun: error: sxm-18: tasks 8-15: Terminated',
            'srun: error: sxm-19: tasks 16-23: Terminated', 'srun: error: sxm-20: tasks 24-31: Terminated']
    c.app['slurm-77420.out'] = app
    c.write({'sub_domain': ['InfraHW'], 'culprit_nodes': ['sxm-19'], 'drain_ok': ['sxm-19'],
             'why': 'GPU 0000:47:00 on sxm-19 hit an NVLink fatal error (Xid 74) at 15:41Z and training progress stopped right '
                    'there; the user cancelled the hung job 50 minutes later, so the cancel is the reaction, not the cause.'})


def case_nccl_bad_ifname():
    """User sets NCCL_SOCKET_IFNAME to an interface the nodes do not have: NCCL init fails everywhere -> UserConfig."""
    nodes = ['kestrel-g1', 'kestrel-g2']
    c = Case('nccl-bad-ifname', job_id=10451, nodes=nodes, start='2026-08-30T19:00:00Z', end='2026-08-30T19:01:37Z',
             state='FAILED', exit_code='1:0', reason='NonZeroExitCode', time_limit='02:00:00', gpus=4, pci=PCI_4GPU,
             cluster='kestrel', user='tim', partition='gpu', jobname='ddp-test', ipbase='10.8.8.')
    for n in nodes:
        c.standard_node(n, noise=42)
        c.write_node(n, [('messages', 'rfc3164', 'all')])
    lb = c.lbl
    app = ['+ export NCCL_SOCKET_IFNAME=eth0', '+ export NCCL_DEBUG=WARN', '+ srun --label python ddp_test.py']
    for r in c.ranks:
        app += [lb(r.rank) + x for x in nccl_warn(r, 'Bootstrap : no socket interface found', 'bootstrap.cc:43', blank=False)]
    for r in c.ranks:
        app += [lb(r.rank) + 'Traceback (most recent call last):',
                lb(r.rank) + '  File "/home/tim/ddp_test.py", line 21, in <module>',
                lb(r.rank) + '    dist.barrier()',
                lb(r.rank) + f'torch.distributed.DistBackendError: NCCL error in: ../torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:1691, '
                             'internal error - please report this issue to the NCCL developers, NCCL version 2.18.6',
                lb(r.rank) + 'ncclInternalError: Internal check failed.',
                lb(r.rank) + 'Last error:',
                lb(r.rank) + 'Bootstrap : no socket interface found']
    app += ['srun: error: kestrel-g1: tasks 0-3: Exited with exit code 1', 'srun: error: kestrel-g2: tasks 4-7: Exited with exit code 1']
    c.app['slurm-10451.out'] = app
    for r in c.ranks:
        c.set_exit(r.rank, 1, c.start + sec(90))
    c.write({'sub_domain': ['UserConfig'], 'culprit_nodes': [], 'drain_ok': [],
             'why': 'The job exported NCCL_SOCKET_IFNAME=eth0, which these nodes do not have, so NCCL found no bootstrap interface '
                    'on any rank; a bad environment setting, not a node fault.'})


def case_module_not_found():
    """ModuleNotFoundError on every rank at start (flash_attn not in the environment) -> UserConfig; short-iso-precise."""
    nodes = ['gpu-s-004', 'gpu-s-005']
    c = Case('module-not-found', job_id=280032, nodes=nodes, start='2026-09-14T07:30:00Z', end='2026-09-14T07:30:49Z',
             state='FAILED', exit_code='1:0', reason='NonZeroExitCode', time_limit='1-12:00:00',
             cluster='s', user='hana', partition='gpu', jobname='llava-ft', ipbase='10.4.0.')
    for n in nodes:
        c.standard_node(n, noise=42)
        c.write_node(n, [('journal.txt', 'isoprecise', 'all')])
    app = ['+ source /home/hana/venvs/llava/bin/activate', '+ srun torchrun --nnodes 2 --nproc-per-node 8 llava/train.py']
    for r in c.ranks[::3]:
        app += [f'[rank{r.rank}]: Traceback (most recent call last):',
                f'[rank{r.rank}]:   File "/home/hana/llava/train.py", line 12, in <module>',
                f'[rank{r.rank}]:     from llava.model import LlavaLlamaForCausalLM',
                f'[rank{r.rank}]:   File "/home/hana/llava/llava/model/language_model/llava_llama.py", line 9, in <module>',
                f'[rank{r.rank}]:     from flash_attn import flash_attn_varlen_func',
                f"[rank{r.rank}]: ModuleNotFoundError: No module named 'flash_attn'"]
    app += child_failed('llava/train.py', c.start + sec(40), 'gpu-s-004', 0, 0, c.ranks[0].pid,
                        others=[(c.start + sec(40), r.rank, r.local, r.pid, 1) for r in c.ranks[1:4]])
    app += ['srun: error: gpu-s-004: task 0: Exited with exit code 1', 'srun: error: gpu-s-005: task 1: Exited with exit code 1']
    c.app['slurm-280032.out'] = app
    c.write({'sub_domain': ['UserConfig'], 'culprit_nodes': [], 'drain_ok': [],
             'why': 'flash_attn is not installed in the user\'s virtualenv, so every rank failed at import; a broken environment.'})


def case_disk_quota():
    """Checkpoint write fails with EDQUOT on rank 0; others lose it -> UserResource; rsyslog RFC 3339."""
    nodes = ['q-gpu-31', 'q-gpu-32']
    c = Case('disk-quota', job_id=990001, nodes=nodes, start='2026-10-20T00:00:00Z', end='2026-10-20T05:10:14Z',
             state='FAILED', exit_code='1:0', reason='NonZeroExitCode', time_limit='2-00:00:00',
             cluster='q', user='ravi', partition='gpu', jobname='whisper-large', ipbase='10.31.0.')
    for n in nodes:
        c.standard_node(n, noise=49)
        c.write_node(n, [('syslog', 'rfc3339', 'all')])
    tf = T('2026-10-20T04:59:40Z')
    app = script_banner(c) + c.nccl_init('2.20.5')
    app += c.progress(c.start + sec(60), tf, dt.timedelta(minutes=6), stamp='iso', tflops=211)
    app += ['[rank0]: saving checkpoint-24000 to /project/ravi/whisper/ckpt',
            '[rank0]: Traceback (most recent call last):',
            '[rank0]:   File "/project/ravi/whisper/train.py", line 377, in <module>',
            '[rank0]:     trainer.save_model(out_dir)',
            '[rank0]:   File "/usr/local/lib/python3.10/dist-packages/safetensors/torch.py", line 286, in save_file',
            '[rank0]:     serialize_file(_flatten(tensors), filename, metadata=metadata)',
            "[rank0]: OSError: [Errno 122] Disk quota exceeded: '/project/ravi/whisper/ckpt/checkpoint-24000/model-00003-of-00004.safetensors'"]
    for r in c.ranks[1:]:
        app += torch_watchdog_timeout('2.4', r.rank, 96001, tf + sec(600))[:1]
    app += child_failed('train.py', tf, 'q-gpu-31', 0, 0, c.ranks[0].pid)
    c.app['slurm-990001.out'] = app
    c.write({'sub_domain': ['UserResource'], 'culprit_nodes': [], 'drain_ok': [],
             'evidence_contains': 'Disk quota exceeded',
             'why': 'Rank 0 hit the project\'s disk quota (EDQUOT) while writing a checkpoint; the job exhausted its own storage allowance.'})


def case_lustre_eviction():
    """Lustre OST connection lost and clients evicted on every node, then ESHUTDOWN in the data loader -> InfraStorage."""
    nodes = ['lx-gpu-21', 'lx-gpu-22', 'lx-gpu-23']
    c = Case('lustre-eviction', job_id=455012, nodes=nodes, start='2026-12-03T09:00:00Z', end='2026-12-03T10:22:48Z',
             state='FAILED', exit_code='1:0', reason='NonZeroExitCode', time_limit='12:00:00',
             cluster='lx', user='eva', partition='gpu', jobname='video-diff', ipbase='10.23.0.')
    for n in nodes:
        c.standard_node(n, noise=49)
        c.klog(n, c.boot[n] + sec(40), 'Lustre: Lustre: Build Version: 2.15.5')
    ts = T('2026-12-03T10:14:31Z')
    for i, n in enumerate(nodes):
        h = 'ffff9a31%04x' % (0x1c00 + i * 0x200)
        c.klog(n, ts + sec(i * 0.3), f'LustreError: 11-0: scratch-OST0011-osc-{h}: operation ost_read to node 10.0.9.17@o2ib failed: rc = -107')
        c.klog(n, ts + sec(i * 0.3 + 0.01), f'Lustre: scratch-OST0011-osc-{h}: Connection to scratch-OST0011 (at 10.0.9.17@o2ib) was lost; '
                                            'in progress operations using this service will wait for recovery to complete')
        c.klog(n, ts + sec(205 + i), f'LustreError: 167-0: scratch-OST0011-osc-{h}: This client was evicted by scratch-OST0011; '
                                     'in progress operations using this service will fail.')
        c.klog(n, ts + sec(205.2 + i), f'Lustre: scratch-OST0011-osc-{h}: Connection restored to 10.0.9.17@o2ib (at 10.0.9.17@o2ib)')
        c.write_node(n, [('journal.txt', 'iso', 'all')])
    tf = ts + sec(206)
    app = script_banner(c) + c.nccl_init('2.21.5')
    app += c.progress(c.start + sec(60), ts, dt.timedelta(minutes=4), stamp='iso', tflops=240)
    app += ['[rank17]: Traceback (most recent call last):',
            '[rank17]:   File "/scratch/eva/vd/train.py", line 199, in <module>',
            '[rank17]:     batch = next(data_iter)',
            '[rank17]:   File "/scratch/eva/vd/data.py", line 71, in __getitem__',
            '[rank17]:     frames = decode(open(path, "rb").read())',
            "[rank17]: OSError: [Errno 108] Cannot send after transport endpoint shutdown: '/scratch/eva/datasets/clips/000871/clip_0042.mp4'"]
    for r in c.ranks[::4]:
        if r.rank != 17:
            app += torch_nccl_error('2.4', r.rank, 3110, tf + sec(3), 'remote', '2.21.5')[:2]
    app += child_failed('train.py', tf, 'lx-gpu-23', 17, 1, c.ranks[17].pid)
    c.app['slurm-455012.out'] = app
    c.write({'sub_domain': ['InfraStorage'], 'culprit_nodes': [], 'drain_ok': [],
             'why': 'All three clients lost scratch-OST0011 and were evicted by it; the reads in flight failed with ESHUTDOWN. '
                    'The shared filesystem failed, no node is to blame.'})


def case_host_oom_global():
    """System-wide OOM (no cgroup limit): the kernel kills the job's python; srun 'Killed'; state FAILED -> UserResource; dmesg -T."""
    nodes = ['bigmem-g1', 'bigmem-g2']
    c = Case('host-oom-global', job_id=31337, nodes=nodes, start='2026-02-14T16:00:00Z', end='2026-02-14T16:44:02Z',
             state='FAILED', exit_code='0:9', reason='NonZeroExitCode', time_limit='06:00:00', gpus=4, pci=PCI_4GPU,
             cluster='bm', user='luca', partition='bigmem', jobname='embed-index', ipbase='10.50.0.')
    for n in nodes:
        c.standard_node(n, noise=42)
    bad = c.ranks[5]
    tf = T('2026-02-14T16:43:51.100000Z')
    k = lambda d, m: c.klog('bigmem-g2', tf + sec(d), m)
    k(0, 'python invoked oom-killer: gfp_mask=0x100cca(GFP_HIGHUSER_MOVABLE), order=0, oom_score_adj=0')
    k(0, f'CPU: 3 PID: {bad.pid} Comm: python Tainted: P           OE     5.15.0-105-generic #115-Ubuntu')
    k(0.01, 'Mem-Info:')
    k(0.02, f'oom-kill:constraint=CONSTRAINT_NONE,nodemask=(null),cpuset=/,mems_allowed=0-1,global_oom,task_memcg=/system.slice/slurmstepd.scope/job_31337/step_0/user/task_1,task=python,pid={bad.pid},uid=2207')
    k(0.02, f'Out of memory: Killed process {bad.pid} (python) total-vm:2034112348kB, anon-rss:1987223040kB, file-rss:1024kB, shmem-rss:0kB, UID:2207 pgtables:3912004kB oom_score_adj:0')
    for n in nodes:
        c.write_node(n, [('dmesg-T.txt', 'dmesg', 'kernel'), ('syslog', 'rfc3339', 'nonkernel')])
    lb = c.lbl
    app = script_banner(c) + c.nccl_init('2.18.6', label=True, hcas=2)
    app += [lb(0) + f'indexed {i * 1000000} vectors' for i in range(1, 40)]
    app += ['srun: error: bigmem-g2: task 5: Killed']
    for r in c.ranks:
        if r.rank != 5:
            app += [lb(r.rank) + x for x in torch_nccl_error('2.1', r.rank, 404, tf + sec(4), 'remote', '2.18.6')[:2]]
    app += ['srun: error: bigmem-g1: tasks 0-3: Exited with exit code 1', 'srun: error: bigmem-g2: tasks 4,6-7: Exited with exit code 1']
    c.app['slurm-31337.out'] = app
    c.set_exit(5, 0, tf + sec(0.1), 9)
    for r in c.ranks:
        if r.rank != 5:
            c.set_exit(r.rank, 1, tf + sec(6))
    c.write({'sub_domain': ['UserResource'], 'culprit_nodes': [], 'drain_ok': [],
             'why': 'The kernel\'s global OOM killer killed rank 5\'s python on bigmem-g2 after it grew to ~1.9 TB of anonymous memory; '
                    'the job exhausted the node\'s memory itself.'})


def case_xid45_teardown_chicago():
    """User RuntimeError, then Xid 45/43 from the teardown of that rank (pid matches); America/Chicago RFC 3164 -> UserCode."""
    nodes = ['mw-gpu-01', 'mw-gpu-02']
    c = Case('xid45-teardown-chicago', job_id=7002, nodes=nodes, start='2026-01-15T15:00:00Z', end='2026-01-15T15:46:09Z',
             state='FAILED', exit_code='1:0', reason='NonZeroExitCode', time_limit='08:00:00', tz='America/Chicago',
             cluster='mw', user='jill', partition='gpu', jobname='dpo', ipbase='10.60.0.')
    for n in nodes:
        c.standard_node(n, noise=49)
    bad = c.ranks[11]
    tf = T('2026-01-15T15:35:40Z')
    c.klog('mw-gpu-02', tf + sec(1.1), f'NVRM: Xid (PCI:{c.pci_full(3)}): 45, pid={bad.pid}, name=python, Ch 00000010')
    c.klog('mw-gpu-02', tf + sec(1.1), f'NVRM: Xid (PCI:{c.pci_full(3)}): 45, pid={bad.pid}, name=python, Ch 00000011')
    c.klog('mw-gpu-02', tf + sec(1.4), f'NVRM: Xid (PCI:{c.pci_full(3)}): 43, pid={bad.pid}, name=python, Ch 00000018')
    for n in nodes:
        c.write_node(n, [('messages', 'rfc3164', 'all')])
    app = script_banner(c) + c.nccl_init('2.20.5')
    app += c.progress(c.start + sec(60), tf, dt.timedelta(minutes=2), stamp='none', tflops=301)
    app += ['[rank11]: Traceback (most recent call last):',
            '[rank11]:   File "/home/jill/dpo/train_dpo.py", line 233, in <module>',
            '[rank11]:     logits = policy(chosen_ids, attention_mask=chosen_mask).logits',
            '[rank11]:   File "/home/jill/dpo/model.py", line 140, in forward',
            '[rank11]:     h = h + self.rotary(q, k, position_ids)',
            '[rank11]: RuntimeError: The size of tensor a (4096) must match the size of tensor b (2048) at non-singleton dimension 1']
    for r in c.ranks[::3]:
        if r.rank != 11:
            app += torch_watchdog_timeout('2.4', r.rank, 812, tf + sec(600))[:1]
    app += child_failed('train_dpo.py', tf, 'mw-gpu-02', 11, 3, bad.pid)
    c.app['slurm-7002.out'] = app
    c.write({'sub_domain': ['UserCode'], 'culprit_nodes': [], 'drain_ok': [],
             'why': 'Rank 11 crashed on a tensor shape mismatch in the user\'s model; the Xid 45/43 on mw-gpu-02 a second later '
                    'carry that rank\'s pid and are the driver cleaning up its channels.'})


def case_segfault_user_ext():
    """Segfault in the user's C++ extension: kernel 'segfault at ... in libfastdedup.so', Fatal Python error -> UserCode."""
    nodes = ['cx-g07', 'cx-g08']
    c = Case('segfault-user-ext', job_id=66001, nodes=nodes, start='2026-04-09T10:00:00Z', end='2026-04-09T10:12:33Z',
             state='FAILED', exit_code='139:0', reason='NonZeroExitCode', time_limit='04:00:00', gpus=4, pci=PCI_4GPU,
             cluster='cx', user='dev', partition='gpu', jobname='dedup-train', ipbase='10.70.0.')
    for n in nodes:
        c.standard_node(n, noise=42)
    bad = c.ranks[6]
    tf = T('2026-04-09T10:12:01.500000Z')
    c.log('cx-g08', tf, 'kernel', f'python[{bad.pid}]: segfault at 18 ip 00007f3a91c2d4e1 sp 00007ffd1b3c9a70 error 4 in libfastdedup.so[7f3a91c00000+4e000]')
    c.log('cx-g08', tf, 'kernel', 'Code: 48 8b 47 18 48 85 c0 74 0e 48 8b 50 08 <48> 8b 42 18 c3 0f 1f 44 00 00 31 c0 c3 66 2e 0f 1f 84 00 00 00 00 00')
    c.log('cx-g08', tf + sec(0.8), 'systemd-coredump[771201]', f'Process {bad.pid} (python) of user 1500 dumped core.')
    for n in nodes:
        c.write_node(n, [('journal.txt', 'isoprecise', 'all')])
    lb = c.lbl
    app = script_banner(c) + c.nccl_init('2.21.5', label=True, hcas=2)
    app += c.progress(c.start + sec(60), tf, dt.timedelta(seconds=50), stamp='none', tflops=90, label=0)
    app += [lb(6) + 'Fatal Python error: Segmentation fault', lb(6) + '',
            lb(6) + 'Current thread 0x00007f3ab2e1f740 (most recent call first):',
            lb(6) + '  File "/home/dev/dedup/fastdedup/__init__.py", line 44 in minhash_batch',
            lb(6) + '  File "/home/dev/dedup/train.py", line 118 in collate']
    app += ['srun: error: cx-g08: task 6: Segmentation fault (core dumped)']
    for r in c.ranks:
        if r.rank != 6:
            app += [lb(r.rank) + x for x in torch_nccl_error('2.3', r.rank, 700, tf + sec(2), 'remote', '2.21.5')[:2]]
    app += ['srun: error: cx-g07: tasks 0-3: Exited with exit code 1', 'srun: error: cx-g08: tasks 4-5,7: Exited with exit code 1']
    c.app['slurm-66001.out'] = app
    c.set_exit(6, 0, tf + sec(0.5), 11)
    for r in c.ranks:
        if r.rank != 6:
            c.set_exit(r.rank, 1, tf + sec(4))
    c.write({'sub_domain': ['UserCode'], 'culprit_nodes': [], 'drain_ok': [],
             'why': 'Rank 6 segfaulted inside the user\'s own libfastdedup.so (kernel segfault line, Fatal Python error); '
                    'the NCCL errors on the other ranks follow it.'})


def case_segfault_srun_only():
    """A rank dies of SIGSEGV and only srun says so (no Python fault handler,
    no kernel segfault line); the other ranks are killed -> UserCode."""
    nodes = ['hpc-a17', 'hpc-a18']
    c = Case('segfault-srun-only', job_id=918273, nodes=nodes, start='2026-08-14T13:00:00Z', end='2026-08-14T13:41:09Z',
             state='FAILED', exit_code='139:0', reason='NonZeroExitCode', time_limit='02:00:00', gpus=4, pci=PCI_4GPU,
             cluster='hpc', user='lin', partition='a100', jobname='sim-mixed', ipbase='10.80.0.')
    for n in nodes:
        c.standard_node(n, noise=42)
        c.write_node(n, [('messages', 'rfc3164', 'all')])
    tf = T('2026-08-14T13:41:02Z')
    app = script_banner(c) + c.nccl_init('2.18.3', label=True, hcas=2)
    app += c.progress(c.start + sec(60), tf, dt.timedelta(seconds=90), stamp='none', tflops=70, label=0)
    app += ['srun: error: hpc-a18: task 5: Segmentation fault (core dumped)',
            'srun: Job step aborted: Waiting up to 32 seconds for job step to finish.',
            'slurmstepd: error: *** STEP 918273.0 ON hpc-a17 CANCELLED AT 2026-08-14T13:41:03 ***',
            'srun: error: hpc-a17: tasks 0-3: Killed', 'srun: error: hpc-a18: tasks 4,6-7: Killed']
    c.app['slurm-918273.out'] = app
    c.set_exit(5, 0, tf, 11)
    for r in c.ranks:
        if r.rank != 5:
            c.set_exit(r.rank, 0, tf + sec(1), 9)
    c.write({'sub_domain': ['UserCode'], 'culprit_nodes': [], 'drain_ok': [],
             'why': 'Rank 5 died of SIGSEGV with nothing before it to explain it (no hardware, driver or network '
                    'event); only srun reports it, and the other ranks were killed in the teardown.'})


def case_pass_xid63_during():
    """COMPLETED 0:0 with an Xid 63 row-remap notice during the run and NCCL INFO chatter -> Pass."""
    nodes = ['dgx-a100-031', 'dgx-a100-032']
    c = Case('pass-xid63-during', job_id=1202777, nodes=nodes, start='2026-06-25T01:00:00Z', end='2026-06-25T02:58:41Z',
             state='COMPLETED', exit_code='0:0', reason='None', time_limit='04:00:00', pci=PCI_A100,
             cluster='selene-lab', user='ada', partition='dgx', jobname='eval-harness', ipbase='172.16.12.')
    for n in nodes:
        c.standard_node(n, noise=42)
    c.klog('dgx-a100-032', T('2026-06-25T01:47:12Z'), f"NVRM: Xid (PCI:{c.pci_full(0)}): 63, pid='<unknown>', name=<unknown>, Row Remapper: New row (0x00000000001c4e80) is marked for remapping, reset gpu to activate.")
    for n in nodes:
        c.write_node(n, [('syslog', 'rfc3339', 'all')])
    app = script_banner(c) + c.nccl_init('2.19.3')
    app += c.progress(c.start + sec(60), c.end - sec(30), dt.timedelta(minutes=4), stamp='iso', tflops=120)
    app += ['all evaluations done']
    c.app['slurm-1202777.out'] = app
    c.write({'sub_domain': ['Pass'], 'culprit_nodes': [], 'drain_ok': [],
             'why': 'The job completed 0:0; the Xid 63 is a row-remap notice (a reset is pending), not a failure of this job.'})


def patch_bytes(case, relpath, marker, payload):
    """Insert raw bytes (NULs, invalid UTF-8, \r) after the first line containing marker."""
    p = os.path.join(HERE, case, relpath)
    data = open(p, 'rb').read()
    i = data.index(marker.encode())
    j = data.index(b'\n', i) + 1
    open(p, 'wb').write(data[:j] + payload + data[j:])


def case_xid79_newyear():
    """Job across New Year with zone-less RFC 3164 logs (year from the job window); one node logs as 'localhost'."""
    nodes = ['ny-gpu-01', 'ny-gpu-02', 'ny-gpu-03']
    c = Case('xid79-newyear-3164', job_id=2026123, nodes=nodes, start='2026-12-31T21:30:00Z', end='2027-01-01T01:41:30Z',
             state='FAILED', exit_code='1:0', reason='NonZeroExitCode', time_limit='08:00:00',
             cluster='ny', user='sam', partition='gpu', jobname='nye-run', ipbase='10.1.12.',
             loghost={'ny-gpu-01': 'ny-gpu-01', 'ny-gpu-02': 'localhost', 'ny-gpu-03': 'ny-gpu-03'})
    for n in nodes:
        c.standard_node(n, noise=49)
    tf = T('2027-01-01T01:40:02.080000Z')
    c.klog('ny-gpu-02', tf, f"NVRM: Xid (PCI:{c.pci_full(7)}): 79, pid='<unknown>', name=<unknown>, GPU has fallen off the bus.")
    c.klog('ny-gpu-02', tf, f'NVRM: GPU {c.pci_dev(7)}: GPU has fallen off the bus.')
    for n in nodes:
        c.write_node(n, [('messages', 'rfc3164', 'all')])
    app = script_banner(c) + c.nccl_init('2.20.5')
    app += c.progress(c.start + sec(60), tf, dt.timedelta(minutes=5), stamp='none', tflops=330)
    app += ['[rank15]: RuntimeError: CUDA error: unspecified launch failure']
    for r in c.ranks[::4]:
        if r.node != 'ny-gpu-02':
            app += torch_nccl_error('2.3', r.rank, 50123, tf + sec(5), 'remote', '2.20.5')[:2]
    app += child_failed('train.py', tf + sec(1), 'ny-gpu-02', 15, 7, c.ranks[15].pid)
    c.app['slurm-2026123.out'] = app
    c.write({'sub_domain': ['InfraHW'], 'culprit_nodes': ['ny-gpu-02'], 'drain_ok': ['ny-gpu-02'], 'root_code': 'xid.79',
             'why': 'ny-gpu-02 (which logs as "localhost") lost GPU 0000:db:00 (Xid 79) on Jan 1 at 01:40Z, in a job that started '
                    'on Dec 31; rank 15 on it failed first and the rest is fallout.'})


def case_ecc_app_only_missing_node():
    """The culprit's logs could not be collected; only the app says rank 13 hit an uncorrectable ECC error (srun --label, ranks in job.json)."""
    nodes = ['pz-gpu-5', 'pz-gpu-6', 'pz-gpu-7']
    c = Case('ecc-app-only-missing-node', job_id=45100, nodes=nodes, start='2026-07-01T12:00:00Z', end='2026-07-01T13:05:40Z',
             state='FAILED', exit_code='1:0', reason='NonZeroExitCode', time_limit='12:00:00', gpus=8,
             cluster='pz', user='kai', partition='gpu', jobname='asr-distill', ipbase='10.45.0.')
    for n in nodes:
        c.standard_node(n, noise=42)
        c.write_node(n, [('syslog', 'rfc3339', 'all')])
    c.missing.add('pz-gpu-6')
    lb = c.lbl
    tf = T('2026-07-01T13:05:01Z')
    app = script_banner(c) + c.nccl_init('2.19.3', label=True)
    app += c.progress(c.start + sec(60), tf, dt.timedelta(minutes=3), stamp='none', tflops=170, label=0)
    app += [lb(13) + 'Traceback (most recent call last):',
            lb(13) + '  File "/work/kai/distill/train.py", line 190, in <module>',
            lb(13) + '    loss.backward()',
            lb(13) + 'RuntimeError: CUDA error: uncorrectable ECC error encountered',
            lb(13) + 'CUDA kernel errors might be asynchronously reported at some other API call, so the stacktrace below might be incorrect.']
    for r in c.ranks[::5]:
        if r.rank != 13:
            app += [lb(r.rank) + x for x in torch_nccl_error('2.3', r.rank, 2201, tf + sec(8), 'remote', '2.19.3')[:2]]
    app += ['srun: error: pz-gpu-6: task 13: Exited with exit code 1', 'srun: error: pz-gpu-5: tasks 0-7: Exited with exit code 1',
            'srun: error: pz-gpu-6: tasks 8-12,14-15: Exited with exit code 1', 'srun: error: pz-gpu-7: tasks 16-23: Exited with exit code 1']
    c.app['slurm-45100.out'] = app
    c.set_exit(13, 1, tf + sec(1))
    for r in c.ranks:
        if r.rank != 13:
            c.set_exit(r.rank, 1, tf + sec(10))
    c.write({'sub_domain': ['InfraHW'], 'culprit_nodes': ['pz-gpu-6'], 'drain_ok': ['pz-gpu-6'],
             'why': 'Rank 13, which job.json places on pz-gpu-6 GPU 5, failed with an uncorrectable ECC error; pz-gpu-6\'s own '
                    'logs are missing, so the GPU memory fault is known only from the application, but it names that GPU.'})


def case_ib_substring_names():
    """Names and addresses that are prefixes of each other (gpu1/gpu10/gpu100, 10.0.0.1/10.0.0.10): IB cable pulled on gpu1."""
    nodes = ['gpu1', 'gpu10', 'gpu11', 'gpu100']
    ips = {'gpu1': '10.0.0.1', 'gpu10': '10.0.0.10', 'gpu11': '10.0.0.11', 'gpu100': '10.0.0.100'}
    c = Case('ib-substring-names', job_id=1001, nodes=nodes, start='2026-05-25T10:00:00Z', end='2026-05-25T10:52:14Z',
             state='FAILED', exit_code='1:0', reason='NonZeroExitCode', time_limit='06:00:00', gpus=4, pci=PCI_4GPU,
             cluster='tiny', user='max', partition='gpu', jobname='bert-base', node_ip=ips)
    for n in nodes:
        c.standard_node(n, noise=35)
    tf = T('2026-05-25T10:51:00.400000Z')
    c.klog('gpu1', tf, 'mlx5_core 0000:3b:00.0: mlx5_port_module_event:1131:(pid 0): Port module event: module 1, Cable unplugged')
    for n in nodes:
        c.write_node(n, [('messages', 'rfc3164', 'all')])
    c.ctld_start('gpu[1,10-11,100]')
    c.ctld_other(15)
    app = script_banner(c) + c.nccl_init('2.19.3', hcas=2)
    app += c.progress(c.start + sec(60), tf, dt.timedelta(minutes=2), stamp='iso', tflops=95)
    for r in c.ranks:
        if r.node == 'gpu1' and r.local < 2:
            app += nccl_warn(r, 'NET/IB : mlx5_1:1 Got async event : port error', 'transport/net_ib.cc:95')
    for r in c.ranks:
        if r.node != 'gpu1' and r.local == 1:
            app += nccl_warn(r, f'NET/IB : Got completion from peer 10.0.0.1<{43000 + r.rank}> with status=12 opcode=0 len=0 vendor err 129 (Recv) '
                                f'localGid ::ffff:{r.ip} remoteGids::ffff:10.0.0.1', 'transport/net_ib.cc:1696')
            app += torch_nccl_error('2.2', r.rank, 7100, tf + sec(2), 'remote', '2.19.3')[:2]
    app += ['srun: error: gpu10: task 1: Exited with exit code 1', 'srun: error: gpu100: task 3: Exited with exit code 1',
            'srun: error: gpu11: task 2: Exited with exit code 1', 'srun: error: gpu1: task 0: Exited with exit code 1']
    c.app['slurm-1001.out'] = app
    c.write({'sub_domain': ['InfraNet'], 'culprit_nodes': ['gpu1'], 'drain_ok': ['gpu1'],
             'why': 'The IB cable of gpu1\'s mlx5_1 was unplugged (kernel "Cable unplugged", NCCL port error on gpu1\'s ranks) and '
                    'the peers\' completion errors name 10.0.0.1, gpu1\'s address (not gpu10/gpu100, 10.0.0.10/10.0.0.100).'})


def byte_quirks():
    """Contract-level file quirks added to already generated cases."""
    # a hard reset leaves a run of NUL bytes in the syslog file before the next boot's lines
    patch_bytes('pass-old-xid', 'nodes/x1000c2s4b1n0/messages', 'GPU has fallen off the bus.', b'\0' * 3072 + b'\n')
    # tqdm progress bars: carriage returns inside one line, and a user print in Latin-1 (invalid UTF-8)
    patch_bytes('cuda-oom-torch24', 'app/slurm-2310044.out', 'NCCL version',
                b''.join(b'\rtokenizing: %3d%%|' % p + b'#' * (p // 5) + b' ' * (20 - p // 5) + b'| %d/1000' % (p * 10)
                         for p in range(0, 101, 2)) + b'\n'
                + b'dataset: r\xe9sum\xe9s fran\xe7ais charg\xe9s (\xb5-batch=4)\n')
    # a very long line (a printed tensor) in an app file
    patch_bytes('xid149-si-gb200', 'app/slurm-7000213.out', 'NCCL version',
                b'tensor([' + b', '.join(b'%.4f' % ((i * 7919 % 10007) / 10007.0) for i in range(2500)) + b'])\n')


# ---------------------------------------------------------------------------
# scoping, localisation and the job's pulse (engine/scope.c): what is not the
# job's is set aside, the node is found from what the line says, a silence
# before the end is a hang

def user_exception(r, exc, where='model.py", line 88, in forward'):
    p = f'[rank{r.rank}]: '
    return [p + 'Traceback (most recent call last):', p + '  File "/workspace/train.py", line 402, in <module>',
            p + '    main()', p + f'  File "/workspace/{where}', p + f'    {exc.split(":")[0].lower()}_site()', p + exc]


def peers_die(c, bad, t, skip=()):
    """NCCL remote errors on the other ranks once `bad`'s rank is gone."""
    out = []
    for r in c.ranks:
        if r.node != bad.node and r.node not in skip and r.local % 4 == 0:
            out += nccl_warn(r, f'NET/IB : Got completion from peer {bad.ip}<{51000 + r.rank}> with status=12 opcode=0 len=0 vendor err 129 (Recv) localGid fe80::a288:c203:3d:{r.rank:x} remoteGids fe80::a288:c203:3d:{bad.rank:x}',
                             'transport/net_ib.cc:1698')
    return out


def case_cancelled_foreign_node_down():
    """CANCELLED by its user; slurmctld meanwhile lost a node that is not the job's (class 1: scope by node)."""
    nodes = ['a100-11', 'a100-12']
    c = Case('cancelled-foreign-node-down', job_id=602211, nodes=nodes, start='2026-04-02T06:00:00Z', end='2026-04-02T09:41:12Z',
             state='CANCELLED', exit_code='0:15', reason='None', cluster='delta', user='ines', jobname='asr-ft', ipbase='10.31.7.')
    for n in nodes:
        c.standard_node(n, noise=70)
        c.write_node(n, [('syslog', 'rfc3164', 'all')])
    c.ctld_start('a100-[11-12]')
    c.ctld_other(30)
    c.sched.append((T('2026-04-02T08:12:40Z'), 'error: Nodes a100-31 not responding'))
    c.sched.append((T('2026-04-02T08:14:10Z'), 'error: Nodes a100-31 not responding, setting DOWN'))
    c.sched.append((T('2026-04-02T08:14:10.2Z'), 'Killing JobId=602188 on failed node a100-31'))
    c.sched.append((c.end, f'_slurm_rpc_kill_job: REQUEST_KILL_JOB JobId={c.job_id} uid 1077'))
    app = script_banner(c) + c.nccl_init('2.21.5')
    app += c.progress(c.start + sec(120), c.end - sec(20), dt.timedelta(minutes=2), stamp='py', tflops=140)
    app += [f'slurmstepd: error: *** JOB {c.job_id} ON a100-11 CANCELLED AT 2026-04-02T09:41:12 ***',
            'srun: Job step aborted: Waiting up to 32 seconds for job step to finish.']
    c.app['slurm-602211.out'] = app
    c.write({'sub_domain': ['SchedCancelled'], 'culprit_nodes': [], 'drain_ok': [], 'set_aside': ['slurm.node_failure'],
             'why': 'The user cancelled the job (REQUEST_KILL_JOB by its uid) while it was progressing; the node slurmctld set DOWN, '
                    'a100-31, is not one of the job\'s nodes and killed another job.'})


def case_node_fail_after_foreign():
    """NODE_FAIL: slurmctld lost another job's node first, then the job's own (class 1: the earlier line is not the job's)."""
    nodes = ['cn-101', 'cn-102', 'cn-103']
    c = Case('node-fail-after-foreign', job_id=330917, nodes=nodes, start='2026-06-14T02:00:00Z', end='2026-06-14T04:31:40Z',
             state='NODE_FAIL', exit_code='0:0', reason='NodeDown', cluster='orion', user='tomas', jobname='moe-8x7b', ipbase='10.12.3.')
    for n in nodes:
        c.standard_node(n, noise=70)
        c.write_node(n, [('messages', 'rfc3164', 'all')])
    c.missing.add('cn-102')
    c.ctld_start('cn-[101-103]')
    c.ctld_other(30)
    c.sched.append((T('2026-06-14T03:02:11Z'), 'error: Nodes cn-077 not responding, setting DOWN'))
    c.sched.append((T('2026-06-14T04:29:55Z'), 'error: Nodes cn-102 not responding'))
    c.sched.append((T('2026-06-14T04:31:40Z'), 'error: Nodes cn-102 not responding, setting DOWN'))
    c.sched.append((T('2026-06-14T04:31:40.1Z'), f'Killing JobId={c.job_id} on failed node cn-102'))
    app = script_banner(c) + c.nccl_init('2.23.4')
    app += c.progress(c.start + sec(60), T('2026-06-14T04:28:30Z'), dt.timedelta(minutes=3), stamp='iso', tflops=390)
    app += [f'srun: error: Node failure on cn-102',
            f'slurmstepd: error: *** JOB {c.job_id} ON cn-101 CANCELLED AT 2026-06-14T04:31:40 DUE TO NODE FAILURE, SEE SLURMCTLD LOG FOR DETAILS ***']
    c.app['slurm-330917.out'] = app
    c.write({'sub_domain': ['InfraHW'], 'culprit_nodes': ['cn-102'], 'drain_ok': ['cn-102'],
             'why': 'slurmctld set cn-102, a node of the job, DOWN and killed the job; the earlier DOWN line names cn-077, '
                    'which is not the job\'s.'})


def case_single_node_ecc_app_only():
    """One node; only the application reports the uncorrectable ECC error (class 2: one node, that node)."""
    c = Case('single-node-ecc-app-only', job_id=88017, nodes=['hgx-07'], start='2026-03-09T13:00:00Z', end='2026-03-09T15:22:31Z',
             state='FAILED', exit_code='1:0', reason='NonZeroExitCode', cluster='lab', user='ravi', jobname='sd-finetune', ipbase='10.9.1.')
    c.standard_node('hgx-07', noise=80)
    c.write_node('hgx-07', [('syslog', 'rfc3339', 'nonkernel')])
    tf = T('2026-03-09T15:22:02Z')
    r = c.ranks[5]
    app = script_banner(c) + c.nccl_init('2.21.5')
    app += c.progress(c.start + sec(90), tf - sec(25), dt.timedelta(minutes=5), stamp='iso', tflops=300)
    app += user_exception(r, 'RuntimeError: CUDA error: uncorrectable ECC error encountered', 'unet.py", line 211, in forward')
    app += ['CUDA kernel errors might be asynchronously reported at some other API call, so the stacktrace below might be incorrect.',
            f'srun: error: hgx-07: task 0: Exited with exit code 1']
    c.app['slurm-88017.out'] = app
    c.write({'confidence': 'medium', 'sub_domain': ['InfraHW'], 'culprit_nodes': ['hgx-07'], 'drain_ok': [],
             'why': 'Rank 5 died on an uncorrectable ECC error; the job ran on hgx-07 alone, so that is the node whose GPU failed '
                    '(no kernel log was collected to name the GPU, so inspect rather than drain).'})


def case_timeout_silent_hang():
    """TIMEOUT after three hours of silence and no fault anywhere (class 4: a hang, said as such)."""
    nodes = ['gpu-c101', 'gpu-c102']
    c = Case('timeout-silent-hang', job_id=77120, nodes=nodes, start='2026-07-01T00:00:00Z', end='2026-07-01T10:00:25Z',
             state='TIMEOUT', exit_code='0:0', reason='TimeLimit', time_limit='10:00:00', cluster='cx', user='lee', jobname='dpo', ipbase='10.7.7.')
    for n in nodes:
        c.standard_node(n, noise=70)
        c.write_node(n, [('kern.log', 'rfc3339', 'kernel'), ('syslog', 'rfc3339', 'nonkernel')])
    c.ctld_start('gpu-c[101-102]')
    c.ctld_other(20)
    c.sched.append((c.end - sec(25), f'Time limit exhausted for JobId={c.job_id}'))
    app = script_banner(c) + c.nccl_init('2.21.5')
    app += c.progress(c.start + sec(100), T('2026-07-01T06:48:00Z'), dt.timedelta(minutes=2), stamp='iso', tflops=210)
    app += [f'slurmstepd: error: *** JOB {c.job_id} ON gpu-c101 CANCELLED AT 2026-07-01T10:00:00 DUE TO TIME LIMIT ***']
    c.app['slurm-77120.out'] = app
    c.write({'confidence': 'low', 'sub_domain': ['unattributed'], 'culprit_nodes': [], 'drain_ok': [], 'hang': True,
             'why': 'Progress lines every 2 minutes stop at 06:46 and nothing is printed for over three hours until the time limit: '
                    'the job hung, and no evidence shows why; the time limit only ended the hang.'})


def case_cancelled_after_silence():
    """CANCELLED after five silent hours (class 4: the cancel is not the cause)."""
    nodes = ['nid004101', 'nid004102', 'nid004103', 'nid004104']
    c = Case('cancelled-after-silence', job_id=5512094, nodes=nodes, start='2026-05-20T20:00:00Z', end='2026-05-21T08:15:03Z',
             state='CANCELLED', exit_code='0:15', reason='None', cluster='alps', user='mia', jobname='llm-70b', ipbase='10.128.0.')
    for n in nodes:
        c.standard_node(n, noise=60)
        c.write_node(n, [('messages', 'iso', 'all')])
    c.ctld_start('nid[004101-004104]')
    c.ctld_other(20)
    c.sched.append((c.end, f'_slurm_rpc_kill_job: REQUEST_KILL_JOB JobId={c.job_id} uid 20431'))
    app = script_banner(c) + c.nccl_init('2.23.4')
    app += c.progress(c.start + sec(200), T('2026-05-21T03:02:00Z'), dt.timedelta(seconds=45), stamp='py', tflops=412)
    app += [f'slurmstepd: error: *** JOB {c.job_id} ON nid004101 CANCELLED AT 2026-05-21T08:15:03 ***']
    c.app['slurm-5512094.out'] = app
    c.write({'sub_domain': ['unattributed'], 'culprit_nodes': [], 'drain_ok': [], 'hang': True,
             'why': 'The job printed a progress line every 45 s until 03:01 and then nothing for five hours before its user '
                    'cancelled it: it hung, cause not in the evidence; the cancel is the user giving up, not the failure.'})


def case_shared_node_other_gpu_xid79():
    """Two jobs share a node; an Xid 79 on the other job's GPU; this job later fails on its own (whose GPU)."""
    nodes = ['node-41', 'node-42']
    c = Case('shared-node-other-gpu-xid79', job_id=918230, nodes=nodes, start='2026-02-10T08:00:00Z', end='2026-02-10T12:10:45Z',
             state='FAILED', exit_code='1:0', reason='NonZeroExitCode', gpus=4, cluster='hydra', user='noor', jobname='vit-h', ipbase='10.4.4.')
    for n in nodes:
        c.standard_node(n, noise=70)
    tx = T('2026-02-10T09:15:31.204Z')
    c.klog('node-42', tx, 'NVRM: Xid (PCI:0000:db:00): 79, pid=\'<unknown>\', name=<unknown>, GPU has fallen off the bus.')
    c.klog('node-42', tx + sec(0.001), 'NVRM: GPU 0000:db:00.0: GPU has fallen off the bus.')
    for n in nodes:
        c.write_node(n, [('kern.log', 'rfc3339', 'kernel'), ('syslog', 'rfc3339', 'nonkernel')])
    tf = T('2026-02-10T12:10:20Z')
    r = c.ranks[6]
    app = script_banner(c) + c.nccl_init('2.21.5')
    app += c.progress(c.start + sec(60), tf - sec(30), dt.timedelta(minutes=2), stamp='iso', tflops=250)
    app += user_exception(r, 'KeyError: \'pixel_values\'', 'data.py", line 57, in collate')
    app += peers_die(c, r, tf)
    app += ['srun: error: node-42: task 6: Exited with exit code 1']
    c.app['slurm-918230.out'] = app
    c.write({'sub_domain': ['UserCode'], 'culprit_nodes': [], 'drain_ok': [], 'set_aside': ['xid.79'],
             'why': 'The job\'s GPUs are 0000:18/2a/3a/5d (NCCL busIds); the Xid 79 on node-42 is on 0000:db:00, a GPU of the job '
                    'sharing the node, and this job trained for three hours after it before rank 6 raised KeyError.'})


def case_stale_dbe_before_start():
    """An Xid 48 of the previous job two minutes before this one started; a user exception two hours later (stale evidence)."""
    nodes = ['dgx-201', 'dgx-202', 'dgx-203']
    c = Case('stale-dbe-before-start', job_id=440127, nodes=nodes, start='2026-09-03T11:00:00Z', end='2026-09-03T13:05:09Z',
             state='FAILED', exit_code='1:0', reason='NonZeroExitCode', cluster='k2', user='ana', jobname='rl-policy', ipbase='10.55.1.')
    for n in nodes:
        c.standard_node(n, noise=70)
    tx = T('2026-09-03T10:58:02.5Z')
    c.klog('dgx-203', tx, 'NVRM: Xid (PCI:0000:3a:00): 48, pid=\'<unknown>\', name=<unknown>, An uncorrectable double bit error (DBE) has been detected on GPU in the framebuffer at partition 2, subpartition 0.')
    c.log('dgx-203', tx + sec(20), 'slurmd[2113]', 'slurmd: epilog for job 440119 ran for 3 seconds')
    for n in nodes:
        c.write_node(n, [('syslog', 'iso', 'all')])
    tf = T('2026-09-03T13:04:40Z')
    r = c.ranks[9]
    app = script_banner(c) + c.nccl_init('2.23.4')
    app += c.progress(c.start + sec(60), tf - sec(20), dt.timedelta(minutes=3), stamp='iso', tflops=350)
    app += user_exception(r, 'IndexError: list index out of range', 'rollout.py", line 131, in sample')
    app += peers_die(c, r, tf)
    c.app['slurm-440127.out'] = app
    c.write({'sub_domain': ['UserCode'], 'culprit_nodes': [], 'drain_ok': [], 'set_aside': ['xid.48'],
             'why': 'The DBE on dgx-203 came two minutes before this job started (the previous job\'s epilog followed it); this job '
                    'then trained for two hours before rank 9 raised IndexError, so the GPU fault did not end it.'})


def case_clock_skew_linkdown():
    """The link of gpu-e03 went down first, but its clock runs 50 s ahead, so its kernel line looks later than another node's fault."""
    nodes = ['gpu-e01', 'gpu-e02', 'gpu-e03', 'gpu-e04']
    c = Case('clock-skew-linkdown', job_id=61544, nodes=nodes, start='2026-10-05T00:00:00Z', end='2026-10-05T02:21:34Z',
             state='FAILED', exit_code='1:0', reason='NonZeroExitCode', cluster='e', user='kai', jobname='gpt-3b', ipbase='10.77.0.')
    c.clock['gpu-e03'] = 50
    for n in nodes:
        c.standard_node(n, noise=60)
    tf = T('2026-10-05T02:10:10.100Z')
    c.klog('gpu-e03', tf, 'mlx5_core 0000:c1:00.0: mlx5_port_module_event:1131:(pid 0): Port module event[error]: module 0, Cable error, Power budget exceeded')
    c.klog('gpu-e03', tf + sec(0.2), 'mlx5_core 0000:c1:00.0 ibp193s0: Link down')
    # a sympathetic PCIe replay warning on another node 25 s later (its clock is right)
    c.klog('gpu-e01', tf + sec(25), 'pcieport 0000:00:01.1: AER: Corrected error received: 0000:01:00.0')
    c.klog('gpu-e01', tf + sec(25.001), 'nvidia 0000:01:00.0: PCIe Bus Error: severity=Uncorrected (Fatal), type=Transaction Layer, (Receiver ID)')
    for n in nodes:
        c.write_node(n, [('kern.log', 'rfc3339', 'kernel'), ('syslog', 'rfc3339', 'nonkernel')])
    bad = [r for r in c.ranks if r.node == 'gpu-e03'][0]
    app = script_banner(c) + c.nccl_init('2.21.5')
    app += c.progress(c.start + sec(60), tf - sec(30), dt.timedelta(minutes=2), stamp='iso', tflops=380)
    app += peers_die(c, bad, tf)
    app += ['srun: error: gpu-e02: task 1: Exited with exit code 1']
    c.app['slurm-61544.out'] = app
    c.write({'sub_domain': ['InfraNet'], 'culprit_nodes': ['gpu-e03'], 'drain_ok': ['gpu-e03'],
             'why': 'gpu-e03\'s clock is 50 s ahead (its slurmd logged the job\'s start 50 s after the other nodes); corrected, its IB '
                    'link went down 25 s before the PCIe error on gpu-e01, and the peers\' completion errors name its address.'})


def case_xid31_lone():
    """An Xid 31 on the GPU of rank 3 and that rank's watchdog, with no CUDA error printed (app or GPU: ambiguous)."""
    nodes = ['a40-01', 'a40-02']
    c = Case('xid31-lone-ambiguous', job_id=23001, nodes=nodes, start='2026-11-02T09:00:00Z', end='2026-11-02T10:31:02Z',
             state='FAILED', exit_code='1:0', reason='NonZeroExitCode', gpus=4, pci=PCI_4GPU, cluster='uni', user='zoe', jobname='gnn', ipbase='10.1.9.')
    for n in nodes:
        c.standard_node(n, noise=60)
    r = c.ranks[3]
    tx = T('2026-11-02T10:20:44.9Z')
    c.klog('a40-01', tx, f'NVRM: Xid (PCI:{c.pci_full(r.gpu)}): 31, pid={r.pid}, name=python3, Ch 00000008, intr 00000000. MMU Fault: ENGINE GRAPHICS GPC2 GPCCLIENT_T1_4 faulted @ 0x7f3c_88a40000. Fault is of type FAULT_PTE ACCESS_TYPE_VIRT_WRITE')
    for n in nodes:
        c.write_node(n, [('syslog', 'rfc3339', 'all')])
    app = script_banner(c) + c.nccl_init('2.21.5')
    app += c.progress(c.start + sec(60), tx - sec(20), dt.timedelta(minutes=1), stamp='iso', tflops=90)
    for q in c.ranks:
        if q.rank != r.rank:
            app += torch_watchdog_timeout('2.2', q.rank, 40021, tx + sec(600))
    app += ['srun: error: a40-02: task 1: Aborted (core dumped)']
    c.app['slurm-23001.out'] = app
    c.write({'confidence': 'low', 'sub_domain': ['ambiguous', 'InfraHW'], 'culprit_nodes': ['a40-01'], 'drain_ok': [],
             'why': 'A single Xid 31 names rank 3\'s process on a40-01, and nothing from the program explains it (no CUDA error, no '
                    'exception): a bug in the program and a GPU/driver fault both fit, so a40-01 is the candidate to inspect, not drain.'})


def case_missing_node_peers_lost():
    """A node sent nothing; the ranks on every other node lost it as their peer."""
    nodes = ['sx-01', 'sx-02', 'sx-03', 'sx-04']
    c = Case('missing-node-peers-lost', job_id=700345, nodes=nodes, start='2026-12-01T01:00:00Z', end='2026-12-01T03:12:55Z',
             state='FAILED', exit_code='1:0', reason='NonZeroExitCode', cluster='sx', user='eli', jobname='t5-xl', ipbase='10.66.9.')
    for n in nodes:
        c.standard_node(n, noise=60)
        c.write_node(n, [('syslog', 'rfc3339', 'all')])
    c.missing.add('sx-03')
    tf = T('2026-12-01T03:02:01Z')
    bad = [r for r in c.ranks if r.node == 'sx-03'][0]
    app = script_banner(c) + c.nccl_init('2.23.4')
    app += c.progress(c.start + sec(60), tf - sec(30), dt.timedelta(minutes=2), stamp='iso', tflops=300)
    for r in c.ranks:
        if r.node != 'sx-03' and r.local % 4 == 0:
            app += nccl_warn(r, f'socketProgress: Connection closed by remote peer sx-03<{41000 + r.rank}>', 'misc/socket.cc:49')
    app += ['srun: error: sx-01: task 0: Exited with exit code 1']
    c.app['slurm-700345.out'] = app
    c.write({'sub_domain': ['InfraHW', 'ambiguous'], 'culprit_nodes': ['sx-03'], 'drain_ok': [],
             'why': 'sx-03 left no logs and the ranks on sx-01, sx-02 and sx-04 all lost their connection to it at 03:02 with nothing '
                    'else failing: the node most likely went down; inspect it (nothing confirms it, so no drain).'})



def case_independent_tasks_xid79():
    """A sweep of independent tasks (srun, one per GPU): one GPU falls off the bus, its task dies, the others keep printing
    progress for an hour; the fault is still the job's cause (progress elsewhere does not clear it)."""
    nodes = ['sw-01', 'sw-02']
    c = Case('independent-tasks-xid79', job_id=812200, nodes=nodes, start='2026-04-20T10:00:00Z', end='2026-04-20T12:02:13Z',
             state='FAILED', exit_code='1:0', reason='NonZeroExitCode', gpus=4, pci=PCI_4GPU, cluster='sweep', user='ola', jobname='hpo',
             ipbase='10.3.3.')
    for n in nodes:
        c.standard_node(n, noise=60)
    r = c.ranks[6]
    tx = T('2026-04-20T11:01:10.5Z')
    c.klog('sw-02', tx, f'NVRM: Xid (PCI:{c.pci_full(r.gpu)}): 79, pid=\'<unknown>\', name=<unknown>, GPU has fallen off the bus.')
    for n in nodes:
        c.write_node(n, [('kern.log', 'rfc3339', 'kernel'), ('syslog', 'rfc3339', 'nonkernel')])
    c.set_exit(r.rank, 1, tx + sec(4))
    app = script_banner(c)
    app += c.progress(c.start + sec(60), tx - sec(10), dt.timedelta(minutes=1), stamp='iso', tflops=80, label=0)
    app += [f'6: [trial 6] RuntimeError: CUDA error: unspecified launch failure',
            'srun: error: sw-02: task 6: Exited with exit code 1']
    app += c.progress(tx + sec(20), c.end - sec(30), dt.timedelta(minutes=1), stamp='iso', tflops=80, label=0, step0=3000)
    c.app['slurm-812200.out'] = app
    c.write({'sub_domain': ['InfraHW'], 'culprit_nodes': ['sw-02'], 'drain_ok': ['sw-02'],
             'why': 'The tasks are independent: task 6 on sw-02 died with a launch failure 4 s after its GPU fell off the bus (Xid 79), '
                    'and the job failed because of that task; the other tasks printing progress afterwards does not clear the GPU.'})


# ---------------------------------------------------------------------------
# traps: the same words, another cause (resource errors after a hardware
# fault, /dev/shm, the scheduler's own spool files, generic library errors and
# their detail line, PyTorch hang reports). Registered in CASES += [...] below.

def glog(t, sev='E'):
    """c10's glog time header: E1203 10:41:12.123456"""
    return f'{sev}{t.month:02d}{t.day:02d} {t:%H:%M:%S}.{t.microsecond:06d}'


def case_trap_oom_after_xid48():
    """Xid 48 + 64 on one A100; a rank on that GPU then reports CUDA out of memory within two seconds -> InfraHW, not UserResource."""
    nodes = ['a100-r3-n07', 'a100-r3-n08']
    c = Case('trap-oom-after-xid48', job_id=5530912, nodes=nodes, start='2026-12-03T09:00:00Z', end='2026-12-03T10:41:40Z',
             state='FAILED', exit_code='1:0', reason='NonZeroExitCode', time_limit='1-00:00:00', pci=PCI_A100,
             cluster='r3', user='lena', partition='a100', jobname='t5-xxl-ft', ipbase='10.61.3.')
    for n in nodes:
        c.standard_node(n, noise=70)
    bad_node = 'a100-r3-n08'
    bad = c.ranks[12]                       # a100-r3-n08 GPU 4
    tf = T('2026-12-03T10:41:10.118204Z')
    p = c.pci_full(bad.gpu)
    c.klog(bad_node, tf, f"NVRM: Xid (PCI:{p}): 48, pid='<unknown>', name=<unknown>, An uncorrectable double bit error (DBE) has been detected on GPU in the framebuffer at partition 6, subpartition 0.")
    c.klog(bad_node, tf + sec(0.003), f"NVRM: Xid (PCI:{p}): 64, pid='<unknown>', name=<unknown>, Failed to persist row remap information: (0x0000000000003f41)")
    c.klog(bad_node, tf + sec(0.41), f'NVRM: Xid (PCI:{p}): 45, pid={bad.pid}, name=python3, Ch 00000010')
    for n in nodes:
        c.write_node(n, [('syslog', 'rfc3339', 'all')])
    app = script_banner(c) + c.nccl_init('2.21.5')
    app += c.progress(c.start + sec(120), tf - sec(20), dt.timedelta(minutes=4), stamp='iso', tflops=141)
    te = tf + sec(1.7)
    app += ['[rank12]: Traceback (most recent call last):',
            '[rank12]:   File "/home/lena/t5/finetune.py", line 288, in <module>',
            '[rank12]:     outputs = model(**batch)',
            '[rank12]:   File "/usr/local/lib/python3.10/dist-packages/torch/nn/modules/module.py", line 1553, in _wrapped_call_impl',
            '[rank12]:     return self._call_impl(*args, **kwargs)',
            '[rank12]: torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 64.00 MiB. GPU 4 has a total capacity of 79.15 GiB '
            'of which 0 bytes is free. Including non-PyTorch memory, this process has 41.20 GiB memory in use. Of the allocated memory '
            '38.71 GiB is allocated by PyTorch, and 1.02 GiB is reserved by PyTorch but unallocated.',
            f'[rank12]:[{glog(te, "W")} 4187 ProcessGroupNCCL.cpp:1168] Warning: WARNING: process group has NOT been destroyed before '
            'we destruct ProcessGroupNCCL. On normal program exit, the application should call destroy_process_group to ensure that '
            'any pending NCCL operations have finished in this process. (function operator())']
    for r in c.ranks:
        if r.node == bad_node and r.rank in (13, 14):
            app += nccl_warn(r, "Cuda failure 'out of memory'", 'enqueue.cc:1556')
    for r in c.ranks[::3]:
        if r.node != bad_node:
            app += torch_nccl_error('2.4', r.rank, 20331, tf + sec(6), 'remote', '2.21.5')[:2]
    app += child_failed('finetune.py', te, bad_node, 12, 4, bad.pid)
    app += ['srun: error: a100-r3-n08: task 1: Exited with exit code 1',
            'srun: error: a100-r3-n07: task 0: Exited with exit code 1']
    c.app['slurm-5530912.out'] = app
    c.write({'sub_domain': ['InfraHW'], 'culprit_nodes': [bad_node], 'drain_ok': [bad_node], 'root_code': 'xid.48',
             'why': 'GPU %s on %s reported an uncorrectable DBE (Xid 48) and could not persist the row remap (Xid 64); '
                    'rank 12 on that GPU failed to allocate 64 MiB under two seconds later with 41 GiB of 79 GiB in use: the '
                    'GPU lost memory, the job did not overuse it.' % (p, bad_node)})


def case_trap_dataloader_shm():
    """DataLoader workers fill a 64 MB container /dev/shm: 'unable to write to file </torch_...>: No space left on device' -> UserResource (shm), not a full filesystem."""
    nodes = ['gx-104', 'gx-105']
    c = Case('trap-dataloader-shm', job_id=2207715, nodes=nodes, start='2026-10-09T16:00:00Z', end='2026-10-09T16:07:31Z',
             state='FAILED', exit_code='1:0', reason='NonZeroExitCode', time_limit='08:00:00',
             cluster='gx', user='omar', partition='gpu', jobname='vit-l-pretrain', ipbase='10.77.0.')
    for n in nodes:
        c.standard_node(n, noise=40)
        c.write_node(n, [('syslog', 'rfc3339', 'all')])
    bad = c.ranks[11]
    tf = T('2026-10-09T16:06:02.503000Z')
    app = script_banner(c, ['+ srun --container-image=/lustre/omar/vit.sqsh --container-mounts=/lustre/omar:/work python -u train.py'])
    app += c.nccl_init('2.20.5')
    app += c.progress(c.start + sec(45), tf - sec(5), dt.timedelta(seconds=50), stamp='iso', tflops=288)
    app += ['[rank11]: Traceback (most recent call last):',
            '[rank11]:   File "/work/vit/train.py", line 214, in <module>',
            '[rank11]:     for step, (images, labels) in enumerate(loader):',
            '[rank11]:   File "/usr/local/lib/python3.10/dist-packages/torch/utils/data/dataloader.py", line 1344, in _next_data',
            '[rank11]:     return self._process_data(data)',
            '[rank11]: RuntimeError: Caught RuntimeError in DataLoader worker process 3.',
            '[rank11]: Original Traceback (most recent call last):',
            '[rank11]:   File "/usr/local/lib/python3.10/dist-packages/torch/utils/data/_utils/collate.py", line 141, in collate',
            '[rank11]:     storage = elem._typed_storage()._new_shared(numel, device=elem.device)',
            f'[rank11]: RuntimeError: unable to write to file </torch_{bad.pid + 41}_2914425118_3>: No space left on device (28)']
    for r in c.ranks:
        if r.rank != 11:
            app += torch_watchdog_timeout('2.3', r.rank, 18077, tf + sec(600))[:1]
    app += child_failed('train.py', tf, 'gx-105', 11, 3, bad.pid)
    c.app['slurm-2207715.out'] = app
    c.write({'sub_domain': ['UserResource'], 'culprit_nodes': [], 'drain_ok': [], 'root_code': 'torch.shm_exhausted',
             'evidence_contains': '/torch_',
             'why': "Rank 11's DataLoader worker could not write its shared-memory batch (/torch_* in /dev/shm): the container's "
                    '/dev/shm is too small for 8 workers. The job\'s shared-memory size, not a full or failing filesystem.'})


def case_trap_nccl_lasterror_shm():
    """DistBackendError 'unhandled system error' whose 'Last error:' is NCCL failing to create /dev/shm/nccl-*: the detail decides -> UserResource."""
    nodes = ['enr-07', 'enr-08']
    c = Case('trap-nccl-lasterror-shm', job_id=640021, nodes=nodes, start='2026-08-14T07:30:00Z', end='2026-08-14T07:31:44Z',
             state='FAILED', exit_code='1:0', reason='NonZeroExitCode', time_limit='04:00:00', gpus=4, pci=PCI_4GPU,
             cluster='enr', user='jun', partition='gpu', jobname='llama-8b-sft', ipbase='10.12.8.')
    for n in nodes:
        c.standard_node(n, noise=30)
        c.write_node(n, [('messages', 'rfc3164', 'all')])
    tf = T('2026-08-14T07:31:20.660000Z')
    app = script_banner(c, ['+ docker run --gpus all --network host --rm sft:1.4 torchrun --nnodes 2 --nproc-per-node 4 sft.py'])
    for r in c.ranks:
        if r.rank % 4 == 1:
            seg = 'nccl-%06x' % (r.pid % 0xffffff)
            app += torch_nccl_error('2.1', r.rank, 1, tf + sec(r.rank * 0.01), 'system', '2.18.6',
                                    last_error=f'Error while creating shared memory segment /dev/shm/{seg} (size 9637888)')
    app += child_failed('sft.py', tf, 'enr-07', 1, 1, c.ranks[1].pid)
    c.app['slurm-640021.out'] = app
    c.write({'sub_domain': ['UserResource'], 'culprit_nodes': [], 'drain_ok': [], 'root_code': 'nccl.shm_exhausted',
             'why': 'The NCCL error is the generic "unhandled system error"; its Last error line says NCCL could not create its '
                    'shared-memory segment in /dev/shm. docker run without --shm-size/--ipc=host gives 64 MB: the job\'s shared '
                    'memory, on both nodes alike.'})


def case_trap_launch_failure_xid13():
    """'CUDA error: unspecified launch failure' with an Xid 13 Out Of Range Address naming the rank's pid -> the kernel's fault (UserCode), not the GPU's."""
    nodes = ['h1-gpu-21', 'h1-gpu-22']
    c = Case('trap-launch-failure-xid13', job_id=310077, nodes=nodes, start='2026-09-22T13:00:00Z', end='2026-09-22T13:12:26Z',
             state='FAILED', exit_code='1:0', reason='NonZeroExitCode', time_limit='02:00:00',
             cluster='h1', user='priya', partition='gpu', jobname='moe-kernels', ipbase='10.21.1.')
    for n in nodes:
        c.standard_node(n, noise=45)
    bad = c.ranks[9]                        # h1-gpu-22 GPU 1
    tf = T('2026-09-22T13:11:58.004100Z')
    p = c.pci_full(bad.gpu)
    c.klog('h1-gpu-22', tf, f'NVRM: Xid (PCI:{p}): 13, pid={bad.pid}, name=python3, Graphics SM Warp Exception on (GPC 2, TPC 3, SM 1): Out Of Range Address')
    c.klog('h1-gpu-22', tf + sec(0.001), f'NVRM: Xid (PCI:{p}): 13, pid={bad.pid}, name=python3, Graphics Exception: ESR 0x515648=0x102000e 0x515650=0x0 0x515644=0xd3eff2 0x51564c=0x17f')
    for n in nodes:
        c.write_node(n, [('journal.txt', 'iso', 'all')])
    app = script_banner(c) + c.nccl_init('2.21.5')
    app += c.progress(c.start + sec(60), tf - sec(10), dt.timedelta(minutes=1), stamp='iso', tflops=199)
    te = tf + sec(0.9)
    app += ['[rank9]: Traceback (most recent call last):',
            '[rank9]:   File "/home/priya/moe/bench_grouped_gemm.py", line 97, in <module>',
            '[rank9]:     out = grouped_gemm(x, w, batch_sizes)',
            '[rank9]: RuntimeError: CUDA error: unspecified launch failure',
            '[rank9]: CUDA kernel errors might be asynchronously reported at some other API call, so the stacktrace below might be incorrect.',
            f'[rank9]:[{glog(te, "W")} 771 ProcessGroupNCCL.cpp:1168] Warning: WARNING: process group has NOT been destroyed before '
            'we destruct ProcessGroupNCCL. On normal program exit, the application should call destroy_process_group to ensure that '
            'any pending NCCL operations have finished in this process. (function operator())']
    for r in c.ranks[::4]:
        if r.rank != 9:
            app += torch_nccl_error('2.4', r.rank, 902, tf + sec(8), 'remote', '2.21.5')[:2]
    app += ['srun: error: h1-gpu-22: task 9: Exited with exit code 1', 'srun: error: h1-gpu-21: tasks 0-7: Exited with exit code 1',
            'srun: error: h1-gpu-22: tasks 8,10-15: Exited with exit code 1']
    c.app['slurm-310077.out'] = app
    c.set_exit(9, 1, te)
    for r in c.ranks:
        if r.rank != 9:
            c.set_exit(r.rank, 1, tf + sec(10))
    c.write({'sub_domain': ['UserCode'], 'culprit_nodes': [], 'drain_ok': [],
             'why': 'The generic "unspecified launch failure" of rank 9 comes with an Xid 13 Out Of Range Address naming its own '
                    'process on the same GPU: the user\'s grouped-GEMM kernel read out of bounds; no hardware Xid.'})


def slurmd_log(c, node, lines, jobs_noise=6):
    """slurmd.log of a node: '[local ISO.ms] [JOBID.STEP] msg', a few other jobs' lines around."""
    rng = c.rng
    out = []
    for _ in range(jobs_noise):
        t = c.start - sec(rng.randint(600, 7200))
        j = int(c.job_id) - rng.randint(3, 400)
        out.append((t, f'[{j}.batch] done with job'))
        out.append((t - sec(3600), f'Launching batch job {j} for UID {rng.randint(1001, 1300)}'))
    out += lines
    res = []
    for t, m in sorted(out, key=lambda x: x[0]):
        lt = t.astimezone(c.zone)
        res.append(f'[{lt:%Y-%m-%dT%H:%M:%S}.{lt.microsecond // 1000:03d}] {m}')
    c.node_files[node]['slurmd.log'] = '\n'.join(res) + '\n'


def case_trap_spool_noexec():
    """The batch host's SlurmdSpoolDir came back noexec after maintenance: execve() of .../job%05u/slurm_script: Permission denied -> InfraSW on that node, not the user's script."""
    nodes = ['hpc-c017', 'hpc-c018']
    c = Case('trap-spool-noexec', job_id=88413, nodes=nodes, start='2026-11-16T02:10:04Z', end='2026-11-16T02:10:05Z',
             state='FAILED', exit_code='13:0', reason='NonZeroExitCode', time_limit='04:00:00',
             cluster='hpc', user='ines', partition='gpu', jobname='resnet-sweep-7', ipbase='10.17.0.')
    for n in nodes:
        c.standard_node(n, noise=40)
    t0 = c.start + sec(0.31)
    c.log('hpc-c017', c.start - dt.timedelta(hours=5), 'systemd[1]', 'Mounted /var/spool/slurmd (spool on nvme0n1p3).')
    for n in nodes:
        c.write_node(n, [('syslog', 'rfc3339', 'all')])
    script = f'/var/spool/slurmd/job{int(c.job_id):05d}/slurm_script'
    slurmd_log(c, 'hpc-c017', [(c.start + sec(0.12), f'Launching batch job {c.job_id} for UID 1187'),
                               (t0, f'[{c.job_id}.batch] error: execve(): {script}: Permission denied'),
                               (t0 + sec(0.4), f'[{c.job_id}.batch] job {c.job_id} completed with slurm_rc = 0, job_rc = 3328'),
                               (t0 + sec(0.5), f'[{c.job_id}.batch] done with job')])
    c.app[f'slurm-{c.job_id}.out'] = [f'slurmstepd-hpc-c017: error: execve(): {script}: Permission denied']
    c.ranks_in_json = False
    c.write({'sub_domain': ['InfraSW'], 'culprit_nodes': ['hpc-c017'], 'drain_ok': [], 'root_code': 'slurm.spool_error',
             'why': 'slurmstepd on hpc-c017 could not execute the batch script it had itself written into its spool directory '
                    '(Permission denied: the spool is mounted noexec). "Permission denied" is about Slurm\'s file, not the '
                    'user\'s script: inspect hpc-c017\'s SlurmdSpoolDir.'})


def case_trap_output_dir_missing():
    """--output names a directory the user never created: 'Could not open stdout file ...: No such file or directory' -> UserConfig, the node is fine."""
    nodes = ['hpc-c031']
    c = Case('trap-output-dir-missing', job_id=88530, nodes=nodes, start='2026-11-16T09:44:10Z', end='2026-11-16T09:44:10Z',
             state='FAILED', exit_code='1:0', reason='NonZeroExitCode', time_limit='01:00:00',
             cluster='hpc', user='ines', partition='gpu', jobname='resnet-eval', ipbase='10.17.0.')
    c.standard_node('hpc-c031', noise=30)
    c.write_node('hpc-c031', [('syslog', 'rfc3339', 'all')])
    t0 = c.start + sec(0.2)
    out = f'/home/ines/sweeps/eval-2026-11-16/logs/eval-{c.job_id}.out'
    slurmd_log(c, 'hpc-c031', [(c.start + sec(0.1), f'Launching batch job {c.job_id} for UID 1187'),
                               (t0, f'[{c.job_id}.batch] error: Could not open stdout file {out}: No such file or directory'),
                               (t0 + sec(0.01), f'[{c.job_id}.batch] error: IO setup failed: No such file or directory'),
                               (t0 + sec(0.2), f'[{c.job_id}.batch] job {c.job_id} completed with slurm_rc = 0, job_rc = 256')])
    c.ranks_in_json = False
    c.write({'sub_domain': ['UserConfig'], 'culprit_nodes': [], 'drain_ok': [], 'root_code': 'slurm.output_open_failed',
             'why': 'The --output path is under a directory the user had not created (%s); Slurm does not create it, so the '
                    'batch step could not open its stdout. A user path, not the node.' % os.path.dirname(out)})


def case_trap_desync_mismatch():
    """TORCH_DISTRIBUTED_DEBUG=DETAIL: rank 5 runs ALLREDUCE while rank 0 runs BROADCAST -> UserCode (a desync of the program), not the network that flapped earlier."""
    nodes = ['ib-g11', 'ib-g12']
    c = Case('trap-desync-mismatch', job_id=7710342, nodes=nodes, start='2026-12-01T03:00:00Z', end='2026-12-01T03:41:07Z',
             state='FAILED', exit_code='1:0', reason='NonZeroExitCode', time_limit='12:00:00', gpus=4, pci=PCI_4GPU,
             cluster='ib', user='tomas', partition='gpu', jobname='rl-ppo-dist', ipbase='10.88.2.')
    for n in nodes:
        c.standard_node(n, noise=45)
    # a management-port flap half an hour before: recovered, not the cause
    tl = T('2026-12-01T03:09:41.220000Z')
    c.klog('ib-g12', tl, 'mlx5_core 0000:5e:00.0 ens2f0np0: Link down')
    c.klog('ib-g12', tl + sec(4.1), 'mlx5_core 0000:5e:00.0 ens2f0np0: Link up')
    for n in nodes:
        c.write_node(n, [('journal.txt', 'iso', 'all')])
    tf = T('2026-12-01T03:40:02.310000Z')
    app = script_banner(c, ['+ export TORCH_DISTRIBUTED_DEBUG=DETAIL']) + c.nccl_init('2.21.5')
    app += c.progress(c.start + sec(60), tf - sec(30), dt.timedelta(minutes=3), stamp='iso', tflops=96)
    fp = ('TensorDtypes=Float, TensorDeviceTypes=TensorOptions(dtype=float (default), device=cuda, layout=Strided (default), '
          'requires_grad=false (default), pinned_memory=false (default), memory_format=(nullopt)))')
    app += ['[rank5]: Traceback (most recent call last):',
            '[rank5]:   File "/home/tomas/ppo/learner.py", line 402, in update',
            '[rank5]:     dist.all_reduce(stats, op=dist.ReduceOp.SUM)',
            f'[rank5]: RuntimeError: Detected mismatch between collectives on ranks. Rank 5 is running collective: '
            f'CollectiveFingerPrint(SequenceNumber=40217, OpType=ALLREDUCE, TensorShape=[6], {fp}, but Rank 0 is running collective: '
            f'CollectiveFingerPrint(SequenceNumber=40217, OpType=BROADCAST, TensorShape=[1048576], {fp}.Collectives differ in the '
            'following aspects:   Op type: ALLREDUCEvs BROADCAST  Tensor Tensor shapes: [6]vs [1048576]']
    for r in c.ranks:
        if r.rank not in (0, 5):
            app += torch_watchdog_timeout('2.4', r.rank, 40217, tf + sec(600), op='ALLREDUCE', numel=6)[:1]
    app += child_failed('learner.py', tf, 'ib-g12', 5, 1, c.ranks[5].pid)
    c.app['slurm-7710342.out'] = app
    c.write({'sub_domain': ['UserCode'], 'culprit_nodes': [], 'drain_ok': [], 'root_code': 'torch.collective_mismatch',
             'why': 'With TORCH_DISTRIBUTED_DEBUG=DETAIL PyTorch caught rank 5 in ALLREDUCE of 6 floats while rank 0 was in a '
                    'BROADCAST of 1M: the program took a rank-dependent branch. The earlier link flap on ib-g12 recovered in 4 s.'})


def desync_report(rank, seq, t, lagging, op='ALLREDUCE'):
    """TORCH_NCCL_DESYNC_DEBUG report of the timed-out rank (TraceUtils.h retrieveDesyncReport): lagging ranks never joined."""
    p = f'[rank{rank}]:'
    return [f'{p}[{glog(t)} 2211 ProcessGroupNCCL.cpp:1599] [PG ID 0 PG GUID 0(default_pg) Rank {rank}] ',
            f'{p}\t - [{rank}] Timeout at collective: {op}, #{seq}',
            f'{p}\t - To our best knowledge, ranks [{", ".join(str(x) for x in lagging)}] are the lagging ranks that caused this '
            'timeout. They never joined any collectives']


def case_trap_desync_lagging_hung():
    """Desync debug report: rank 13 never joined; rank 13's node has its data loader stuck on a dead NFS server -> the hang is localised, InfraStorage."""
    nodes = ['fx-n01', 'fx-n02', 'fx-n03', 'fx-n04']
    c = Case('trap-desync-lagging-hung', job_id=4410098, nodes=nodes, start='2026-11-20T18:00:00Z', end='2026-11-20T19:02:44Z',
             state='FAILED', exit_code='134:0', reason='NonZeroExitCode', time_limit='1-00:00:00', gpus=4, pci=PCI_4GPU,
             cluster='fx', user='ana', partition='gpu', jobname='wav2vec-pt', ipbase='10.44.1.')
    for n in nodes:
        c.standard_node(n, noise=40)
    lag = c.ranks[13]                       # fx-n04 GPU 1
    ts = T('2026-11-20T18:51:12.400000Z')
    c.klog('fx-n04', ts, 'nfs: server fs-audio not responding, still trying')
    c.klog('fx-n04', ts + sec(245), f'INFO: task pt_data_worker:{lag.pid + 7} blocked for more than 122 seconds.')
    c.klog('fx-n04', ts + sec(245), '      Tainted: P           OE     5.15.0-105-generic #115-Ubuntu')
    for n in nodes:
        c.write_node(n, [('syslog', 'rfc3339', 'all')])
    tf = ts + sec(605)
    app = script_banner(c, ['+ export TORCH_NCCL_DESYNC_DEBUG=1']) + c.nccl_init('2.21.5')
    app += c.progress(c.start + sec(60), ts - sec(20), dt.timedelta(minutes=2), stamp='iso', tflops=122)
    for r in c.ranks:
        if r.rank != 13:
            app += torch_watchdog_timeout('2.5', r.rank, 31872, tf + sec(r.rank * 0.01))[:1]
    app += desync_report(0, 31872, tf + sec(1), [13])
    app += ['srun: error: fx-n01: task 0: Aborted (core dumped)', 'srun: error: fx-n02: task 1: Aborted (core dumped)',
            'srun: error: fx-n03: task 2: Aborted (core dumped)', 'srun: error: fx-n04: task 3: Killed']
    c.app['slurm-4410098.out'] = app
    c.write({'sub_domain': ['InfraStorage'], 'culprit_nodes': [], 'drain_ok': [],
             'why': 'The desync report names rank 13 (fx-n04) as the rank that never joined collective #31872; fx-n04 lost its '
                    'NFS server fs-audio and its data loader hung in the kernel. The shared filesystem, not the GPUs or the network.'})


def case_trap_desync_lagging_only():
    """PENDING (engine): desync report names rank 6 as never joining; nothing else anywhere. An administrator inspects rank 6's node."""
    nodes = ['fx-n05', 'fx-n06']
    c = Case('trap-desync-lagging-only', job_id=4410150, nodes=nodes, start='2026-11-21T08:00:00Z', end='2026-11-21T08:48:03Z',
             state='FAILED', exit_code='134:0', reason='NonZeroExitCode', time_limit='1-00:00:00', gpus=4, pci=PCI_4GPU,
             cluster='fx', user='ana', partition='gpu', jobname='wav2vec-pt', ipbase='10.44.1.')
    for n in nodes:
        c.standard_node(n, noise=40)
        c.write_node(n, [('syslog', 'rfc3339', 'all')])
    tf = T('2026-11-21T08:47:30.100000Z')
    app = script_banner(c, ['+ export TORCH_NCCL_DESYNC_DEBUG=1']) + c.nccl_init('2.21.5')
    app += c.progress(c.start + sec(60), tf - sec(620), dt.timedelta(minutes=2), stamp='iso', tflops=122)
    for r in c.ranks:
        if r.rank != 6:
            app += torch_watchdog_timeout('2.5', r.rank, 2207, tf + sec(r.rank * 0.01))[:1]
    app += desync_report(0, 2207, tf + sec(1), [6])
    c.app['slurm-4410150.out'] = app
    c.write({'sub_domain': ['unattributed'], 'culprit_nodes': [], 'drain_ok': [], 'inspect': ['fx-n06'],
             'why': 'Only the hang is visible, but the desync report localises it: rank 6 on fx-n06 never joined collective '
                    '#2207. No fault explains it; fx-n06 is the node to inspect (no drain).'})

def case_trap_spool_script_vanished():
    """PENDING (engine): the batch script vanished from the batch host's spool (a cleanup cron); the only trace is the job's own
    'slurmstepd: error: execve(): .../slurm_script: No such file or directory' with no node name. An administrator blames the batch host."""
    nodes = ['hpc-c041', 'hpc-c042']
    c = Case('trap-spool-script-vanished', job_id=88702, nodes=nodes, start='2026-11-17T04:00:02Z', end='2026-11-17T04:00:03Z',
             state='FAILED', exit_code='2:0', reason='NonZeroExitCode', time_limit='04:00:00',
             cluster='hpc', user='ines', partition='gpu', jobname='resnet-sweep-9', ipbase='10.17.0.')
    for n in nodes:
        c.standard_node(n, noise=40)
        c.write_node(n, [('syslog', 'rfc3339', 'all')])
    script = f'/var/spool/slurmd/job{int(c.job_id):05d}/slurm_script'
    c.app[f'slurm-{c.job_id}.out'] = [f'slurmstepd: error: execve(): {script}: No such file or directory']
    c.ranks_in_json = False
    c.write({'sub_domain': ['InfraSW'], 'culprit_nodes': ['hpc-c041'], 'drain_ok': [], 'root_code': 'slurm.spool_error',
             'why': 'The batch step could not execute the script slurmd had written into its spool: the file was gone. The batch '
                    'step runs on the first node of the allocation, hpc-c041; its spool, not the user\'s script.'})
# --- end of traps


def case_trap_stepd_banner_in_output():
    """The user's own script prints slurmstepd's "STEPD TERMINATED ... DUE TO JOB NOT ENDING WITH SIGNALS" banner naming
    hpc-c052 and exits 1.  slurmstepd writes that banner to slurmd's log on the node (and slurmctld logs "Kill task
    failed"); neither says a word here, and the nodes are quiet.  Read from app/ it made hpc-c052 the InfraSW culprit, to
    reboot."""
    nodes = ['hpc-c051', 'hpc-c052']
    c = Case('trap-stepd-banner-in-output', job_id=88811, nodes=nodes, start='2026-11-18T09:00:00Z', end='2026-11-18T09:20:41Z',
             state='FAILED', exit_code='1:0', reason='NonZeroExitCode', time_limit='04:00:00',
             cluster='hpc', user='mal', partition='gpu', jobname='probe', ipbase='10.17.0.')
    for n in nodes:
        c.standard_node(n, noise=40)
        c.write_node(n, [('syslog', 'rfc3339', 'all')])
    tf = T('2026-11-18T09:20:30Z')
    app = script_banner(c) + c.nccl_init('2.21.5')
    app += c.progress(c.start + sec(60), tf - sec(120), dt.timedelta(minutes=2), stamp='iso', tflops=150)
    app += ['slurmstepd: error: *** STEP 88811.0 STEPD TERMINATED ON hpc-c052 AT 2026-11-18T09:19:02 DUE TO JOB NOT '
            'ENDING WITH SIGNALS ***', '+ exit 1']
    c.app['slurm-88811.out'] = app
    c.write({'sub_domain': ['unattributed'], 'culprit_nodes': [], 'drain_ok': [], 'forbid_actions': ['reboot', 'drain', 'reset_gpu'],
             'why': 'The only STEPD TERMINATED banner is in the job\'s own output, which its user writes; slurmd\'s log and '
                    'slurmctld\'s say nothing of an unkillable step, and the nodes are quiet. No cause, no node to reboot.'})


# ===========================================================================
# Node tool output as node evidence (rules/80-node-tools.yaml): saved
# nvidia-smi, nvidia-smi -q, dcgmi diag, ibstat dumps under nodes/NODE/.
# The dumps are this project's own renderings of the tools' layouts (the
# driver r535 -q field order, DCGM 4 result table, infiniband-diags ibstat).
# ===========================================================================

def smi_q(c, node, when, faults=None):
    """`nvidia-smi -q` of every GPU of a node; faults: {gpu: {dram_vol, dram_agg, remap_unc, remap_pending, remap_failure}}."""
    faults = faults or {}
    rng = c.rng
    lt = when.astimezone(c.zone)
    out = ['', '==============NVSMI LOG==============', '',
           f'Timestamp                                 : {DAY[lt.weekday()]} {MON[lt.month - 1]} {lt.day:2d} {lt:%H:%M:%S} {lt.year}',
           f'Driver Version                            : {c.driver}',
           'CUDA Version                              : 12.2', '',
           f'Attached GPUs                             : {c.gpus}']
    f = lambda k, v, ind=4: out.append(f'{" " * ind}{k:<{38 - ind}}: {v}')
    h = lambda k, ind=4: out.append(f'{" " * ind}{k}')
    for g in range(c.gpus):
        fl = faults.get(g, {})
        bus = c.pci_dev(g).upper().replace('0000:', '00000000:', 1)
        out.append(f'GPU {bus}')
        f('Product Name', 'NVIDIA H100 80GB HBM3'); f('Product Brand', 'NVIDIA'); f('Product Architecture', 'Hopper')
        f('Display Mode', 'Disabled'); f('Display Active', 'Disabled'); f('Persistence Mode', 'Enabled')
        f('Addressing Mode', 'None')
        h('MIG Mode'); f('Current', 'Disabled', 8); f('Pending', 'Disabled', 8)
        f('Accounting Mode', 'Disabled'); f('Accounting Mode Buffer Size', '4000')
        h('Driver Model'); f('Current', 'N/A', 8); f('Pending', 'N/A', 8)
        f('Serial Number', str(1652823000000 + rng.randint(0, 999999)))
        f('GPU UUID', 'GPU-%08x-%04x-%04x-%04x-%012x' % (rng.getrandbits(32), rng.getrandbits(16), rng.getrandbits(16),
                                                         rng.getrandbits(16), rng.getrandbits(48)))
        f('Minor Number', str(g)); f('VBIOS Version', '96.00.74.00.0D'); f('MultiGPU Board', 'No')
        f('Board ID', '0x%x' % int(c.pci[g].split(':')[-1], 16) if ':' not in c.pci[g] else '0x0')
        f('Board Part Number', '692-2G520-0200-000'); f('GPU Part Number', '2330-885-A1'); f('FRU Part Number', 'N/A')
        f('Module ID', str(g + 1))
        h('Inforom Version'); f('Image Version', 'G520.0200.00.05', 8); f('OEM Object', '2.1', 8); f('ECC Object', '7.16', 8)
        f('Power Management Object', 'N/A', 8)
        h('GPU Operation Mode'); f('Current', 'N/A', 8); f('Pending', 'N/A', 8)
        f('GSP Firmware Version', c.driver)
        h('GPU Virtualization Mode'); f('Virtualization Mode', 'None', 8); f('Host VGPU Mode', 'N/A', 8)
        h('GPU Reset Status'); f('Reset Required', 'Yes' if fl.get('remap_pending') else 'No', 8)
        f('Drain and Reset Recommended', 'Yes' if fl.get('remap_failure') else 'No', 8)
        h('IBMNPU'); f('Relaxed Ordering Mode', 'N/A', 8)
        h('PCI'); f('Bus', '0x' + c.pci[g].split(':')[-1].upper(), 8); f('Device', '0x00', 8); f('Domain', '0x0000', 8)
        f('Device Id', '0x233010DE', 8); f('Bus Id', bus, 8); f('Sub System Id', '0x16C110DE', 8)
        h('GPU Link Info', 8); h('PCIe Generation', 12)
        for k in ('Max', 'Current', 'Device Current', 'Device Max', 'Host Max'):
            f(k, '5', 16)
        h('Link Width', 12); f('Max', '16x', 16); f('Current', '16x', 16)
        h('Bridge Chip', 8); f('Type', 'N/A', 12); f('Firmware', 'N/A', 12)
        f('Replays Since Reset', '0', 8); f('Replay Number Rollovers', '0', 8)
        f('Tx Throughput', f'{rng.randint(200, 900)} KB/s', 8); f('Rx Throughput', f'{rng.randint(200, 900)} KB/s', 8)
        f('Atomic Caps Inbound', 'N/A', 8); f('Atomic Caps Outbound', 'N/A', 8)
        f('Fan Speed', 'N/A'); f('Performance State', 'P0')
        h('Clocks Event Reasons'); f('Idle', 'Active', 8); f('Applications Clocks Setting', 'Not Active', 8)
        f('SW Power Cap', 'Not Active', 8); f('HW Slowdown', 'Not Active', 8)
        f('HW Thermal Slowdown', 'Not Active', 12); f('HW Power Brake Slowdown', 'Not Active', 12)
        f('Sync Boost', 'Not Active', 8); f('SW Thermal Slowdown', 'Not Active', 8); f('Display Clock Setting', 'Not Active', 8)
        h('Sparse Operation Mode'); f('Current', 'N/A', 8)
        h('FB Memory Usage'); f('Total', '81559 MiB', 8); f('Reserved', '328 MiB', 8); f('Used', '1 MiB', 8); f('Free', '81229 MiB', 8)
        h('BAR1 Memory Usage'); f('Total', '131072 MiB', 8); f('Used', '1 MiB', 8); f('Free', '131071 MiB', 8)
        h('Conf Compute Protected Memory Usage'); f('Total', '0 MiB', 8); f('Used', '0 MiB', 8); f('Free', '0 MiB', 8)
        f('Compute Mode', 'Default')
        h('Utilization')
        for k in ('Gpu', 'Memory', 'Encoder', 'Decoder', 'JPEG', 'OFA'):
            f(k, '0 %', 8)
        for box in ('Encoder Stats', 'FBC Stats'):
            h(box); f('Active Sessions', '0', 8); f('Average FPS', '0', 8); f('Average Latency', '0', 8)
        h('ECC Mode'); f('Current', 'Enabled', 8); f('Pending', 'Enabled', 8)
        h('ECC Errors')
        ce = rng.choice([0, 0, 0, 2, 14])
        for sect, ue in (('Volatile', fl.get('dram_vol', 0)), ('Aggregate', fl.get('dram_agg', 0))):
            h(sect, 8)
            f('SRAM Correctable', '0', 12); f('SRAM Uncorrectable Parity', '0', 12); f('SRAM Uncorrectable SEC-DED', '0', 12)
            f('DRAM Correctable', str(ce), 12); f('DRAM Uncorrectable', str(ue), 12)
        f('SRAM Threshold Exceeded', 'No', 12)
        h('Aggregate Uncorrectable SRAM Sources', 8)
        for k in ('SRAM L2', 'SRAM SM', 'SRAM Microcontroller', 'SRAM PCIE', 'SRAM Other'):
            f(k, '0', 12)
        h('Retired Pages'); f('Single Bit ECC', 'N/A', 8); f('Double Bit ECC', 'N/A', 8); f('Pending Page Blacklist', 'N/A', 8)
        h('Remapped Rows'); f('Correctable Error', '0', 8); f('Uncorrectable Error', str(fl.get('remap_unc', 0)), 8)
        f('Pending', 'Yes' if fl.get('remap_pending') else 'No', 8)
        f('Remapping Failure Occurred', 'Yes' if fl.get('remap_failure') else 'No', 8)
        h('Bank Remap Availability Histogram', 8)
        full = fl.get('remap_failure')
        f('Max', f'{2559 if full else 2560} bank(s)', 12); f('High', '0 bank(s)', 12); f('Partial', '0 bank(s)', 12)
        f('Low', '0 bank(s)', 12); f('None', f'{1 if full else 0} bank(s)', 12)
        h('Temperature'); f('GPU Current Temp', f'{rng.randint(29, 36)} C', 8); f('GPU T.Limit Temp', f'{rng.randint(50, 57)} C', 8)
        f('GPU Shutdown T.Limit Temp', '-5 C', 8); f('GPU Slowdown T.Limit Temp', '-2 C', 8)
        f('GPU Max Operating T.Limit Temp', '0 C', 8); f('GPU Target Temperature', 'N/A', 8)
        f('Memory Current Temp', f'{rng.randint(36, 44)} C', 8); f('Memory Max Operating T.Limit Temp', '0 C', 8)
        h('GPU Power Readings'); f('Power Draw', f'{rng.randint(66, 78)}.{rng.randint(10, 99)} W', 8)
        for k in ('Current Power Limit', 'Requested Power Limit', 'Default Power Limit'):
            f(k, '700.00 W', 8)
        f('Min Power Limit', '200.00 W', 8); f('Max Power Limit', '700.00 W', 8)
        h('Clocks'); f('Graphics', '1980 MHz', 8); f('SM', '1980 MHz', 8); f('Memory', '2619 MHz', 8); f('Video', '1545 MHz', 8)
        h('Applications Clocks'); f('Graphics', '1980 MHz', 8); f('Memory', '2619 MHz', 8)
        h('Max Clocks'); f('Graphics', '1980 MHz', 8); f('SM', '1980 MHz', 8); f('Memory', '2619 MHz', 8); f('Video', '1545 MHz', 8)
        h('Voltage'); f('Graphics', '670.000 mV', 8)
        h('Fabric'); f('State', 'Completed', 8); f('Status', 'Success', 8)
        f('Processes', 'None')
        out.append('')
    return '\n'.join(out) + '\n'


def smi_table(c, when, *, err=None):
    """The nvidia-smi summary table; err: a GPU index whose fields read ERR!."""
    rng = c.rng
    lt = when.astimezone(c.zone)
    out = [f'{DAY[lt.weekday()]} {MON[lt.month - 1]} {lt.day:2d} {lt:%H:%M:%S} {lt.year}',
           '+---------------------------------------------------------------------------------------+',
           f'| NVIDIA-SMI {c.driver}             Driver Version: {c.driver}   CUDA Version: 12.2     |',
           '|-----------------------------------------+----------------------+----------------------+',
           '| GPU  Name                 Persistence-M | Bus-Id        Disp.A | Volatile Uncorr. ECC |',
           '| Fan  Temp   Perf          Pwr:Usage/Cap |         Memory-Usage | GPU-Util  Compute M. |',
           '|                                         |                      |               MIG M. |',
           '|=========================================+======================+======================|']
    for g in range(c.gpus):
        bus = c.pci_dev(g).upper().replace('0000:', '00000000:', 1)
        if g == err:
            out += [f'|  {g:2d}  NVIDIA H100 80GB HBM3          On  | {bus} Off |                 ERR! |',
                    '| N/A   ERR!   P0             ERR! / 700W |  81004MiB / 81559MiB |      ERR!    Default |']
        else:
            out += [f'|  {g:2d}  NVIDIA H100 80GB HBM3          On  | {bus} Off |                    0 |',
                    f'| N/A   {rng.randint(28, 36)}C    P0              {rng.randint(66, 78)}W / 700W |      4MiB / 81559MiB |      0%      Default |']
        out += ['|                                         |                      |             Disabled |',
                '+-----------------------------------------+----------------------+----------------------+']
    out += ['', '+---------------------------------------------------------------------------------------+',
            '| Processes:                                                                            |',
            '|  GPU   GI   CI        PID   Type   Process name                            GPU Memory |',
            '|        ID   ID                                                             Usage      |',
            '|=======================================================================================|',
            '|  No running processes found                                                           |',
            '+---------------------------------------------------------------------------------------+']
    return '\n'.join(out) + '\n'


def dcgm_row(name, info):
    return f'| {name:<25} | {info:<46} |'


def dcgmi_diag(c, *, fail_gpu=None, fail_test='diagnostic', warning=''):
    """`dcgmi diag -r 2` in the DCGM 4 layout: per test a result row, then one row per GPU."""
    sep = '+---------------------------+------------------------------------------------+'
    out = ['Successfully ran diagnostic for group.', sep, dcgm_row('Diagnostic', 'Result'),
           '+===========================+================================================+',
           '+-----  Metadata  ----------+------------------------------------------------+',
           dcgm_row('DCGM Version', '4.1.1'), dcgm_row('Driver Version Detected', c.driver),
           dcgm_row('GPU Device IDs Detected', ','.join(['2330'] * c.gpus))]
    for group, tests in (('Deployment', ['software']), ('Hardware', ['memory', 'diagnostic']),
                         ('Integration', ['pcie']), ('Stress', ['targeted_stress', 'targeted_power', 'memory_bandwidth'])):
        out.append(f'+-----  {group}  ' + '-' * (18 - len(group)) + '+------------------------------------------------+')
        for t in tests:
            failed = fail_gpu is not None and t == fail_test
            out.append(dcgm_row(t, 'Fail' if failed else 'Pass'))
            for g in range(c.gpus):
                bad = failed and g == fail_gpu
                out.append(dcgm_row('', f'GPU{g}: {"Fail" if bad else "Pass"}'))
                if bad:
                    for i in range(0, len(warning), 45):
                        out.append(dcgm_row(f'Warning: GPU{g}' if i == 0 else '', warning[i:i + 45]))
    out.append(sep)
    return '\n'.join(out) + '\n'


def ibstat(c, node, *, down=None, hcas=8):
    """`ibstat`: hcas single-port NDR HCAs (the compute rails) and a dual-port Ethernet card whose second port is unused."""
    out = []
    rng = c.rng
    for i in range(hcas + 1):
        guid = '0x%016x' % (0xa088c20300000000 | rng.getrandbits(24))
        eth = i == hcas
        out += [f"CA 'mlx5_{i}'", f'\tCA type: {"MT4125" if eth else "MT4129"}', f'\tNumber of ports: {2 if eth else 1}',
                f'\tFirmware version: {"22.39.1002" if eth else "28.39.1002"}', '\tHardware version: 0',
                f'\tNode GUID: {guid}', f'\tSystem image GUID: {guid}']
        for port in ((1, 2) if eth else (1,)):
            dn = (eth and port == 2) or i == down
            out += [f'\tPort {port}:', f'\t\tState: {"Down" if dn else "Active"}',
                    f'\t\tPhysical state: {("Disabled" if eth else "Polling") if dn else "LinkUp"}',
                    f'\t\tRate: {(40 if eth else 10) if dn else (100 if eth else 400)}',
                    f'\t\tBase lid: {0 if eth or dn else rng.randint(100, 4000)}', '\t\tLMC: 0',
                    f'\t\tSM lid: {0 if eth else 1}',
                    f'\t\tCapability mask: {"0x00010000" if eth else "0xa751e848"}', f'\t\tPort GUID: {guid}',
                    f'\t\tLink layer: {"Ethernet" if eth else "InfiniBand"}']
    return '\n'.join(out) + '\n'



def dcgmi_health(c):
    """`dcgmi health -c` of a healthy node (the boxed Health Monitor Report)."""
    sep = '+---------------------------+----------------------------------------------------------+'
    return '\n'.join([sep, '| Health Monitor Report                                                                |',
                      '+===========================+==========================================================+',
                      f'| {"Overall Health":<25} | {"Healthy":<56} |', sep]) + '\n'


def ibv_devinfo(c, *, hcas=8):
    """`ibv_devinfo` of the same HCAs as ibstat(): the Ethernet card's unused second port is PORT_DOWN."""
    out = []
    for i in range(hcas + 1):
        eth = i == hcas
        out += [f'hca_id:\tmlx5_{i}', f'\ttransport:\t\t\tInfiniBand (0)', f'\tfw_ver:\t\t\t\t{"22.39.1002" if eth else "28.39.1002"}',
                f'\tnode_guid:\t\t\ta088:c203:00{i:02x}:{c.rng.getrandbits(16):04x}',
                f'\tsys_image_guid:\t\t\ta088:c203:00{i:02x}:{c.rng.getrandbits(16):04x}', '\tvendor_id:\t\t\t0x02c9',
                f'\tvendor_part_id:\t\t\t{4125 if eth else 4129}', '\thw_ver:\t\t\t\t0x0', '\tboard_id:\t\t\tMT_0000000838',
                f'\tphys_port_cnt:\t\t\t{2 if eth else 1}']
        for port in ((1, 2) if eth else (1,)):
            dn = eth and port == 2
            out += [f'\t\tport:\t{port}', f'\t\t\tstate:\t\t\t{"PORT_DOWN (1)" if dn else "PORT_ACTIVE (4)"}',
                    '\t\t\tmax_mtu:\t\t4096 (5)', f'\t\t\tactive_mtu:\t\t{"1024 (3)" if eth else "4096 (5)"}',
                    f'\t\t\tsm_lid:\t\t\t{0 if eth else 1}', f'\t\t\tport_lid:\t\t{0 if eth else 100 + i}', '\t\t\tport_lmc:\t\t0x00',
                    f'\t\t\tlink_layer:\t\t{"Ethernet" if eth else "InfiniBand"}', '']
    return '\n'.join(out) + '\n'


def case_tool_smiq_remap_failure():
    """The only node evidence is an nvidia-smi -q dump per node (an epilog's capture): GPU 5 of one node has
    uncorrectable DRAM errors and a row-remapping failure; the app's rank on it hit a CUDA ECC error."""
    nodes = ['h100-a07', 'h100-a08']
    c = Case('tool-smiq-remap-failure', job_id=88102, nodes=nodes, start='2026-08-11T02:00:00Z', end='2026-08-11T05:41:37Z',
             state='FAILED', exit_code='1:0', reason='NonZeroExitCode', time_limit='08:00:00', gpus=8,
             cluster='hx', user='lena', partition='h100', jobname='moe-pretrain', ipbase='10.60.2.')
    bad = 'h100-a08'
    c.node_files = {n: {'nvidia-smi-q.txt': smi_q(c, n, c.end + sec(6),
                                                  {5: {'dram_vol': 2, 'dram_agg': 2, 'remap_unc': 0, 'remap_failure': 1}}
                                                  if n == bad else None)} for n in nodes}
    tf = T('2026-08-11T05:40:58Z')
    lb = c.lbl
    r = next(x for x in c.ranks if x.node == bad and x.local == 5)
    app = script_banner(c) + c.nccl_init('2.21.5', label=True)
    app += c.progress(c.start + sec(60), tf, dt.timedelta(minutes=4), stamp='iso', tflops=402, label=0)
    app += [lb(r.rank) + x for x in ['[rank%d]: Traceback (most recent call last):' % r.rank,
                                     '[rank%d]:   File "/opt/moe/train.py", line 233, in <module>' % r.rank,
                                     '[rank%d]:     out = model(batch)' % r.rank,
                                     '[rank%d]: RuntimeError: CUDA error: uncorrectable ECC error encountered' % r.rank,
                                     '[rank%d]: Compile with `TORCH_USE_CUDA_DSA` to enable device-side assertions.' % r.rank]]
    for x in c.ranks[1::3]:
        if x.rank != r.rank:
            app += [lb(x.rank) + y for y in torch_nccl_error('2.4', x.rank, 51033, tf + sec(9), 'remote', '2.21.5')[:2]]
    app += [f'srun: error: {bad}: task 1: Exited with exit code 1', f'srun: error: {nodes[0]}: task 0: Exited with exit code 1']
    c.app['slurm-88102.out'] = app
    c.write({'sub_domain': ['InfraHW'], 'culprit_nodes': [bad], 'drain_ok': [bad],
             'why': f'Rank {r.rank} (GPU 5 of {bad}) died of an uncorrectable ECC error; {bad}\'s nvidia-smi -q shows GPU 5 '
                    'with volatile uncorrectable DRAM errors and "Remapping Failure Occurred: Yes": the GPU memory is bad. '
                    'No kernel log was collected; the other node\'s dump is all zeros.'})


def case_tool_dcgmi_diag_fail():
    """The epilog's dcgmi diag -r 2 (DCGM 4 layout) fails the diagnostic test on GPU 3 of one node; that node's rank
    reported an unspecified launch failure, the others NCCL errors; no Xid in the syslog."""
    nodes = ['dgx-b01', 'dgx-b02', 'dgx-b03']
    c = Case('tool-dcgmi-diag-fail', job_id=230417, nodes=nodes, start='2026-09-02T19:10:00Z', end='2026-09-02T22:03:12Z',
             state='FAILED', exit_code='1:0', reason='NonZeroExitCode', time_limit='1-00:00:00', gpus=8,
             cluster='dgx', user='omar', partition='batch', jobname='vit-h14', ipbase='10.61.0.')
    bad = 'dgx-b02'
    for n in nodes:
        c.standard_node(n, noise=50)
        c.write_node(n, [('syslog', 'rfc3339', 'all')])
        c.node_files[n]['dcgmi-diag-r2.txt'] = dcgmi_diag(
            c, fail_gpu=3 if n == bad else None, fail_test='diagnostic',
            warning='GPU 3 produced miscompares in the matrix multiply check (412 of 4194304 elements differ)')
    tf = T('2026-09-02T22:02:31.500000Z')
    r = next(x for x in c.ranks if x.node == bad and x.local == 3)
    app = script_banner(c) + c.nccl_init('2.23.4')
    app += c.progress(c.start + sec(75), tf, dt.timedelta(minutes=5), stamp='iso', tflops=388)
    app += [f'[rank{r.rank}]: Traceback (most recent call last):',
            f'[rank{r.rank}]:   File "/ws/vit/train.py", line 301, in <module>',
            f'[rank{r.rank}]:     loss.backward()',
            f'[rank{r.rank}]: RuntimeError: CUDA error: unspecified launch failure']
    for x in c.ranks[::4]:
        if x.node != bad:
            app += torch_nccl_error('2.5', x.rank, 88210, tf + sec(6), 'remote', '2.23.4')[:3]
    app += child_failed('train.py', tf, bad, r.rank, r.local, r.pid)
    app += [f'srun: error: {bad}: task 1: Exited with exit code 1']
    c.app['slurm-230417.out'] = app
    c.write({'sub_domain': ['InfraHW'], 'culprit_nodes': [bad], 'drain_ok': [bad],
             'why': f'GPU 3 of {bad} failed the dcgmi diagnostic test the epilog ran after the job, and rank {r.rank} on that '
                    'GPU died of an unspecified launch failure; the other ranks only lost their NCCL peer.'})


def case_tool_ibstat_port_down():
    """ibstat on every node; on one node the single-port HCA mlx5_3 is Down/Polling and NCCL there reports a port error,
    the peers' completions fail naming its address. Every node's unused second port of the Ethernet card is Down/Disabled."""
    nodes = ['ib-gpu-21', 'ib-gpu-22', 'ib-gpu-23', 'ib-gpu-24']
    ips = {n: f'10.62.0.{21 + i}' for i, n in enumerate(nodes)}
    c = Case('tool-ibstat-port-down', job_id=640051, nodes=nodes, start='2026-10-20T06:00:00Z', end='2026-10-20T09:12:44Z',
             state='FAILED', exit_code='1:0', reason='NonZeroExitCode', time_limit='12:00:00', gpus=8,
             cluster='ib', user='yusuf', partition='gpu', jobname='llama-ft', node_ip=ips)
    bad = 'ib-gpu-23'
    for n in nodes:
        c.standard_node(n, noise=40)
        c.write_node(n, [('messages', 'rfc3164', 'all')])
        c.node_files[n]['ibstat.txt'] = ibstat(c, n, down=3 if n == bad else None)
    tf = T('2026-10-20T09:11:02Z')
    app = script_banner(c) + c.nccl_init('2.21.5')
    app += c.progress(c.start + sec(60), tf, dt.timedelta(minutes=3), stamp='iso', tflops=371)
    for r in c.ranks:
        if r.node == bad and r.local == 3:
            app += nccl_warn(r, 'NET/IB : mlx5_3:1 Got async event : port error', 'transport/net_ib.cc:95')
    for r in c.ranks:
        if r.node != bad and r.local == 3:
            app += nccl_warn(r, f'NET/IB : Got completion from peer {ips[bad]}<{47000 + r.rank}> with status=12 opcode=0 len=0 '
                                f'vendor err 129 (Send) localGid ::ffff:{r.ip} remoteGids::ffff:{ips[bad]}', 'transport/net_ib.cc:1696')
            app += torch_nccl_error('2.4', r.rank, 40112, tf + sec(3), 'remote', '2.21.5')[:2]
    app += [f'srun: error: {n}: task {i}: Exited with exit code 1' for i, n in enumerate(nodes)]
    c.app['slurm-640051.out'] = app
    c.write({'sub_domain': ['InfraNet'], 'culprit_nodes': [bad], 'drain_ok': [bad],
             'why': f'{bad}\'s ibstat shows mlx5_3 port 1 Down (Physical state: Polling) while NCCL on its rank 3 reported a '
                    f'port error on mlx5_3:1 and the peers\' completions to {ips[bad]} failed; the Disabled second port of the '
                    'Ethernet card on every node is unused.'})


def case_tool_healthy_user_exception():
    """Healthy nvidia-smi, nvidia-smi -q, ibstat, ibv_devinfo, dcgmi diag and dcgmi health dumps on every node (zero ECC
    counters, ports Active, an unused port Down, all Pass / Healthy) in a job that died of the user's KeyError: the dumps
    must not change the verdict."""
    nodes = ['gh-n01', 'gh-n02']
    c = Case('tool-healthy-user-exception', job_id=77310, nodes=nodes, start='2026-12-07T11:00:00Z', end='2026-12-07T11:24:05Z',
             state='FAILED', exit_code='1:0', reason='NonZeroExitCode', time_limit='04:00:00', gpus=8,
             cluster='gh', user='rui', partition='dev', jobname='sft-debug', ipbase='10.63.4.')
    for n in nodes:
        c.standard_node(n, noise=30)
        c.write_node(n, [('syslog', 'rfc3339', 'all')])
        c.node_files[n]['nvidia-smi.txt'] = smi_table(c, c.end + sec(5))
        c.node_files[n]['nvidia-smi-q.txt'] = smi_q(c, n, c.end + sec(6))
        c.node_files[n]['ibstat.txt'] = ibstat(c, n)
        c.node_files[n]['ibv_devinfo.txt'] = ibv_devinfo(c)
        c.node_files[n]['dcgmi-diag-r1.txt'] = dcgmi_diag(c)
        c.node_files[n]['dcgmi-health.txt'] = dcgmi_health(c)
    tf = T('2026-12-07T11:23:40Z')
    app = script_banner(c) + c.nccl_init('2.21.5')
    app += c.progress(c.start + sec(50), tf, dt.timedelta(minutes=2), stamp='iso', tflops=280)
    app += ['[rank0]: Traceback (most recent call last):',
            '[rank0]:   File "/home/rui/sft/train.py", line 88, in <module>',
            '[rank0]:     prompt = sample["instruction"]',
            "[rank0]: KeyError: 'instruction'"]
    for x in c.ranks[1::5]:
        app += torch_nccl_error('2.4', x.rank, 310, tf + sec(4), 'remote', '2.21.5')[:2]
    app += child_failed('train.py', tf, nodes[0], 0, 0, c.ranks[0].pid)
    app += [f'srun: error: {nodes[0]}: task 0: Exited with exit code 1', f'srun: error: {nodes[1]}: task 1: Exited with exit code 1']
    c.app['slurm-77310.out'] = app
    c.write({'sub_domain': ['UserCode'], 'culprit_nodes': [], 'drain_ok': [],
             'evidence_contains': 'KeyError',
             'why': 'Rank 0 raised KeyError: \'instruction\' in the user\'s data code; the saved nvidia-smi / -q dumps show '
                    'all-zero ECC counters, no pending or failed remaps, ibstat / ibv_devinfo every compute port Active (only the '
                    'Ethernet card\'s unused second port is Down), dcgmi diag all Pass and dcgmi health Healthy.'})



def case_tool_nhc_ib_port():
    """Slurm's HealthCheckProgram (LBNL NHC) fails check_hw_ib on one node during the job (syslog); no kernel link line
    was kept and NCCL on the other nodes only sees retry-exceeded completions naming that node's address."""
    nodes = ['cx-g01', 'cx-g02', 'cx-g03']
    ips = {n: f'10.64.8.{11 + i}' for i, n in enumerate(nodes)}
    c = Case('tool-nhc-ib-port', job_id=910233, nodes=nodes, start='2026-04-17T13:30:00Z', end='2026-04-17T16:02:51Z',
             state='FAILED', exit_code='1:0', reason='NonZeroExitCode', time_limit='06:00:00', gpus=4, pci=PCI_4GPU,
             cluster='cx', user='nadia', partition='gpu', jobname='gnn-large', node_ip=ips)
    bad = 'cx-g02'
    tf = T('2026-04-17T15:59:40.250000Z')
    for n in nodes:
        c.standard_node(n, noise=45)
    c.log(bad, tf + sec(95.2), 'nhc[48213]', 'Health check failed:  check_hw_ib:  No IB port mlx5_1:1 is ACTIVE (LinkUp 400 Gb/sec).')
    c.log(nodes[0], tf + sec(61.7), 'nhc[30117]', 'Node health check passed.')
    for n in nodes:
        c.write_node(n, [('syslog', 'rfc3339', 'all')])
    app = script_banner(c) + c.nccl_init('2.21.5', hcas=2)
    app += c.progress(c.start + sec(60), tf, dt.timedelta(minutes=4), stamp='iso', tflops=140)
    for r in c.ranks:
        if r.node != bad and r.local == 1:
            app += nccl_warn(r, f'NET/IB : Got completion from peer {ips[bad]}<{52000 + r.rank}> with status=12 opcode=1 len=0 '
                                f'vendor err 129 (Recv) localGid ::ffff:{r.ip} remoteGids::ffff:{ips[bad]}', 'transport/net_ib.cc:1696')
            app += torch_nccl_error('2.4', r.rank, 66120, tf + sec(31), 'remote', '2.21.5')[:2]
    app += [f'srun: error: {n}: task {i}: Exited with exit code 1' for i, n in enumerate(nodes)]
    c.app['slurm-910233.out'] = app
    c.write({'sub_domain': ['InfraNet'], 'culprit_nodes': [bad], 'drain_ok': [bad],
             'why': f'NHC on {bad} failed check_hw_ib (no IB port mlx5_1:1 ACTIVE) while the job ran, and the other nodes\' '
                    f'NCCL completions to {ips[bad]} failed with retry exceeded: {bad} lost its IB rail.'})

def case_dbe_before_start_then_ecc():
    """An Xid 48 a minute before the job started on the GPU the job then used; training ran ten minutes, then that rank hit an
    uncorrectable ECC error: the fault did not stop the job at once, but it is what ended it."""
    nodes = ['dgx-301', 'dgx-302']
    c = Case('dbe-before-start-then-ecc', job_id=450311, nodes=nodes, start='2026-09-05T11:00:00Z', end='2026-09-05T11:13:40Z',
             state='FAILED', exit_code='1:0', reason='NonZeroExitCode', cluster='k2', user='ana', jobname='rl-policy', ipbase='10.55.2.')
    for n in nodes:
        c.standard_node(n, noise=50)
    r = c.ranks[11]
    tx = T('2026-09-05T10:59:01.5Z')
    c.klog('dgx-302', tx, f'NVRM: Xid (PCI:{c.pci_full(r.gpu)}): 48, pid=\'<unknown>\', name=<unknown>, An uncorrectable double bit error (DBE) has been detected on GPU in the framebuffer at partition 1, subpartition 0.')
    for n in nodes:
        c.write_node(n, [('syslog', 'iso', 'all')])
    tf = T('2026-09-05T11:13:10Z')
    app = script_banner(c) + c.nccl_init('2.23.4')
    app += c.progress(c.start + sec(60), tf - sec(20), dt.timedelta(seconds=30), stamp='iso', tflops=350)
    app += user_exception(r, 'RuntimeError: CUDA error: uncorrectable ECC error encountered', 'policy.py", line 77, in forward')
    app += peers_die(c, r, tf)
    c.app['slurm-450311.out'] = app
    c.write({'sub_domain': ['InfraHW'], 'culprit_nodes': ['dgx-302'], 'drain_ok': ['dgx-302'], 'root_code': 'xid.48',
             'why': 'The DBE on dgx-302\'s GPU came a minute before the job; the job trained on it for ten minutes until rank 11, on '
                    'that GPU, failed with an uncorrectable ECC error: the same fault, slower to show.'})


def case_requeued_after_reboot():
    """Attempt 2 of a requeued job: the Xid 79 that ended attempt 1 is four minutes before this attempt started, and the node
    rebooted in between; this attempt died at once on the user's own assertion (no progress line to go by)."""
    nodes = ['hx-011', 'hx-012']
    c = Case('requeued-after-reboot', job_id=7730021, nodes=nodes, start='2026-10-20T06:10:00Z', end='2026-10-20T06:11:31Z',
             state='FAILED', exit_code='1:0', reason='NonZeroExitCode', cluster='hx', user='ola', jobname='vlm', ipbase='10.21.1.',
             restart_count=1)
    for n in nodes:
        c.standard_node(n, noise=40)
    tx = T('2026-10-20T06:05:40.2Z')
    c.klog('hx-012', tx, "NVRM: Xid (PCI:0000:9a:00): 79, pid='<unknown>', name=<unknown>, GPU has fallen off the bus.")
    c.boot_seq('hx-012', T('2026-10-20T06:08:02Z'))
    for n in nodes:
        c.write_node(n, [('journal.txt', 'iso', 'all')])
    r = c.ranks[3]
    tf = T('2026-10-20T06:11:05Z')
    app = script_banner(c) + c.nccl_init('2.21.5')
    app += user_exception(r, 'AssertionError: tokenizer vocab size 32000 != model vocab 32128', 'build.py", line 58, in check_vocab')
    app += peers_die(c, r, tf)
    c.app['slurm-7730021.out'] = app
    c.write({'sub_domain': ['UserCode'], 'culprit_nodes': [], 'drain_ok': [], 'set_aside': ['xid.79'],
             'why': 'The Xid 79 on hx-012 ended the previous attempt; the node rebooted at 06:08 before this attempt started at '
                    '06:10, and this attempt failed on the user\'s own assertion.'})


def case_peers_lose_one_node():
    """Every other node's ranks lost their connection to pz-03, whose logs show nothing: no cause to name, pz-03 to inspect."""
    nodes = ['pz-01', 'pz-02', 'pz-03', 'pz-04']
    c = Case('peers-lose-one-node', job_id=88420, nodes=nodes, start='2026-07-07T07:00:00Z', end='2026-07-07T08:02:55Z',
             state='FAILED', exit_code='1:0', reason='NonZeroExitCode', cluster='pz', user='raj', jobname='asr', ipbase='10.9.9.')
    for n in nodes:
        c.standard_node(n, noise=40)
        c.write_node(n, [('syslog', 'rfc3339', 'all')])
    bad = [r for r in c.ranks if r.node == 'pz-03'][0]
    tf = T('2026-07-07T07:51:40Z')
    app = script_banner(c) + c.nccl_init('2.21.5')
    app += c.progress(c.start + sec(60), tf - sec(30), dt.timedelta(minutes=1), stamp='iso', tflops=200)
    app += peers_die(c, bad, tf)
    for q in c.ranks:
        if q.node != 'pz-03' and q.local == 0:
            app += torch_watchdog_timeout('2.2', q.rank, 30110, tf + sec(600))
    c.app['slurm-88420.out'] = app
    c.write({'sub_domain': ['unattributed', 'ambiguous'], 'culprit_nodes': [], 'drain_ok': [], 'inspect': ['pz-03'],
             'why': 'The ranks on pz-01, pz-02 and pz-04 all lost pz-03 (completion errors naming its address), but nothing on pz-03 '
                    'or elsewhere shows why: no cause to name, pz-03 is the node to inspect.'})



# ---- driver stack, containers, BMC (rules 15-nvidia-driver, 75-containers, 55-bmc) ----

def case_fm_version_mismatch():
    """A driver update and reboot of one HGX node just before the job: nv-fabricmanager refuses the new driver (its
    package was left at the old version), so every rank on that node fails CUDA init with error 802; the other
    node's ranks lose their peers."""
    nodes = ['hgx-c11', 'hgx-c12']
    c = Case('fm-version-mismatch', job_id=612040, nodes=nodes, start='2026-06-09T14:00:00Z', end='2026-06-09T14:02:31Z',
             state='FAILED', exit_code='1:0', reason='NonZeroExitCode', time_limit='1-00:00:00',
             cluster='hx', user='mei', partition='hgx', jobname='sft-70b', ipbase='10.70.4.', driver='570.133.20')
    bad = 'hgx-c12'
    c.standard_node(nodes[0], noise=40)
    # back from maintenance two and a half minutes before the job, which had waited for it
    c.boot_seq(bad, c.start - sec(150))
    tb = c.boot[bad]
    c.noise(bad, tb + sec(90), c.end + sec(1200), 20)
    c.job_slurmd(bad)
    c.log(bad, tb + sec(31), 'systemd[1]', 'Starting NVIDIA fabric manager service...')
    c.log(bad, tb + sec(33.4), 'nv-fabricmanager[2291]', "fabric manager NVIDIA GPU driver interface version 565.57.01 don't match "
                                                       'with driver version 570.133.20. Please update with matching NVIDIA driver package.')
    c.log(bad, tb + sec(33.5), 'systemd[1]', 'nvidia-fabricmanager.service: Control process exited, code=exited, status=1/FAILURE')
    c.log(bad, tb + sec(33.5), 'systemd[1]', "nvidia-fabricmanager.service: Failed with result 'exit-code'.")
    c.log(bad, tb + sec(33.6), 'systemd[1]', 'Failed to start NVIDIA fabric manager service.')
    for n in nodes:
        c.write_node(n, [('journal.txt', 'iso', 'all')])
    tf = c.start + sec(41)
    app = script_banner(c)
    for r in c.ranks:
        if r.node == bad:
            app += [f'[rank{r.rank}]: Traceback (most recent call last):',
                    f'[rank{r.rank}]:   File "/opt/sft/train.py", line 61, in <module>',
                    f'[rank{r.rank}]:     torch.cuda.set_device(local_rank)',
                    f'[rank{r.rank}]: RuntimeError: CUDA error: system not yet initialized']
    for r in c.ranks[::8]:
        if r.node != bad:
            app += torch_nccl_error('2.5', r.rank, 1, tf + sec(12), 'remote', '2.23.4')[:2]
    app += [f'srun: error: {bad}: task 1: Exited with exit code 1', f'srun: error: {nodes[0]}: task 0: Exited with exit code 1']
    c.app['slurm-612040.out'] = app
    c.write({'sub_domain': ['InfraSW'], 'culprit_nodes': [bad], 'drain_ok': [], 'root_code': 'fm.version_mismatch',
             'evidence_contains': "don't match with driver version",
             'why': f'{bad} came back from a driver update with a fabric manager of the previous version; nv-fabricmanager refused '
                    'to start, so CUDA on that NVSwitch node reports "system not yet initialized" (802). The node needs the matching '
                    'fabric manager package; a reboot alone does not help.'})


def case_apptainer_bind_missing():
    """Every task's apptainer exec dies before the program starts: the job binds a scratch directory that the purge
    removed. Apptainer prints the missing source; the job's own configuration."""
    nodes = ['cpu-a101', 'cpu-a102']
    c = Case('apptainer-bind-missing', job_id=77124, nodes=nodes, start='2026-03-02T08:00:00Z', end='2026-03-02T08:00:07Z',
             state='FAILED', exit_code='255:0', reason='NonZeroExitCode', time_limit='04:00:00', gpus=4, pci=PCI_4GPU,
             cluster='cm', user='tom', partition='gpu', jobname='md-run', ipbase='10.12.3.')
    for n in nodes:
        c.standard_node(n, noise=35)
        c.write_node(n, [('syslog', 'rfc3164', 'all')])
    app = script_banner(c, ['+ apptainer exec --nv --bind /scratch/tom/run-0117:/data /apps/images/gromacs-2025.sif gmx mdrun -s /data/topol.tpr'])
    for i, n in enumerate(nodes):
        app += ["FATAL:   container creation failed: mount hook function failure: mount /scratch/tom/run-0117->/data error: "
                "while mounting /scratch/tom/run-0117: mount source /scratch/tom/run-0117 doesn't exist",
                f'srun: error: {n}: task {i}: Exited with exit code 255']
    c.app['slurm-77124.out'] = app
    c.write({'sub_domain': ['UserConfig'], 'culprit_nodes': [], 'drain_ok': [],
             'evidence_contains': 'run-0117 doesn\'t exist',
             'why': 'The job binds /scratch/tom/run-0117, which no longer exists (scratch purge); Apptainer refused to create the '
                    'container on every node. The job\'s bind list must change; the nodes are fine.'})


def case_bmc_sel_memory_ue():
    """A rank dies of SIGBUS in the middle of the job and the others lose it; no kernel log was collected, but the epilog
    saved the node's SEL: an uncorrectable ECC on one DIMM at that minute (older correctable ones, one deasserted)."""
    nodes = ['sm-n041', 'sm-n042', 'sm-n043']
    c = Case('bmc-sel-memory-ue', job_id=300911, nodes=nodes, start='2026-05-18T22:00:00Z', end='2026-05-19T03:47:12Z',
             state='FAILED', exit_code='135:0', reason='NonZeroExitCode', time_limit='1-00:00:00', gpus=4, pci=PCI_4GPU,
             cluster='sm', user='ines', partition='gpu', jobname='cfd-les', ipbase='10.44.1.')
    bad = 'sm-n042'
    tf = T('2026-05-19T03:41:09Z')
    c.node_files = {bad: {'ipmi-sel-elist.txt': '\n'.join([
        '   1 | 01/07/26 | 10:02:11 UTC | Event Logging Disabled #0x07 | Log area reset/cleared | Asserted',
        '  2a | 03/30/26 | 17:44:50 UTC | Memory #0x87 | Correctable ECC | Asserted',
        '  2b | 03/30/26 | 17:44:52 UTC | Memory #0x87 | Correctable ECC | Deasserted',
        '  3c | 05/19/26 | 03:41:07 UTC | Memory CPU1_DIMM_C1 | Uncorrectable ECC | Asserted',
    ]) + '\n'}}
    r = next(x for x in c.ranks if x.node == bad and x.local == 1)
    app = script_banner(c) + c.nccl_init('2.21.5', hcas=2)
    app += c.progress(c.start + sec(60), tf, dt.timedelta(minutes=5), stamp='iso', tflops=95)
    for x in c.ranks[::3]:
        if x.node != bad:
            app += torch_nccl_error('2.4', x.rank, 70211, tf + sec(20), 'remote', '2.21.5')[:2]
    app += [f'srun: error: {bad}: task {r.rank}: Bus error (core dumped)',
            f'srun: error: {nodes[0]}: task 0: Exited with exit code 1', f'srun: error: {nodes[2]}: task 8: Exited with exit code 1']
    c.app['slurm-300911.out'] = app
    c.write({'sub_domain': ['InfraHW'], 'culprit_nodes': [bad], 'drain_ok': [bad], 'root_code': 'bmc.memory_ue',
             'why': f'Rank {r.rank} on {bad} died of SIGBUS and the other ranks lost it; the node\'s SEL shows an uncorrectable '
                    'ECC error on CPU1_DIMM_C1 at that minute (the kernel killed the process whose page was poisoned). The DIMM '
                    'must be replaced; the older correctable errors were on another DIMM and cleared.'})

# ---- MPI launchers and fabrics (formats from Open MPI's help texts, the
# openib BTL's handle_wc(), UCX's mlx5 CQE log and PMIx/Open MPI 5 runtime)

OMPI_RETRY_HELP = """--------------------------------------------------------------------------
The InfiniBand retry count between two MPI processes has been
exceeded.  "Retry count" is defined in the InfiniBand spec 1.2
(section 12.7.38):

    The total number of times that the sender wishes the receiver to
    retry timeout, packet sequence, etc. errors before posting a
    completion error.

This error typically means that there is something awry within the
InfiniBand fabric itself.  You should note the hosts on which this
error has occurred; it has been observed that rebooting or removing a
particular host from the job can sometimes resolve this issue.

Below is some information about the host that raised the error and the
peer to which it was connected:

  Local host:   {local}
  Local device: mlx5_0
  Peer host:    {peer}

You may need to consult with your system administrator to get this
problem fixed.
--------------------------------------------------------------------------"""


def case_mpi_ib_retry_linkdown():
    """An Open MPI (openib) job: mc-03's HCA port lost its link; the ranks on mc-01 and mc-02 then ran out of IB retries
    to mc-03 and mpirun tore the job down. The retry errors are the fabric's view of mc-03's link loss."""
    nodes = ['mc-01', 'mc-02', 'mc-03']
    c = Case('mpi-ib-retry-linkdown', job_id=550123, nodes=nodes, start='2026-09-02T10:00:00Z', end='2026-09-02T11:12:40Z',
             state='FAILED', exit_code='1:0', reason='NonZeroExitCode', gpus=4, pci=PCI_4GPU, cluster='mc', user='ana',
             partition='cpu', jobname='cfd', ipbase='10.60.2.')
    for n in nodes:
        c.standard_node(n, noise=40)
    tf = T('2026-09-02T11:11:50.300Z')
    c.klog('mc-03', tf, 'mlx5_core 0000:41:00.0 ibp65s0: Link down')
    for n in nodes:
        c.write_node(n, [('kern.log', 'rfc3339', 'kernel'), ('syslog', 'rfc3339', 'nonkernel')])
    app = script_banner(c)
    app += [f'step {i * 100} residual {1.0 / (i + 1):.6f}' for i in range(12)]
    for src, rank in (('mc-01', 1), ('mc-02', 5)):
        app += [f'[{src}][[41231,1],{rank}][btl_openib_component.c:3685:handle_wc] from {src} to: mc-03 error polling LP CQ '
                f'with status RETRY EXCEEDED ERROR status number 12 for wr_id {0x2bf2c80 + rank:x} opcode 0  vendor error 129 qp_idx 0']
        app += OMPI_RETRY_HELP.format(local=src, peer='mc-03').split('\n')
    app += ['--------------------------------------------------------------------------',
            'mpirun has exited due to process rank 1 with PID 48211 on',
            'node mc-01 exiting improperly. There are three reasons this could occur:',
            '--------------------------------------------------------------------------']
    c.app['slurm-550123.out'] = app
    c.write({'sub_domain': ['InfraNet'], 'culprit_nodes': ['mc-03'], 'drain_ok': ['mc-03'],
             'why': 'mc-03\'s kernel logged its IB port link down; 30 s later the ranks on mc-01 and mc-02 exhausted their IB '
                    'retries to mc-03 (RETRY EXCEEDED, status 12) and mpirun ended the job: the link, not the fabric at large.'})


def case_mpi_pmix_mismatch():
    """Open MPI 5 launched by srun --mpi=pmi2: every rank starts as a singleton and the program's size check exits."""
    nodes = ['mc-21', 'mc-22']
    c = Case('mpi-pmix-mismatch', job_id=550200, nodes=nodes, start='2026-09-03T08:00:00Z', end='2026-09-03T08:00:41Z',
             state='FAILED', exit_code='1:0', reason='NonZeroExitCode', gpus=4, pci=PCI_4GPU, cluster='mc', user='bo',
             partition='cpu', jobname='solver', ipbase='10.60.3.')
    for n in nodes:
        c.standard_node(n, noise=30)
        c.write_node(n, [('syslog', 'rfc3339', 'all')])
    app = script_banner(c)
    for _ in nodes:
        app += ['No PMIx server was reachable, but a PMI1/2 was detected.',
                'If srun is being used to launch application,  4 singletons will be started.']
    app += ['solver: expected 8 ranks, MPI_COMM_WORLD has 1'] * 8
    app += ['srun: error: mc-21: tasks 0-3: Exited with exit code 1',
            'srun: error: mc-22: tasks 4-7: Exited with exit code 1']
    c.app['slurm-550200.out'] = app
    c.write({'sub_domain': ['UserConfig'], 'culprit_nodes': [], 'drain_ok': [],
             'why': 'Open MPI 5 found no PMIx server (srun used a PMI-2 plugin), so each rank started as a singleton and the '
                    'program stopped on its size check: the launch line needs srun --mpi=pmix.'})


def case_mpi_orte_daemon_lost():
    """mpirun lost its orted on mc-33 in the middle of the run; nothing else on any node: mc-33 is to be inspected (no drain)."""
    nodes = ['mc-31', 'mc-32', 'mc-33']
    c = Case('mpi-orte-daemon-lost', job_id=550310, nodes=nodes, start='2026-09-04T20:00:00Z', end='2026-09-04T23:41:17Z',
             state='FAILED', exit_code='1:0', reason='NonZeroExitCode', gpus=4, pci=PCI_4GPU, cluster='mc', user='cy',
             partition='cpu', jobname='md', ipbase='10.60.4.')
    for n in nodes:
        c.standard_node(n, noise=40)
        c.write_node(n, [('messages', 'rfc3164', 'all')])
    app = script_banner(c)
    app += [f'Step {i * 5000:>9d}  Time {i * 10.0:10.3f}  Energy {-41230.5 - i:.4f}' for i in range(20)]
    app += ['--------------------------------------------------------------------------',
            'ORTE has lost communication with a remote daemon.',
            '',
            '  HNP daemon   : [[23410,0],0] on node mc-31',
            '  Remote daemon: [[23410,0],2] on node mc-33',
            '',
            'This is usually due to either a failure of the TCP network',
            'connection to the node, or possibly an internal failure of',
            'the daemon itself. We cannot recover from this failure, and',
            'therefore will terminate the job.',
            '--------------------------------------------------------------------------']
    c.app['slurm-550310.out'] = app
    c.write({'sub_domain': ['InfraNet'], 'culprit_nodes': ['mc-33'], 'drain_ok': [],
             'why': 'mpirun lost its daemon on mc-33 (Open MPI: the TCP connection to the node or the daemon failed); nothing '
                    'else explains it, so mc-33 and its link are to be inspected, not drained on this alone.'})



# ---- a process's own signal, an IB retry with nobody dead

def case_torchrun_sigbus_shm():
    """torchrun workers in a container die together on SIGBUS (a 64 MB /dev/shm): UserResource, no node blamed."""
    nodes = ['sb-g01']
    c = Case('torchrun-sigbus-shm', job_id=731407, nodes=nodes, start='2026-10-06T13:00:00Z', end='2026-10-06T13:04:52Z',
             state='FAILED', exit_code='1:0', reason='NonZeroExitCode', gpus=4, pci=PCI_4GPU, cluster='sb', user='noor',
             jobname='lora-ft', ipbase='10.72.0.', iface='eth0')
    c.standard_node('sb-g01', noise=40)
    c.write_node('sb-g01', [('syslog', 'rfc3339', 'all')])
    tb = T('2026-10-06T13:04:41Z')
    app = script_banner(c, ['+ torchrun --standalone --nproc_per_node=4 finetune.py --config lora.yaml'])
    app += c.nccl_init('2.21.5', transport='RoCE', hcas=1)
    for r in c.ranks:
        app.append(f'{r.host}:{r.pid}:{r.tid} [{r.gpu}] NCCL INFO Channel 00/0 : {r.rank}[{r.gpu}] -> {(r.rank + 1) % 4}[{(r.gpu + 1) % 4}] via SHM/direct/direct')
    app += c.progress(c.start + sec(70), tb - sec(5), dt.timedelta(seconds=20), stamp='py', tflops=60)
    app += [f'[2026-10-06 13:04:41,{512 + r.local}] torch.distributed.elastic.multiprocessing.api: [ERROR] failed (exitcode: -7) '
            f'local_rank: {r.local} (pid: {r.pid}) of binary: /usr/bin/python3' for r in c.ranks[:1]]
    block = child_failed('finetune.py', tb, 'sb-g01', 0, 0, c.ranks[0].pid, exitcode=-7,
                         others=[(tb, r.rank, r.local, r.pid, -7) for r in c.ranks[1:]])
    # torchrun names the signal in the traceback field of a worker a signal killed
    pids = {str(r.pid) for r in c.ranks}
    out, last_pid = [], None
    for x in block:
        if x.startswith('  exitcode  : -7 (pid: '):
            last_pid = x.split('pid: ')[1].rstrip(')')
        if x.startswith('  traceback : To enable') and last_pid in pids:
            x = f'  traceback : Signal 7 (SIGBUS) received by PID {last_pid}'
        out.append(x)
    app += out
    c.app['slurm-731407.out'] = app
    for r in c.ranks:
        c.set_exit(r.rank, 1, tb + sec(1))
    c.write({'sub_domain': ['UserResource'], 'culprit_nodes': [], 'drain_ok': [],
             'evidence_contains': 'Signal 7 (SIGBUS)',
             'why': 'All four workers died on SIGBUS at once while NCCL\'s SHM transport and the DataLoader shared memory '
                    'inside the container: a full /dev/shm (or memory) of the job, not a fault of sb-g01, whose logs show none.'})


def case_nccl_ib_retry_old_format():
    """NCCL 2.7's 'Got completion with error 12' on both nodes at the first all-reduce, no node fault: the fabric, no node drained."""
    nodes = ['rc-01', 'rc-02']
    c = Case('nccl-ib-retry-old-format', job_id=731455, nodes=nodes, start='2026-10-07T09:00:00Z', end='2026-10-07T09:03:31Z',
             state='FAILED', exit_code='1:0', reason='NonZeroExitCode', gpus=4, pci=PCI_4GPU, cluster='rc', user='ben',
             jobname='bert-pt', ipbase='10.81.2.', iface='eth2')
    for n in nodes:
        c.standard_node(n, noise=50)
        c.write_node(n, [('messages', 'rfc3164', 'all')])
    tf = T('2026-10-07T09:02:58Z')
    app = script_banner(c) + c.nccl_init('2.7.8', transport='RoCE', hcas=1)
    for r in c.ranks:
        if r.local == 0:
            app += nccl_warn(r, 'NET/IB : Got completion with error 12, opcode 1, len 0, vendor err 129', 'transport/net_ib.cc:839')
            app += [f'{r.host}:{r.pid}:{r.tid} [{r.gpu}] NCCL INFO include/net.h:28 -> 2',
                    f'{r.host}:{r.pid}:{r.tid} [{r.gpu}] NCCL INFO transport/net.cc:357 -> 2',
                    f'{r.host}:{r.pid}:{r.tid} [{r.gpu}] NCCL INFO proxy.cc:198 -> 2 [Proxy Thread]']
    for r in c.ranks:
        app += [f'[rank{r.rank}]: Traceback (most recent call last):',
                f'[rank{r.rank}]:   File "/workspace/pretrain.py", line 212, in <module>',
                f'[rank{r.rank}]:     dist.all_reduce(t)',
                f'[rank{r.rank}]: RuntimeError: NCCL error in: /opt/pytorch/torch/lib/c10d/ProcessGroupNCCL.cpp:825, '
                'unhandled system error, NCCL version 2.7.8']
    app += [f'srun: error: {n}: tasks {i * 4}-{i * 4 + 3}: Exited with exit code 1' for i, n in enumerate(nodes)]
    c.app['slurm-731455.out'] = app
    for r in c.ranks:
        c.set_exit(r.rank, 1, tf + sec(2))
    c.write({'sub_domain': ['InfraNet'], 'culprit_nodes': [], 'drain_ok': [],
             'evidence_contains': 'Got completion with error 12',
             'why': 'The first RDMA sends between the two nodes ran out of retries (IBV_WC_RETRY_EXC_ERR) on both sides and no '
                    'process had died before: the RoCE path between them (fabric, GID/VLAN configuration), not either node.'})


def case_mpi_rank_sigkill():
    """Open MPI names rank 5 killed by SIGKILL with no scheduler decision: most often the OOM killer (UserResource)."""
    nodes = ['mk-01', 'mk-02']
    c = Case('mpi-rank-sigkill', job_id=731502, nodes=nodes, start='2026-10-08T22:00:00Z', end='2026-10-08T22:37:09Z',
             state='FAILED', exit_code='137:0', reason='NonZeroExitCode', gpus=4, pci=PCI_4GPU, cluster='mk', user='ola',
             partition='cpu', jobname='nas-bt', ipbase='10.66.3.')
    for n in nodes:
        c.standard_node(n, noise=40)
        c.write_node(n, [('syslog', 'rfc3339', 'nonkernel')])
    app = script_banner(c, ['+ mpirun -np 8 ./bt.E.x'])
    app += [f' Time step {i * 20:>4d}' for i in range(1, 12)]
    app += ['--------------------------------------------------------------------------',
            'Primary job  terminated normally, but 1 process returned',
            'a non-zero exit code. Per user-direction, the job has been aborted.',
            '--------------------------------------------------------------------------',
            '--------------------------------------------------------------------------',
            f'mpirun noticed that process rank 5 with PID {c.ranks[5].pid} on node mk-02 exited on signal 9 (Killed).',
            '--------------------------------------------------------------------------']
    c.app['slurm-731502.out'] = app
    c.set_exit(5, 0, c.end - sec(3), 9)
    c.write({'sub_domain': ['UserResource'], 'culprit_nodes': [], 'drain_ok': [],
             'evidence_contains': 'exited on signal 9',
             'why': 'mpirun reports the first rank that died: rank 5 on mk-02 ended on SIGKILL, which no time limit, cancel or '
                    'node failure explains; that is the out-of-memory killer taking a rank whose problem does not fit the '
                    'node\'s memory (the kernel lines were not collected), not a fault of mk-02.'})



def case_node_fail_one_node():
    """A one-node job ends NODE_FAIL; its node's log just stops and no scheduler log was kept: that node, inspected."""
    nodes = ['ws-g07']
    c = Case('node-fail-one-node', job_id=731566, nodes=nodes, start='2026-10-09T01:00:00Z', end='2026-10-09T03:47:40Z',
             state='NODE_FAIL', exit_code='0:0', reason='NodeDown', gpus=4, pci=PCI_4GPU, cluster='ws', user='lee',
             jobname='vit-ft', ipbase='10.90.0.')
    tdie = T('2026-10-09T03:41:02Z')
    c.standard_node('ws-g07', noise=50)
    c.logs['ws-g07'] = [e for e in c.logs['ws-g07'] if e[0] < tdie]
    c.write_node('ws-g07', [('syslog', 'rfc3164', 'all')])
    app = script_banner(c) + c.nccl_init('2.21.5', transport='RoCE', hcas=2)
    app += c.progress(c.start + sec(90), tdie, dt.timedelta(minutes=2), stamp='iso', tflops=95)
    c.app['slurm-731566.out'] = app
    c.write({'sub_domain': ['InfraHW'], 'culprit_nodes': ['ws-g07'], 'drain_ok': [],
             'why': 'The job ran on ws-g07 alone and ended NODE_FAIL: slurmctld lost the node (its log and the job\'s output '
                    'simply stop at 03:41). Nothing says why, so the node is to be inspected, not drained on this alone.'})


# ---- what the job outlived is not its cause; a fatal fault's ending is its consequence

def rank_progress(c, r, t0, t1, every, tflops):
    """rank r's own progress lines ([rankN]: prefix), as a job logging on every rank prints them."""
    return [f'[rank{r.rank}]: ' + x for x in c.progress(t0, t1, every, stamp='iso', tflops=tflops)]


def case_outlived_cuda_error_rank():
    """Rank 5 logs a CUDA error, then keeps logging its own steps for an hour; rank 2 later raises KeyError."""
    nodes = ['gx-301', 'gx-302']
    c = Case('outlived-cuda-error-rank', job_id=300511, nodes=nodes, start='2026-06-02T08:00:00Z', end='2026-06-02T10:40:30Z',
             state='FAILED', exit_code='1:0', reason='NonZeroExitCode', gpus=4, pci=PCI_4GPU, cluster='gx', user='ines',
             jobname='seg-ft', ipbase='10.31.0.')
    for n in nodes:
        c.standard_node(n, noise=60)
        c.write_node(n, [('syslog', 'rfc3339', 'all')])
    te = T('2026-06-02T09:10:04Z')
    tf = T('2026-06-02T10:40:01Z')
    r5, r2 = c.ranks[5], c.ranks[2]
    app = script_banner(c) + c.nccl_init('2.21.5')
    # every rank logs its own steps; the lines interleave in time as srun gathers them
    steps = [(c.start + sec(60) + k * dt.timedelta(minutes=2), x) for k, x in
             enumerate(rank_progress(c, c.ranks[0], c.start + sec(60), tf - sec(10), dt.timedelta(minutes=2), 220))]
    steps += [(c.start + sec(75) + k * dt.timedelta(minutes=2), x) for k, x in
              enumerate(rank_progress(c, r5, c.start + sec(75), tf - sec(10), dt.timedelta(minutes=2), 219))]
    # rank 5's step fails with a CUDA error, which its training loop catches, logs with its traceback and retries
    steps.append((te, f'[rank5]: W0602 09:10:04.118000 {r5.pid} train.py:311] step failed, retrying the batch:'))
    steps += [(te, f'[rank5]: {x}') for x in ['Traceback (most recent call last):',
                                               '  File "/workspace/train.py", line 305, in train_step',
                                               '    loss.backward()',
                                               'RuntimeError: CUDA error: an illegal memory access was encountered']]
    app += [x for _, x in sorted(steps, key=lambda y: y[0])]
    app += user_exception(r2, 'KeyError: \'mask\'', 'data.py", line 91, in collate')
    app += peers_die(c, r2, tf)
    app += ['srun: error: gx-301: task 2: Exited with exit code 1']
    c.app['slurm-300511.out'] = app
    c.write({'sub_domain': ['UserCode'], 'culprit_nodes': [], 'drain_ok': [],
             'set_aside_as': {'cuda.illegal_address': 'the job kept making progress after it'},
             'why': 'Rank 5 logged a CUDA illegal memory access at 09:10 and went on logging its own training steps for 90 minutes: '
                    'it outlived that error. The job ended when rank 2 raised KeyError in the collate function.'})


def case_outlived_app_exception():
    """A one-node job logs an exception in its checkpoint thread, trains on for hours, and is cancelled by the time limit."""
    nodes = ['ws-12']
    c = Case('outlived-app-exception', job_id=300620, nodes=nodes, start='2026-06-03T00:00:00Z', end='2026-06-03T06:00:20Z',
             state='TIMEOUT', exit_code='0:0', reason='TimeLimit', time_limit='06:00:00', gpus=4, pci=PCI_4GPU, cluster='ws',
             user='omar', jobname='vae', ipbase='10.32.0.')
    c.standard_node('ws-12', noise=50)
    c.write_node('ws-12', [('syslog', 'rfc3339', 'all')])
    c.ctld_start('ws-12')
    c.ctld_other(15)
    c.sched.append((c.end - sec(20), f'Time limit exhausted for JobId={c.job_id}'))
    te = T('2026-06-03T02:31:40Z')
    app = script_banner(c)
    app += c.progress(c.start + sec(60), te, dt.timedelta(minutes=3), stamp='py', tflops=90)
    app += ['Exception in thread checkpoint-writer:',
            'Traceback (most recent call last):',
            '  File "/usr/lib/python3.10/threading.py", line 1016, in _bootstrap_inner',
            '    self.run()',
            '  File "/home/omar/vae/ckpt.py", line 48, in run',
            '    self.upload(path)',
            'ValueError: invalid literal for int() with base 10: \'step-final\'']
    app += c.progress(te + sec(50), c.end - sec(30), dt.timedelta(minutes=3), step0=5000, stamp='py', tflops=90)
    app += [f'slurmstepd: error: *** JOB {c.job_id} ON ws-12 CANCELLED AT 2026-06-03T06:00:00 DUE TO TIME LIMIT ***']
    c.app['slurm-300620.out'] = app
    c.write({'sub_domain': ['SchedTimeLimit'], 'culprit_nodes': [], 'drain_ok': [],
             'set_aside_as': {'py.exception': 'the job kept making progress after it'},
             'why': 'The checkpoint thread raised ValueError at 02:31, but training went on printing progress for three and a half '
                    'hours until the time limit: the exception did not end the job, the time limit did.'})


def case_xid79_silence_timeout():
    """Xid 79 on one node, training stops right there, then hours of silence until the time limit."""
    nodes = ['hx-01', 'hx-02', 'hx-03']
    c = Case('xid79-silence-timeout', job_id=300733, nodes=nodes, start='2026-06-04T00:00:00Z', end='2026-06-04T08:00:25Z',
             state='TIMEOUT', exit_code='0:0', reason='TimeLimit', time_limit='08:00:00', cluster='hx', user='tao',
             jobname='llm-13b', ipbase='10.33.0.')
    for n in nodes:
        c.standard_node(n, noise=60)
    tx = T('2026-06-04T03:12:09.551Z')
    c.klog('hx-02', tx, f"NVRM: Xid (PCI:{c.pci_full(5)}): 79, pid='<unknown>', name=<unknown>, GPU has fallen off the bus.")
    c.klog('hx-02', tx + sec(0.001), f'NVRM: GPU {c.pci_dev(5)}: GPU has fallen off the bus.')
    for n in nodes:
        c.write_node(n, [('kern.log', 'rfc3339', 'kernel'), ('syslog', 'rfc3339', 'nonkernel')])
    c.ctld_start('hx-[01-03]')
    c.ctld_other(20)
    c.sched.append((c.end - sec(25), f'Time limit exhausted for JobId={c.job_id}'))
    app = script_banner(c) + c.nccl_init('2.21.5')
    # the GPU stopped answering first: the driver declares it lost ten minutes after the last step
    app += c.progress(c.start + sec(90), tx - sec(600), dt.timedelta(minutes=2), stamp='iso', tflops=300)
    app += [f'slurmstepd: error: *** JOB {c.job_id} ON hx-01 CANCELLED AT 2026-06-04T08:00:00 DUE TO TIME LIMIT ***']
    c.app['slurm-300733.out'] = app
    c.write({'sub_domain': ['InfraHW'], 'culprit_nodes': ['hx-02'], 'drain_ok': ['hx-02'], 'root_code': 'xid.79',
             'downstream': ['slurm.state.timeout'],
             'why': 'The progress lines stop at 03:02 and a GPU of hx-02 is declared fallen off the bus at 03:12 (the driver '
                    'notices a GPU that stopped answering late); the job hung until its time limit five hours later, which '
                    'only ended what the lost GPU had already stopped.'})


def case_aer_fatal_cancelled():
    """A fatal PCIe error (AER) on one node, in lines without a time of their own (dmesg -r); the user cancels later."""
    nodes = ['px-11', 'px-12']
    c = Case('aer-fatal-cancelled', job_id=300844, nodes=nodes, start='2026-06-05T10:00:00Z', end='2026-06-05T15:20:11Z',
             state='CANCELLED', exit_code='0:15', reason='None', cluster='px', user='rui', jobname='asr', ipbase='10.34.0.')
    for n in nodes:
        c.standard_node(n, noise=50)
        c.write_node(n, [('syslog', 'rfc3339', 'all')])
    c.node_files['px-12']['dmesg.txt'] = (
        '<3>pcieport 0000:00:03.0: AER: Multiple Uncorrected (Fatal) error received: 0000:00:03.0\n'
        f'<3>nvidia {c.pci_dev(2)}: AER: PCIe Bus Error: severity=Uncorrected (Fatal), type=Transaction Layer, (Requester ID)\n'
        '<3>pcieport 0000:00:03.0: AER:   device [8086:2f08] error status/mask=00004000/00000000\n'
        '<3>pcieport 0000:00:03.0: AER:    [14] CmpltTO                (First)\n')
    tc = T('2026-06-05T15:19:40Z')
    c.ctld_start('px-[11-12]')
    c.ctld_other(20)
    c.sched.append((tc, f'_slurm_rpc_kill_job: REQUEST_KILL_JOB JobId={c.job_id} uid 7301'))
    # the job prints no progress lines: nothing says when it stopped
    app = script_banner(c) + c.nccl_init('2.20.5')
    app += [f'slurmstepd: error: *** JOB {c.job_id} ON px-11 CANCELLED AT 2026-06-05T15:19:40 ***']
    c.app['slurm-300844.out'] = app
    c.write({'sub_domain': ['InfraHW'], 'culprit_nodes': ['px-12'], 'drain_ok': ['px-12'], 'root_code': 'host.aer_fatal',
             'downstream': ['slurm.state.cancelled'],
             'why': 'px-12\'s kernel reports a fatal uncorrected PCIe error (completion timeout) at the root port of a GPU, in lines '
                    'without a time of their own; the job never finished and its user cancelled it. The cancel only ended '
                    'what the fault had stopped: a cancel after a fault the job did not run on through follows from it.'})


def case_unkillable_then_node_fail():
    """A rank stuck in the kernel: the step cannot be killed (STEPD TERMINATED ... NOT ENDING WITH SIGNALS), then NODE_FAIL."""
    nodes = ['kx-21', 'kx-22']
    c = Case('unkillable-then-node-fail', job_id=300955, nodes=nodes, start='2026-06-06T06:00:00Z', end='2026-06-06T09:31:40Z',
             state='NODE_FAIL', exit_code='0:0', reason='NodeDown', cluster='kx', user='ada', jobname='ddp', ipbase='10.35.0.')
    for n in nodes:
        c.standard_node(n, noise=50)
        c.write_node(n, [('syslog', 'rfc3339', 'all')])
    tstop = T('2026-06-06T08:02:00Z')
    tk = T('2026-06-06T09:20:05Z')
    c.ctld_start('kx-[21-22]')
    c.ctld_other(20)
    c.sched.append((tk + sec(1), f'error: slurmd error running JobId={c.job_id} on node(s)=kx-22: Kill task failed'))
    c.sched.append((tk + sec(575), 'error: Nodes kx-22 not responding, setting DOWN'))
    c.sched.append((tk + sec(575.01), f'Killing JobId={c.job_id} on failed node kx-22'))
    app = script_banner(c) + c.nccl_init('2.21.5')
    app += c.progress(c.start + sec(60), tstop, dt.timedelta(minutes=1), stamp='iso', tflops=260)
    app += [f'slurmstepd: error: *** STEP {c.job_id}.0 STEPD TERMINATED ON kx-22 AT 2026-06-06T09:20:05 DUE TO JOB NOT ENDING WITH SIGNALS ***',
            'srun: error: Node failure on kx-22',
            f'slurmstepd: error: *** JOB {c.job_id} ON kx-21 CANCELLED AT 2026-06-06T09:31:40 DUE TO NODE FAILURE, SEE SLURMCTLD LOG FOR DETAILS ***']
    c.app['slurm-300955.out'] = app
    c.write({'sub_domain': ['InfraSW'], 'culprit_nodes': ['kx-22'], 'drain_ok': [], 'root_code': 'slurm.stepd_unkillable',
             'why': 'Training stopped at 08:02; when the step was killed its task on kx-22 did not end with signals (stuck in the '
                    'kernel), Slurm gave up on it and then lost the node: the node failure follows from the unkillable task.'})


def case_fatal_outlived_then_timeout():
    """An Xid 74 NVLink error on one node, the job trains on through it for hours and then reaches its time limit."""
    nodes = ['nv-31', 'nv-32']
    c = Case('fatal-outlived-then-timeout', job_id=301066, nodes=nodes, start='2026-06-07T00:00:00Z', end='2026-06-07T04:00:22Z',
             state='TIMEOUT', exit_code='0:0', reason='TimeLimit', time_limit='04:00:00', pci=PCI_A100, cluster='nv',
             user='li', jobname='mae', ipbase='10.36.0.')
    for n in nodes:
        c.standard_node(n, noise=50)
    tx = T('2026-06-07T01:05:17.25Z')
    c.klog('nv-32', tx, f"NVRM: Xid (PCI:{c.pci_full(6)}): 74, pid='<unknown>', name=<unknown>, NVLink: fatal error detected on link 3(0x0, 0x0, 0x10000, 0x0, 0x0, 0x0, 0x0)")
    for n in nodes:
        c.write_node(n, [('kern.log', 'rfc3339', 'kernel'), ('syslog', 'rfc3339', 'nonkernel')])
    c.ctld_start('nv-[31-32]')
    c.ctld_other(20)
    c.sched.append((c.end - sec(22), f'Time limit exhausted for JobId={c.job_id}'))
    app = script_banner(c) + c.nccl_init('2.19.3')
    app += c.progress(c.start + sec(60), c.end - sec(40), dt.timedelta(minutes=2), stamp='iso', tflops=140)
    app += [f'slurmstepd: error: *** JOB {c.job_id} ON nv-31 CANCELLED AT 2026-06-07T04:00:00 DUE TO TIME LIMIT ***']
    c.app['slurm-301066.out'] = app
    c.write({'sub_domain': ['SchedTimeLimit'], 'culprit_nodes': [], 'drain_ok': [],
             'set_aside_as': {'xid.74': 'the job kept making progress after it'},
             'why': 'The NVLink error on nv-32 at 01:05 did not stop the job: its progress lines go on every two minutes for three '
                    'more hours until Slurm cancelled it at its time limit.'})


# ---------------------------------------------------------------------------
# the forms logs come in (engine/normalise.c, engine/unwrap.c): each written
# from the format's own definition

def rfc3339nano(t):
    """Go's time.RFC3339Nano in UTC, as Docker and the kubelet print it: trailing zeros of the fraction dropped."""
    t = t.astimezone(UTC)
    frac = f'{t.microsecond * 1000:09d}'.rstrip('0')
    return f'{t:%Y-%m-%dT%H:%M:%S}' + (f'.{frac}' if frac else '') + 'Z'


def docker_json_line(t, stream, msg):
    """One entry of Docker's json-file log driver: {"log","stream","time"} in that order, compact, the message's
    newline kept, HTML's <, > and & escaped as Docker's encoder does."""
    body = json.dumps({'log': msg + '\n', 'stream': stream, 'time': rfc3339nano(t)}, separators=(',', ':'), ensure_ascii=False)
    return body.replace('<', '\\u003c').replace('>', '\\u003e').replace('&', '\\u0026')


def case_docker_json_file_oom():
    """The training container's log as Docker's json-file driver keeps it, copied beside the job's output: CUDA OOM of rank 3."""
    nodes = ['dk-gpu-01', 'dk-gpu-02']
    c = Case('docker-json-file-oom', job_id=940112, nodes=nodes, start='2026-09-14T10:00:00Z', end='2026-09-14T10:27:40Z',
             state='FAILED', exit_code='1:0', reason='NonZeroExitCode', time_limit='06:00:00', gpus=4, pci=PCI_4GPU,
             cluster='lab', user='yuki', partition='gpu', jobname='docker-finetune', ipbase='10.44.0.')
    for n in nodes:
        c.standard_node(n, noise=50)
        c.write_node(n, [('syslog', 'rfc3339', 'all')])
    tf = T('2026-09-14T10:27:31.482113Z')
    bad = c.ranks[3]
    entries = []
    t = c.start + sec(20.25)
    for ln in c.nccl_init('2.21.5', ranks=c.ranks[:4]):
        entries.append((t, 'stdout', ln))
        t += sec(0.013)
    for ln in c.progress(c.start + sec(120), tf, dt.timedelta(minutes=3), stamp='py', tflops=128):
        entries.append((T(ln[:19].replace(' ', 'T') + 'Z'), 'stdout', ln))
    for i, ln in enumerate(['Traceback (most recent call last):',
                            '  File "/workspace/finetune.py", line 212, in <module>',
                            '    main()',
                            '  File "/workspace/finetune.py", line 180, in main',
                            '    out = model(**batch)  # logits & loss',
                            f'torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU {bad.gpu} has a total capacity of '
                            '23.65 GiB of which 1.06 GiB is free. Including non-PyTorch memory, this process has 22.58 GiB memory in use. '
                            'Of the allocated memory 21.93 GiB is allocated by PyTorch, and 190.25 MiB is reserved by PyTorch but unallocated.']):
        entries.append((tf + sec(i * 0.0004), 'stderr', ln))
    for r in c.ranks[:3]:
        for ln in torch_watchdog_timeout('2.4', r.rank, 911, tf + sec(5))[:2]:
            entries.append((tf + sec(5 + r.rank * 0.01), 'stderr', ln))
    c.app['trainer-json.log'] = [docker_json_line(et, st, m) for et, st, m in sorted(entries, key=lambda e: e[0])]
    c.app['slurm-940112.out'] = script_banner(c, ['+ docker run --rm --gpus all --log-driver json-file trainer:2.4 torchrun '
                                                  '--nproc_per_node=4 finetune.py',
                                                  '+ cp /var/lib/docker/containers/3f1c/3f1c-json.log trainer-json.log'])
    c.write({'sub_domain': ['UserResource'], 'culprit_nodes': [], 'drain_ok': [],
             'evidence_contains': 'OutOfMemoryError',
             'why': 'The container\'s log (Docker json-file) shows rank 3 out of CUDA memory at 10:27:31; the other ranks\' '
                    'watchdog reports come seconds later.'})


def case_kubectl_timestamps_xid79():
    """The job's output saved with kubectl logs --timestamps (RFC 3339 nanoseconds before each line); Xid 79 on the node."""
    nodes = ['k8s-gpu-07', 'k8s-gpu-08']
    c = Case('kubectl-timestamps-xid79', job_id=511230, nodes=nodes, start='2026-10-02T13:00:00Z', end='2026-10-02T13:44:21Z',
             state='FAILED', exit_code='1:0', reason='NonZeroExitCode', time_limit='12:00:00',
             cluster='k8s-slurm', user='ines', partition='h100', jobname='pretrain-7b', ipbase='10.120.3.')
    for n in nodes:
        c.standard_node(n, noise=50)
    tf = T('2026-10-02T13:44:02.118000Z')
    c.klog('k8s-gpu-08', tf, f'NVRM: Xid (PCI:{c.pci_full(5)}): 79, pid=\'<unknown>\', name=<unknown>, GPU has fallen off the bus.')
    c.klog('k8s-gpu-08', tf, 'NVRM: GPU has fallen off the bus.')
    for n in nodes:
        c.write_node(n, [('syslog', 'rfc3339', 'all')])
    bad = c.ranks[13]
    lines = []
    t = c.start + sec(31.5)
    for ln in c.nccl_init('2.21.5'):
        lines.append((t, ln))
        t += sec(0.0021)
    for k, ln in enumerate(c.progress(c.start + sec(120), tf, dt.timedelta(minutes=4), stamp='none', tflops=390)):
        lines.append((c.start + sec(120) + k * dt.timedelta(minutes=4), ln))
    lines.append((tf + sec(0.41), f'[rank13]: RuntimeError: CUDA error: unspecified launch failure'))
    for r in c.ranks:
        if r.rank != 13:
            lines += [(tf + sec(6 + r.rank * 0.001), ln) for ln in nccl_warn(r, f'NET/IB : Got completion from peer '
                                                                               f'{bad.ip}<41233> with status=12 opcode=0 len=0 '
                                                                               f'vendor err 129 (Recv) localGid ::ffff:{r.ip} '
                                                                               f'remoteGids::ffff:{bad.ip} hca mlx5_0', blank=False)]
    c.app['trainer-0.log'] = [f'{rfc3339nano(lt)} {m}' for lt, m in sorted(lines, key=lambda e: e[0])]
    c.app['slurm-511230.out'] = script_banner(c, ['+ kubectl logs --timestamps job/pretrain-7b > trainer-0.log'])
    c.write({'sub_domain': ['InfraHW'], 'culprit_nodes': ['k8s-gpu-08'], 'drain_ok': ['k8s-gpu-08'], 'root_code': 'xid.79',
             'evidence_contains': 'GPU has fallen off the bus',
             'why': 'k8s-gpu-08 lost a GPU (Xid 79) at 13:44:02; rank 13 on it failed 0.4 s later (kubectl\'s timestamps) and '
                    'its peers then lost their IB connections to it.'})


def case_xid79_journal_precise():
    """Node logs as journalctl -o short-precise (syslog's time with microseconds, no year); Xid 79 then the job's cascade."""
    nodes = ['sp-a01', 'sp-a02', 'sp-a03']
    c = Case('xid79-journal-precise', job_id=73301, nodes=nodes, start='2026-05-18T06:00:00Z', end='2026-05-18T07:12:44Z',
             state='FAILED', exit_code='1:0', reason='NonZeroExitCode', time_limit='1-00:00:00',
             cluster='sp', user='olu', partition='a100', jobname='dlrm', ipbase='10.9.8.', tz='Europe/Berlin')
    for n in nodes:
        c.standard_node(n, noise=60)
    tf = T('2026-05-18T07:12:09.551234Z')
    c.klog('sp-a02', tf, f'NVRM: Xid (PCI:{c.pci_full(1)}): 79, pid=\'<unknown>\', name=<unknown>, GPU has fallen off the bus.')
    c.klog('sp-a02', tf + sec(0.000120), 'NVRM: GPU has fallen off the bus.')
    for n in nodes:
        c.write_node(n, [('journal.txt', 'precise', 'all')])
    bad = c.ranks[9]
    app = script_banner(c) + c.nccl_init('2.19.3')
    app += c.progress(c.start + sec(60), tf, dt.timedelta(minutes=2), stamp='iso', tflops=150)
    app += nccl_warn(bad, "Cuda failure 'unspecified launch failure'", 'enqueue.cc:1320')
    app += [f'[rank9]: RuntimeError: CUDA error: unspecified launch failure']
    app += ['srun: error: sp-a02: task 9: Exited with exit code 1']
    c.app['slurm-73301.out'] = app
    c.write({'sub_domain': ['InfraHW'], 'culprit_nodes': ['sp-a02'], 'drain_ok': ['sp-a02'], 'root_code': 'xid.79',
             'evidence_contains': 'Xid',
             'why': 'sp-a02\'s journal (short-precise) shows Xid 79 at 09:12:09 local time, just before rank 9 on it died '
                    'with unspecified launch failure.'})


def case_xid79_wrapped_paste():
    """Node logs copied from an 80-column terminal: every longer line cut, the Xid 79 line inside its PCI address."""
    nodes = ['wrap-gpu-n01', 'wrap-gpu-n02']
    c = Case('xid79-wrapped-paste', job_id=66120, nodes=nodes, start='2026-07-07T20:00:00Z', end='2026-07-07T20:31:05Z',
             state='FAILED', exit_code='1:0', reason='NonZeroExitCode', time_limit='04:00:00', gpus=4, pci=PCI_4GPU,
             cluster='wr', user='sam', partition='gpu', jobname='bert-large', ipbase='10.5.5.')
    for n in nodes:
        c.standard_node(n, noise=55)
    tf = T('2026-07-07T20:30:41.010000Z')
    c.klog('wrap-gpu-n02', tf, f'NVRM: Xid (PCI:{c.pci_full(2)}): 79, pid=\'<unknown>\', name=<unknown>, GPU has fallen off the bus.')
    for n in nodes:
        c.write_node(n, [('messages', 'rfc3164', 'all', 'wrap80')])
    bad = c.ranks[6]
    app = script_banner(c) + c.nccl_init('2.21.5')
    app += c.progress(c.start + sec(60), tf, dt.timedelta(minutes=2), stamp='iso', tflops=120)
    app += [f'[rank6]: RuntimeError: CUDA error: unspecified launch failure']
    app += ['srun: error: wrap-gpu-n02: task 6: Exited with exit code 1']
    c.app['slurm-66120.out'] = app
    c.write({'sub_domain': ['InfraHW'], 'culprit_nodes': ['wrap-gpu-n02'], 'drain_ok': ['wrap-gpu-n02'], 'root_code': 'xid.79',
             'evidence_contains': 'NVRM: Xid',
             'why': 'wrap-gpu-n02\'s log, pasted from a terminal that cut its lines at 80 columns, shows Xid 79 (GPU fallen off the '
                    'bus) just before rank 6 on it died.'})


CASES = [
    case_xid79_aer_fqdn, case_xid79_dmesg_crlf, case_xid48_64_journal, case_xid63_info_user, case_xid94_contained,
    case_xid95_uncontained, case_xid74_nvlink, case_xid149_si, case_xid119_gsp_berlin, case_xid13_app_pid,
    case_xid31_mmu_torchrun, case_user_exception_missing_node, case_cuda_oom_legacy, case_cuda_oom_torch24,
    case_host_oom_cgroup, case_ib_port_error_peers, case_ib_nccl223_async, case_timeout_plain, case_timeout_hang_roce,
    case_preempted, case_cancelled_user, case_node_fail_missing, case_nfs_io_error, case_pyxis_bad_image,
    case_pyxis_bad_mounts, case_missing_shard, case_pass_old_xid, case_soft_lockup_fqdn_job, case_two_hw_faults,
    case_no_evidence, case_nccl_watchdog_only, case_timeout_mgmt_flap, case_cancelled_after_hang, case_nccl_bad_ifname,
    case_module_not_found, case_disk_quota, case_lustre_eviction, case_host_oom_global, case_xid45_teardown_chicago,
    case_segfault_user_ext, case_segfault_srun_only, case_pass_xid63_during, case_xid79_newyear, case_ecc_app_only_missing_node,
    case_ib_substring_names,
]
# traps (see the traps section above)
CASES += [
    case_trap_oom_after_xid48, case_trap_dataloader_shm, case_trap_nccl_lasterror_shm, case_trap_launch_failure_xid13,
    case_trap_spool_noexec, case_trap_output_dir_missing, case_trap_desync_mismatch, case_trap_desync_lagging_hung,
]
# a hang localised only by its lagging rank (that node inspected); a batch-step line on the batch host
CASES += [case_trap_desync_lagging_only, case_trap_spool_script_vanished]
# a slurmstepd banner printed by the job itself
CASES += [case_trap_stepd_banner_in_output]

CASES += [
    case_cancelled_foreign_node_down, case_node_fail_after_foreign, case_single_node_ecc_app_only, case_timeout_silent_hang,
    case_cancelled_after_silence, case_shared_node_other_gpu_xid79, case_stale_dbe_before_start, case_clock_skew_linkdown,
    case_xid31_lone, case_missing_node_peers_lost, case_independent_tasks_xid79, case_dbe_before_start_then_ecc,
    case_requeued_after_reboot, case_peers_lose_one_node,
]
# node tool output
CASES += [case_tool_smiq_remap_failure, case_tool_dcgmi_diag_fail, case_tool_ibstat_port_down,
          case_tool_healthy_user_exception, case_tool_nhc_ib_port]
# driver stack, containers, BMC
CASES += [case_fm_version_mismatch, case_apptainer_bind_missing, case_bmc_sel_memory_ue]

# MPI launchers and fabrics
CASES += [case_mpi_ib_retry_linkdown, case_mpi_pmix_mismatch, case_mpi_orte_daemon_lost]

# a process's own signal (SIGBUS, SIGKILL); NCCL's IB retries with no rank dead
CASES += [case_torchrun_sigbus_shm, case_nccl_ib_retry_old_format, case_mpi_rank_sigkill, case_node_fail_one_node]

# what the job outlived is not its cause; a scheduler's ending after a fatal fault follows from it
CASES += [case_outlived_cuda_error_rank, case_outlived_app_exception, case_xid79_silence_timeout, case_aer_fatal_cancelled,
          case_unkillable_then_node_fail, case_fatal_outlived_then_timeout]

# the forms logs come in
CASES += [case_docker_json_file_oom, case_kubectl_timestamps_xid79, case_xid79_journal_precise, case_xid79_wrapped_paste]


def case_nccl_nvls_bind_fm():
    """NCCL cannot bind NVLS multicast memory on one node (its fabric manager / NVSwitch state); the ranks there fail, the others time out."""
    nodes = ['hgx-b07', 'hgx-b08']
    c = Case('nccl-nvls-bind-fm', job_id=735101, nodes=nodes, start='2026-09-14T11:00:00Z', end='2026-09-14T11:04:31Z',
             state='FAILED', exit_code='1:0', reason='NonZeroExitCode', time_limit='08:00:00',
             cluster='hgx', user='tomas', partition='h100', jobname='llm-sft', ipbase='10.77.3.', driver='550.90.07')
    for n in nodes:
        c.standard_node(n, noise=58)
    for n in nodes:
        c.write_node(n, [('syslog', 'rfc3339', 'all')])
    bad = [r for r in c.ranks if r.node == 'hgx-b08']
    tf = T('2026-09-14T11:03:52.210000Z')
    app = script_banner(c) + c.nccl_init('2.21.5')
    for r in bad:
        app += nccl_warn(r, 'Failed to bind NVLink SHARP (NVLS) Multicast memory of size 1610612736 : CUDA error 401 '
                            "'the operation cannot be performed in the present state'.", 'transport/nvls.cc:234')
        app += ['This is usually caused by a system or configuration error in the Fabric Manager or NVSwitches.',
                'Do not disable NVLS (NCCL_NVLS_ENABLE=0) unless you are sure the system is correctly configured.']
        app += [f'{r.host}:{r.pid}:{r.tid} [{r.gpu}] NCCL INFO transport/nvls.cc:445 -> 1',
                f'{r.host}:{r.pid}:{r.tid} [{r.gpu}] NCCL INFO init.cc:1290 -> 1']
    for r in bad[:2]:
        app += torch_nccl_error('2.5', r.rank, 1, tf + sec(1), 'cuda', '2.21.5')[:2]
    app += ['srun: error: hgx-b08: tasks 8-15: Exited with exit code 1',
            'srun: Job step aborted: Waiting up to 32 seconds for job step to finish.',
            f'slurmstepd: error: *** STEP {c.job_id}.0 ON hgx-b07 CANCELLED AT 2026-09-14T11:04:00 ***',
            'srun: error: hgx-b07: tasks 0-7: Terminated']
    c.app['slurm-735101.out'] = app
    c.write({'sub_domain': ['InfraSW'], 'culprit_nodes': ['hgx-b08'], 'drain_ok': [],
             'why': 'Every rank on hgx-b08 fails to bind NVLS multicast memory at communicator setup (CUDA error 401), which NCCL '
                    'itself attributes to the fabric manager or the NVSwitches: the node\'s fabric state, seen only in the job\'s '
                    'output, so inspected, not drained.'})


def case_ib_mlx5_cmd_timeout():
    """One node's ConnectX stops answering firmware commands (mlx5 cmd timeout, then its health compromised); peers' NCCL flush errors."""
    nodes = ['cx-r01', 'cx-r02', 'cx-r03']
    c = Case('ib-mlx5-cmd-timeout', job_id=824011, nodes=nodes, start='2026-10-05T19:30:00Z', end='2026-10-05T21:02:44Z',
             state='FAILED', exit_code='1:0', reason='NonZeroExitCode', time_limit='12:00:00',
             cluster='cx', user='ines', partition='gpu', jobname='diffusion-xl', ipbase='10.61.8.', gpus=4, pci=PCI_4GPU)
    for n in nodes:
        c.standard_node(n, noise=52)
    badn = 'cx-r02'
    tf = T('2026-10-05T21:01:12.500000Z')
    c.klog(badn, tf, 'mlx5_core 0000:0c:00.0: wait_func:1189:(pid 431): ACCESS_REG(0x805) timeout. Will cause a leak of a command resource')
    c.klog(badn, tf + sec(0.2), 'mlx5_core 0000:0c:00.0: mlx5_cmd_out_err:838:(pid 431): ACCESS_REG(0x805) op_mod(0x1) failed, '
                                'status bad system state(0x4), syndrome (0x368b01), err(-5)')
    for n in nodes:
        c.write_node(n, [('kern.log', 'rfc3164', 'kernel'), ('syslog', 'rfc3164', 'nonkernel')])
    bad = [r for r in c.ranks if r.node == badn]
    app = script_banner(c) + c.nccl_init('2.20.5', hcas=1)
    app += c.progress(c.start + sec(90), tf, dt.timedelta(minutes=3), stamp='iso', tflops=190)
    for r in c.ranks:
        if r.node != badn and r.local == 0:
            app += nccl_warn(r, f'NET/IB : Got completion from peer {bad[0].ip}<{41000 + r.rank}> with error 5, opcode 0, len 0, '
                                'vendor err 249 (Recv) localGid ::ffff:%s remoteGid ::ffff:%s' % (r.ip, bad[0].ip), 'transport/net_ib.cc:1696')
            app += torch_nccl_error('2.3', r.rank, 52117, tf + sec(20), 'remote', '2.20.5')[:2]
    app += ['srun: error: cx-r01: tasks 0-3: Exited with exit code 1', 'srun: error: cx-r03: tasks 8-11: Exited with exit code 1',
            'srun: Job step aborted: Waiting up to 32 seconds for job step to finish.']
    c.app['slurm-824011.out'] = app
    c.write({'sub_domain': ['InfraNet'], 'culprit_nodes': ['cx-r02'], 'drain_ok': [],
             'why': 'cx-r02\'s ConnectX stopped answering firmware commands (mlx5 ACCESS_REG timeout) just before the peers\' receive '
                    'completions from its address failed; a NIC fault of that node, inspected (a command timeout alone is not drained).'})


def case_ofi_av_insert_efa():
    """EFA: the OFI plugin cannot insert peers into its address vector on every node (the instances cannot reach each other)."""
    nodes = ['ip-10-4-17-21', 'ip-10-4-17-88']
    c = Case('ofi-av-insert-efa', job_id=552090, nodes=nodes, start='2026-08-02T06:10:00Z', end='2026-08-02T06:41:12Z',
             state='FAILED', exit_code='1:0', reason='NonZeroExitCode', time_limit='1-00:00:00',
             cluster='pc', user='dev', partition='p5', jobname='bert-mlm', ipbase='10.4.17.',
             node_ip={'ip-10-4-17-21': '10.4.17.21', 'ip-10-4-17-88': '10.4.17.88'}, iface='ens32')
    for n in nodes:
        c.standard_node(n, noise=40)
    for n in nodes:
        c.write_node(n, [('messages', 'rfc3164', 'all')])
    tf = T('2026-08-02T06:40:31.000000Z')
    app = script_banner(c)
    for r in c.ranks:
        app.append(f'{r.host}:{r.pid}:{r.pid} [{r.gpu}] NCCL INFO Bootstrap : Using ens32:{r.ip}<0>')
        if r.local == 0:
            app.append(f'{r.host}:{r.pid}:{r.tid} [{r.gpu}] NCCL INFO NET/OFI Selected provider is efa, fabric is efa-direct (found 32 nics)')
    for r in c.ranks:
        if r.local in (0, 4):
            app += nccl_warn(r, 'NET/OFI Unable to insert remote address into address vector for device 0. RC: Invalid argument',
                             'nccl_ofi_rdma.cpp:4860')
            app += [f'{r.host}:{r.pid}:{r.tid} [{r.gpu}] NCCL INFO transport/net.cc:683 -> 3']
    for r in c.ranks[::8]:
        app += torch_nccl_error('2.5', r.rank, 1, tf, 'system', '2.21.5')[:2]
    app += ['srun: error: ip-10-4-17-21: tasks 0-7: Exited with exit code 1', 'srun: error: ip-10-4-17-88: tasks 8-15: Exited with exit code 1']
    c.app['slurm-552090.out'] = app
    c.write({'sub_domain': ['InfraNet'], 'culprit_nodes': [], 'drain_ok': [],
             'why': 'On both instances the OFI plugin cannot add the other\'s EFA address (fi_av_insert: Invalid argument) when the '
                    'communicator connects: the instances cannot reach each other over EFA (security group or placement), no one node\'s fault.'})


CASES += [case_nccl_nvls_bind_fm, case_ib_mlx5_cmd_timeout, case_ofi_av_insert_efa]
def case_no_device_gpus_allocated():
    """A job allocated 4 GPUs whose processes see none -> the node (inspected, not drained): job.json's gpus."""
    nodes = ['gpu-q-011']
    c = Case('no-device-gpus-allocated', job_id=318804, nodes=nodes, start='2026-10-02T13:10:00Z',
             end='2026-10-02T13:10:37Z', state='FAILED', exit_code='1:0', reason='NonZeroExitCode', gpus=4,
             pci=PCI_4GPU, cluster='q', user='ines', partition='gpu', jobname='bert-eval', ipbase='10.6.0.')
    c.alloc_gpus = 4
    c.standard_node('gpu-q-011', noise=30)
    c.write_node('gpu-q-011', [('messages', 'rfc3339', 'all')])
    app = ['+ srun python eval.py --fp16']
    for r in c.ranks:
        app += [f'[rank{r.rank}]: Traceback (most recent call last):',
                f'[rank{r.rank}]:   File "/home/ines/bert/eval.py", line 31, in <module>',
                f'[rank{r.rank}]:     torch.cuda.set_device(local_rank)',
                f'[rank{r.rank}]: RuntimeError: No CUDA GPUs are available']
    app += ['srun: error: gpu-q-011: task 0: Exited with exit code 1']
    c.app['slurm-318804.out'] = app
    c.write({'sub_domain': ['InfraSW'], 'culprit_nodes': ['gpu-q-011'], 'drain_ok': [],
             'evidence_contains': 'No CUDA GPUs are available',
             'why': 'Slurm allocated the job 4 GPUs, yet every rank saw none: the node did not give the job its GPUs; inspect it.'})


def case_smi_failed_no_gpus():
    """nvidia-smi in a job allocated no GPU cannot reach the driver -> the user's request (job.json's gpus 0)."""
    nodes = ['cpu-q-002']
    c = Case('smi-failed-no-gpus', job_id=318877, nodes=nodes, start='2026-10-02T14:00:00Z',
             end='2026-10-02T14:00:12Z', state='FAILED', exit_code='1:0', reason='NonZeroExitCode', gpus=1,
             pci=PCI_4GPU, cluster='q', user='ines', partition='cpu', jobname='check-env', ipbase='10.6.1.')
    c.alloc_gpus = 0
    c.standard_node('cpu-q-002', noise=30)
    c.write_node('cpu-q-002', [('messages', 'rfc3339', 'all')])
    c.app['slurm-318877.out'] = [
        '+ nvidia-smi',
        "NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver. Make sure that the latest NVIDIA driver is installed and running.",
        '+ exit 1']
    c.write({'sub_domain': ['UserConfig'], 'culprit_nodes': [], 'drain_ok': [],
             'evidence_contains': 'NVIDIA-SMI has failed',
             'why': 'The job was allocated no GPU (no --gpus/--gres) and ran nvidia-smi: the request, not the node.'})


def case_timeout_undated_shm():
    """NCCL's /dev/shm failure in undated output, then silence until the time limit -> UserResource (printed before the end)."""
    nodes = ['gpu-q-020']
    c = Case('timeout-undated-shm', job_id=318911, nodes=nodes, start='2026-10-03T08:00:00Z',
             end='2026-10-03T08:30:04Z', state='TIMEOUT', exit_code='0:0', reason='TimeLimit', time_limit='00:30:00',
             gpus=4, pci=PCI_4GPU, cluster='q', user='ines', partition='gpu', jobname='xgb-mgpu', ipbase='10.6.2.')
    c.standard_node('gpu-q-020', noise=30)
    c.write_node('gpu-q-020', [('messages', 'rfc3339', 'all')])
    c.ctld_start('gpu-q-020')
    c.sched.append((c.end, f'Time limit exhausted for JobId={c.job_id}'))
    app = ['+ pytest -v tests/python-gpu/test_gpu_with_dask.py']
    for r in c.ranks:
        app.append(f'gpu-q-020:{r.pid}:{r.pid + 201} [{r.local}] NCCL INFO Channel 00 : {r.rank}[{r.local}] -> '
                   f'{(r.rank + 1) % 4}[{(r.local + 1) % 4}] via direct shared memory')
    for r in c.ranks[:2]:
        app.append(f'gpu-q-020:{r.pid}:{r.pid + 201} [{r.local}] misc/shmutils.cc:87 NCCL WARN Error while creating '
                   f'shared memory segment /dev/shm/nccl-{r.pid:x} (size 9637888), error: No space left on device (28)')
    c.app['slurm-318911.out'] = app
    c.write({'sub_domain': ['UserResource'], 'culprit_nodes': [], 'drain_ok': [],
             'evidence_contains': 'No space left on device',
             'why': 'NCCL could not create its shared-memory segments (/dev/shm full) and the tests hung until the time limit; '
                    'the undated output was printed while the job ran, before Slurm ended it.'})


def case_timeout_then_undated_error():
    """Progress until Slurm cancels at the time limit; an undated error printed after the cancel line -> SchedTimeLimit."""
    nodes = ['gpu-q-021']
    c = Case('timeout-then-undated-error', job_id=318950, nodes=nodes, start='2026-10-03T09:00:00Z',
             end='2026-10-03T13:00:05Z', state='TIMEOUT', exit_code='0:0', reason='TimeLimit', time_limit='04:00:00',
             gpus=4, pci=PCI_4GPU, cluster='q', user='ines', partition='gpu', jobname='vit-pretrain', ipbase='10.6.3.')
    c.standard_node('gpu-q-021', noise=30)
    c.write_node('gpu-q-021', [('messages', 'rfc3339', 'all')])
    c.ctld_start('gpu-q-021')
    c.sched.append((c.end, f'Time limit exhausted for JobId={c.job_id}'))
    app = script_banner(c)
    app += c.progress(c.start + sec(300), c.end - sec(60), dt.timedelta(minutes=10), stamp='iso', tflops=210)
    app += [f'slurmstepd: error: *** JOB {c.job_id} ON gpu-q-021 CANCELLED AT 2026-10-03T13:00:05 DUE TO TIME LIMIT ***',
            '[rank0]: Traceback (most recent call last):',
            '[rank0]:   File "/home/ines/vit/train.py", line 140, in <module>',
            '[rank0]: RuntimeError: CUDA error: an illegal memory access was encountered',
            'srun: error: gpu-q-021: task 0: Terminated']
    c.app['slurm-318950.out'] = app
    c.write({'sub_domain': ['SchedTimeLimit'], 'culprit_nodes': [], 'drain_ok': [],
             'why': 'The job progressed until Slurm cancelled it at its time limit; the error after the cancel line is '
                    'dated no earlier than the cancel, so it followed it.'})


# a line of the job's output without a time of its own was printed before the job's end
CASES += [case_timeout_undated_shm, case_timeout_then_undated_error]

# what "no GPU" means follows the GPUs the job was allocated
CASES += [case_no_device_gpus_allocated, case_smi_failed_no_gpus]

if __name__ == '__main__':
    for f in CASES:
        f()
    byte_quirks()
