#!/bin/sh
# doc/formats.md against the code and against real outputs: the result's
# field table of common/contract.c and the document's are the same; every
# field a result of t/cases and examples carries is in them (with the
# engine as its writer), and every field they list is written by the code
# that should; every field of those cases' job.json is in the document's
# job record table.
set -u
A=${ATTRIB:-./attrib}
SRC=${SRCDIR:-.}
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
for d in "$SRC"/t/cases/*/ "$SRC"/examples/*/; do
	n=$(basename "$d")
	"$A" analyze --json "$d" >"$tmp/$n.result.json" 2>/dev/null || true
	cp "$d/job.json" "$tmp/$n.job.json"
done
exec python3 - "$SRC" "$tmp" <<'PY'
import glob, json, os, re, sys
src, tmp = sys.argv[1], sys.argv[2]
passed = failed = 0
def check(what, problems):
    global passed, failed
    if problems:
        failed += 1
        print("not ok - %s" % what)
        for p in sorted(problems)[:20]:
            print("#   %s" % p)
    else:
        passed += 1
        print("ok - %s" % what)

code = open(os.path.join(src, "common/contract.c")).read()
table = code[code.index("const struct result_field result_fields[]"):]
table = table[:table.index("};")]
in_code = {p: by for p, t, by in re.findall(r'\{ "([^"]+)", "([^"]+)", "([^"]+)" \}', table)}
doc = open(os.path.join(src, "doc/formats.md")).read()
res = doc[doc.index("## The result"):]
in_doc = {m.group(1): m.group(2) for m in
          re.finditer(r'^\| `([^`]+)` \| [^|]+ \| (engine|service) \|', res, re.M)}
check("contract.c's result fields are there (%d)" % len(in_code), [] if len(in_code) > 50 else ["too few"])
check("every result field of contract.c is in doc/formats.md",
      ["%s (%s)" % (p, b) for p, b in in_code.items() if in_doc.get(p) != b])
check("every result field of doc/formats.md is in contract.c",
      ["%s (%s)" % (p, b) for p, b in in_doc.items() if in_code.get(p) != b])

contract = open(os.path.join(src, "common/contract.c")).read()
add_job = contract[contract.index("void result_add_job("):]
add_job = add_job[:add_job.index("\n}\n")]	# the job record's fields
# evidence.json's keys the engine copies into the result (EVIDENCE_*)
copied = "".join(l for l in open(os.path.join(src, "common/evidence.h")) if l.startswith("#define EVIDENCE_"))
writers = {"engine": open(os.path.join(src, "engine/result.c")).read() + add_job + copied}
check("every field of the table is written by its writer",
      [p for p, b in in_code.items()
       if p.split(".")[-1].replace("[]", "") != "*" and
       '"%s"' % p.split(".")[-1].replace("[]", "") not in writers[b]])

def paths(o, p, out):
    if isinstance(o, dict):
        for k, v in o.items():
            q = (p + "." if p else "") + (k if p != "clock_offsets" else "*")
            out.add(q)
            paths(v, q, out)
    elif isinstance(o, list):
        for v in o:
            paths(v, p + "[]", out)

results = sorted(glob.glob(os.path.join(tmp, "*.result.json")))
seen, bad = set(), []
for f in results:
    try:
        r = json.load(open(f))
    except ValueError:
        bad.append("%s: not JSON" % os.path.basename(f))
        continue
    mine = set()
    paths(r, "", mine)
    seen |= mine
    bad += ["%s: %s" % (os.path.basename(f), p) for p in mine if in_code.get(p) != "engine"]
check("%d results of the cases: every field is an engine field of the table" % len(results), bad)
check("the cases' results carry the main fields",
      [p for p in ("schema", "root_cause.code", "symptoms[].evidence[].text", "hang.since",
                   "coverage[].status", "actions[].action", "engine.events") if p not in seen])

rec = doc[doc.index("## The job record"):doc.index("## The bundle")]
rec = rec[:rec.index("A task record")]
documented = set()
for m in re.finditer(r'^\| (`[^|]+`) \|', rec, re.M):
    documented |= set(re.findall(r'`([^`]+)`', m.group(1)))
bad = []
for f in sorted(glob.glob(os.path.join(tmp, "*.job.json"))):
    bad += ["%s: %s" % (os.path.basename(f), k) for k in json.load(open(f)) if k not in documented]
check("every field of the cases' job.json is in the job record table", bad)

# What the writers write and the readers read, key by key, against the
# document's tables: the job record's writer and reader
# (common/contract.c), the SPANK plugin's task and output records, the
# bundle (epilog/bundle.c and its files' and coverage entries'
# helpers in epilog/context.c) and the health report (epilog/health.c).
KEY = re.compile(r'\b(?:put_\w+|jo_\w+|json_object_object_add|json_object_object_get_ex|json_str|int_of|bool_of)'
                 r'\(\s*\w+,\s*"([a-z_]+)"')
def keys(path, signature):
    text = open(os.path.join(src, path)).read()
    i = text.index(signature)
    return set(KEY.findall(text[i:text.index("\n}\n", i)]))
