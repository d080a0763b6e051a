/* attribd --check: from the service host, which nodes' bundles are (or
 * would be) refused and why, and whether each node's sources hold the
 * kernel's messages.
 *
 * A refused bundle leaves its node "missing" in every diagnosis; a node
 * whose bundles hold no kernel messages leaves its GPU faults unseen (the
 * rules for Xid, AER, MCE read only files of origin kernel).  Neither shows
 * in one diagnosis as a cause.  What can be seen from here is said, and
 * only that:
 *   - the addresses attribd takes a node's credential from (Slurm's node
 *     table: NodeAddr and NodeHostname resolved here; NodeAddresses), by
 *     the very check the intake makes (nodetable_origin_ok);
 *   - what the node's name resolves to here: the address a munged on the
 *     node puts in its credentials when it resolves its own name as this
 *     host does and no --origin says otherwise (Debian's /etc/hosts maps
 *     the host's own name to 127.0.1.1);
 *   - this host's own munged's origin, exact for the node this host is;
 *   - the refusals of the last day (STATE/rejected: what munged really
 *     put, and every other reason);
 *   - in the node's latest stored case, whether any file of its bundle
 *     came from the kernel (evidence.json), and the gaps its collector
 *     reported (the stored result's coverage).
 * A node's own resolver and munged configuration are not visible from
 * here: a recorded refusal is the proof. */
#include <arpa/inet.h>
#include <dirent.h>
#include <limits.h>
#include <munge.h>
#include <netdb.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include "accounting.h"
#include "attribd_check.h"
#include "auth.h"
#include "conf.h"
#include "contract.h"
#include "jsonread.h"
#include "nodetable.h"
#include "spool.h"
#include "store.h"
#include "timefmt.h"
#include "util.h"

#define CASES_MAX 2000 /* the latest cases read for the kernel check */
#define REFUSALS_SINCE 86400

struct node {
	char name[NAME_MAX_LEN + 1];
	char addrs[512]; /* "10.0.0.1 (Slurm's node table), ..." */
	char last_case[NAME_MAX_LEN + 32];
	char files[512];   /* its files in that case, with their origins */
	bool kernel, seen; /* a file of origin kernel; a case holds it */
	int refused;
	char refusal[512]; /* the latest */
	double refused_at;
};

struct nodes {
	struct node *v;
	size_t n;
};

static struct node *node_of(struct nodes *ns, const char *name)
{
	struct node *v;

	for (size_t i = 0; i < ns->n; i++)
		if (!strcmp(ns->v[i].name, name))
			return &ns->v[i];
	if (!contract_valid_name(name) || !(v = realloc(ns->v, (ns->n + 1) * sizeof(*v))))
		return NULL;
	ns->v = v;
	v = &ns->v[ns->n++];
	memset(v, 0, sizeof(*v));
	snprintf(v->name, sizeof(v->name), "%s", name);
	return v;
}

static void cat(char *buf, size_t len, const char *s)
{
	size_t used = strlen(buf);

	if (used + 1 < len)
		snprintf(buf + used, len - used, "%s%s", used ? ", " : "", s);
}

static void table_cb(const char *name, const char *addr, const char *from, void *arg)
{
	struct node *n = node_of(arg, name);
	char item[INET6_ADDRSTRLEN + 64];

	if (!n)
		return;
	snprintf(item, sizeof(item), "%s (%s)", addr, from);
	cat(n->addrs, sizeof(n->addrs), item);
}

