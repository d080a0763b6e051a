#!/usr/bin/env python3
"""The end of a large job, as attrib serve sees it: every node's bundle at once.

    burst.py --case DIR --state STATE --spool SPOOL --url http://127.0.0.1:PORT \
             --service-pid PID --out-dir DIR [--spread 2.0]

CASE is a gencase.py directory (nodes/NODE/<log>, app/slurm-JOB.out,
job.json, expected.json).  For each node this builds the bundle the
collector would send (attrib.bundle/v1: the node log's window split into
kernel.log, origin "kernel", and journal.log, origin "journal", as the
collector's journal source does; the node's 8 task records as "ranks"),
and a MUNGE credential of "attrib-bundle:v1:JOB:NODE:SHA256" made by a
munged whose --origin is the node's own address 127.0.X.Y (one short-lived
munged per node, the same key as the service's: every credential carries
its own node's address, and the service checks it against NodeAddresses).
All of that is done before the clock starts.

Then the burst: the job record goes into SPOOL/jobs (as jobcomp/attrib
writes it at the job's end), and node i's bundle is POSTed at
i * SPREAD / N seconds, each on its own connection from its own source
address.  Measured: HTTP status of each, its accept time (connect to the
end of the 202 answer), the time from the last 202 to the diagnosis in
the store (STATE/attrib.db, polled every 10 ms), the service's CPU time
(/proc/PID/stat) and peak RSS (VmHWM).  Writes OUT_DIR/summary.json and
prints it.  Python 3 standard library, munged and munge.
"""
import argparse
import asyncio
import glob
import hashlib
import json
import os
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import threading
import time


def node_addr(i):
    """Node i's address: 127.0.1.1 onwards (127.0.0.1 is the service's)."""
    return f'127.0.{1 + i // 250}.{1 + i % 250}'


def load_case(case):
    with open(os.path.join(case, 'job.json')) as f:
        job = json.load(f)
    with open(os.path.join(case, 'expected.json')) as f:
        exp = json.load(f)
    return job, exp


def bundle_of(case, job, node, ranks):
    """The bundle attrib-collect would send for node (journal source)."""
    files = glob.glob(os.path.join(case, 'nodes', node, '*'))
    kern, rest = [], []
    for p in files:
        with open(p, 'rb') as f:
            for line in f:
                # "<stamp> HOST kernel: ..." in each of the three formats
                (kern if b' kernel: ' in line[:64] else rest).append(line)
    text = lambda ls: b''.join(ls).decode('utf-8', 'replace')
    b = {
        'schema': 'attrib.bundle/v1', 'job_id': job['job_id'], 'node': node,
        'collected_at': job['end_time'],
        'window': {'start': job['start_time'], 'end': job['end_time']},
        'files': [
            {'name': 'kernel.log', 'source': 'journal', 'origin': 'kernel', 'text': text(kern)},
            {'name': 'journal.log', 'source': 'journal', 'origin': 'journal', 'text': text(rest)},
        ],
        'ranks': ranks,
        'coverage': [],
    }
    return json.dumps(b, separators=(',', ':')).encode()


def credentials(nodes, bodies, job_id, key, workdir, batch=64, ttl=900):
    """One credential per node, each encoded by a munged whose origin is
    the node's address.  batch munged run at a time.  And a forged one:
    node 0's payload encoded on node 1 (its root claiming node 0's
    evidence), which the service must refuse."""
    creds = [None] * len(nodes)
    forged = None
    for lo in range(0, len(nodes), batch):
        procs = []
        idx = range(lo, min(lo + batch, len(nodes)))
        for i in idx:
            d = os.path.join(workdir, f'm{i}')
            os.mkdir(d)
            os.chmod(d, 0o711)     # munged wants its socket's directory searchable by all
            procs.append(subprocess.Popen(
                ['munged', '-F', f'--socket={d}/sock', f'--key-file={key}', f'--pid-file={d}/pid',
                 f'--log-file={d}/log', f'--seed-file={d}/seed', f'--origin={node_addr(i)}'],
                stdout=subprocess.DEVNULL, stderr=open(os.path.join(d, 'err'), 'w')))
        try:
            for i in idx:
                sock = os.path.join(workdir, f'm{i}', 'sock')
                for _ in range(200):
                    if os.path.exists(sock):
                        break
                    time.sleep(0.01)
                payload = f'attrib-bundle:v1:{job_id}:{nodes[i]}:{hashlib.sha256(bodies[i]).hexdigest()}'
                if not os.path.exists(sock):
                    sys.exit(f'munged for {nodes[i]} did not start: ' + open(os.path.join(workdir, f'm{i}', 'err')).read()[-300:])
                r = subprocess.run(['munge', '-S', sock, '-t', str(ttl), '-s', payload],
                                   capture_output=True, text=True)
                if r.returncode:
                    sys.exit(f'munge for {nodes[i]}: {r.stderr.strip()}')
                creds[i] = r.stdout.strip()
                if i == 1:
                    payload = f'attrib-bundle:v1:{job_id}:{nodes[0]}:{hashlib.sha256(bodies[0]).hexdigest()}'
                    forged = subprocess.run(['munge', '-S', sock, '-t', str(ttl), '-s', payload],
                                            capture_output=True, text=True, check=True).stdout.strip()
        finally:
            for p in procs:
                p.terminate()
            for p in procs:
                p.wait()
        for i in idx:
            shutil.rmtree(os.path.join(workdir, f'm{i}'), ignore_errors=True)
    return creds, forged


