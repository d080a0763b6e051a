/* Who may talk to the service, and which address each node sends from.
 *
 * AllowFrom names who may connect at all: "slurm" (every address of every
 * node of Slurm's node table, NodeAddr and NodeHostname resolved, and
 * NodeAddresses) and addresses or CIDR ranges.  libmicrohttpd asks before
 * it reads a byte (http.c), so a stranger costs an accept and a close.
 *
 * A bundle's MUNGE credential carries the address of the host whose munged
 * encoded it; it must be an address of the node the credential names, or
 * a node's root could send (and overwrite) any other node's evidence.
 *
 * The table is rebuilt every NodeTableRefresh seconds by a thread of its
 * own (slurm_load_node and DNS may take seconds; nobody waits for them)
 * and swapped in whole under a lock the HTTP threads only read. */
#include <arpa/inet.h>
#include <netdb.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include "conf.h"
#include "log.h"
#include "nodetable.h"
#include "slurmapi.h"
#include "util.h"

struct node_addr {
	char name[NAME_MAX_LEN + 1];
	struct in6_addr a; /* IPv4 as ::ffff:a.b.c.d */
};

struct net {
	struct in6_addr a;
	int prefix;
};

struct table {
	struct node_addr *e;
	size_t n;
};

static pthread_rwlock_t lock = PTHREAD_RWLOCK_INITIALIZER;
static struct table cur, fixed; /* Slurm's (replaced on each good load), NodeAddresses */
static struct allow_list allow; /* AllowFrom */
static bool use_slurm;
static char **statics;
static int nstatics;
static long refresh;

static pthread_t thr;
static bool thr_started, thr_stop;
static pthread_mutex_t stop_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t stop_cond = PTHREAD_COND_INITIALIZER;

static void to_v6(const struct sockaddr *sa, struct in6_addr *out)
{
	memset(out, 0, sizeof(*out));
	if (sa->sa_family == AF_INET) {
		out->s6_addr[10] = out->s6_addr[11] = 0xff;
		memcpy(&out->s6_addr[12], &((const struct sockaddr_in *)sa)->sin_addr, 4);
	} else if (sa->sa_family == AF_INET6) {
		*out = ((const struct sockaddr_in6 *)sa)->sin6_addr;
	}
}

/* "10.1.0.0/16", "::1", "127.0.0.1": -1 when it is neither */
static int parse_net(const char *s, struct net *n)
{
	char buf[128], *slash;
	struct in_addr a4;
	long bits = -1;

	if (strlen(s) >= sizeof(buf))
		return -1;
	strcpy(buf, s);
	if ((slash = strchr(buf, '/'))) {
		char *end;

		*slash = 0;
		bits = strtol(slash + 1, &end, 10);
		if (*end || end == slash + 1 || bits < 0)
			return -1;
	}
	memset(n, 0, sizeof(*n));
	if (inet_pton(AF_INET, buf, &a4) == 1) {
		if (bits > 32)
			return -1;
		n->a.s6_addr[10] = n->a.s6_addr[11] = 0xff;
		memcpy(&n->a.s6_addr[12], &a4, 4);
		n->prefix = (bits < 0 ? 32 : (int)bits) + 96;
		return 0;
	}
	if (inet_pton(AF_INET6, buf, &n->a) == 1 && bits <= 128) {
		n->prefix = bits < 0 ? 128 : (int)bits;
		return 0;
	}
	return -1;
}

static bool in_net(const struct in6_addr *a, const struct net *n)
{
	int full = n->prefix / 8, rest = n->prefix % 8;

	if (memcmp(a->s6_addr, n->a.s6_addr, full))
		return false;
	return !rest || ((a->s6_addr[full] ^ n->a.s6_addr[full]) & (0xff << (8 - rest))) == 0;
}

/* every address of host into t under name (a failure is only logged: one
 * unresolvable node must not empty the table) */
