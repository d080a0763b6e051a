/* A bundle's JSON checked as it streams in, without building it.
 *
 * json-c builds an object per value: a 3 MB bundle of empty objects cost
 * the service about 810 MB, held by the upload's thread until the request
 * ended and then kept by malloc.  This scanner keeps only a stack of the
 * open containers (at most JSON_MAX_DEPTH) and the few top-level strings
 * http.c compares with the credential (schema, job_id, node, the type of
 * files), so an upload costs the same few hundred bytes whatever it holds.
 * It also counts values: the main loop later parses the spooled bundle
 * with json-c (casebuild), and BUNDLE_MAX_VALUES bounds that cost too. */
#include <stdio.h>
#include <string.h>
#include "bundlescan.h"
#include "jsonread.h"

enum { S_VALUE, S_ARR_FIRST, S_OBJ_FIRST, S_KEY, S_COLON, S_AFTER, S_DONE };
enum { N_MINUS, N_ZERO, N_INT, N_DOT, N_FRAC, N_E, N_ESIGN, N_EXP };
enum { K_OTHER, K_SCHEMA, K_JOB, K_NODE, K_FILES };

void bscan_init(struct bscan *b)
{
	memset(b, 0, sizeof(*b));
	b->st = S_VALUE;
}

static int fail(struct bscan *b, const char *msg)
{
	if (!b->err[0])
		snprintf(b->err, sizeof(b->err), "invalid JSON at byte %zu: %s", b->off, msg);
	return -1;
}

static void value_done(struct bscan *b)
{
	b->st = b->depth ? S_AFTER : S_DONE;
}

/* a value starts: counted, and noted when it is a top-level member we keep */
static int value_start(struct bscan *b, char type)
{
	if (++b->values > BUNDLE_MAX_VALUES)
		return fail(b, "more than " BUNDLE_MAX_VALUES_S " values");
	if (b->depth == 1 && b->stack[0] == '{' && b->key == K_FILES)
		b->files_type = type;
	if (b->depth == 0)
		b->top_type = type;
	return 0;
}

static int open_container(struct bscan *b, char c)
{
	if (value_start(b, c) < 0)
		return -1;
	if (b->depth >= JSON_MAX_DEPTH)
		return fail(b, "nesting too deep");
	b->stack[b->depth++] = c;
	b->st = c == '{' ? S_OBJ_FIRST : S_ARR_FIRST;
	return 0;
}

static int close_container(struct bscan *b, char c)
{
	if (!b->depth || b->stack[b->depth - 1] != (c == '}' ? '{' : '['))
		return fail(b, "unbalanced brackets");
	b->depth--;
	value_done(b);
	return 0;
}

static void string_done(struct bscan *b)
{
	b->in_string = false;
	b->cap[b->caplen] = 0;
	if (b->is_key) {
		if (b->depth == 1) {
			b->key = b->cap_bad		    ? K_OTHER
				: !strcmp(b->cap, "schema") ? K_SCHEMA
				: !strcmp(b->cap, "job_id") ? K_JOB
				: !strcmp(b->cap, "node")   ? K_NODE
				: !strcmp(b->cap, "files")  ? K_FILES
							    : K_OTHER;
		}
		b->st = S_COLON;
		return;
	}
	if (b->capturing) {
		/* an escaped or over-long value never equals the credential's */
		char *dst = b->key == K_SCHEMA ? b->schema : b->key == K_JOB ? b->job_id : b->node;

		snprintf(dst, sizeof(b->job_id), "%s", b->cap_bad ? "\x01" : b->cap);
	}
	value_done(b);
}

static void string_start(struct bscan *b, bool key)
{
	b->in_string = true;
	b->is_key = key;
	b->esc = false;
	b->uhex = 0;
	b->caplen = 0;
	b->cap_bad = false;
	b->capturing = !key && b->depth == 1 && b->stack[0] == '{' &&
		(b->key == K_SCHEMA || b->key == K_JOB || b->key == K_NODE);
}

static bool number_step(struct bscan *b, char c)
{
	bool digit = c >= '0' && c <= '9';

	switch (b->nst) {
	case N_MINUS:
		b->nst = c == '0' ? N_ZERO : digit ? N_INT : -1;
		break;
	case N_ZERO:
	case N_INT:
		if (digit && b->nst == N_INT)
			return true;
		b->nst = c == '.' ? N_DOT : c == 'e' || c == 'E' ? N_E : -1;
		break;
	case N_DOT:
	case N_FRAC:
		b->nst = digit ? N_FRAC : b->nst == N_FRAC && (c == 'e' || c == 'E') ? N_E : -1;
		break;
	case N_E:
		b->nst = digit ? N_EXP : c == '+' || c == '-' ? N_ESIGN : -1;
		break;
	case N_ESIGN:
	case N_EXP:
		b->nst = digit ? N_EXP : -1;
		break;
	default:
		b->nst = -1;
	}
	return b->nst >= 0;
}

