#!/usr/bin/env python3
"""The rule catalog's prefilter patterns, for grep -E and ripgrep.

    patterns.py RULES_DIR OUT_DIR

For every extractor in RULES_DIR/*.yaml it takes what attrib's prefilter
scans for (the `prefilter:` if present, else the `regex:`) and converts it
from PCRE to a POSIX ERE that GNU grep -E and ripgrep both accept:

  (?:..) (?<name>..) (?>..) -> (..)        \\d -> [0-9]    lazy *? +? ?? {m,n}? -> greedy
  (?i:..)  -> letters as [aA]               [\\w.-] -> [[:alnum:]_.-]
  look-arounds (?=..) (?!..) (?<=..) (?<!..) are dropped: the pattern then
  finds a superset of the lines, as Hyperscan's prefilter mode does

Inside a bracket grep reads `\\[` as two characters (a backslash and `[`),
rg as one: a negated set is then one character narrower for grep, never
in a way the rules' cases notice.

Patterns that cannot be written as a line-based ERE (a multi-line rule's
\\n, back-references) are left out and counted.  Every kept pattern is
checked against the rule's own inline cases: each positive case line
must still match (grep -E), so the conversion never loses a real hit.

Writes OUT_DIR/patterns.ere (one pattern a line), OUT_DIR/patterns.tsv
(id, source, from, status, note, pattern), OUT_DIR/patterns.pcre (id and
the expression attrib's prefilter compiles, for rulecost.c) and prints a
summary.
Python 3 standard library only.
"""
import glob
import os
import re
import subprocess
import sys


class Unusable(Exception):
    pass


def unquote(s):
    s = s.strip()
    if s.startswith("'"):
        return s[1:s.rfind("'")].replace("''", "'")
    if s.startswith('"'):
        body = s[1:s.rfind('"')]
        return re.sub(r'\\(.)', lambda m: {'n': '\n', 't': '\t'}.get(m.group(1), m.group(1)), body)
    return re.sub(r'\s+#.*$', '', s).strip()


def load_extractors(rules):
    """A small reader for the catalog's YAML subset: the extractors' scalar
    keys and their single-line test cases.  (attrib itself uses libyaml.)"""
    out = []
    for path in sorted(glob.glob(os.path.join(rules, '*.yaml'))):
        sec = cur = test = None
        for ln in open(path, encoding='utf-8'):
            m = re.match(r'^([a-z_]+):', ln)
            if m:
                sec = m.group(1)
                cur = test = None
                continue
            if sec != 'extractors':
                continue
            m = re.match(r'^  - id: *(.*)', ln)
            if m:
                cur = {'id': unquote(m.group(1)), 'file': os.path.basename(path), 'source': 'any',
                       'lines': 1, 'tests': []}
                out.append(cur)
                test = None
                continue
            if cur is None:
                continue
            m = re.match(r'^    (regex|prefilter|source|lines): *(.*)', ln)
            if m:
                v = unquote(m.group(2))
                cur[m.group(1)] = int(v) if m.group(1) == 'lines' else v
                test = None
                continue
            m = re.match(r'^      - line: *(.*)', ln)
            if m:
                v = m.group(1).strip()
                test = {'line': None if v.startswith(('|', '>')) else unquote(v), 'none': False}
                cur['tests'].append(test)
                continue
            m = re.match(r'^        none: *true', ln)
            if m and test:
                test['none'] = True
    return out


ERE_SPECIAL = set('.[]()*+?{}|^$\\')
QUANT = re.compile(r'\{\d+(?:,\d*)?\}')