def table(start, end):
    part = doc[doc.index(start):]
    part = part[:part.index(end)]
    names = set()
    for m in re.finditer(r'^\| (`[^|]+`) \|[^|]*\|(?: `\{([^}]+)\}`)?', part, re.M):
        names |= set(re.findall(r'`([^`]+)`', m.group(1)))
        names |= set(re.split(r',\s*', m.group(2))) if m.group(2) else set()
    return names
def described(what, found, names):
    check("%s: every key (%d) is in doc/formats.md" % (what, len(found)),
          sorted(found - names) if len(found) > 2 else ["found too few keys: %s" % sorted(found)])

task = table("A task record", "For the batch script")
output = table("For the batch script", "## The bundle")
bundle = table("## The bundle", "## The health report")
health = table("## The health report", "## The result")
described("the job record's writer", keys("common/contract.c", "char *job_record_json("), documented)
described("the job record's reader", keys("common/contract.c", "bool job_record_read("), documented)
described("the task record (plugin/spank_attrib.c)",
          keys("plugin/spank_attrib.c", "static void write_task("), task)
described("the output record (plugin/spank_attrib.c)",
          keys("plugin/spank_attrib.c", "int slurm_spank_task_init_privileged("), output)
described("the bundle (epilog/bundle.c)", keys("epilog/bundle.c", "json_object *bundle_build("), bundle)
files = re.search(r'^\| `files` \| [^|]+ \| `\{([^}]+)\}`', doc[doc.index("## The bundle"):], re.M)
cov = re.search(r'^\| `coverage` \| [^|]+ \| `\{([^}]+)\}`', doc[doc.index("## The bundle"):], re.M)
described("a bundle's file (epilog/context.c add_file)", keys("epilog/context.c", "void add_file("),
          set(re.split(r',\s*', files.group(1))) if files else set())
described("a bundle's coverage entry (epilog/context.c cover)", keys("epilog/context.c", "void cover("),
          set(re.split(r',\s*', cov.group(1))) if cov else set())
described("the health report (epilog/health.c)", keys("epilog/health.c", "int health_main("), health)
# The formats' names (schemas, the bundle's URL paths, header and
# credential prefixes, the origins, the case's files and manifest, the
# node sources) are written in common/contract.h and common/evidence.h
# alone (and the table of evidence.c): no other C file spells one as a
# literal.  (plain words such as "file" or "kernel" name other things too:
# left out here, and taken below where they are the case's or coverage's)
formats = ("common/contract.h", "common/evidence.h", "common/evidence.c")
names = [x for f in formats[:2] for x in re.findall(r'^#define \w+ ("[^"]+")', open(os.path.join(src, f)).read(), re.M)
         if re.search(r'[./:-]', x)]
folders = [x.strip('"') for x in re.findall(r'^#define CASE_\w+ ("[^"./]+")', open(os.path.join(src, "common/evidence.h")).read(), re.M)]
statuses = [x.strip('"') for x in re.findall(r'^#define COVERAGE_\w+ ("[^"]+")', open(os.path.join(src, "common/evidence.h")).read(), re.M)]
# a folder of the case inside a literal, as a path: "%s/app", "nodes/%s", "nodes/n1:kmsg"
folder_path = re.compile(r'"(?:[^"\\]*[/])?(?:%s)(?:[/:][^"]*)?"' % "|".join(folders))
# a coverage entry's status as a literal: cov_add(cov, source, "error", ...)
status_arg = re.compile(r'\b(?:cov_add|analysis_add_coverage|cover)\([^;]*?,[^;]*?,\s*(?:[^;,]*\?\s*)?"(?:%s)"' % "|".join(statuses))
spelled = []
for d in ("engine", "common", "service", "cli", "store", "epilog", "plugin", "slurmapi", "policy"):
    for f in sorted(glob.glob(os.path.join(src, d, "*.[ch]"))):
        rel = os.path.relpath(f, src)
        if rel in formats:
            continue
        for n, line in enumerate(open(f, errors="replace"), 1):
            if line.lstrip().startswith(("*", "/*", "//")):
                continue
            spelled += ["%s:%d: %s" % (rel, n, x) for x in names if x in line]
            spelled += ["%s:%d: %s" % (rel, n, m.group(0)) for m in folder_path.finditer(line)
                        if ("/" in m.group(0) or ":" in m.group(0)) and not m.group(0).startswith('"/api/')]
            spelled += ["%s:%d: %s" % (rel, n, m.group(0)[-40:]) for m in status_arg.finditer(line)]
check("the %d names of common/contract.h and evidence.h, the case's %d folders and the %d coverage words "
      "are spelled nowhere else" % (len(names), len(folders), len(statuses)),
      spelled if len(names) >= 15 and len(folders) == 3 and len(statuses) >= 5
      else ["found too few names: %s %s %s" % (names, folders, statuses)])
print("# %d passed, %d failed" % (passed, failed))
sys.exit(1 if failed else 0)
PY
