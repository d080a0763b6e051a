/* The one write of the dashboard's address: POST /api/v1/jobs/ID/label,
 * with LabelTokenFile's token (dashboard.c checks it). */
#ifndef ATTRIB_LABELAPI_H
#define ATTRIB_LABELAPI_H

#include <stddef.h>
#include "attrib.h"

/* The label of body ({"confirm": true} or {"sub_domain", "culprit_nodes",
 * "cause"}, "note", "attempt" (default the latest), "by") recorded for
 * job id in the store at db (a connection of its own, read-write): the
 * HTTP status and *out (JSON, the caller frees): 201 and the label as
 * attrib show --json's "label", or 400 / 404 / 500 with {"error"}. */
unsigned label_api(const char *db, const attrib_catalog *cat, const char *id, const char *body, size_t len,
		   long long now, char **out);

#endif