def proc_cpu(pid):
    """user + system seconds of pid, its threads included."""
    with open(f'/proc/{pid}/stat') as f:
        v = f.read().rsplit(')', 1)[1].split()
    return (int(v[11]) + int(v[12])) / os.sysconf('SC_CLK_TCK')


def proc_status(pid, key):
    with open(f'/proc/{pid}/status') as f:
        for line in f:
            if line.startswith(key + ':'):
                return int(line.split()[1])      # kB
    return 0


async def post(i, host, port, head, body, t0, at, res):
    await asyncio.sleep(max(0.0, t0 + at - time.perf_counter()))
    began = time.perf_counter()
    status, err, conn, sent = 0, '', float('nan'), float('nan')
    try:
        r, w = await asyncio.wait_for(
            asyncio.open_connection(host, port, local_addr=(node_addr(i), 0)), 30)
        conn = time.perf_counter() - began
        w.write(head)
        w.write(body)
        await w.drain()
        sent = time.perf_counter() - began
        data = await asyncio.wait_for(r.read(), 60)      # Connection: close
        w.close()
        line = data.split(b'\r\n', 1)[0].split()
        status = int(line[1]) if len(line) > 1 else 0
        if status != 202:
            err = data[-300:].decode('utf-8', 'replace')
    except Exception as e:                              # counted, not raised
        err = f'{type(e).__name__}: {e}'
    res[i] = (began - t0, time.perf_counter() - began, status, err, conn, sent)


def poll_store(db, job_id, stop, out):
    """Sets out['stored'] (perf_counter) when the job's result is in."""
    while not stop.is_set():
        if os.path.exists(db):
            try:
                c = sqlite3.connect(f'file:{db}?mode=ro', uri=True, timeout=1)
                row = c.execute('SELECT result_json FROM results WHERE job_id = ?', (job_id,)).fetchone()
                c.close()
                if row:
                    out['stored'] = time.perf_counter()
                    out['result'] = json.loads(row[0])
                    return
            except sqlite3.Error:
                pass
        time.sleep(0.01)