/* The address this host's munged puts in its credentials. */
static bool local_origin(struct in_addr *a, char *why, size_t whylen)
{
	munge_ctx_t ctx = munge_ctx_create();
	char *cred = NULL;
	munge_err_t e;

	if (!ctx) {
		snprintf(why, whylen, "cannot create a MUNGE context");
		return false;
	}
	if (auth_socket())
		munge_ctx_set(ctx, MUNGE_OPT_SOCKET, auth_socket());
	e = munge_encode(&cred, ctx, NULL, 0);
	if (e == EMUNGE_SUCCESS)
		e = munge_decode(cred, ctx, NULL, NULL, NULL, NULL);
	if (e == EMUNGE_SUCCESS)
		e = munge_ctx_get(ctx, MUNGE_OPT_ADDR4, a);
	if (e != EMUNGE_SUCCESS)
		snprintf(why, whylen, "%s",
			 munge_ctx_strerror(ctx) ? munge_ctx_strerror(ctx) : munge_strerror(e));
	free(cred);
	munge_ctx_destroy(ctx);
	return e == EMUNGE_SUCCESS;
}

/* STATE/rejected/JOB/NODE.json of the last day, by node */
static void read_refusals(const char *state_dir, struct nodes *ns, time_t now)
{
	char dir[PATH_MAX], sub[PATH_MAX + 260];
	DIR *d, *j;
	struct dirent *e, *f;

	snprintf(dir, sizeof(dir), "%s/rejected", state_dir);
	if (!(d = opendir(dir)))
		return;
	while ((e = readdir(d))) {
		if (e->d_name[0] == '.' || !contract_valid_name(e->d_name))
			continue;
		snprintf(sub, sizeof(sub), "%s/%s", dir, e->d_name);
		if (!(j = opendir(sub)))
			continue;
		while ((f = readdir(j))) {
			size_t len = strlen(f->d_name);
			char node[NAME_MAX_LEN + 1];
			struct json_object *r;
			struct node *n;
			double at;

			if (f->d_name[0] == '.' || len <= 5 || len - 5 > NAME_MAX_LEN ||
			    strcmp(f->d_name + len - 5, ".json"))
				continue;
			memcpy(node, f->d_name, len - 5);
			node[len - 5] = 0;
			if (!(r = spool_rejection(state_dir, e->d_name, node,
						  (double)(now - REFUSALS_SINCE))))
				continue;
			if ((n = node_of(ns, node)) && time_parse_rfc3339(json_str(r, "at"), &at)) {
				n->refused++;
				if (at >= n->refused_at) {
					n->refused_at = at;
					snprintf(n->refusal, sizeof(n->refusal), "job %s at %s: %s",
						 e->d_name, json_str(r, "at"), json_str(r, "detail"));
				}
			}
			json_object_put(r);
		}
		closedir(j);
	}
	closedir(d);
}

struct case_dir {
	char name[NAME_MAX_LEN + 32];
	struct timespec mtime;
};

static int newest_first(const void *a, const void *b)
{
	const struct timespec *x = &((const struct case_dir *)a)->mtime,
			      *y = &((const struct case_dir *)b)->mtime;

	if (x->tv_sec != y->tv_sec)
		return x->tv_sec < y->tv_sec ? 1 : -1;
	return x->tv_nsec < y->tv_nsec ? 1 : x->tv_nsec > y->tv_nsec ? -1 : 0;
}

/* Each node's files in its latest case (evidence.json), newest cases
 * first, at most CASES_MAX of them. */