static void add_host(struct table *t, const char *name, const char *host)
{
	struct addrinfo hints = { .ai_socktype = SOCK_STREAM }, *ai = NULL;
	int rc;

	if (!name || !*name || !host || !*host || strlen(name) > NAME_MAX_LEN)
		return;
	if ((rc = getaddrinfo(host, NULL, &hints, &ai))) {
		log_msg(LOGL_DEBUG, "node table: %s (%s): %s", name, host, gai_strerror(rc));
		return;
	}
	for (struct addrinfo *p = ai; p; p = p->ai_next) {
		struct node_addr *e;

		if (p->ai_family != AF_INET && p->ai_family != AF_INET6)
			continue;
		e = realloc(t->e, (t->n + 1) * sizeof(*t->e));
		if (!e)
			break;
		t->e = e;
		snprintf(e[t->n].name, sizeof(e[t->n].name), "%s", name);
		to_v6(p->ai_addr, &e[t->n].a);
		t->n++;
	}
	freeaddrinfo(ai);
}

static struct table build_fixed(void)
{
	struct table t = { NULL, 0 };

	for (int i = 0; i < nstatics; i++) {
		const char *eq = strchr(statics[i], '=');
		char name[NAME_MAX_LEN + 1];

		if (eq && (size_t)(eq - statics[i]) < sizeof(name)) {
			memcpy(name, statics[i], eq - statics[i]);
			name[eq - statics[i]] = 0;
			add_host(&t, name, eq + 1);
		}
	}
	return t;
}

static void add_node(const char *name, const char *addr, const char *hostname, void *t)
{
	add_host(t, name, addr ? addr : name);
	if (hostname && (!addr || strcmp(hostname, addr)))
		add_host(t, name, hostname);
}

/* Slurm's node table; false when slurmctld did not answer */
static bool build_slurm(struct table *t)
{
	struct node_state_map *ns;
	char err[256];

	t->e = NULL;
	t->n = 0;
	if (!(ns = node_states_load(err, sizeof(err)))) {
		static bool told;

		log_msg(told ? LOGL_DEBUG : LOGL_WARNING, "node table: %s", err);
		told = true;
		return false;
	}
	node_states_each(ns, add_node, t);
	node_states_free(ns);
	return true;
}

void nodetable_refresh(void)
{
	struct table t, f = build_fixed(), old, oldf;
	bool got = use_slurm && build_slurm(&t);

	pthread_rwlock_wrlock(&lock);
	oldf = fixed;
	fixed = f;
	old = cur;
	if (got)
		cur = t; /* else the last good one stays: slurmctld may be restarting */
	pthread_rwlock_unlock(&lock);
	free(oldf.e);
	if (got)
		free(old.e);
	log_msg(LOGL_DEBUG, "node table: %zu addresses from Slurm, %zu from NodeAddresses", got ? t.n : old.n,
		f.n);
}

static bool has(const struct table *t, const char *name, const struct in6_addr *a, bool *known)
{
	for (size_t i = 0; i < t->n; i++)
		if (!name || !strcmp(t->e[i].name, name)) {
			if (known)
				*known = true;
			if (!memcmp(a, &t->e[i].a, sizeof(*a)))
				return true;
		}
	return false;
}

static void *refresher(void *p)
{
	(void)p;
	for (;;) {
		struct timespec ts;
		bool stop;

		pthread_mutex_lock(&stop_lock);
		if (!thr_stop) {
			clock_gettime(CLOCK_REALTIME, &ts);
			ts.tv_sec += refresh;
			pthread_cond_timedwait(&stop_cond, &stop_lock, &ts);
		}
		stop = thr_stop;
		pthread_mutex_unlock(&stop_lock);
		if (stop)
			return NULL;
		nodetable_refresh();
	}
}