def conv(p):
    """PCRE -> ERE (GNU grep -E and ripgrep); returns (ere, notes)."""
    notes = set()
    n = len(p)

    def lit(c, icase):
        if icase and c.isalpha() and c.lower() != c.upper():
            return f'[{c.lower()}{c.upper()}]'
        if c in ERE_SPECIAL:
            return '\\' + c
        return c

    def bracket(i, icase):
        # p[i] == '['; returns (text, next index)
        i += 1
        neg = False
        if i < n and p[i] == '^':
            neg, i = True, i + 1
        items, classes = [], []
        first = True
        while i < n and (p[i] != ']' or first):
            c = p[i]
            first = False
            if c == '\\':
                e = p[i + 1]
                i += 2
                if e == 'd':
                    items.append(('0', '9'))
                elif e == 'w':
                    classes.append('[:alnum:]')
                    items.append(('_', '_'))
                elif e == 's':
                    classes.append('[:space:]')
                elif e == 'n' or e == 'r':
                    pass            # no line holds a newline
                elif e == 't':
                    items.append(('\t', '\t'))
                elif e in 'DWSbB':
                    raise Unusable(f'\\{e} inside a bracket')
                elif e == 'x':
                    m = re.match(r'\{([0-9a-fA-F]+)\}|([0-9a-fA-F]{2})', p[i:])
                    ch = chr(int(m.group(1) or m.group(2), 16))
                    i += m.end()
                    items.append((ch, ch))
                else:
                    items.append((e, e))
                continue
            if c == '[' and p[i:i + 2] == '[:':
                j = p.index(':]', i) + 2
                classes.append(p[i:j])
                i = j
                continue
            if i + 2 < n and p[i + 1] == '-' and p[i + 2] != ']':
                hi = p[i + 2]
                if hi == '\\':
                    hi = p[i + 3]
                    i += 1
                items.append((c, hi))
                i += 3
                continue
            items.append((c, c))
            i += 1
        if i >= n:
            raise Unusable('unterminated bracket')
        i += 1
        if icase:
            extra = []
            for lo, hi in items:
                if lo.isalpha() and hi.isalpha() and lo.lower() != lo.upper():
                    extra.append((lo.swapcase(), hi.swapcase()))
            items += extra
        if not items and not classes:
            if neg:
                return '.', i       # [^\n]: any character of the line
            raise Unusable('empty bracket')
        body = []
        close = dash = caret = backslash = False
        for lo, hi in items:
            if lo == hi:
                if lo == ']':
                    close = True
                elif lo == '-':
                    dash = True
                elif lo == '^':
                    caret = True
                elif lo == '\\':
                    backslash = True
                elif lo == '[':
                    body.append('\\[')     # ripgrep: a literal [; grep: \ or [ (a superset)
                elif lo == '&' or lo == '~':
                    body.append('\\' + lo)  # ripgrep set operators; grep: a superset
                else:
                    body.append(lo)
            else:
                body.append(f'{lo}-{hi}')
        s = '[' + ('^' if neg else '') + (']' if close else '') + ''.join(body) + ''.join(classes)
        if backslash:
            s += '\\\\'
        if caret:
            s += '^'
        if dash:
            s += '-'
        return s + ']', i

    def group_end(i):
        """Index after the ')' closing the group whose body starts at i."""
        depth = 1
        while i < n:
            c = p[i]
            if c == '\\':
                i += 2
                continue
            if c == '[':
                _, i = bracket(i, False)
                continue
            if c == '(':
                depth += 1
            elif c == ')':
                depth -= 1
                if depth == 0:
                    return i + 1
            i += 1
        raise Unusable('unbalanced group')

    def seq(i, icase):
        out = []
        while i < n:
            c = p[i]
            if c == ')':
                return ''.join(out), i
            if c == '\\':
                e = p[i + 1] if i + 1 < n else ''
                i += 2
                if e == 'd':
                    out.append('[0-9]')
                elif e == 'D':
                    out.append('[^0-9]')
                elif e in 'wWsSbB':
                    out.append('\\' + e)
                elif e == 'n':
                    raise Unusable('spans lines (\\n)')
                elif e == 't':
                    out.append('\t')
                elif e == 'r':
                    out.append('\r')
                elif e == 'x':
                    m = re.match(r'\{([0-9a-fA-F]+)\}|([0-9a-fA-F]{2})', p[i:])
                    out.append(lit(chr(int(m.group(1) or m.group(2), 16)), icase))
                    i += m.end()
                elif e.isdigit() or e in 'kg':
                    raise Unusable('back-reference')
                elif e.isalnum():
                    raise Unusable(f'\\{e}')
                else:
                    out.append(lit(e, False))
                continue
            if c == '[':
                s, i = bracket(i, icase)
                out.append(s)
                continue
            if c == '(':
                if p.startswith('(?#', i):
                    i = p.index(')', i) + 1
                    continue
                m = re.match(r'\(\?(?:(?P<look><=|<!|=|!)|(?P<name>P?<[A-Za-z_]\w*>|\'[A-Za-z_]\w*\')|(?P<plain>[:>|])'
                             r'|(?P<flags>[a-zA-Z]*(?:-[a-zA-Z]*)?)(?P<fend>[:)]))', p[i:])
                if p.startswith('(?', i) and not m:
                    raise Unusable('group syntax')
                if m and m.group('look'):
                    notes.add('look-around dropped')
                    i = group_end(i + m.end())
                    # a quantifier on a dropped look-around goes with it
                    if i < n and p[i] in '?*':
                        i += 1
                    continue
                gi = icase
                if m and m.group('flags') is not None:
                    fl = m.group('flags')
                    on, _, off = fl.partition('-')
                    if set(on + off) - set('i'):
                        raise Unusable(f'flags (?{fl})')
                    gi = ('i' in on) or (icase and 'i' not in off)
                    if m.group('fend') == ')':
                        icase = gi          # (?i) for the rest of this group
                        i += m.end()
                        continue
                i += m.end() if m else 1
                body, i = seq(i, gi)
                if i >= n:
                    raise Unusable('unbalanced group')
                i += 1
                out.append('(' + body + ')')
                continue
            if c in '*+?':
                if not out:
                    raise Unusable('quantifier at start')
                out.append(c)
                i += 1
                if i < n and p[i] in '?+':
                    i += 1          # lazy / possessive: greedy matches the same lines
                continue
            if c == '{':
                m = QUANT.match(p, i)
                if m and out:
                    out.append(m.group(0))
                    i = m.end()
                    if i < n and p[i] in '?+':
                        i += 1
                else:
                    out.append('\\{')
                    i += 1
                continue
            if c in '.^$|':
                out.append(c)
                i += 1
                continue
            out.append(lit(c, icase))
            i += 1
        return ''.join(out), i

    s, i = seq(0, False)
    if i != n:
        raise Unusable('unbalanced )')
    if s == '':
        raise Unusable('empty')
    return s, notes


