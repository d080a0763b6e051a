/* attribd, auth.c: MUNGE credentials of bundles. */
#ifndef ATTRIB_AUTH_H
#define ATTRIB_AUTH_H

#include <netinet/in.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>
#include "metrics.h"
#include "util.h"

struct auth_claim {
	char job_id[NAME_MAX_LEN + 1];
	char node[NAME_MAX_LEN + 1];
	char sha256[65];
	uid_t uid;
	gid_t gid;
	struct in_addr origin; /* where munged encoded it (MUNGE_OPT_ADDR4) */
};

/* The socket of munged: $ATTRIB_MUNGE_SOCKET, or libmunge's default. */
const char *auth_socket(void);
/* Decodes cred with munged; on success fills c.  Anything else is a
 * rejection reason (REJ_UID for a valid credential of another user). */
enum reject_reason auth_decode(const char *cred, struct auth_claim *c, char *why, size_t whylen);
/* A bundle's (health false) or a health report's credential. */
enum reject_reason auth_decode_kind(const char *cred, bool health, struct auth_claim *c, char *why,
				    size_t whylen);
#define AUTH_OK REJ_N

#endif
