#!/usr/bin/env python3
"""Prints t/real/README.md's table of cases from each case's expected.json.

    python3 t/real/table.py > /tmp/table.md

The kind column is read from the case's name (its family, then the first
of the keywords below it holds): a finer grouping than the family, for
counting what the corpus covers, never an input to attrib."""
import glob
import json
import os
import sys

KINDS = [('fabricmanager', 'fabric manager'), ('fm-', 'fabric manager'), ('rminit', 'driver kernel module'),
         ('nvml', 'driver/library mismatch'), ('dkms', 'driver kernel module'), ('gsp', 'GSP firmware'),
         ('cgroup-oom', 'cgroup OOM'), ('oom', 'host OOM'), ('shm', 'shared memory'),
         ('bus-error', 'shared memory / SIGBUS'), ('time-limit', 'time limit'), ('timelimit', 'time limit'),
         ('walltime', 'time limit'), ('preempt', 'preemption'), ('scancel', 'cancel'),
         ('node-failure', 'node failure'), ('prolog', 'prolog/epilog'), ('epilog', 'prolog/epilog'),
         ('launch-failed', 'launch/requeue'), ('edac', 'EDAC/MCE'), ('mce', 'EDAC/MCE'), ('bmc', 'BMC/IPMI'),
         ('ilo', 'BMC/IPMI'), ('aer', 'PCIe AER'), ('lustre', 'Lustre'), ('gpfs', 'GPFS'), ('nfs', 'NFS'),
         ('quota', 'quota'), ('enospc', 'ENOSPC'), ('flock', 'file locks'), ('lock', 'file locks'),
         ('hdf5', 'file locks'), ('ucx', 'UCX'), ('efa', 'EFA/libfabric'), ('ofi', 'EFA/libfabric'),
         ('cxi', 'Slingshot CXI'), ('openib', 'InfiniBand verbs'), ('ib-', 'InfiniBand verbs'),
         ('mlx', 'InfiniBand verbs'), ('mvapich', 'InfiniBand verbs'), ('roce', 'RoCE'),
         ('hcoll', 'InfiniBand verbs'), ('pmix', 'PMI/PMIx'), ('pmi', 'PMI/PMIx'), ('hydra', 'MPICH/Hydra'),
         ('mpich', 'MPICH/Hydra'), ('intelmpi', 'Intel MPI'), ('ompi', 'Open MPI'), ('orte', 'Open MPI'),
         ('prte', 'Open MPI'), ('pals', 'Cray PALS'), ('srun', 'srun'), ('pyxis', 'pyxis/enroot'),
         ('enroot', 'pyxis/enroot'), ('singularity', 'Apptainer'), ('apptainer', 'Apptainer'),
         ('edf', 'container environment'), ('watchdog', 'NCCL watchdog'), ('duplicate-gpu', 'NCCL config'),
         ('socket', 'NCCL transport'), ('connection', 'NCCL transport')]
FAMILY = {'xid': 'Xid', 'nccl': 'NCCL transport', 'pytorch': 'PyTorch', 'cuda': 'CUDA runtime',
          'driver': 'driver stack', 'memory': 'host memory', 'slurm': 'Slurm state', 'hosthw': 'host hardware',
          'storage': 'storage', 'fabric': 'fabric', 'mpi': 'MPI launcher', 'container': 'container'}


def kind(case):
    for key, name in KINDS:
        if key in case:
            return name
    return FAMILY.get(case.split('-')[0], case.split('-')[0])


def cell(s, n=110):
    s = ' '.join(str(s).split()).replace('|', '\\|')
    return s if len(s) <= n else s[:n - 1] + '…'


here = os.path.dirname(os.path.abspath(__file__))
rows = []
for p in sorted(glob.glob(os.path.join(here, '*', 'expected.json'))):
    case = os.path.basename(os.path.dirname(p))
    e = json.load(open(p))
    rows.append((case, e))
out = sys.stdout
out.write('| case | family | kind | nodes | source | conclusion (shortened) | label |\n|---|---|---|---|---|---|---|\n')
for case, e in rows:
    label = '/'.join(e['sub_domain']) + (' ' + ','.join(e['culprit_nodes']) if e.get('culprit_nodes') else '')
    out.write('| %s | %s | %s | %s | %s | %s | %s |\n' % (
        case, e.get('family', case.split('-')[0]), kind(case), 'multi' if e.get('multi_node') else 'one',
        e.get('source', ''), cell(e.get('conclusion', '')), label))
fams = {e.get('family', c.split('-')[0]) for c, e in rows}
kinds = {kind(c) for c, _ in rows}
multi = sum(1 for _, e in rows if e.get('multi_node'))
out.write('\n%d cases, %d families, %d kinds, %d multi-node.\n' % (len(rows), len(fams), len(kinds), multi))