static int number_end(struct bscan *b)
{
	b->in_number = false;
	if (b->nst != N_ZERO && b->nst != N_INT && b->nst != N_FRAC && b->nst != N_EXP)
		return fail(b, "bad number");
	value_done(b);
	return 0;
}

int bscan_feed(struct bscan *b, const char *data, size_t len)
{
	if (b->err[0])
		return -1;
	for (size_t i = 0; i < len; i++, b->off++) {
		unsigned char c = (unsigned char)data[i];

		if (b->in_string) {
			if (b->uhex) {
				if (!strchr("0123456789abcdefABCDEF", c) || !c)
					return fail(b, "bad \\u escape");
				b->uhex--;
			} else if (b->esc) {
				if (!c || !strchr("\"\\/bfnrtu", c))
					return fail(b, "bad escape");
				b->uhex = c == 'u' ? 4 : 0;
				b->esc = false;
				b->cap_bad = true;
			} else if (c == '\\') {
				b->esc = true;
			} else if (c == '"') {
				string_done(b);
			} else if (c < 0x20) {
				return fail(b, "control character in a string");
			} else if (b->capturing || b->is_key) {
				if (b->caplen + 1 < sizeof(b->cap))
					b->cap[b->caplen++] = c;
				else
					b->cap_bad = true;
			}
			continue;
		}
		if (b->in_number) {
			if (strchr("0123456789+-.eE", c) && c) {
				if (!number_step(b, c))
					return fail(b, "bad number");
				continue;
			}
			if (number_end(b) < 0)
				return -1;
		}
		if (b->lit) {
			if (c != (unsigned char)b->lit[b->litpos])
				return fail(b, "unknown literal");
			if (!b->lit[++b->litpos]) {
				b->lit = NULL;
				value_done(b);
			}
			continue;
		}
		if (c == ' ' || c == '\t' || c == '\r' || c == '\n')
			continue;
		switch (b->st) {
		case S_ARR_FIRST:
			if (c == ']') {
				if (close_container(b, c) < 0)
					return -1;
				break;
			}
			/* fall through */
		case S_VALUE:
			if (c == '{' || c == '[') {
				if (open_container(b, c) < 0)
					return -1;
			} else if (c == '"') {
				if (value_start(b, 's') < 0)
					return -1;
				string_start(b, false);
			} else if (c == '-' || (c >= '0' && c <= '9')) {
				if (value_start(b, 'n') < 0)
					return -1;
				b->in_number = true;
				b->nst = c == '-' ? N_MINUS : c == '0' ? N_ZERO : N_INT;
			} else if (c == 't' || c == 'f' || c == 'n') {
				if (value_start(b, c == 'n' ? 'z' : 'b') < 0)
					return -1;
				b->lit = c == 't' ? "true" : c == 'f' ? "false" : "null";
				b->litpos = 1;
			} else {
				return fail(b, "unexpected character");
			}
			break;
		case S_OBJ_FIRST:
			if (c == '}') {
				if (close_container(b, c) < 0)
					return -1;
				break;
			}
			/* fall through */
		case S_KEY:
			if (c != '"')
				return fail(b, "expected a member name");
			string_start(b, true);
			break;
		case S_COLON:
			if (c != ':')
				return fail(b, "expected ':'");
			b->st = S_VALUE;
			break;
		case S_AFTER:
			if (c == ',')
				b->st = b->stack[b->depth - 1] == '{' ? S_KEY : S_VALUE;
			else if (c == '}' || c == ']') {
				if (close_container(b, c) < 0)
					return -1;
			} else
				return fail(b, "expected ',' or a closing bracket");
			break;
		case S_DONE:
			snprintf(b->err, sizeof(b->err), "trailing data after the bundle");
			return -1;
		}
	}
	return 0;
}

int bscan_end(struct bscan *b)
{
	if (b->err[0])
		return -1;
	if (b->in_number && number_end(b) < 0)
		return -1;
	if (b->st != S_DONE)
		return fail(b, "unexpected end");
	return 0;
}
