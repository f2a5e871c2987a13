// SPDX-License-Identifier: MIT
/* cli: helpers every subcommand shares (errors, the database, runs, time). */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/stat.h>
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

/* Optimal string alignment distance: insertions, deletions, substitutions
 * and transpositions of neighbours ("staus", "stauts" -> "status"). */
static size_t cli_distance(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b), *d, w = lb + 1, r;

	if (la > 64 || lb > 64)
		return SIZE_MAX;
	d = calloc((la + 1) * w, sizeof(*d));
	if (!d)
		return SIZE_MAX;
	for (size_t i = 0; i <= la; i++)
		d[i * w] = i;
	for (size_t j = 0; j <= lb; j++)
		d[j] = j;
	for (size_t i = 1; i <= la; i++)
		for (size_t j = 1; j <= lb; j++) {
			size_t cost = a[i - 1] != b[j - 1], v = d[(i - 1) * w + j] + 1;

			if (d[i * w + j - 1] + 1 < v)
				v = d[i * w + j - 1] + 1;
			if (d[(i - 1) * w + j - 1] + cost < v)
				v = d[(i - 1) * w + j - 1] + cost;
			if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] &&
			    d[(i - 2) * w + j - 2] + 1 < v)
				v = d[(i - 2) * w + j - 2] + 1;
			d[i * w + j] = v;
		}
	r = d[la * w + lb];
	free(d);
	return r;
}

const char *cli_suggest(const char *word, const char *const *cands, size_t n)
{
	size_t best = SIZE_MAX, len = strlen(word), limit;
	const char *pick = NULL;

	/* one mistake in a short word, two from 6 characters on: further is
	 * another word, not a typing mistake */
	limit = len < 6 ? 1 : 2;
	for (size_t i = 0; i < n; i++) {
		size_t dist = cli_distance(word, cands[i]);

		if (dist < best) {
			best = dist;
			pick = cands[i];
		}
	}
	return best <= limit && best < len ? pick : NULL;
}

#define CLI_MAX_OPTS 48

const char *const cli_global_opts[4] = {"--db", "--socket", "--json", "--csv"};

/* The --word tokens of a command's synopsis and help, each once, into
 * @buf (NUL-separated) and @opts; returns how many. */
static size_t cli_help_options(const struct cli_cmd *c, char *buf, size_t len, const char **opts)
{
	const char *texts[] = {c->args, c->help};
	size_t n = 0, used = 0;

	for (size_t t = 0; t < 2; t++)
		for (const char *p = texts[t]; (p = strstr(p, "--"));) {
			size_t k = strspn(p + 2, "abcdefghijklmnopqrstuvwxyz0123456789-");
			bool dup = false;

			if (k < 2 || (p > texts[t] && p[-1] != ' ' && p[-1] != '[' &&
				      p[-1] != '|' && p[-1] != '(' && p[-1] != '\n')) {
				p += 2 + k;
				continue;
			}
			for (size_t i = 0; i < n; i++)
				dup |= strlen(opts[i]) == k + 2 && !strncmp(opts[i], p, k + 2);
			if (!dup && n < CLI_MAX_OPTS && used + k + 3 <= len) {
				memcpy(buf + used, p, k + 2);
				buf[used + k + 2] = '\0';
				opts[n++] = buf + used;
				used += k + 3;
			}
			p += 2 + k;
		}
	return n;
}

int cli_bad_arg(const char *cmd, const char *arg)
{
	const struct cli_cmd *c = cli_find(cmd);
	const char *opts[CLI_MAX_OPTS], *hint = NULL;
	char buf[2048], word[128];
	size_t n = 0;

	if (c && !strncmp(arg, "--", 2)) {
		snprintf(word, sizeof(word), "%.*s", (int)strcspn(arg, "="), arg);
		n = cli_help_options(c, buf, sizeof(buf), opts);
		/* the global options stand anywhere: a mistyped one lands here;
		 * --json/--csv only where the command takes them */
		for (size_t i = 0;
		     i < sizeof(cli_global_opts) / sizeof(cli_global_opts[0]) && n < CLI_MAX_OPTS;
		     i++) {
			const char *g = cli_global_opts[i];

			if ((!strcmp(g, "--json") && c->formats == CLI_FMT_NONE) ||
			    (!strcmp(g, "--csv") && c->formats != CLI_FMT_ALL))
				continue;
			opts[n++] = g;
		}
		for (size_t i = 0; i < n; i++)
			if (!strcmp(opts[i], word))
				return cli_error(CLI_USAGE,
						 "%s: %s needs a value (plateau help %s)", cmd,
						 word, cmd);
		/* an option of the help text the command refuses ("takes no
		 * --json") is no suggestion either */
		for (size_t i = 0; i < n;)
			if ((!strcmp(opts[i], "--json") && c->formats == CLI_FMT_NONE) ||
			    (!strcmp(opts[i], "--csv") && c->formats != CLI_FMT_ALL))
				opts[i] = opts[--n];
			else
				i++;
		hint = cli_suggest(word, opts, n);
	}
	if (hint)
		return cli_error(CLI_USAGE,
				 "%s: unknown option '%s': did you mean %s? (plateau help %s)", cmd,
				 arg, hint, cmd);
	return cli_error(CLI_USAGE, "%s: unknown option or missing value: '%s' (plateau help %s)",
			 cmd, arg, cmd);
}

