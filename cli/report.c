/* attrib report: hours lost, the GPU-hours failed jobs cost, from the
 * store (store/report.h computes it; this file only prints it: a table,
 * CSV of the groups, or the JSON object as it is). */
#include <stdlib.h>
#include <string.h>
#include "command.h"
#include "report.h"

void usage_report(FILE *out)
{
	fputs("Usage: attrib report [--since AGE|DATE] [--until AGE|DATE] [--by DIMENSION]\n"
	      "                     [--json|--csv] [--config FILE]\n"
	      "\n"
	      "Hours lost: the GPU-hours that failed jobs cost, (end - start) x GPUs\n"
	      "of each stored diagnosis whose outcome is Fail and whose job ended in\n"
	      "the window (every attempt of a requeued job counts: each ran).  Shows\n"
	      "the total, its share by domain (infra, user, scheduler, unknown), the\n"
	      "groups of one dimension, the culprit nodes and switches that cost most\n"
	      "and the hours per ISO week.  Jobs whose record has no GPU count are\n"
	      "counted and said, not costed.  An infrastructure verdict whose cause\n"
	      "only the job's own output (or files anyone may write) tells of counts\n"
	      "as unknown, and blames no culprit node or switch here.\n"
	      "\n"
	      "  --since AGE|DATE  jobs that ended in the last AGE (Ns, Nm, Nh, Nd;\n"
	      "                    default 30d) or since DATE (YYYY-MM-DD, UTC)\n"
	      "  --until AGE|DATE  and before AGE ago or DATE (default: now)\n"
	      "  --by DIMENSION    the groups: " REPORT_BY_LIST "\n"
	      "                    (default sub_domain); a job with several culprit\n"
	      "                    nodes shares its hours among them\n"
	      "  --json            the report as one JSON object (doc/formats.md)\n"
	      "  --csv             the groups as CSV: DIMENSION,jobs,gpu_hours,share\n"
	      "Exit status: 0 printed (maybe nothing lost); 1 usage; 4 the store cannot\n"
	      "be read.\n",
	      out);
}

/* a stored name for a terminal: printable ASCII, at most max bytes */
static const char *tty(const char *s, char *buf, size_t max)
{
	size_t n = 0;

	for (; s && *s && n + 1 < max; s++)
		buf[n++] = (*s >= 0x20 && *s < 0x7f) ? *s : '?';
	buf[n] = 0;
	return buf;
}

static json_object *get(json_object *o, const char *k)
{
	json_object *v = NULL;

	json_object_object_get_ex(o, k, &v);
	return v;
}

static double num(json_object *o, const char *k)
{
	return json_object_get_double(get(o, k));
}

static const char *str(json_object *o, const char *k)
{
	return json_object_get_string(get(o, k));
}

/* one CSV field: quoted when it holds a comma, a quote or a line end;
 * a leading = + - @ is prefixed with ' (a spreadsheet would run it) */
static void csv_field(const char *s)
{
	bool quote = strpbrk(s, ",\"\r\n") != NULL;

	if (quote)
		putchar('"');
	if (*s && strchr("=+-@", *s))
		putchar('\'');
	for (; *s; s++) {
		if (*s == '"')
			putchar('"');
		putchar(*s);
	}
	if (quote)
		putchar('"');
}

static void print_csv(json_object *r)
{
	json_object *g = get(r, "groups");

	printf("%s,jobs,gpu_hours,share\n", str(r, "by"));
	for (size_t i = 0; i < json_object_array_length(g); i++) {
		json_object *e = json_object_array_get_idx(g, i);

		csv_field(str(e, "key"));
		printf(",%lld,%.3f,%.3f\n", (long long)json_object_get_int64(get(e, "jobs")),
		       num(e, "gpu_hours"), num(e, "share"));
	}
}

static int pct(double part, double total)
{
	return total > 0 ? (int)(100 * part / total + 0.5) : 0;
}

