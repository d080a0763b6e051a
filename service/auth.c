/* MUNGE credentials of bundles.  attrib-collect encodes, as root, the payload
 * "attrib-bundle:v1:JOBID:NODE:<sha256 hex of the body>"; a bundle is taken
 * only when munged decodes its credential (not expired, rewound or
 * replayed), the encoding uid is 0 and the payload names this body.  A
 * node's health report (attrib-collect --health) the same way, with the
 * payload "attrib-health:v1:NODE:<sha256 hex of the body>". */
#include <munge.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "auth.h"
#include "contract.h"
#include "metrics.h"
#include "sha256.h"

#define CRED_MAX 4096

const char *auth_socket(void)
{
	const char *s = getenv("ATTRIB_MUNGE_SOCKET");

	return s && *s ? s : NULL;
}

enum reject_reason auth_decode_kind(const char *cred, bool health, struct auth_claim *c, char *why,
				    size_t whylen)
{
	munge_ctx_t ctx;
	munge_err_t e;
	struct bundle_claim bc;
	void *payload = NULL;
	int len = 0;
	uid_t uid = (uid_t)-1;
	gid_t gid = (gid_t)-1;
	enum reject_reason r;

	memset(c, 0, sizeof(*c));
	if (!cred || !*cred) {
		snprintf(why, whylen, "no X-Attrib-Credential header");
		return REJ_NO_CREDENTIAL;
	}
	if (strlen(cred) > CRED_MAX) {
		snprintf(why, whylen, "credential longer than %d bytes", CRED_MAX);
		return REJ_INVALID;
	}
	if (!(ctx = munge_ctx_create())) {
		snprintf(why, whylen, "cannot create a MUNGE context");
		return REJ_INTERNAL;
	}
	if (auth_socket() && munge_ctx_set(ctx, MUNGE_OPT_SOCKET, auth_socket()) != EMUNGE_SUCCESS) {
		snprintf(why, whylen, "cannot use MUNGE socket %s", auth_socket());
		munge_ctx_destroy(ctx);
		return REJ_INTERNAL;
	}
	e = munge_decode(cred, ctx, &payload, &len, &uid, &gid);
	switch (e) {
	case EMUNGE_SUCCESS:
		r = AUTH_OK;
		break;
	case EMUNGE_CRED_EXPIRED:
		r = REJ_EXPIRED;
		break;
	case EMUNGE_CRED_REWOUND:
		r = REJ_REWOUND;
		break;
	case EMUNGE_CRED_REPLAYED:
		r = REJ_REPLAYED;
		break;
	case EMUNGE_SOCKET:
	case EMUNGE_TIMEOUT:
	case EMUNGE_NO_MEMORY:
	case EMUNGE_SNAFU:
		r = REJ_MUNGE_DOWN;
		break;
	default:
		r = REJ_INVALID;
		break;
	}
	if (r != AUTH_OK) {
		snprintf(why, whylen, "%s",
			 munge_ctx_strerror(ctx) ? munge_ctx_strerror(ctx) : munge_strerror(e));
		/* a root credential out of time (a node's clock, a bundle held
		 * past munged's TTL) still names its job and node: the refusal
		 * is kept for that job's diagnosis (http.c) */
		if ((r == REJ_EXPIRED || r == REJ_REWOUND) && uid == 0 && payload && !health &&
		    !bundle_payload_parse(payload, len, &bc)) {
			memcpy(c->job_id, bc.job_id, sizeof(c->job_id));
			memcpy(c->node, bc.node, sizeof(c->node));
		}
	} else if (uid != 0) {
		snprintf(why, whylen, "credential of uid %u, not root", (unsigned)uid);
		r = REJ_UID;
	} else if (!payload ||
		   (health ? health_payload_parse(payload, len, &bc)
			   : bundle_payload_parse(payload, len, &bc))) {
		snprintf(why, whylen, "payload is not %s",
			 health ? HEALTH_PAYLOAD_PREFIX "NODE:SHA256"
				: BUNDLE_PAYLOAD_PREFIX "JOBID:NODE:SHA256");
		r = REJ_PAYLOAD;
	} else {
		memcpy(c->job_id, bc.job_id, sizeof(c->job_id));
		memcpy(c->node, bc.node, sizeof(c->node));
		memcpy(c->sha256, bc.sha256, sizeof(c->sha256));
	}
	c->uid = uid;
	c->gid = gid;
	/* the address of the host that encoded it: http.c checks it is the
	 * node's own (the payload's node name alone is the sender's word) */
	if (r == AUTH_OK && munge_ctx_get(ctx, MUNGE_OPT_ADDR4, &c->origin) != EMUNGE_SUCCESS) {
		snprintf(why, whylen, "the credential has no origin address");
		r = REJ_ORIGIN;
	}
	free(payload);
	munge_ctx_destroy(ctx);
	return r;
}

enum reject_reason auth_decode(const char *cred, struct auth_claim *c, char *why, size_t whylen)
{
	return auth_decode_kind(cred, false, c, why, whylen);
}
