/* Abusive HTTP clients for t/service-abuse.sh, loopback only: each
 * connection is bound to its own 127.0.X.Y source address, so one process
 * plays many hosts.
 *
 *   http-attack slow  PORT FIRST_ADDR NADDR PER_ADDR SECONDS
 *       keeps NADDR*PER_ADDR connections sending a request head one byte
 *       every 500 ms (never idle, never complete); a closed one is opened
 *       again; stops after SECONDS.
 *   http-attack burst PORT FIRST_ADDR NADDR PER_ADDR SECONDS
 *       opens NADDR*PER_ADDR connections at once, each sending half a
 *       request head, and holds them for SECONDS without another byte.
 *
 * Prints what it did ("opened N closed-by-server M") and exits 0. */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

static const char head[] = "POST /v1/bundle HTTP/1.1\r\nHost: attrib\r\n"
			   "Content-Type: application/json\r\nContent-Length: 100000\r\n"
			   "X-Attrib-Credential: MUNGE:AwQFAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"
			   "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA:\r\n";

struct c {
	int fd;
	size_t sent;
	struct in_addr src;
};

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static int open_from(struct in_addr src, unsigned port)
{
	struct sockaddr_in s = { .sin_family = AF_INET, .sin_addr = src },
			   d = { .sin_family = AF_INET, .sin_port = htons(port) };
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);

	inet_pton(AF_INET, "127.0.0.1", &d.sin_addr);
	if (fd < 0 || bind(fd, (struct sockaddr *)&s, sizeof(s)) < 0 ||
	    (connect(fd, (struct sockaddr *)&d, sizeof(d)) < 0 && errno != EINPROGRESS)) {
		if (fd >= 0)
			close(fd);
		return -1;
	}
	return fd;
}

/* the server closed it (or refused it)? */
static int closed(int fd)
{
	char b[256];
	ssize_t n = recv(fd, b, sizeof(b), MSG_DONTWAIT);

	return n == 0 || (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != ENOTCONN);
}

int main(int argc, char **argv)
{
	if (argc != 7) {
		fprintf(stderr, "usage: %s slow|burst PORT FIRST_ADDR NADDR PER_ADDR SECONDS\n", argv[0]);
		return 2;
	}
	int slow = !strcmp(argv[1], "slow");
	unsigned port = atoi(argv[2]), naddr = atoi(argv[4]), per = atoi(argv[5]);
	double secs = atof(argv[6]), t0 = now();
	struct in_addr first;
	size_t n = (size_t)naddr * per, opened = 0, lost = 0;
	struct c *cs = calloc(n, sizeof(*cs));

	if (inet_pton(AF_INET, argv[3], &first) != 1 || !cs || !port)
		return 2;
	for (size_t i = 0; i < n; i++) {
		cs[i].src.s_addr = htonl(ntohl(first.s_addr) + (uint32_t)(i / per));
		cs[i].fd = open_from(cs[i].src, port);
		opened += cs[i].fd >= 0;
		if (!slow && cs[i].fd >= 0) {
			/* half a head at once (the connect may still be under way) */
			struct pollfd p = { .fd = cs[i].fd, .events = POLLOUT };

			poll(&p, 1, 100);
			if (send(cs[i].fd, head, sizeof(head) / 2, MSG_NOSIGNAL) > 0)
				cs[i].sent = sizeof(head) / 2;
		}
	}
	while (now() - t0 < secs) {
		for (size_t i = 0; i < n; i++) {
			if (cs[i].fd >= 0 && closed(cs[i].fd)) {
				close(cs[i].fd);
				cs[i].fd = -1;
				lost++;
			}
			if (!slow)
				continue;
			if (cs[i].fd < 0) {
				cs[i].fd = open_from(cs[i].src, port);
				cs[i].sent = 0;
				opened += cs[i].fd >= 0;
				continue;
			}
			if (cs[i].sent < sizeof(head) - 1 &&
			    send(cs[i].fd, head + cs[i].sent, 1, MSG_NOSIGNAL) == 1)
				cs[i].sent++;
		}
		usleep(slow ? 500000 : 200000);
	}
	for (size_t i = 0; i < n; i++)
		if (cs[i].fd >= 0)
			close(cs[i].fd);
	printf("%s: %zu connections from %u addresses: opened %zu, closed by the server %zu\n", argv[1], n,
	       naddr, opened, lost);
	free(cs);
	return 0;
}