/* a table of groups: name, jobs, GPU-hours and, with total, the share */
static void print_table(const char *title, json_object *a, const char *name, double total)
{
	char buf[64];

	if (!json_object_array_length(a))
		return;
	printf("\n%-32s %6s %11s%s\n", title, "JOBS", "GPU-HOURS", total >= 0 ? "  SHARE" : "");
	for (size_t i = 0; i < json_object_array_length(a); i++) {
		json_object *e = json_object_array_get_idx(a, i);

		printf("%-32s %6lld %11.1f", tty(str(e, name), buf, 33),
		       (long long)json_object_get_int64(get(e, "jobs")), num(e, "gpu_hours"));
		if (total >= 0)
			printf("  %4d%%", pct(num(e, "gpu_hours"), total));
		putchar('\n');
	}
}

static void print_text(json_object *r)
{
	static const char *const domains[] = { "infra", "user", "scheduler", "unknown" };
	json_object *d = get(r, "domains"), *w = get(r, "weeks");
	double total = num(r, "gpu_hours");
	long long unknown = json_object_get_int64(get(r, "unknown_gpus"));
	char by[64], head[80];

	printf("GPU-hours lost to failed jobs, %s to %s\n", str(r, "since"), str(r, "until"));
	printf("  %.1f GPU-hours in %lld failed job attempts", total,
	       (long long)json_object_get_int64(get(r, "jobs")));
	if (unknown)
		printf(" (%lld without a GPU count: not costed)", unknown);
	printf("\n ");
	for (size_t i = 0; i < 4; i++)
		printf(" %s %.1f (%d%%)", domains[i], num(d, domains[i]), pct(num(d, domains[i]), total));
	putchar('\n');
	if (json_object_get_int64(get(get(r, "unvouched"), "jobs")))
		printf("  (unknown holds %.1f GPU-hours of %lld infrastructure verdicts only the jobs'\n"
		       "  own output or files anyone may write tell of: not counted as infra)\n",
		       num(get(r, "unvouched"), "gpu_hours"),
		       (long long)json_object_get_int64(get(get(r, "unvouched"), "jobs")));
	snprintf(head, sizeof(head), "BY %s", tty(str(r, "by"), by, sizeof(by)));
	for (char *p = head; *p; p++)
		*p = *p >= 'a' && *p <= 'z' ? (char)(*p - 'a' + 'A') : *p;
	print_table(head, get(r, "groups"), "key", total);
	print_table("TOP CULPRIT NODES", get(r, "top_nodes"), "node", -1);
	print_table("TOP CULPRIT SWITCHES", get(r, "top_switches"), "switch", -1);
	if (json_object_array_length(w))
		printf("\n%-32s %18s\n", "WEEK", "GPU-HOURS");
	for (size_t i = 0; i < json_object_array_length(w); i++) {
		json_object *e = json_object_array_get_idx(w, i);

		printf("%-32s %18.1f\n", str(e, "week"), num(e, "gpu_hours"));
	}
}

int cmd_report(struct ctx *x)
{
	char err[256];
	json_object *r;

	if (x->json && x->csv) {
		fprintf(stderr, "attrib: --json or --csv, not both\n");
		usage_report(stderr);
		return EXIT_USAGE;
	}
	if (!(r = store_report_json(x->s, x->f.since, x->until, x->by, err, sizeof(err)))) {
		fprintf(stderr, "attrib: %s\n", err);
		return strncmp(err, "cannot group by", 15) ? EXIT_STORE : EXIT_USAGE;
	}
	if (x->json)
		printf("%s\n",
		       json_object_to_json_string_ext(r,
						      JSON_C_TO_STRING_PRETTY |
							      JSON_C_TO_STRING_NOSLASHESCAPE));
	else if (x->csv)
		print_csv(r);
	else
		print_text(r);
	json_object_put(r);
	return 0;
}
