// SPDX-License-Identifier: MIT
/*
 * ctl-send: a raw client for plateaud's control socket (integration tests).
 *
 *   ctl-send [--no-shutdown] [--lines N] [--timeout MS] SOCKET < bytes
 *   ctl-send --flood SOCKET < endless-bytes
 *   ctl-send --ping N SOCKET < one-line
 *
 * Connects to the unix stream socket SOCKET, sends standard input verbatim
 * (NUL bytes, missing newlines and oversize lines included), half-closes
 * the write side unless --no-shutdown, and copies whatever it receives to
 * standard output until the peer closes the connection, N newlines have
 * arrived (--lines), or MS milliseconds pass without any (default 5000).
 * Sending and receiving are interleaved, so a peer that answers and closes
 * in the middle of a long request is seen, not deadlocked on.
 *
 * Exit status: 0 the peer closed (EOF or reset), or --lines were read;
 * 1 timed out with the connection still open; 2 usage, cannot connect or
 * read standard input (the reason on stderr).
 *
 * --flood: a peer that never reads.  Copies standard input to the socket
 * as it comes (blocking), never receiving anything, until the peer closes
 * the connection: then prints "closed after N bytes" and exits 0; exits 1
 * when standard input ends first (the connection still open).
 *
 * --ping N: sends the request on standard input N times on one
 * connection, each once the answer to the one before has arrived, and
 * prints "MS ANSWER" for each: the round trip in milliseconds, without
 * the cost of starting a process.  Exits 1 when an answer does not come
 * within --timeout.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "cleanup.h"

static long long mono_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static int usage(void)
{
	fprintf(stderr,
		"usage: ctl-send [--no-shutdown] [--lines N] [--timeout MS] SOCKET < bytes\n"
		"       ctl-send --flood SOCKET < endless-bytes\n"
		"       ctl-send --ping N [--timeout MS] SOCKET < one-line\n");
	return 2;
}

static int flood(int fd)
{
	unsigned long long sent = 0;
	char buf[4096];

	for (;;) {
		ssize_t n = read(0, buf, sizeof(buf)), off = 0;

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			fprintf(stderr, "ctl-send: standard input ended after %llu bytes\n", sent);
			return 1;
		}
		while (off < n) {
			ssize_t w = send(fd, buf + off, (size_t)(n - off), MSG_NOSIGNAL);

			if (w < 0 && errno == EINTR)
				continue;
			if (w < 0) {
				printf("closed after %llu bytes (%s)\n", sent, strerror(errno));
				return 0;
			}
			off += w;
			sent += (unsigned long long)w;
		}
	}
}

static int ping(int fd, const char *req, size_t len, long n, long timeout_ms)
{
	static char line[1 << 20];

	for (long i = 0; i < n; i++) {
		long long t0 = mono_ms();
		size_t got = 0;

		if (send(fd, req, len, MSG_NOSIGNAL) != (ssize_t)len) {
			fprintf(stderr, "ctl-send: send: %s\n", strerror(errno));
			return 2;
		}
		while (!got || line[got - 1] != '\n') {
			struct pollfd p = {.fd = fd, .events = POLLIN};
			long left = timeout_ms - (long)(mono_ms() - t0);
			ssize_t r;

			if (left <= 0 || poll(&p, 1, (int)left) == 0) {
				fprintf(stderr, "ctl-send: no answer for %ld ms\n", timeout_ms);
				return 1;
			}
			r = recv(fd, line + got, sizeof(line) - 1 - got, 0);
			if (r <= 0) {
				fprintf(stderr, "ctl-send: connection closed while waiting\n");
				return 1;
			}
			got += (size_t)r;
			if (got == sizeof(line) - 1)
				break;
		}
		line[got] = '\0';
		printf("%lld %s", mono_ms() - t0, line);
		fflush(stdout);
	}
	return 0;
}

static char *slurp_stdin(size_t *len)
{
	size_t cap = 65536, n = 0;
	char *buf = malloc(cap);

	while (buf) {
		ssize_t r;

		if (n == cap) {
			char *nb = realloc(buf, cap * 2);

			if (!nb) {
				free(buf);
				return NULL;
			}
			buf = nb;
			cap *= 2;
		}
		r = read(0, buf + n, cap - n);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			free(buf);
			return NULL;
		}
		if (r == 0)
			break;
		n += (size_t)r;
	}
	*len = n;
	return buf;
}

int main(int argc, char **argv)
{
	struct sockaddr_un sa = {.sun_family = AF_UNIX};
	bool shut = true, wr_open = true, flooding = false;
	long lines = -1, got_lines = 0, timeout_ms = 5000, pings = 0;
	const char *path = NULL;
	size_t len = 0, off = 0;
	long long last;
	_cleanup_free_ char *data = NULL;
	int fd, i;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--no-shutdown")) {
			shut = false;
		} else if (!strcmp(argv[i], "--flood")) {
			flooding = true;
		} else if (!strcmp(argv[i], "--ping") && i + 1 < argc) {
			pings = strtol(argv[++i], NULL, 10);
		} else if (!strcmp(argv[i], "--lines") && i + 1 < argc) {
			lines = strtol(argv[++i], NULL, 10);
		} else if (!strcmp(argv[i], "--timeout") && i + 1 < argc) {
			timeout_ms = strtol(argv[++i], NULL, 10);
		} else if (argv[i][0] == '-' || path) {
			return usage();
		} else {
			path = argv[i];
		}
	}
	if (!path || strlen(path) >= sizeof(sa.sun_path) || timeout_ms <= 0 || pings < 0)
		return usage();
	if (flooding) {
		strcpy(sa.sun_path, path);
		fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
		if (fd < 0 || connect(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
			fprintf(stderr, "ctl-send: %s: %s\n", path, strerror(errno));
			return 2;
		}
		return flood(fd);
	}
	data = slurp_stdin(&len);
	if (!data) {
		fprintf(stderr, "ctl-send: reading standard input: %s\n", strerror(errno));
		return 2;
	}
	strcpy(sa.sun_path, path);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0 || connect(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		fprintf(stderr, "ctl-send: %s: %s\n", path, strerror(errno));
		return 2;
	}
	if (pings)
		return ping(fd, data, len, pings, timeout_ms);
	(void)fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
	last = mono_ms();
	for (;;) {
		struct pollfd p = {.fd = fd, .events = POLLIN};
		long long now = mono_ms();
		char buf[65536];
		ssize_t n;
		int r;

		if (wr_open && off == len) {
			if (shut)
				(void)shutdown(fd, SHUT_WR);
			wr_open = false;
		}
		if (wr_open)
			p.events |= POLLOUT;
		if (now - last >= timeout_ms) {
			fprintf(stderr, "ctl-send: no answer for %ld ms, connection still open\n",
				timeout_ms);
			return 1;
		}
		r = poll(&p, 1, (int)(timeout_ms - (now - last)));
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			fprintf(stderr, "ctl-send: poll: %s\n", strerror(errno));
			return 2;
		}
		if (r == 0)
			continue;
		if (p.revents & POLLOUT) {
			n = send(fd, data + off, len - off, MSG_NOSIGNAL);
			if (n > 0) {
				off += (size_t)n;
			} else if (n < 0 && errno != EAGAIN && errno != EINTR) {
				fprintf(stderr, "ctl-send: send after %zu of %zu bytes: %s\n", off,
					len, strerror(errno));
				wr_open = false;
				off = len;
				shut = false;
			}
		}
		if (p.revents & (POLLIN | POLLHUP | POLLERR)) {
			n = recv(fd, buf, sizeof(buf), 0);
			if (n < 0 && (errno == EAGAIN || errno == EINTR))
				continue;
			if (n <= 0) {
				if (n < 0)
					fprintf(stderr, "ctl-send: recv: %s\n", strerror(errno));
				fflush(stdout);
				return 0;
			}
			last = mono_ms();
			fwrite(buf, 1, (size_t)n, stdout);
			fflush(stdout);
			for (ssize_t k = 0; k < n; k++)
				if (buf[k] == '\n')
					got_lines++;
			if (lines >= 0 && got_lines >= lines)
				return 0;
		}
	}
}
