/* attribd, nodetable.c: who may connect, and each node's addresses. */
#ifndef ATTRIB_NODETABLE_H
#define ATTRIB_NODETABLE_H

#include <stdbool.h>
#include <stddef.h>
#include "conf.h"

struct sockaddr;
struct in_addr;
struct net;
/* Who may connect to a server: addresses and CIDR ranges, and every
 * address of the node table (slurm) where the list admits it. */
struct allow_list {
	struct net *nets;
	size_t n;
	bool slurm;
};
/* The n items of key (replacing what a held); "slurm" only when slurm_ok.
 * -1 with a message for a bad item. */
int allow_list_set(struct allow_list *a, const char *key, char *const *items, int n, bool slurm_ok, char *err,
		   size_t errlen);
/* The address a server listens on, when it names one (not 0.0.0.0 or ::):
 * a connection from it comes from this host.  Before the server starts. */
void allow_list_add_self(struct allow_list *a, const struct sockaddr *sa);
bool allow_list_has(const struct allow_list *a, const struct sockaddr *sa);
void allow_list_free(struct allow_list *a);
/* AllowFrom and NodeAddresses of conf, and Slurm's node table when slurm
 * (refreshed every NodeTableRefresh by a thread of its own).  conf must
 * outlive nodetable_stop.  -1 with a message for a bad entry. */
int nodetable_start(const struct attrib_config *conf, bool slurm, char *err, size_t errlen);
/* The same, the table built once, without the thread (attribd --check). */
int nodetable_load(const struct attrib_config *conf, bool slurm, char *err, size_t errlen);
void nodetable_stop(void);
/* Each (node, address) the table holds, once, NodeAddresses' first; from
 * names where it came from ("NodeAddresses", "Slurm's node table"). */
void nodetable_each(void (*fn)(const char *node, const char *addr, const char *from, void *arg), void *arg);
/* Rebuilds the table now (the thread does it every NodeTableRefresh). */
void nodetable_refresh(void);
/* The address the service listens on, when it names one: a connection
 * from it comes from this host (an administrator's curl), allowed too.
 * Before the server starts. */
void nodetable_allow_self(const struct sockaddr *sa);
/* May this address connect?  (AllowFrom) */
bool nodetable_allowed(const struct sockaddr *sa);
/* Is origin (a MUNGE credential's) an address of node?  A node the table
 * does not list is resolved by DNS.  false with why ("credential made on
 * A, not an address of NODE; see munged --origin"). */
int nodetable_origin_ok(const char *node, const struct in_addr *origin, char *why, size_t whylen);

#endif
