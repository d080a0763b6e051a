/* Node identity: the names logs really use (short names, FQDNs, IP
 * addresses from NCCL's bootstrap lines, ranks, PCI bus ids) resolved to
 * the job's nodes. */
#include <ctype.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <json-c/linkhash.h>
#include "hostlist.h"
#include "internal.h"

struct identity {
	const struct job *job;
	struct lh_table *names; /* lower-case name, short name or IP -> node + 1 */
	int *rank_node;		/* rank -> node, -1 */
	int nrank;
	struct lh_table *gpus; /* "node/gGPU" or "node/pPID" -> normalised PCI id */
};

static void free_key(struct lh_entry *e)
{
	free((void *)lh_entry_k(e));
}

static void free_key_value(struct lh_entry *e)
{
	free((void *)lh_entry_k(e));
	free((void *)lh_entry_v(e));
}

static char *lower(const char *s, size_t n)
{
	char *p = strndup_or_die(s, n);

	for (char *q = p; *q; q++)
		*q = (char)tolower((unsigned char)*q);
	return p;
}

static void learn(struct identity *id, const char *name, size_t n, int node)
{
	char *k = lower(name, n);

	if (lh_table_lookup_entry(id->names, k)) { /* first writer wins */
		free(k);
		return;
	}
	lh_table_insert(id->names, k, (void *)(intptr_t)(node + 1));
}

struct identity *identity_new(const struct job *job)
{
	struct identity *id = xcalloc(1, sizeof(*id));

	id->job = job;
	id->names = lh_kchar_table_new(64 + job->nodes.n * 4, free_key);
	id->gpus = lh_kchar_table_new(64 + job->nranks * 2, free_key_value);
	for (int i = 0; i < job->nodes.n; i++)
		learn(id, job->nodes.v[i], strlen(job->nodes.v[i]), i);
	/* short names after all full names, so a full name always wins */
	for (int i = 0; i < job->nodes.n; i++) {
		const char *dot = strchr(job->nodes.v[i], '.');

		if (dot && !isdigit((unsigned char)job->nodes.v[i][0]))
			learn(id, job->nodes.v[i], dot - job->nodes.v[i], i);
	}
	for (int i = 0; i < job->nranks; i++)
		identity_learn_rank(id, job->ranks[i].rank, job->ranks[i].node);
	return id;
}

void identity_free(struct identity *id)
{
	if (!id)
		return;
	lh_table_free(id->names);
	free(id->rank_node);
	lh_table_free(id->gpus);
	free(id);
}

static int lookup(const struct identity *id, const char *s, size_t n)
{
	char *k;
	void *v = NULL;

	if (!n)
		return -1;
	k = lower(s, n);
	lh_table_lookup_ex(id->names, k, &v);
	free(k);
	return v ? (int)(intptr_t)v - 1 : -1;
}

int identity_node(const struct identity *id, const char *name)
{
	size_t n;
	int node;

	if (!name)
		return -1;
	while (*name == ' ' || *name == '[' || *name == '(')
		name++;
	n = strcspn(name, "<> \t,;()[]"); /* host<port>, "host, ..." */
	if ((node = lookup(id, name, n)) >= 0)
		return node;
	/* a.b.c.d:port, host:port */
	const char *colon = memchr(name, ':', n);
	if (colon && !memchr(colon + 1, ':', n - (colon + 1 - name)) &&
	    (node = lookup(id, name, colon - name)) >= 0)
		return node;
	/* an FQDN of a node the job names by its short name */
	const char *dot = memchr(name, '.', n);
	if (dot && !isdigit((unsigned char)name[0]))
		return lookup(id, name, dot - name);
	return -1;
}

int identity_rank_node(const struct identity *id, int rank)
{
	return rank >= 0 && rank < id->nrank ? id->rank_node[rank] : -1;
}

void identity_learn_ip(struct identity *id, const char *ip, int node)
{
	if (ip && node >= 0)
		learn(id, ip, strcspn(ip, "<> \t"), node);
}

void identity_learn_rank(struct identity *id, int rank, int node)
{
	if (rank < 0 || node < 0 || rank > 10000000)
		return;
	if (rank >= id->nrank) {
		int n = rank + 64;

		id->rank_node = xrealloc(id->rank_node, n * sizeof(int));
		for (int i = id->nrank; i < n; i++)
			id->rank_node[i] = -1;
		id->nrank = n;
	}
	if (id->rank_node[rank] < 0)
		id->rank_node[rank] = node;
}

