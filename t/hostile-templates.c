/* Security: the kernel and root daemons print text that users choose.
 * A process name (segfault, OOM killer, hung task and audit lines), a
 * mount option, a cgroup or unit name, a user or host name (sshd, sudo,
 * PAM, cron, logind), a file name: each reaches a log that attrib trusts.
 * For every rule of the shipped catalog that reads node files, and every
 * line its own inline cases say it must match, the rule's trigger text is
 * put where a user's string goes in each such message, as the kernel or
 * the daemon really prints it.  None may give a trusted fault: no line may
 * be taken by a rule whose code blames the node's hardware or software,
 * and a user's bug with all of those lines on its node stays a user's bug
 * (no culprit, no drain).
 *
 * Generated from the catalog at every run: a rule added tomorrow is tried
 * the day it is added. */
#include <json-c/json.h>
#include "testutil.h"

static attrib_catalog *cat;

/* {T}: the trigger; {C}: the trigger cut to a process name's 15 bytes
 * (TASK_COMM_LEN - 1), as the kernel prints a comm */
static const struct template
{
	const char *what, *origin, *line;
}
templates[] = {
	/* the kernel (origin kernel: /dev/kmsg, journal _TRANSPORT=kernel) */
	{ "mount option (unshare -Urm; mount -t tmpfs -o)", "kernel",
	  "kernel: tmpfs: Unknown parameter '{T}'" },
	{ "ext4 mount option", "kernel",
	  "kernel: EXT4-fs (sda1): Unrecognized mount option \"{T}\" or missing value" },
	{ "overlayfs mount option", "kernel",
	  "kernel: overlayfs: unrecognized mount option \"{T}\" or missing value" },
	{ "segfault: process name", "kernel",
	  "kernel: {C}[4242]: segfault at 0 ip 000055d0c0de0000 sp 00007ffd0badf00d error 4 in "
	  "a.out[55d0c0de0000+1000]" },
	{ "segfault: file name", "kernel",
	  "kernel: a.out[4242]: segfault at 0 ip 000055d0c0de0000 sp 00007ffd0badf00d error 4 in "
	  "{T}[55d0c0de0000+1000]" },
	{ "trap: process name", "kernel",
	  "kernel: traps: {C}[4242] general protection fault ip:4005d6 sp:7ffd0badf00d error:0 in "
	  "a.out[400000+1000]" },
	{ "OOM killer: killed process", "kernel",
	  "kernel: Out of memory: Killed process 4242 ({C}) total-vm:1000kB, anon-rss:0kB, file-rss:0kB, "
	  "shmem-rss:0kB, UID:1000 pgtables:0kB oom_score_adj:0" },
	{ "OOM killer: invoked by", "kernel",
	  "kernel: {C} invoked oom-killer: gfp_mask=0x140cca(GFP_HIGHUSER_MOVABLE|__GFP_COMP), order=0, "
	  "oom_score_adj=0" },
	{ "OOM killer: summary", "kernel",
	  "kernel: "
	  "oom-kill:constraint=CONSTRAINT_MEMCG,nodemask=(null),cpuset=/,mems_allowed=0,oom_memcg=/slurm/"
	  "uid_1000/job_42,task_memcg=/slurm/uid_1000/job_42/step_0,task={C},pid=4242,uid=1000" },
	{ "hung task", "kernel", "kernel: INFO: task {C}:4242 blocked for more than 120 seconds." },
	{ "drop_caches", "kernel", "kernel: {C} (4242): drop_caches: 3" },
	{ "audit: comm and file name", "kernel",
	  "kernel: audit: type=1400 audit(1764403200.123:42): apparmor=\"DENIED\" operation=\"open\" "
	  "profile=\"p\" "
	  "name=\"/home/alice/{T}\" pid=4242 comm=\"{C}\" requested_mask=\"r\" denied_mask=\"r\" fsuid=1000 "
	  "ouid=1000" },
	{ "cgroup path", "kernel",
	  "kernel: cgroup: fork rejected by pids controller in /user.slice/user-1000.slice/{T}.scope" },
	{ "executable stack", "kernel", "kernel: process '/home/alice/{T}' started with executable stack" },
	/* root daemons (origin journal: uid 0) */
	{ "sshd: invalid user (ssh -l)", "journal",
	  "[_UID=0 _COMM=sshd] sshd[999]: Invalid user {T} from 192.0.2.1 port 4242" },
	{ "sshd: failed password", "journal",
	  "[_UID=0 _COMM=sshd] sshd[999]: Failed password for invalid user {T} from 192.0.2.1 port 4242 "
	  "ssh2" },
	{ "PAM: user name", "journal",
	  "[_UID=0 _COMM=sshd] sshd[999]: pam_unix(sshd:auth): authentication failure; logname= uid=0 euid=0 "
	  "tty=ssh ruser= rhost=192.0.2.1  user={T}" },
	{ "sudo: working directory and command", "journal",
	  "[_UID=0 _COMM=sudo] sudo[999]:    alice : user NOT in sudoers ; TTY=pts/0 ; PWD=/home/alice/{T} ; "
	  "USER=root ; COMMAND=/home/alice/{T}" },
	{ "cron: command", "journal", "[_UID=0 _COMM=cron] CRON[999]: (alice) CMD ({T})" },
	{ "systemd: unit name", "journal", "[_UID=0 _COMM=systemd] systemd[1]: Started {T}." },
	{ "logind: user name", "journal",
	  "[_UID=0 _COMM=systemd-logind] systemd-logind[700]: New session 42 of user {T}." },
	{ "slurmd: a job's name", "journal",
	  "[_UID=0 _COMM=slurmd] slurmd[700]: error: job 42 name {T} not found" },
	/* a line an admin collected by hand (no evidence.json: trusted) whose
	 * syslog tag names a user's process */
	{ "syslog tag of a user's process", "unlisted", "alice[4242]: {T}" },
};
#define NTEMPLATES ((int)(sizeof(templates) / sizeof(*templates)))

