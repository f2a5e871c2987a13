// SPDX-License-Identifier: MIT
/* cli: helpers every subcommand shares (errors, the database, runs, time). */
#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "parse.h"

int cli_error(int code, const char *fmt, ...)
{
	va_list ap;

	fputs("plateau: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	return code;
}

void cli_warn(const char *fmt, ...)
{
	va_list ap;

	fputs("plateau: warning: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

int cli_usage(const char *name)
{
	const struct cli_cmd *c = cli_find(name);
	const char *nl;

	if (!c)
		return CLI_USAGE;
	/* one line: the first line of the synopsis */
	nl = strchr(c->args, '\n');
	fprintf(stderr, "plateau: usage: plateau %s%s%.*s%s (plateau help %s)\n", c->name,
		*c->args ? " " : "", nl ? (int)(nl - c->args) : (int)strlen(c->args), c->args,
		nl ? " ..." : "", c->name);
	return CLI_USAGE;
}

int cli_bad_option(const char *cmd, char **argv)
{
	const char *opt = optind > 0 ? argv[optind - 1] : "?";

	if (optopt && strncmp(opt, "--", 2))
		return cli_error(CLI_USAGE,
				 "%s: unknown option or missing value: '-%c' (plateau help %s)",
				 cmd, optopt, cmd);
	return cli_error(CLI_USAGE, "%s: unknown option or missing value: '%s' (plateau help %s)",
			 cmd, opt, cmd);
}

#define CLI_REPLY_MAX (4 * 1024 * 1024)
#define CLI_TIMEOUT_MS 30000

/* snprintf into @err, return @code */
static int cli_fail(char *err, size_t errlen, int code, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static int cli_fail(char *err, size_t errlen, int code, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
	return code;
}

int cli_call(const char *socket_path, json_object *req, json_object **reply, char *err,
	     size_t errlen)
{
	struct sockaddr_un sa = {.sun_family = AF_UNIX};
	const char *s = json_object_to_json_string_ext(req, JSON_C_TO_STRING_PLAIN);
	size_t len = 0, cap = 65536, n = strlen(s), off = 0;
	char *buf;
	int fd;

	if (strlen(socket_path) >= sizeof(sa.sun_path))
		return cli_fail(err, errlen, CLI_USAGE, "%s: socket path too long", socket_path);
	strcpy(sa.sun_path, socket_path);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0 || connect(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		int e = errno;

		if (fd >= 0)
			close(fd);
		return cli_fail(
			err, errlen, CLI_NODAEMON, "plateaud is not reachable at %s: %s%s",
			socket_path, strerror(e),
			e == EACCES ? " (root or the plateau group may use it)"
				    : " (is plateaud running? systemctl start plateaud.socket)");
	}
	/* a send error may come with an answer already waiting (a refusal
	 * sent before the daemon closed): read it before giving up */
	while (off < n) {
		ssize_t w = send(fd, s + off, n - off, MSG_NOSIGNAL);

		if (w < 0)
			break;
		off += (size_t)w;
	}
	if (off == n && send(fd, "\n", 1, MSG_NOSIGNAL) != 1)
		off = 0;
	buf = malloc(cap);
	while (buf) {
		struct pollfd p = {.fd = fd, .events = POLLIN};
		ssize_t r;
		int pr;

		if (memchr(buf, '\n', len))
			break;
		pr = poll(&p, 1, CLI_TIMEOUT_MS);
		if (pr < 0 && errno == EINTR)
			continue;
		if (pr <= 0) {
			free(buf);
			close(fd);
			return cli_fail(err, errlen, CLI_NODAEMON,
					"plateaud did not answer within %d s",
					CLI_TIMEOUT_MS / 1000);
		}
		if (len == cap) {
			char *nb = cap < CLI_REPLY_MAX ? realloc(buf, cap * 2) : NULL;

			if (!nb) {
				free(buf);
				buf = NULL;
				break;
			}
			buf = nb;
			cap *= 2;
		}
		r = recv(fd, buf + len, cap - len, 0);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0) {
			free(buf);
			close(fd);
			return cli_fail(err, errlen, CLI_NODAEMON,
					"plateaud closed the connection without an "
					"answer");
		}
		len += (size_t)r;
	}
	close(fd);
	if (!buf)
		return cli_fail(err, errlen, CLI_NODAEMON, "plateaud's answer is too large");
	*(char *)memchr(buf, '\n', len) = '\0';
	*reply = json_tokener_parse(buf);
	free(buf);
	if (!*reply || !json_object_is_type(*reply, json_type_object))
		return cli_fail(err, errlen, CLI_NODAEMON,
				"plateaud answered something that is not a JSON object");
	return CLI_OK;
}

int cli_store(struct cli *cli, struct store **ret)
{
	char err[1024];
	int r;

	if (!cli->store) {
		r = store_open(cli->db_path, STORE_RDONLY, &cli->store, err, sizeof(err));
		if (r)
			return cli_error(r == -ENOENT ? CLI_NOTFOUND : CLI_USAGE, "%s", err);
	}
	*ret = cli->store;
	return CLI_OK;
}

int cli_parse_run(const char *arg, int64_t *run_id)
{
	uint64_t v;

	if (!arg)
		return cli_error(CLI_USAGE, "missing RUN (a run number, see `plateau runs`)");
	if (parse_uint_range(arg, 1, INT64_MAX, &v))
		return cli_error(CLI_USAGE,
				 "RUN must be a run number (see `plateau runs`), not '%s'", arg);
	*run_id = (int64_t)v;
	return CLI_OK;
}

int cli_find_run(struct cli *cli, const char *arg, int64_t *run_id)
{
	struct store *s;
	int r;

	if ((r = cli_parse_run(arg, run_id)))
		return r;
	return cli_store(cli, &s);
}

int cli_load_run(struct cli *cli, int64_t run_id, struct store_run *run)
{
	struct store *s;
	int r = cli_store(cli, &s);

	if (r)
		return r;
	r = store_run_get(s, run_id, run);
	if (r == -ENOENT)
		return cli_error(CLI_NOTFOUND, "no run %lld in %s", (long long)run_id,
				 cli->db_path);
	if (r)
		return cli_error(CLI_USAGE, "%s", store_errmsg(s));
	return CLI_OK;
}

/*
 * Pick a phase of a run: @want_seq > 0 is the phase number; 0 picks the
 * last precondition phase with samples, else the last phase with samples.
 * Returns an exit code; *idx is an index into @phases.
 */
static int cli_pick_phase(struct cli *cli, int64_t run_id, const struct store_phase *phases,
			  size_t n, int want_seq, size_t *idx)
{
	struct store *s;
	size_t best = n;
	int r = cli_store(cli, &s);

	if (r)
		return r;
	if (want_seq > 0) {
		for (size_t i = 0; i < n; i++)
			if (phases[i].seq == want_seq) {
				*idx = i;
				return CLI_OK;
			}
		return cli_error(CLI_NOTFOUND, "run %lld has no phase %d (it has %zu)",
				 (long long)run_id, want_seq, n);
	}
	for (int pass = 0; pass < 2 && best == n; pass++)
		for (size_t i = n; i-- > 0;) {
			if (!pass && strcmp(phases[i].kind, "precondition"))
				continue;
			int64_t last = 0;

			/* a query that fails is an error, never "no samples" */
			if ((r = store_sample_last_seq(s, phases[i].id, &last)))
				return cli_error(CLI_USAGE, "%s", store_errmsg(s));
			if (last > 0) {
				best = i;
				break;
			}
		}
	if (best == n)
		return cli_error(CLI_NOTFOUND, "run %lld has no samples yet", (long long)run_id);
	*idx = best;
	return CLI_OK;
}

int cli_open_phase(struct cli *cli, int64_t run_id, int want_seq, struct cli_phase *ph)
{
	size_t idx = 0;
	int r;

	memset(ph, 0, sizeof(*ph));
	if ((r = cli_load_run(cli, run_id, &ph->run)))
		return r;
	if ((r = cli_store(cli, &ph->s)))
		goto fail;
	if (store_phases_list(ph->s, run_id, &ph->phases, &ph->n)) {
		r = cli_error(CLI_USAGE, "%s", store_errmsg(ph->s));
		goto fail;
	}
	if ((r = cli_pick_phase(cli, run_id, ph->phases, ph->n, want_seq, &idx)))
		goto fail;
	ph->p = &ph->phases[idx];
	return CLI_OK;
fail:
	cli_close_phase(ph);
	return r;
}

void cli_close_phase(struct cli_phase *ph)
{
	store_phases_free(ph->phases, ph->n);
	store_run_clear(&ph->run);
	memset(ph, 0, sizeof(*ph));
}

char *cli_fmt_time(char *buf, size_t len, int64_t ns)
{
	time_t t = (time_t)(ns / 1000000000LL);
	struct tm tm;

	if (!ns || !localtime_r(&t, &tm)) {
		snprintf(buf, len, "-");
		return buf;
	}
	strftime(buf, len, "%Y-%m-%d %H:%M:%S", &tm);
	return buf;
}

char *cli_fmt_iso(char *buf, size_t len, int64_t ns)
{
	time_t t = (time_t)(ns / 1000000000LL);
	struct tm tm;
	char tmp[32];

	if (!ns || !gmtime_r(&t, &tm)) {
		snprintf(buf, len, "%s", "");
		return buf;
	}
	strftime(tmp, sizeof(tmp), "%Y-%m-%dT%H:%M:%S", &tm);
	snprintf(buf, len, "%s.%03dZ", tmp, (int)(ns % 1000000000LL / 1000000));
	return buf;
}

int cli_parse_when(const char *s, int64_t *ns)
{
	static const char *fmts[] = {"%Y-%m-%d %H:%M:%S", "%Y-%m-%d %H:%M", "%Y-%m-%dT%H:%M:%S",
				     "%Y-%m-%dT%H:%M", "%Y-%m-%d"};
	uint64_t ago;

	if (!s || !*s)
		return -EINVAL;
	for (size_t i = 0; i < sizeof(fmts) / sizeof(fmts[0]); i++) {
		struct tm tm = {.tm_isdst = -1};
		const char *end = strptime(s, fmts[i], &tm);
		time_t t;

		if (!end || *end)
			continue;
		t = mktime(&tm);
		if (t == (time_t)-1)
			return -EINVAL;
		*ns = (int64_t)t * 1000000000LL;
		return 0;
	}
	/* a duration means "that long ago" */
	if (!parse_duration_ns(s, &ago) && (int64_t)ago <= clock_wall_ns()) {
		*ns = clock_wall_ns() - (int64_t)ago;
		return 0;
	}
	return -EINVAL;
}