static void read_cases(const char *state_dir, struct nodes *ns)
{
	char dir[PATH_MAX], p[PATH_MAX + 2 * NAME_MAX_LEN], err[256];
	struct case_dir *c = NULL;
	size_t nc = 0;
	DIR *d;
	struct dirent *e;

	snprintf(dir, sizeof(dir), "%s/cases", state_dir);
	if (!(d = opendir(dir)))
		return;
	while ((e = readdir(d))) {
		struct stat st;
		struct case_dir *more;

		if (e->d_name[0] == '.' || strlen(e->d_name) >= sizeof(c->name))
			continue;
		snprintf(p, sizeof(p), "%s/%s", dir, e->d_name);
		if (lstat(p, &st) < 0 || !S_ISDIR(st.st_mode) || !(more = realloc(c, (nc + 1) * sizeof(*c))))
			continue;
		c = more;
		snprintf(c[nc].name, sizeof(c[nc].name), "%s", e->d_name);
		c[nc++].mtime = st.st_mtim;
	}
	closedir(d);
	if (nc)
		qsort(c, nc, sizeof(*c), newest_first);
	for (size_t i = 0; i < nc && i < CASES_MAX; i++) {
		struct json_object *m, *files;

		snprintf(p, sizeof(p), "%s/%s/" EVIDENCE_MANIFEST, dir, c[i].name);
		if (!(m = json_read_file(p, 8 << 20, 8, err, sizeof(err))))
			continue;
		if (json_object_object_get_ex(m, "files", &files) &&
		    json_object_is_type(files, json_type_object)) {
			json_object_object_foreach (files, key, val) {
				const char *slash, *origin = json_str(val, "origin");
				char node[NAME_MAX_LEN + 1], item[NAME_MAX_LEN + 64];
				struct node *n;

				if (strncmp(key, CASE_NODES "/", 6) || !(slash = strchr(key + 6, '/')) ||
				    (size_t)(slash - key - 6) > NAME_MAX_LEN)
					continue;
				memcpy(node, key + 6, slash - key - 6);
				node[slash - key - 6] = 0;
				if (!(n = node_of(ns, node)))
					continue;
				if (!n->seen) { /* its latest case: this one */
					n->seen = true;
					snprintf(n->last_case, sizeof(n->last_case), "%s", c[i].name);
				}
				if (strcmp(n->last_case, c[i].name))
					continue;
				snprintf(item, sizeof(item), "%s: %s", slash + 1, origin ? origin : "?");
				cat(n->files, sizeof(n->files), item);
				n->kernel |= origin && !strcmp(origin, ORIGIN_NAME_KERNEL);
			}
		}
		json_object_put(m);
	}
	free(c);
}

/* The collector's gaps for node in its latest case's stored result */
static void print_gaps(store *s, const struct node *n, FILE *out)
{
	char job[sizeof(n->last_case)], *dot, *text, src[NAME_MAX_LEN + 8];
	struct json_object *r;
	struct result_view v;
	long attempt;

	snprintf(job, sizeof(job), "%s", n->last_case);
	if (!s || !(dot = strrchr(job, '.')))
		return;
	*dot = 0;
	attempt = strtol(dot + 1, NULL, 10);
	if (!(text = store_get(s, job, attempt, NULL)))
		return;
	r = json_tokener_parse(text);
	free(text);
	snprintf(src, sizeof(src), CASE_NODES "/%s", n->name);
	if (result_view_of(r, &v))
		for (size_t i = 0; i < result_array_len(v.coverage); i++) {
			struct json_object *c = json_object_array_get_idx(v.coverage, i);
			const char *cs = json_str(c, "source");

			if (cs && !strncmp(cs, src, strlen(src)) &&
			    (!cs[strlen(src)] || cs[strlen(src)] == ':'))
				fprintf(out, "    collector: %s (%s): %s\n", cs, json_str(c, "status"),
					json_str(c, "detail"));
		}
	json_object_put(r);
}

/* Whether the node's name, resolved here, gives an address attribd takes
 * its credentials from; prints what it found.  false: a problem. */
static bool check_name(const struct node *n, FILE *out)
{
	struct addrinfo hints = { .ai_family = AF_INET, .ai_socktype = SOCK_STREAM }, *ai = NULL;
	bool ok = false, any = false;
	char why[300], a[INET_ADDRSTRLEN];

	if (getaddrinfo(n->name, NULL, &hints, &ai)) {
		fprintf(out,
			"    its name does not resolve here: what its munged puts is seen only in a "
			"refusal\n");
		return true;
	}
	for (struct addrinfo *p = ai; p && !ok; p = p->ai_next) {
		struct in_addr in = ((struct sockaddr_in *)p->ai_addr)->sin_addr;

		any = true;
		inet_ntop(AF_INET, &in, a, sizeof(a));
		if ((ok = nodetable_origin_ok(n->name, &in, why, sizeof(why))))
			fprintf(out, "    its name resolves here to %s: a credential made there is taken\n",
				a);
	}
	if (!ok && any)
		fprintf(out,
			"    its name resolves here to %s: a munged resolving it so would be refused (%s)\n",
			a, why);
	freeaddrinfo(ai);
	return ok || !any;
}