/* Keys: "node/gGPU" (the device index a line prints) and "node/pPID"
 * (the process: under per-task GPU binding every process calls its GPU 0,
 * so the process is the reliable key). */
static void learn_gpu_key(struct identity *id, const char *key, const char *norm)
{
	if (lh_table_lookup_entry(id->gpus, key)) /* first writer wins */
		return;
	lh_table_insert(id->gpus, strdup_or_die(key), strdup_or_die(norm));
}

void identity_learn_gpu(struct identity *id, int node, const char *gpu, const char *pid, const char *pci)
{
	char key[96], norm[32];

	if (node < 0 || !pci || !pci_normalise(pci, norm, sizeof(norm)))
		return;
	if (gpu) {
		snprintf(key, sizeof(key), "%d/g%s", node, gpu);
		learn_gpu_key(id, key, norm);
	}
	if (pid) {
		snprintf(key, sizeof(key), "%d/p%s", node, pid);
		learn_gpu_key(id, key, norm);
	}
}

const char *identity_gpu_pci(const struct identity *id, int node, const char *gpu, long pid)
{
	char key[96];

	if (node < 0)
		return NULL;
	for (int pass = 0; pass < 2; pass++) {
		if (pass == 0 && pid > 0)
			snprintf(key, sizeof(key), "%d/p%ld", node, pid);
		else if (pass == 1 && gpu)
			snprintf(key, sizeof(key), "%d/g%s", node, gpu);
		else
			continue;
		void *v;
		if (lh_table_lookup_ex(id->gpus, key, &v))
			return v;
	}
	return NULL;
}

void identity_job_gpus(const struct identity *id, struct strlist *devices, struct strlist *pids, int n)
{
	struct lh_entry *e;

	lh_foreach (id->gpus, e) {
		const char *k = lh_entry_k(e), *p = strchr(k, '/'),
			   *v = lh_entry_v(e); /* "node/gGPU", "node/pPID" */
		int node = atoi(k);

		if (node < 0 || node >= n)
			continue;
		if (!strlist_has(&devices[node], v))
			strlist_add(&devices[node], v);
		if (p && p[1] == 'p' && !strlist_has(&pids[node], p + 2))
			strlist_add(&pids[node], p + 2);
	}
}

bool pci_normalise(const char *in, char *out, size_t outlen)
{
	unsigned long dom = 0, bus, dev;
	char *end;
	const char *s = in;

	if (!s)
		return false;
	if (!strncmp(s, "PCI:", 4))
		s += 4;
	/* NCCL busId: the hex digits of dddd:bb:dd.f as one number, so
	 * 61000 = 0000:61:00.0 (function 4 bits, device 8, bus 8, domain) */
	if (!strchr(s, ':')) {
		unsigned long v = strtoul(s, &end, 16);

		if (end == s || *end || strlen(s) < 4)
			return false;
		dom = v >> 20;
		bus = (v >> 12) & 0xff;
		dev = (v >> 4) & 0xff;
		snprintf(out, outlen, "%04lx:%02lx:%02lx", dom, bus, dev);
		return true;
	}
	unsigned long a = strtoul(s, &end, 16);
	if (end == s || *end != ':')
		return false;
	const char *p = end + 1;
	unsigned long b = strtoul(p, &end, 16);
	if (end == p)
		return false;
	if (*end == ':') { /* dom:bus:dev[.fn] */
		p = end + 1;
		dev = strtoul(p, &end, 16);
		if (end == p)
			return false;
		dom = a;
		bus = b;
	} else { /* bus:dev[.fn] */
		bus = a;
		dev = b;
	}
	if (*end && *end != '.' && *end != ')' && *end != ' ')
		return false;
	if (bus > 0xff || dev > 0x1f || dom > 0xffffffffUL)
		return false;
	snprintf(out, outlen, "%04lx:%02lx:%02lx", dom & 0xffff, bus, dev);
	return true;
}

static bool add_name(void *arg, const char *name)
{
	strlist_add(arg, name);
	return true;
}

bool hostlist_expand(const char *list, struct strlist *out, int max)
{
	return hostlist_each(list, max, add_name, out) && out->n > 0;
}
