// SPDX-License-Identifier: MIT
/*
 * notify-listen: the receiving end of sd_notify(3) for integration tests.
 *
 *   notify-listen [--timeout SECS] [--check-socket PATH] [--check-file PATH] SOCKET
 *
 * Binds an AF_UNIX datagram socket at SOCKET (what NOTIFY_SOCKET names),
 * prints "listening" once it is bound, then one line per datagram:
 *
 *   MS PID PAYLOAD
 *
 * MS is milliseconds since the listener started, PID the sender's pid
 * (SO_PASSCRED; '-' if the kernel did not say), PAYLOAD the datagram with
 * each newline shown as '|' (sd_notify sends "A=1\nB=2").  Each line is
 * flushed at once.
 *
 * When a datagram says READY=1, the listener checks, right then, that the
 * state it announces holds, and prints a line
 *
 *   MS CHECK socket=ok|ERRNO-TEXT file=ok|missing
 *
 * --check-socket: a unix stream connect() to PATH succeeds;
 * --check-file: PATH exists and is not empty.
 *
 * Exits 0 on SIGTERM/SIGINT, or after SECS (default 60) seconds.
 */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

static volatile sig_atomic_t stop_now;

static void on_signal(int sig)
{
	(void)sig;
	stop_now = 1;
}

static long long mono_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static int usage(void)
{
	fprintf(stderr, "usage: notify-listen [--timeout SECS] [--check-socket PATH] "
			"[--check-file PATH] SOCKET\n");
	return 2;
}

static void check_ready(long long ms, const char *sock, const char *file)
{
	printf("%lld CHECK", ms);
	if (sock) {
		struct sockaddr_un sa = {.sun_family = AF_UNIX};
		int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);

		snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", sock);
		if (fd >= 0 && connect(fd, (struct sockaddr *)&sa, sizeof(sa)) == 0)
			printf(" socket=ok");
		else
			printf(" socket=%s", strerror(errno));
		if (fd >= 0)
			close(fd);
	}
	if (file) {
		struct stat st;

		if (stat(file, &st) == 0 && st.st_size > 0)
			printf(" file=ok");
		else
			printf(" file=missing");
	}
	printf("\n");
	fflush(stdout);
}

int main(int argc, char **argv)
{
	struct sockaddr_un sa = {.sun_family = AF_UNIX};
	const char *path = NULL, *check_sock = NULL, *check_file = NULL;
	struct sigaction act = {.sa_handler = on_signal};
	long long start = mono_ms(), deadline;
	long timeout_s = 60;
	int fd, one = 1;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--timeout") && i + 1 < argc)
			timeout_s = strtol(argv[++i], NULL, 10);
		else if (!strcmp(argv[i], "--check-socket") && i + 1 < argc)
			check_sock = argv[++i];
		else if (!strcmp(argv[i], "--check-file") && i + 1 < argc)
			check_file = argv[++i];
		else if (argv[i][0] == '-' || path)
			return usage();
		else
			path = argv[i];
	}
	if (!path || strlen(path) >= sizeof(sa.sun_path) || timeout_s <= 0)
		return usage();
	deadline = start + timeout_s * 1000;
	sigemptyset(&act.sa_mask);
	sigaction(SIGTERM, &act, NULL);
	sigaction(SIGINT, &act, NULL);
	strcpy(sa.sun_path, path);
	fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0) {
		fprintf(stderr, "notify-listen: socket: %s\n", strerror(errno));
		return 1;
	}
	(void)setsockopt(fd, SOL_SOCKET, SO_PASSCRED, &one, sizeof(one));
	(void)unlink(path);
	if (bind(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		fprintf(stderr, "notify-listen: %s: %s\n", path, strerror(errno));
		return 1;
	}
	printf("listening\n");
	fflush(stdout);
	while (!stop_now) {
		union {
			struct cmsghdr h;
			char buf[CMSG_SPACE(sizeof(struct ucred)) + CMSG_SPACE(sizeof(int) * 16)];
		} ctl;
		char data[8192];
		struct iovec iov = {.iov_base = data, .iov_len = sizeof(data) - 1};
		struct msghdr msg = {
			.msg_iov = &iov,
			.msg_iovlen = 1,
			.msg_control = &ctl,
			.msg_controllen = sizeof(ctl),
		};
		struct pollfd p = {.fd = fd, .events = POLLIN};
		long long now = mono_ms(), ms;
		long pid = -1;
		ssize_t n;
		int r;

		if (now >= deadline)
			break;
		r = poll(&p, 1, (int)(deadline - now));
		if (r <= 0)
			continue; /* EINTR (a signal) or the deadline: the loop decides */
		n = recvmsg(fd, &msg, MSG_CMSG_CLOEXEC);
		if (n < 0)
			continue;
		ms = mono_ms() - start;
		for (struct cmsghdr *c = CMSG_FIRSTHDR(&msg); c; c = CMSG_NXTHDR(&msg, c)) {
			if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_CREDENTIALS) {
				struct ucred uc;

				memcpy(&uc, CMSG_DATA(c), sizeof(uc));
				pid = (long)uc.pid;
			} else if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_RIGHTS) {
				size_t k = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);
				int fds[16];

				memcpy(fds, CMSG_DATA(c),
				       k * sizeof(int) < sizeof(fds) ? k * sizeof(int)
								     : sizeof(fds));
				for (size_t j = 0; j < k && j < 16; j++)
					close(fds[j]);
			}
		}
		while (n > 0 && data[n - 1] == '\n')
			n--;
		data[n] = '\0';
		for (ssize_t k = 0; k < n; k++)
			if (data[k] == '\n')
				data[k] = '|';
		if (pid >= 0)
			printf("%lld %ld %s\n", ms, pid, data);
		else
			printf("%lld - %s\n", ms, data);
		fflush(stdout);
		if (!strncmp(data, "READY=1", 7) || strstr(data, "|READY=1"))
			check_ready(ms, check_sock, check_file);
	}
	close(fd);
	(void)unlink(path);
	return 0;
}