def tool_ok(cmd):
    r = subprocess.run(cmd, stdin=subprocess.DEVNULL, capture_output=True)
    return r.returncode in (0, 1) and not r.stderr, r.stderr.decode(errors='replace').strip()


def main():
    if len(sys.argv) != 3:
        sys.exit('usage: patterns.py RULES_DIR OUT_DIR')
    rules, outdir = sys.argv[1:]
    os.makedirs(outdir, exist_ok=True)
    env = dict(os.environ, LC_ALL='C')
    have_rg = subprocess.run(['sh', '-c', 'command -v rg'], capture_output=True).returncode == 0
    rows, pcre_rows = [], []
    stats = {'extractors': 0, 'prefilter': 0, 'ok': 0, 'approx': 0, 'unusable': 0, 'cases': 0, 'cases_missed': 0}
    for x in load_extractors(rules):
        stats['extractors'] += 1
        src = 'prefilter' if 'prefilter' in x else 'regex'
        stats['prefilter'] += src == 'prefilter'
        pcre = x.get('prefilter', x.get('regex', ''))
        pcre_rows.append(f"{x['id']}\t{pcre.replace(chr(10), '')}\n")
        try:
            ere, notes = conv(pcre)
            # one grep call: the pattern compiles cleanly, and the rule's own
            # positive one-line cases still match
            pos = [t['line'] for t in x['tests'] if t['line'] is not None and not t['none'] and '\n' not in t['line']]
            if x.get('lines', 1) != 1:
                pos = []
            r = subprocess.run(['grep', '-c', '-E', '-e', ere], input=('\n'.join(pos) + '\n').encode(),
                               capture_output=True, env=env)
            if r.returncode not in (0, 1) or r.stderr:
                raise Unusable('grep -E: ' + r.stderr.decode(errors='replace').strip())
            got = int(r.stdout or b'0')
            stats['cases'] += len(pos)
            if got != len(pos):
                stats['cases_missed'] += len(pos) - got
                notes.add(f'MISSES {len(pos) - got} of {len(pos)} cases')
            rows.append([x['id'], x['source'], src, 'approx' if notes else 'ok', '; '.join(sorted(notes)), ere])
        except Unusable as e:
            rows.append([x['id'], x['source'], src, 'unusable', str(e), pcre.replace('\n', '\\n')])
    # ripgrep must accept them too: all at once, one by one only if that fails
    ere_file = os.path.join(outdir, 'patterns.ere')
    with open(ere_file, 'w', encoding='utf-8') as f:
        f.write(''.join(r[5] + '\n' for r in rows if r[3] != 'unusable'))
    if have_rg and not tool_ok(['rg', '-f', ere_file, '/dev/null'])[0]:
        for r in rows:
            if r[3] != 'unusable':
                ok, err = tool_ok(['rg', '-e', r[5], '/dev/null'])
                if not ok:
                    r[3], r[4] = 'unusable', 'rg: ' + (err.splitlines() or ['?'])[-1]
    for r in rows:
        stats[r[3]] += 1
    kept = [r[5] for r in rows if r[3] != 'unusable']
    with open(os.path.join(outdir, 'patterns.ere'), 'w', encoding='utf-8') as f:
        f.write(''.join(k + '\n' for k in kept))
    with open(os.path.join(outdir, 'patterns.pcre'), 'w', encoding='utf-8') as f:
        f.write(''.join(pcre_rows))     # what attrib's prefilter compiles (rulecost.c)
    with open(os.path.join(outdir, 'patterns.tsv'), 'w', encoding='utf-8') as f:
        f.write('id\tsource\tfrom\tstatus\tnote\tpattern\n')
        for r in rows:
            f.write('\t'.join(r) + '\n')
    print(f"{stats['extractors']} extractors ({stats['prefilter']} with a prefilter:): "
          f"{stats['ok'] + stats['approx']} usable by grep -E and rg "
          f"({stats['ok']} exact, {stats['approx']} approximated), {stats['unusable']} not; "
          f"{stats['cases'] - stats['cases_missed']}/{stats['cases']} positive cases matched")
    return 1 if stats['cases_missed'] else 0


if __name__ == '__main__':
    sys.exit(main())