int allow_list_set(struct allow_list *a, const char *key, char *const *items, int n, bool slurm_ok, char *err,
		   size_t errlen)
{
	allow_list_free(a);
	for (int i = 0; i < n; i++) {
		struct net net, *more;

		if (!strcmp(items[i], "slurm")) {
			if (!slurm_ok) {
				snprintf(err, errlen,
					 "%s: slurm (the nodes) is not for this list: name addresses or "
					 "CIDR ranges",
					 key);
				allow_list_free(a);
				return -1;
			}
			a->slurm = true;
			continue;
		}
		if (parse_net(items[i], &net) < 0) {
			snprintf(err, errlen, "%s: %s is not %s", key, items[i],
				 slurm_ok ? "an address, a CIDR range or slurm"
					  : "an address or a CIDR range");
			allow_list_free(a);
			return -1;
		}
		if (!(more = realloc(a->nets, (a->n + 1) * sizeof(*a->nets)))) {
			snprintf(err, errlen, "%s: out of memory", key);
			allow_list_free(a);
			return -1;
		}
		a->nets = more;
		a->nets[a->n++] = net;
	}
	return 0;
}

void allow_list_free(struct allow_list *a)
{
	free(a->nets);
	memset(a, 0, sizeof(*a));
}

void allow_list_add_self(struct allow_list *a, const struct sockaddr *sa)
{
	struct net n;
	struct net *more;

	if (!sa || (sa->sa_family != AF_INET && sa->sa_family != AF_INET6))
		return;
	to_v6(sa, &n.a);
	n.prefix = 128;
	/* a wildcard address (0.0.0.0, ::) names no host */
	if (!memcmp(&n.a, &in6addr_any, sizeof(n.a)) ||
	    (n.a.s6_addr[10] == 0xff && !n.a.s6_addr[12] && !n.a.s6_addr[13] && !n.a.s6_addr[14] &&
	     !n.a.s6_addr[15]))
		return;
	if (!(more = realloc(a->nets, (a->n + 1) * sizeof(*a->nets))))
		return;
	a->nets = more;
	a->nets[a->n++] = n;
}

bool allow_list_has(const struct allow_list *a, const struct sockaddr *sa)
{
	struct in6_addr v6;
	bool ok = false;

	if (!sa || (sa->sa_family != AF_INET && sa->sa_family != AF_INET6))
		return false;
	to_v6(sa, &v6);
	for (size_t i = 0; i < a->n && !ok; i++)
		ok = in_net(&v6, &a->nets[i]);
	if (!ok && a->slurm) {
		pthread_rwlock_rdlock(&lock);
		ok = has(&cur, NULL, &v6, NULL) || has(&fixed, NULL, &v6, NULL);
		pthread_rwlock_unlock(&lock);
	}
	return ok;
}

/* AllowFrom and NodeAddresses of conf, checked; the table built once */
static int configure(const struct attrib_config *conf, bool slurm, char *err, size_t errlen)
{
	if (allow_list_set(&allow, "AllowFrom", conf->allow_from, conf->nallow_from, true, err, errlen) < 0)
		return -1;
	for (int i = 0; i < conf->nnode_addresses; i++) {
		const char *eq = strchr(conf->node_addresses[i], '=');

		if (!eq || eq == conf->node_addresses[i] || !eq[1]) {
			snprintf(err, errlen, "NodeAddresses: %s is not NAME=ADDRESS",
				 conf->node_addresses[i]);
			return -1;
		}
	}
	statics = conf->node_addresses;
	nstatics = conf->nnode_addresses;
	use_slurm = slurm;
	refresh = conf->node_table_refresh > 0 ? conf->node_table_refresh : 300;
	/* the first table before the first connection; slurm_init here, before
	 * any other thread could call into libslurm */
	nodetable_refresh();
	return 0;
}

int nodetable_load(const struct attrib_config *conf, bool slurm, char *err, size_t errlen)
{
	return configure(conf, slurm, err, errlen);
}

int nodetable_start(const struct attrib_config *conf, bool slurm, char *err, size_t errlen)
{
	if (configure(conf, slurm, err, errlen) < 0)
		return -1;
	thr_stop = false;
	if (slurm || nstatics) {
		if (pthread_create(&thr, NULL, refresher, NULL)) {
			snprintf(err, errlen, "cannot start the node table thread");
			return -1;
		}
		thr_started = true;
	}
	return 0;
}