int check_main(const struct attrib_config *conf, FILE *out)
{
	struct nodes ns = { 0 };
	struct in_addr here;
	char host[256] = "", why[300], db[PATH_MAX], err[256], a[INET_ADDRSTRLEN];
	bool have_here, slurm = accounting_init();
	int problems = 0;
	store *s;

	if (nodetable_load(conf, slurm, err, sizeof(err)) < 0) {
		fprintf(stderr, "attribd: %s\n", err);
		return 1;
	}
	nodetable_each(table_cb, &ns);
	read_refusals(conf->state_dir, &ns, time(NULL));
	read_cases(conf->state_dir, &ns);
	snprintf(db, sizeof(db), "%s/attrib.db", conf->state_dir);
	s = store_open(db, true, err, sizeof(err));

	fprintf(out,
		"attribd --check: what this host can see of %zu node%s (Slurm's node table%s, "
		"NodeAddresses,\n"
		"refusals of the last day, the latest stored case of each).  A node's own resolver\n"
		"and munged are not visible from here; a refusal recorded is the proof.\n",
		ns.n, ns.n == 1 ? "" : "s", slurm ? "" : ": no slurm.conf");
	gethostname(host, sizeof(host) - 1);
	if ((have_here = local_origin(&here, why, sizeof(why)))) {
		inet_ntop(AF_INET, &here, a, sizeof(a));
		fprintf(out, "this host (%s): its munged makes credentials from %s\n", host, a);
	} else {
		fprintf(out, "this host (%s): its munged cannot be asked: %s\n", host, why);
	}
	for (size_t i = 0; i < ns.n; i++) {
		struct node *n = &ns.v[i];
		bool ok = true;
		size_t hl = strcspn(host, ".");

		fprintf(out, "%s\n", n->name);
		fprintf(out, "    credentials taken from: %s\n",
			*n->addrs ? n->addrs
				  : "(none listed: its name is resolved by DNS when a bundle comes)");
		if (have_here &&
		    (!strcmp(n->name, host) || (strlen(n->name) == hl && !strncmp(n->name, host, hl)))) {
			bool taken = nodetable_origin_ok(n->name, &here, why, sizeof(why));

			fprintf(out, "    this host's munged: %s\n",
				taken ? "its credentials are taken" : why);
			ok &= taken;
		} else {
			ok &= check_name(n, out);
		}
		if (n->refused) {
			fprintf(out, "    refused in the last day: %d bundle%s; the latest, %s\n", n->refused,
				n->refused == 1 ? "" : "s", n->refusal);
			ok = false;
		}
		if (!n->seen) {
			fprintf(out,
				"    kernel messages: not known (no stored case holds a bundle of it)\n");
		} else {
			fprintf(out, "    kernel messages: %s in its latest bundle (case %s: %s)\n",
				n->kernel ? "yes" : "NONE", n->last_case, n->files);
			if (!n->kernel)
				fprintf(out,
					"    no file of origin kernel: the rules for Xid, AER, MCE and other "
					"kernel "
					"messages cannot see its faults (LogSources: journal, kmsg)\n");
			print_gaps(s, n, out);
			ok &= n->kernel;
		}
		fprintf(out, "    %s\n", ok ? "ok" : "PROBLEM");
		problems += !ok;
	}
	fprintf(out, "%d of %zu node%s with a problem\n", problems, ns.n, ns.n == 1 ? "" : "s");
	store_close(s);
	nodetable_stop();
	free(ns.v);
	return problems ? 2 : 0;
}
