/* The nodes' health checks (store/health.c, table health_checks), as
 * attrib-collect --health reports them (service/health_intake.c takes them in). */
#ifndef ATTRIB_STORE_HEALTH_H
#define ATTRIB_STORE_HEALTH_H

#include "store.h"

/* One node's health check as attrib-collect --health reported it. */
struct health_row {
	const char *node;
	long long received, checked; /* by the service; on the node (both Unix time) */
	const char *command;	     /* as configured (HealthCheck) */
	int status;		     /* exit status; 128+N: killed by signal N */
	bool timed_out;		     /* HealthCheckTimeout passed: killed */
	bool passed;		     /* status 0, in time */
	long duration_ms;
	const char *output; /* the end of its output, cleaned */
};
/* Kept: the newest HEALTH_KEEP checks of each node. */
#define HEALTH_KEEP 20
int store_add_health(store *s, const struct health_row *h);
/* The node's latest check received at or after since: 1 found (passed and
 * received set), 0 none, -1 on error. */
int store_last_health(store *s, const char *node, long long since, bool *passed, long long *received);
/* The node's checks, newest first, at most limit. */
int store_each_health(store *s, const char *node, int limit, int (*fn)(const struct health_row *h, void *arg),
		      void *arg);

#endif