def pct(v, p):
    v = sorted(v)
    return v[min(len(v) - 1, max(0, int(round(p / 100 * len(v) + 0.5)) - 1))] if v else float('nan')


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    ap.add_argument('--case', required=True)
    ap.add_argument('--state', required=True)
    ap.add_argument('--spool', required=True)
    ap.add_argument('--url', required=True)
    ap.add_argument('--service-pid', type=int, required=True)
    ap.add_argument('--munge-key', required=True)
    ap.add_argument('--out-dir', required=True)
    ap.add_argument('--spread', type=float, default=2.0, help='seconds over which the bundles start')
    ap.add_argument('--wait', type=float, default=120, help='seconds to wait for the diagnosis')
    a = ap.parse_args()

    job, exp = load_case(a.case)
    job_id, nodes = job['job_id'], job['nodes']
    N = len(nodes)
    host, port = a.url.split('//', 1)[1].rsplit(':', 1)
    port = int(port.rstrip('/'))

    t = time.perf_counter()
    # the task records of each node (the SPANK plugin's), started after the job
    ranks = {n: [] for n in nodes}
    for r in job['ranks']:
        rr = dict(r, step='0', start_time=job['start_time'], pid=100000 + r['rank'])
        ranks[r['node']].append(rr)
    bodies = [bundle_of(a.case, job, n, ranks[n]) for n in nodes]
    mb = sum(map(len, bodies)) / 1e6
    print(f'{N} bundles built, {mb:.1f} MB ({mb * 1e3 / N:.0f} kB a bundle), {time.perf_counter() - t:.1f} s',
          flush=True)
    t = time.perf_counter()
    work = tempfile.mkdtemp(prefix='munge-', dir=a.out_dir)
    os.chmod(work, 0o711)
    creds, forged = credentials(nodes, bodies, job_id, a.munge_key, work)
    os.rmdir(work)
    print(f'{N} credentials from {N} origins made, {time.perf_counter() - t:.1f} s', flush=True)
    def head(i, cred):
        return (f'POST /v1/bundle HTTP/1.1\r\nHost: {host}:{port}\r\nUser-Agent: attrib-burst\r\n'
                f'Content-Type: application/json\r\nContent-Length: {len(bodies[i])}\r\n'
                f'X-Attrib-Credential: {cred}\r\nConnection: close\r\n\r\n').encode()
    heads = [head(i, creds[i]) for i in range(N)]

    # the job record, as jobcomp/attrib writes it (atomically) at the job's end
    rec = {k: v for k, v in job.items() if k != 'ranks'}
    app = glob.glob(os.path.join(a.case, 'app', '*'))[0]
    rec.update(uid=os.getuid(), gid=os.getgid(), attempt=0, std_out=os.path.abspath(app))
    rtext = json.dumps(rec).encode()

    db = os.path.join(a.state, 'attrib.db')
    cpu0 = proc_cpu(a.service_pid)
    stop, got = threading.Event(), {}
    poller = threading.Thread(target=poll_store, args=(db, job_id, stop, got))
    poller.start()
    res = [None] * N
    t0 = time.perf_counter()
    tmp = os.path.join(a.spool, 'jobs', f'.{job_id}.0.json.tmp')
    with open(tmp, 'wb') as f:
        f.write(rtext)
    os.rename(tmp, os.path.join(a.spool, 'jobs', f'{job_id}.0.json'))

    async def burst():
        await asyncio.gather(*(post(i, host, port, heads[i], bodies[i], t0, i * a.spread / N, res)
                               for i in range(N)))
    asyncio.run(burst())
    poller.join(a.wait)
    stop.set()
    poller.join()
    cpu1 = proc_cpu(a.service_pid)
    # then the forgery: node 0's bundle from node 0's address, with a
    # credential node 1's munged made (after the timing, so as not to count)
    fres = [None]
    if forged and N > 1:
        asyncio.run(post(0, host, port, head(0, forged), bodies[0], time.perf_counter(), 0, fres))

    ok = [r for r in res if r and r[2] == 202]
    bad = [(nodes[i], r[2], r[3]) for i, r in enumerate(res) if not r or r[2] != 202]
    last = max((r[0] + r[1] for r in ok), default=float('nan'))
    acc = [r[1] for r in ok]
    result = got.get('result') or {}
    rc = result.get('root_cause') or {}
    summary = {
        'nodes': N, 'ranks': len(job['ranks']), 'bundle_mb': round(mb, 1), 'spread_s': a.spread,
        'accepted': len(ok), 'rejected': len(bad), 'first_rejections': bad[:5],
        'accept_p50_ms': round(pct(acc, 50) * 1e3, 1), 'accept_p99_ms': round(pct(acc, 99) * 1e3, 1),
        'accept_max_ms': round(max(acc, default=float('nan')) * 1e3, 1),
        # where an accept's time goes: connected, body written (into the
        # socket buffers), then the answer (the service's checks and commit)
        'connect_p50_ms': round(pct([r[4] for r in ok], 50) * 1e3, 1),
        'sent_p50_ms': round(pct([r[5] for r in ok], 50) * 1e3, 1),
        'answer_after_sent_p50_ms': round(pct([r[1] - r[5] for r in ok], 50) * 1e3, 1),
        'late_start_p50_ms': round(pct([r[0] - i * a.spread / N for i, r in enumerate(res) if r and r[2] == 202], 50) * 1e3, 1),
        'last_bundle_s': round(last, 3),
        'last_to_stored_s': round(got['stored'] - t0 - last, 3) if 'stored' in got else None,
        'record_to_stored_s': round(got['stored'] - t0, 3) if 'stored' in got else None,
        'service_cpu_s': round(cpu1 - cpu0, 2),
        'service_peak_rss_mb': round(proc_status(a.service_pid, 'VmHWM') / 1024, 1),
        'loadavg': open('/proc/loadavg').read().split()[:3],
        'diagnosis': {'sub_domain': result.get('sub_domain'), 'root_code': rc.get('code'),
                      'culprit_nodes': result.get('culprit_nodes')},
        'expected': {k: exp[k] for k in ('sub_domain', 'root_code', 'culprit_nodes')},
        'forged_credential_status': fres[0][2] if fres[0] else None,
        'missing_nodes': sum(1 for c in result.get('coverage', [])
                             if c.get('status') == 'missing' and c.get('source', '').startswith('nodes/')),
    }
    with open(os.path.join(a.out_dir, 'summary.json'), 'w') as f:
        json.dump(summary, f, indent=1)
        f.write('\n')
    print(json.dumps(summary, indent=1))
    right = (summary['accepted'] == N and summary['diagnosis'] == summary['expected'] and
             summary['missing_nodes'] == 0 and 'stored' in got and
             (N < 2 or summary['forged_credential_status'] == 403))
    return 0 if right else 1


if __name__ == '__main__':
    sys.exit(main())