int cli_bad_option(const char *cmd, char **argv)
{
	const char *opt = optind > 0 && argv[optind - 1] ? argv[optind - 1] : "?";

	/* a short option: getopt names it in optopt ('-o' without its value,
	 * or the one unknown letter of "-xo") */
	if (optopt && optopt != '?' && strncmp(opt, "--", 2))
		return cli_error(CLI_USAGE,
				 "%s: unknown option or missing value: '-%c' (plateau help %s)",
				 cmd, optopt, cmd);
	return cli_bad_arg(cmd, opt);
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

/* one database file of the command */
struct cli_db {
	char *path;
	struct store *s;
	int fd; /* held for its identity; -1: could not open (store_open says why) */
	dev_t dev;
	ino_t ino;
};

static int cli_db_add(struct cli *cli, const char *path, int fd)
{
	struct stat st;
	struct cli_db *nd, *d;

	/* the same file twice (a link, a directory and one of its files) is read
	 * once: decided by the descriptor held, not by the path */
	if (fd >= 0 && !fstat(fd, &st))
		for (size_t i = 0; i < cli->ndb; i++)
			if (cli->dbs[i].fd >= 0 && cli->dbs[i].dev == st.st_dev &&
			    cli->dbs[i].ino == st.st_ino) {
				close(fd);
				return CLI_OK;
			}
	nd = realloc(cli->dbs, (cli->ndb + 1) * sizeof(*nd));
	if (!nd) {
		if (fd >= 0)
			close(fd);
		return cli_error(CLI_USAGE, "out of memory");
	}
	cli->dbs = nd;
	d = &cli->dbs[cli->ndb];
	memset(d, 0, sizeof(*d));
	d->fd = fd;
	if (fd >= 0 && !fstat(fd, &st)) {
		d->dev = st.st_dev;
		d->ino = st.st_ino;
	}
	d->path = strdup(path);
	if (!d->path) {
		if (fd >= 0)
			close(fd);
		return cli_error(CLI_USAGE, "out of memory");
	}
	cli->ndb++;
	return CLI_OK;
}

static int cli_cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* every *.db file of the directory @dfd (@path), in name order */
static int cli_db_dir(struct cli *cli, const char *path, int dfd)
{
	char **names = NULL, full[4096];
	size_t n = 0, before = cli->ndb;
	struct dirent *e;
	int r = CLI_OK;
	DIR *dir = fdopendir(dfd);

	if (!dir) {
		close(dfd);
		return cli_error(CLI_USAGE, "%s: %s", path, strerror(errno));
	}
	while ((e = readdir(dir))) {
		size_t len = strlen(e->d_name);
		char **nn;

		if (len < 4 || strcmp(e->d_name + len - 3, ".db") || e->d_name[0] == '.')
			continue;
		nn = realloc(names, (n + 1) * sizeof(*nn));
		if (!nn || !(nn[n] = strdup(e->d_name))) {
			names = nn ? nn : names;
			r = cli_error(CLI_USAGE, "out of memory");
			break;
		}
		names = nn;
		n++;
	}
	if (names)
		qsort(names, n, sizeof(*names), cli_cmp_str);
	for (size_t i = 0; !r && i < n; i++) {
		int fd = openat(dirfd(dir), names[i], O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
		struct stat st;

		/* a regular file only: a *.db directory or socket is not a database */
		if (fd < 0 || fstat(fd, &st) || !S_ISREG(st.st_mode)) {
			if (fd >= 0)
				close(fd);
			continue;
		}
		snprintf(full, sizeof(full), "%s%s%s", path,
			 path[strlen(path) - 1] == '/' ? "" : "/", names[i]);
		r = cli_db_add(cli, full, fd);
	}
	for (size_t i = 0; i < n; i++)
		free(names[i]);
	free(names);
	closedir(dir);
	if (!r && cli->ndb == before)
		r = cli_error(CLI_NOTFOUND, "%s: no database (*.db file) in this directory", path);
	return r;
}

/* The command's database files, once: --db as given; for the commands that
 * read several, directories expanded. */
static int cli_dbs_load(struct cli *cli)
{
	int r = CLI_OK;

	if (cli->dbs_ready)
		return CLI_OK;
	cli->dbs_ready = true;
	cli->cur = 0;
	if (!cli->multi_db) {
		r = cli_db_add(cli, cli->db_path, -1);
		cli->cur = cli->ndb;
		return r;
	}
	for (size_t i = 0; !r && i < (cli->ndb_args ? cli->ndb_args : 1); i++) {
		const char *p = cli->ndb_args ? cli->db_args[i] : cli->db_path;
		int fd = open(p, O_RDONLY | O_CLOEXEC);
		struct stat st;

		if (fd >= 0 && !fstat(fd, &st) && S_ISDIR(st.st_mode))
			r = cli_db_dir(cli, p, fd);
		else
			r = cli_db_add(cli, p, fd); /* store_open() says what is wrong */
	}
	cli->cur = cli->ndb;
	return r;
}

int cli_db_count(struct cli *cli, size_t *n)
{
	int r = cli_dbs_load(cli);

	*n = cli->ndb;
	return r;
}

int cli_store_at(struct cli *cli, size_t i, struct store **ret)
{
	struct cli_db *d;
	char err[1024];
	int r;

	if ((r = cli_dbs_load(cli)))
		return r;
	if (i >= cli->ndb)
		return cli_error(CLI_USAGE, "no database %zu", i);
	d = &cli->dbs[i];
	if (!d->s) {
		r = store_open(d->path, STORE_RDONLY, &d->s, err, sizeof(err));
		if (r)
			return cli_error(r == -ENOENT ? CLI_NOTFOUND : CLI_USAGE, "%s", err);
	}
	*ret = d->s;
	return CLI_OK;
}

/* make the @i-th database the one in use */
static int cli_select(struct cli *cli, size_t i)
{
	struct store *s;
	int r = cli_store_at(cli, i, &s);

	if (r)
		return r;
	cli->cur = i;
	cli->store = s;
	cli->db_path = cli->dbs[i].path;
	return CLI_OK;
}

int cli_store(struct cli *cli, struct store **ret)
{
	int r;

	if ((r = cli_dbs_load(cli)))
		return r;
	if (cli->cur >= cli->ndb) {
		if (cli->ndb != 1)
			return cli_error(CLI_USAGE,
					 "%zu databases given: this needs one, or a RUN to find "
					 "in them",
					 cli->ndb);
		if ((r = cli_select(cli, 0)))
			return r;
	}
	*ret = cli->dbs[cli->cur].s;
	return CLI_OK;
}

/* is the file beside database @d named @suffix the one of @st? */
static bool cli_db_sidecar_is(const struct cli_db *d, const char *suffix, const struct stat *st)
{
	char path[4200];
	struct stat sst;
	bool same;
	int fd;

	if (snprintf(path, sizeof(path), "%s%s", d->path, suffix) >= (int)sizeof(path))
		return false;
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
	if (fd < 0)
		return false;
	same = !fstat(fd, &sst) && sst.st_dev == st->st_dev && sst.st_ino == st->st_ino;
	close(fd);
	return same;
}

bool cli_db_holds(struct cli *cli, int fd)
{
	static const char *const sidecars[] = {"-wal", "-shm", "-journal"};
	struct stat st;

	if (cli_dbs_load(cli) || fstat(fd, &st))
		return false;
	for (size_t i = 0; i < cli->ndb; i++) {
		const struct cli_db *d = &cli->dbs[i];

		if (d->fd >= 0 && d->dev == st.st_dev && d->ino == st.st_ino)
			return true;
		/* SQLite finds these by name beside the database: so do we,
		 * and compare what is there now with the file given */
		for (size_t k = 0; k < sizeof(sidecars) / sizeof(sidecars[0]); k++)
			if (cli_db_sidecar_is(d, sidecars[k], &st))
				return true;
	}
	return false;
}

const char *cli_db_path_at(const struct cli *cli, size_t i)
{
	return i < cli->ndb ? cli->dbs[i].path : NULL;
}

void cli_close(struct cli *cli)
{
	for (size_t i = 0; i < cli->ndb; i++) {
		store_close(cli->dbs[i].s);
		if (cli->dbs[i].fd >= 0)
			close(cli->dbs[i].fd);
		free(cli->dbs[i].path);
	}
	free(cli->dbs);
	cli->dbs = NULL;
	cli->ndb = 0;
	cli->store = NULL;
	cli->dbs_ready = false;
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

#define CLI_MAX_CANDS 16

/* a run RUN may name */
struct cli_cand {
	size_t db;
	int64_t id;
	char host[128];
	char uuid[STORE_UUID_LEN + 1];
};

struct cli_cands {
	struct cli_cand c[CLI_MAX_CANDS];
	size_t n; /* may exceed CLI_MAX_CANDS: only the first are kept */
};

/* Add run @id of database @db when it is there (and on @host, if given). */
static int cli_cand_try(struct cli *cli, size_t db, int64_t id, const char *host,
			struct cli_cands *cs)
{
	struct store_run run;
	struct store *s;
	int r = cli_store_at(cli, db, &s);

	if (r)
		return r;
	r = store_run_get(s, id, &run);
	if (r == -ENOENT)
		return CLI_OK;
	if (r)
		return cli_error(CLI_USAGE, "%s", store_errmsg(s));
	if (!host || !strcmp(run.host, host)) {
		/* the same uuid again, in a later database: a copy of a run
		 * already found (export, import), not another run */
		for (size_t i = 0; run.uuid[0] && i < cs->n && i < CLI_MAX_CANDS; i++)
			if (!strcmp(cs->c[i].uuid, run.uuid)) {
				store_run_clear(&run);
				return CLI_OK;
			}
		if (cs->n < CLI_MAX_CANDS) {
			struct cli_cand *c = &cs->c[cs->n];

			c->db = db;
			c->id = id;
			snprintf(c->host, sizeof(c->host), "%s", run.host);
			snprintf(c->uuid, sizeof(c->uuid), "%s", run.uuid);
		}
		cs->n++;
	}
	store_run_clear(&run);
	return CLI_OK;
}

/* the runs whose uuid starts with @hex, in every database */
static int cli_cand_uuid(struct cli *cli, const char *hex, struct cli_cands *cs)
{
	for (size_t i = 0; i < cli->ndb; i++) {
		int64_t ids[CLI_MAX_CANDS];
		struct store *s;
		int r = cli_store_at(cli, i, &s), k;

		if (r)
			return r;
		k = store_run_find_uuid(s, hex, ids, CLI_MAX_CANDS);
		if (k < 0)
			return cli_error(CLI_USAGE, "%s", store_errmsg(s));
		for (int j = 0; j < k && j < CLI_MAX_CANDS; j++)
			if ((r = cli_cand_try(cli, i, ids[j], NULL, cs)))
				return r;
		if (k > CLI_MAX_CANDS)
			cs->n += (size_t)(k - CLI_MAX_CANDS);
	}
	return CLI_OK;
}

/* "lab7:3 0f1e...; lab8:3 ...": the candidates, for an error */
static void cli_cand_list(const struct cli *cli, const struct cli_cands *cs, char *buf, size_t len)
{
	size_t used = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < cs->n && i < CLI_MAX_CANDS && used < len; i++) {
		const struct cli_cand *c = &cs->c[i];
		int w = snprintf(buf + used, len - used, "%s%s:%lld %s%s%s", i ? "; " : "",
				 c->host[0] ? c->host : "?", (long long)c->id,
				 c->uuid[0] ? c->uuid : "(no uuid)", cli->ndb > 1 ? " in " : "",
				 cli->ndb > 1 ? cli->dbs[c->db].path : "");

		if (w < 0)
			break;
		used += (size_t)w;
	}
	if (cs->n > CLI_MAX_CANDS && used < len)
		snprintf(buf + used, len - used, "; and %zu more", cs->n - CLI_MAX_CANDS);
}

/* "a.db, b.db and c.db" */
static void cli_db_list(const struct cli *cli, char *buf, size_t len)
{
	size_t used = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < cli->ndb && used < len; i++) {
		int w = snprintf(buf + used, len - used, "%s%s",
				 !i		     ? ""
				 : i + 1 == cli->ndb ? " or "
						     : ", ",
				 cli->dbs[i].path);

		if (w < 0)
			break;
		used += (size_t)w;
	}
}

/* RUN given as a uuid or its first hex digits: those digits, lowercase and
 * without dashes, or "" when it is not one */
static void cli_uuid_hex(const char *arg, char *hex, size_t len)
{
	size_t n = 0;

	hex[0] = '\0';
	for (const char *p = arg; *p; p++) {
		char c = (char)tolower((unsigned char)*p);

		if (c == '-')
			continue;
		if (!isxdigit((unsigned char)c) || n + 1 >= len) {
			hex[0] = '\0';
			return;
		}
		hex[n++] = c;
	}
	hex[n] = '\0';
}

int cli_parse_phase(const char *arg, uint64_t *seq)
{
	if (parse_uint_range(arg, 1, 1000000, seq))
		return cli_error(CLI_USAGE, "--phase: expected a phase number, not '%s'", arg);
	return CLI_OK;
}

int cli_find_run(struct cli *cli, const char *arg, int64_t *run_id)
{
	struct cli_cands cs = {.n = 0};
	char hex[40], host[128] = "", list[2048], dbs[1024];
	const char *colon;
	bool number, by_uuid = false;
	uint64_t v = 0;
	int r;

	if (!arg)
		return cli_error(CLI_USAGE, "missing RUN (a run number, HOST:N or a uuid, see "
					    "`plateau runs`)");
	if ((r = cli_dbs_load(cli)))
		return r;
	number = arg[0] && strspn(arg, "0123456789") == strlen(arg);
	colon = strrchr(arg, ':');
	cli_uuid_hex(arg, hex, sizeof(hex));

	if (number && cli->ndb == 1 && strlen(arg) < 8) {
		/* one database: as it always was (a missing run is reported by
		 * whoever loads it, naming the database) */
		if ((r = cli_parse_run(arg, run_id)))
			return r;
		return cli_select(cli, 0);
	}
	if (colon) {
		if (colon == arg || (size_t)(colon - arg) >= sizeof(host) ||
		    parse_uint_range(colon + 1, 1, INT64_MAX, &v))
			return cli_error(CLI_USAGE,
					 "RUN '%s': HOST:N is a host name, a colon and a run "
					 "number (see `plateau runs`)",
					 arg);
		snprintf(host, sizeof(host), "%.*s", (int)(colon - arg), arg);
		for (size_t i = 0; i < cli->ndb; i++)
			if ((r = cli_cand_try(cli, i, (int64_t)v, host, &cs)))
				return r;
	} else if (number && !parse_uint_range(arg, 1, INT64_MAX, &v)) {
		for (size_t i = 0; i < cli->ndb; i++)
			if ((r = cli_cand_try(cli, i, (int64_t)v, NULL, &cs)))
				return r;
		/* 8 digits or more may be the start of a uuid as well */
		if (!cs.n && strlen(hex) >= 8) {
			by_uuid = true;
			if ((r = cli_cand_uuid(cli, hex, &cs)))
				return r;
		}
	} else if (strlen(hex) >= 8 && strlen(hex) <= 32) {
		by_uuid = true;
		if ((r = cli_cand_uuid(cli, hex, &cs)))
			return r;
	} else {
		return cli_error(CLI_USAGE,
				 "RUN must be a run number, HOST:N or a uuid (at least its first 8 "
				 "hex digits), see `plateau runs`; not '%s'",
				 arg);
	}

	cli_db_list(cli, dbs, sizeof(dbs));
	if (!cs.n) {
		if (by_uuid)
			return cli_error(CLI_NOTFOUND, "no run with a uuid starting %s in %s", arg,
					 dbs);
		return cli_error(CLI_NOTFOUND, "no run %s in %s", arg, dbs);
	}
	if (cs.n > 1) {
		cli_cand_list(cli, &cs, list, sizeof(list));
		return cli_error(CLI_USAGE, "RUN '%s' names %zu runs: %s; name one as %s", arg,
				 cs.n, list,
				 colon || by_uuid ? "a longer uuid prefix, or its database alone "
						    "with --db"
						  : "HOST:N or by its uuid");
	}
	*run_id = cs.c[0].id;
	return cli_select(cli, cs.c[0].db);
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