static void setup(void)
{
	cat = attrib_catalog_load(getenv("ATTRIB_RULES") ? getenv("ATTRIB_RULES") : SRCDIR "/rules",
				  test_options(), stderr);
	ck_assert_ptr_nonnull(cat);
}

static void teardown(void)
{
	attrib_catalog_free(cat);
}

static char *fill(const char *tpl, const char *trigger)
{
	size_t cap = strlen(tpl) + 2 * strlen(trigger) * 4 + 1, o = 0;
	char *out = xmalloc(cap);

	for (const char *p = tpl; *p;) {
		if (!strncmp(p, "{T}", 3) || !strncmp(p, "{C}", 3)) {
			size_t n = strlen(trigger);

			if (p[1] == 'C' && n > 15)
				n = 15;
			memcpy(out + o, trigger, n);
			o += n;
			p += 3;
		} else {
			out[o++] = *p++;
		}
	}
	out[o] = 0;
	return out;
}

/* The line as its file holds it: a time and a host first. */
static char *as_logged(const char *filled)
{
	char *line;

	ck_assert_int_ge(asprintf(&line, "2025-11-29T08:05:00.000000+00:00 n1 %s", filled), 0);
	return line;
}

static enum origin origin_named(const char *name)
{
	return !strcmp(name, "kernel")	   ? ORIGIN_KERNEL
		: !strcmp(name, "journal") ? ORIGIN_JOURNAL
					   : ORIGIN_UNLISTED;
}

/* a code that blames the node it is seen on */
static bool blames_node(const struct code *c)
{
	return c && c->kind == KIND_FAULT && c->sub_domain && !strncmp(c->sub_domain, "Infra", 5);
}

/* the trigger of a rule's case: the message its writer emitted, without
 * the line's header (what a user would have to print) */
static const char *trigger_of(const char *line)
{
	struct timectx tc = { .ref = 1764403200.0, .tz = NULL };
	struct line_msg m;

	line_message(&tc, line, strlen(line), &m);
	return line + m.start;
}

/* Every node rule's every positive case, in every template: no line is
 * taken by a rule that blames the node, but the one the template's own
 * message is (a hung task is a hung task, whatever the task's name: the
 * template filled with a plain name says which). */
START_TEST(no_template_blames_the_node)
{
	const struct template *t = &templates[_i];
	int tried = 0, bad = 0;
	char *plain = fill(t->line, "python3"), *plain_line = as_logged(plain);
	struct event pev = { 0 };
	const struct event *pe = taken_by(cat, plain_line, SRC_NODE, origin_named(t->origin), &pev);
	const struct code *own = pe ? pe->code : NULL;

	event_clear(&pev);
	free(plain);
	free(plain_line);

	for (int xi = 0; xi < cat->nextractors; xi++) {
		const struct extractor *x = &cat->extractors[xi];

		if (!(x->sources & SRC_NODE) || x->lines != 1)
			continue;
		for (int k = 0; k < x->ntests; k++) {
			if (x->tests[k].none || strchr(x->tests[k].line, '\n'))
				continue;
			char *filled = fill(t->line, trigger_of(x->tests[k].line)), *line = as_logged(filled);
			struct event ev = { 0 };
			const struct event *e = taken_by(cat, line, SRC_NODE, origin_named(t->origin), &ev);

			tried++;
			if (e && blames_node(e->code) && e->code != own) {
				fprintf(stderr, "%s (%s): rule %s's case taken by %s as %s: %s\n", t->what,
					t->origin, x->id, cat->extractors[e->extractor].id, e->code->code,
					line);
				bad++;
			}
			event_clear(&ev);
			free(filled);
			free(line);
		}
	}
	fprintf(stderr, "%s: %d lines, %d blame the node\n", t->what, tried, bad);
	ck_assert_int_gt(tried, 100);
	ck_assert_int_eq(bad, 0);
}
END_TEST

/* A two-node job whose rank 1 raised a KeyError (a user's bug), with, on
 * its node n1, every template filled with every node rule's triggers
 * (hostile) or with a plain process name (plain), in files of the
 * template's origin as attrib serve's evidence.json says, or in a file an
 * admin added by hand.  The number of lines written. */
