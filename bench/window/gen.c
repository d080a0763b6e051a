/* Writes a syslog-format (RFC 3164) file of about SIZE bytes whose lines
 * are spread evenly (by bytes) over SPAN seconds from START (UTC), one kernel or
 * daemon message each, deterministic.  For bench/window/run.sh.
 *
 *   gen FILE SIZE_BYTES START_EPOCH SPAN_SECONDS */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static const char *msgs[] = {
	"kernel: [%lu.%06lu] NVRM: GPU at PCI:0000:%02lx:00: GPU-serial %lu",
	"kernel: [%lu.%06lu] mlx5_core 0000:%02lx:00.0: link state %lu",
	"slurmd[%lu]: launch task StepId=%lu.%lx request from UID:%lu",
	"systemd[1]: Started session-%lu.scope %lu %lx %lu",
	"nv-fabricmanager[%lu]: heartbeat %lu peer %lx seq %lu",
};

int main(int argc, char **argv)
{
	FILE *f;
	unsigned long long size, written = 0;
	unsigned long rnd = 12345;
	time_t start;
	double span;
	static char buf[1 << 20];

	if (argc != 5)
		return fprintf(stderr, "usage: gen FILE SIZE START SPAN\n"), 2;
	size = strtoull(argv[2], NULL, 10);
	start = (time_t)strtoll(argv[3], NULL, 10);
	span = strtod(argv[4], NULL);
	if (!(f = fopen(argv[1], "w")))
		return perror(argv[1]), 1;
	setvbuf(f, buf, _IOFBF, sizeof(buf));
	while (written < size) { /* time in proportion to the bytes written */
		time_t t = start + (time_t)(span * (double)written / (double)size);
		struct tm tm;
		char ts[32];
		int k;

		if (t > start + (time_t)span)
			t = start + (time_t)span;
		gmtime_r(&t, &tm);
		strftime(ts, sizeof(ts), "%b %e %H:%M:%S", &tm);
		rnd = rnd * 6364136223846793005UL + 1442695040888963407UL;
		k = fprintf(f, "%s node-01 ", ts);
		k += fprintf(f, msgs[(rnd >> 33) % 5], (rnd >> 20) % 100000, (rnd >> 7) % 1000000,
			     (rnd >> 40) & 0xff, (rnd >> 11) % 1000000000);
		k += fprintf(f, " pad %0*lu\n", (int)(12 + (rnd >> 50) % 20), rnd % 1000);
		written += (unsigned long long)k;
	}
	return fclose(f) ? (perror(argv[1]), 1) : 0;
}
