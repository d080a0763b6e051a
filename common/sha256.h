/* SHA-256 in hex (OpenSSL libcrypto): it binds a bundle's MUNGE credential
 * to its body (doc/formats.md, "The bundle"): the collector hashes what it
 * sends, the service what it receives, as it streams in. */
#ifndef ATTRIB_SHA256_H
#define ATTRIB_SHA256_H

#include <stddef.h>

struct sha256 {
	struct evp_md_ctx_st *ctx;
};
void sha256_init(struct sha256 *s);
void sha256_update(struct sha256 *s, const void *data, size_t len);
void sha256_final_hex(struct sha256 *s, char out[65]); /* finishes s */
void sha256_free(struct sha256 *s);		       /* abandons s (no-op once finished) */
/* The hex digest of len bytes at data, in one call. */
void sha256_hex(const void *data, size_t len, char out[65]);

#endif