static long build_case(const char *dir, bool hostile)
{
	const char *names[3] = { "kernel", "journal", "unlisted" };
	FILE *f[3];
	long lines = 0;

	write_file(dir, "job.json",
		   "{\"schema\": \"attrib.job/v1\", \"job_id\": \"77\", \"nodes\": [\"n1\", \"n2\"],"
		   " \"start_time\": \"2025-11-29T08:00:00Z\", \"end_time\": \"2025-11-29T08:20:00Z\","
		   " \"state\": \"FAILED\", \"exit_code\": \"1:0\", \"ranks\": ["
		   "{\"rank\": 0, \"node\": \"n1\", \"gpu\": \"0\"}, {\"rank\": 1, \"node\": \"n2\", "
		   "\"gpu\": \"0\"}]}\n");
	mkdir_p(dir, "app");
	write_file(dir, "app/slurm-77.out",
		   "[rank1]: Traceback (most recent call last):\n"
		   "[rank1]:   File \"/w/train.py\", line 10, in <module>\n"
		   "[rank1]: KeyError: 'labels'\n");
	mkdir_p(dir, "nodes/n1");
	mkdir_p(dir, "nodes/n2");
	write_file(dir, "nodes/n2/kernel.log",
		   "2025-11-29T08:00:01.000000+00:00 n2 kernel: usb 1-1: new device\n");
	write_file(dir, "evidence.json",
		   "{\"files\": {\"nodes/n1/kernel.log\": {\"origin\": \"kernel\"},"
		   " \"nodes/n1/journal.log\": {\"origin\": \"journal\"},"
		   " \"nodes/n2/kernel.log\": {\"origin\": \"kernel\"}}}\n");
	for (int i = 0; i < 3; i++) {
		char rel[64], *p;

		snprintf(rel, sizeof(rel), "nodes/n1/%s.log", names[i]);
		p = path_join(dir, rel);
		f[i] = fopen(p, "w");
		ck_assert_ptr_nonnull(f[i]);
		free(p);
	}
	for (int ti = 0; ti < NTEMPLATES; ti++) {
		int fi = !strcmp(templates[ti].origin, "kernel")   ? 0
			: !strcmp(templates[ti].origin, "journal") ? 1
								   : 2;

		for (int xi = 0; xi < cat->nextractors; xi++) {
			const struct extractor *x = &cat->extractors[xi];

			if (!(x->sources & SRC_NODE))
				continue;
			for (int k = 0; k < x->ntests; k++) {
				if (x->tests[k].none || strchr(x->tests[k].line, '\n'))
					continue;
				char *filled = fill(templates[ti].line,
						    hostile ? trigger_of(x->tests[k].line) : "python3");
				char *line = as_logged(filled);

				fprintf(f[fi], "%s\n", line);
				lines++;
				free(filled);
				free(line);
			}
		}
	}
	for (int i = 0; i < 3; i++)
		fclose(f[i]);
	return lines;
}

/* what a result says against a node: its sub_domain, culprits and actions */
static char *verdict(struct json_object *r)
{
	char *v;

	ck_assert_int_ge(asprintf(&v, "%s culprits %s actions %s",
				  json_object_get_string(json_member(r, "sub_domain")),
				  json_object_to_json_string_ext(json_member(r, "culprit_nodes"),
								 JSON_C_TO_STRING_PLAIN),
				  json_object_to_json_string_ext(json_member(r, "actions"),
								 JSON_C_TO_STRING_PLAIN)),
			 0);
	return v;
}

/* The whole way: the same job with the templates' own messages about a
 * plain process, and with every trigger in them, gets the same verdict:
 * what users wrote into those messages changes nothing. */
START_TEST(users_strings_change_nothing)
{
	char *plain_dir = tmpdir(), *hostile_dir = tmpdir(), err[256];
	long plain_lines = build_case(plain_dir, false), lines = build_case(hostile_dir, true);
	struct json_object *plain = attrib_analyze(cat, plain_dir, NULL, err, sizeof(err)), *r;

	ck_assert_msg(plain != NULL, "%s", err);
	r = attrib_analyze(cat, hostile_dir, NULL, err, sizeof(err));
	ck_assert_msg(r != NULL, "%s", err);
	char *want = verdict(plain), *got = verdict(r);

	fprintf(stderr, "%ld plain lines on n1: %s\n%ld hostile lines on n1: %s\n", plain_lines, want, lines,
		got);
	ck_assert_int_gt(lines, 1000);
	ck_assert_str_eq(got, want);
	free(want);
	free(got);
	json_object_put(plain);
	json_object_put(r);
	rmtree(plain_dir);
	rmtree(hostile_dir);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("hostile-templates");
	TCase *t = tcase_create("catalog");

	tcase_add_checked_fixture(t, setup, teardown);
	tcase_set_timeout(t, 300);
	tcase_add_loop_test(t, no_template_blames_the_node, 0, NTEMPLATES);
	tcase_add_test(t, users_strings_change_nothing);
	suite_add_tcase(s, t);
	return run_suite(s);
}