void nodetable_stop(void)
{
	if (thr_started) {
		pthread_mutex_lock(&stop_lock);
		thr_stop = true;
		pthread_cond_signal(&stop_cond);
		pthread_mutex_unlock(&stop_lock);
		pthread_join(thr, NULL);
		thr_started = false;
	}
	pthread_rwlock_wrlock(&lock);
	free(cur.e);
	free(fixed.e);
	cur.e = fixed.e = NULL;
	cur.n = fixed.n = 0;
	pthread_rwlock_unlock(&lock);
	allow_list_free(&allow);
	statics = NULL;
	nstatics = 0;
}

static void each_of(const struct table *t, const char *from, const struct table *other,
		    void (*fn)(const char *, const char *, const char *, void *), void *arg)
{
	for (size_t i = 0; i < t->n; i++) {
		char a[INET6_ADDRSTRLEN];
		bool seen = false;

		for (size_t k = 0; k < i && !seen; k++)
			seen = !strcmp(t->e[k].name, t->e[i].name) &&
				!memcmp(&t->e[k].a, &t->e[i].a, sizeof(t->e[i].a));
		for (size_t k = 0; other && k < other->n && !seen; k++)
			seen = !strcmp(other->e[k].name, t->e[i].name) &&
				!memcmp(&other->e[k].a, &t->e[i].a, sizeof(t->e[i].a));
		if (seen)
			continue;
		if (IN6_IS_ADDR_V4MAPPED(&t->e[i].a))
			inet_ntop(AF_INET, &t->e[i].a.s6_addr[12], a, sizeof(a));
		else
			inet_ntop(AF_INET6, &t->e[i].a, a, sizeof(a));
		fn(t->e[i].name, a, from, arg);
	}
}

void nodetable_each(void (*fn)(const char *node, const char *addr, const char *from, void *arg), void *arg)
{
	pthread_rwlock_rdlock(&lock);
	each_of(&fixed, "NodeAddresses", NULL, fn, arg);
	each_of(&cur, "Slurm's node table", &fixed, fn, arg);
	pthread_rwlock_unlock(&lock);
}

void nodetable_allow_self(const struct sockaddr *sa)
{
	allow_list_add_self(&allow, sa);
}

bool nodetable_allowed(const struct sockaddr *sa)
{
	return allow_list_has(&allow, sa);
}

int nodetable_origin_ok(const char *node, const struct in_addr *origin, char *why, size_t whylen)
{
	struct sockaddr_in sin = { .sin_family = AF_INET, .sin_addr = *origin };
	struct in6_addr a;
	bool known = false, ok = false;
	char o[INET_ADDRSTRLEN];

	inet_ntop(AF_INET, origin, o, sizeof(o));
	to_v6((struct sockaddr *)&sin, &a);
	pthread_rwlock_rdlock(&lock);
	ok = has(&cur, node, &a, &known) || has(&fixed, node, &a, &known);
	pthread_rwlock_unlock(&lock);
	if (!known) {
		/* not in the table (yet): the name as DNS resolves it */
		struct table t = { NULL, 0 };

		add_host(&t, node, node);
		for (size_t i = 0; i < t.n && !ok; i++)
			ok = !memcmp(&a, &t.e[i].a, sizeof(a));
		known = t.n > 0;
		free(t.e);
	}
	/* the coverage entry of the job (casebuild) and attribd --check say
	 * this to the administrator whose munged puts the wrong address */
	if (!ok && known)
		snprintf(why, whylen, "credential made on %s, not an address of %s; see munged --origin", o,
			 node);
	else if (!ok)
		snprintf(why, whylen,
			 "credential made on %s, and %s has no known address (not in Slurm's node table "
			 "nor NodeAddresses, and DNS does not resolve it)",
			 o, node);
	return ok;
}
