/* attribd, webhook.c: each stored result POSTed to Webhook. */
#ifndef ATTRIB_WEBHOOK_H
#define ATTRIB_WEBHOOK_H

#include <stddef.h>
#include "conf.h"
#include "store.h"

/* Seconds before the next try after tries failures (5 s doubling to 1 h). */
long webhook_backoff(int tries);
/* Starts the delivery thread when conf->webhook is set (its own connection
 * to db) and arms s, the connection results are stored through.  0 when
 * started or not configured, -1 with a reason. */
int webhook_start(const struct attrib_config *conf, store *s, const char *db, char *err, size_t errlen);
/* A result was stored: deliver now rather than at the next poll. */
void webhook_kick(void);
/* Stops the thread (an ongoing POST is aborted). */
void webhook_stop(void);

#endif
