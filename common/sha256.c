/* SHA-256 in hex: see sha256.h. */
#include <openssl/evp.h>
#include <stdio.h>
#include <stdlib.h>
#include "sha256.h"

void sha256_init(struct sha256 *s)
{
	s->ctx = EVP_MD_CTX_new();
	if (!s->ctx || !EVP_DigestInit_ex(s->ctx, EVP_sha256(), NULL))
		abort();
}

void sha256_update(struct sha256 *s, const void *data, size_t len)
{
	if (!EVP_DigestUpdate(s->ctx, data, len))
		abort();
}

void sha256_final_hex(struct sha256 *s, char out[65])
{
	unsigned char md[EVP_MAX_MD_SIZE];
	unsigned n = 0;

	if (!EVP_DigestFinal_ex(s->ctx, md, &n) || n != 32)
		abort();
	EVP_MD_CTX_free(s->ctx);
	s->ctx = NULL;
	for (unsigned i = 0; i < 32; i++)
		snprintf(out + 2 * i, 3, "%02x", md[i]);
}

/* For a digest abandoned before sha256_final_hex (an upload cut off). */
void sha256_free(struct sha256 *s)
{
	EVP_MD_CTX_free(s->ctx);
	s->ctx = NULL;
}

void sha256_hex(const void *data, size_t len, char out[65])
{
	struct sha256 s;

	sha256_init(&s);
	sha256_update(&s, data, len);
	sha256_final_hex(&s, out);
}
