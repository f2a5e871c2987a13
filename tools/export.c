// SPDX-License-Identifier: MIT
/*
 * export, import: move stored runs between databases, so that one lab
 * database can collect the runs of many hosts.
 *
 * The export file is itself a plateau database (SQLite, application_id
 * "PLTU", this plateau's schema version, a rollback journal so it is one
 * file) holding only the exported runs with their drives, phases, samples
 * (histograms included), points and events: `plateau --db FILE runs` reads
 * it like any other.  Import merges it into --db in one transaction; a run
 * is recognised by its uuid, so a run already there is left alone and
 * importing the same file twice changes nothing (lib/store.c,
 * store_copy_runs()).
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"

/* the runs of one source database, in the order they were named */
struct export_src {
	struct store *s;
	int64_t *ids;
	size_t n;
};

static int export_fail_errno(const char *path, const char *what, int e)
{
	return cli_error(CLI_USAGE, "%s: %s: %s", path, what, strerror(e));
}

/* Copy a finished temporary file to standard output. */
static int export_cat(const char *path)
{
	char buf[65536];
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return export_fail_errno(path, "reading the export", errno);
	while ((n = read(fd, buf, sizeof(buf))) != 0) {
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 || fwrite(buf, 1, (size_t)n, stdout) != (size_t)n) {
			close(fd);
			return cli_error(CLI_USAGE, "writing the export to standard output failed");
		}
	}
	close(fd);
	if (fflush(stdout))
		return cli_error(CLI_USAGE, "writing the export to standard output failed");
	return CLI_OK;
}

/* Write the runs into the new database file @tmp (already created, empty). */
static int export_write(const char *tmp, struct export_src *src, size_t nsrc, size_t *nruns)
{
	struct store *dst = NULL;
	char err[1024];
	int r;

	r = store_open(tmp, STORE_CREATE | STORE_SINGLE_FILE, &dst, err, sizeof(err));
	if (r)
		return cli_error(CLI_USAGE, "%s", err);
	*nruns = 0;
	for (size_t i = 0; i < nsrc; i++) {
		struct store_copied *out = calloc(src[i].n, sizeof(*out));

		if (!out) {
			store_close(dst);
			return cli_error(CLI_USAGE, "out of memory");
		}
		r = store_copy_runs(dst, src[i].s, src[i].ids, src[i].n, out);
		if (r) {
			r = cli_error(r == -ENOENT ? CLI_NOTFOUND : CLI_USAGE, "export: %s",
				      store_errmsg(dst));
			free(out);
			store_close(dst);
			return r;
		}
		for (size_t k = 0; k < src[i].n; k++)
			*nruns += !out[k].present;
		free(out);
	}
	store_close(dst);
	return CLI_OK;
}

static int cmd_export(struct cli *cli, int argc, char **argv)
{
	static const struct option opts[] = {
		{"output", required_argument, NULL, 'o'},
		{NULL, 0, NULL, 0},
	};
	const char *path = NULL, *slash;
	struct export_src *src = NULL;
	size_t nsrc = 0, nruns = 0, ndb;
	char *tmp = NULL;
	mode_t mask;
	int opt, r, fd;

	optind = 1;
	while ((opt = getopt_long(argc, argv, "o:", opts, NULL)) != -1) {
		if (opt != 'o')
			return cli_bad_option("export", argv);
		path = optarg;
	}
	if (optind == argc)
		return cli_usage("export");
	if ((!path || !strcmp(path, "-")) && isatty(STDOUT_FILENO))
		return cli_error(CLI_USAGE, "export: the export is a database file, not text for "
					    "a terminal: give -o FILE (or redirect)");
	if ((r = cli_db_count(cli, &ndb)))
		return r;
	src = calloc(ndb, sizeof(*src));
	if (!src)
		return cli_error(CLI_USAGE, "out of memory");
	for (int i = optind; i < argc; i++) {
		struct store *s;
		int64_t id, *ids;
		size_t k;

		if ((r = cli_find_run(cli, argv[i], &id)) || (r = cli_store(cli, &s)))
			goto out;
		for (k = 0; k < nsrc && src[k].s != s; k++)
			;
		if (k == nsrc)
			src[nsrc++].s = s;
		ids = realloc(src[k].ids, (src[k].n + 1) * sizeof(*ids));
		if (!ids) {
			r = cli_error(CLI_USAGE, "out of memory");
			goto out;
		}
		src[k].ids = ids;
		ids[src[k].n++] = id;
	}

	if (path && strcmp(path, "-")) {
		/* never over a database being read: the rename would replace it */
		fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd >= 0) {
			bool same = cli_db_holds(cli, fd);

			close(fd);
			if (same) {
				r = cli_error(CLI_USAGE,
					      "export: -o %s is one of the databases read; "
					      "give another file",
					      path);
				goto out;
			}
		}
		slash = strrchr(path, '/');
		if (asprintf(&tmp, "%.*s.%s.XXXXXX", slash ? (int)(slash - path + 1) : 0, path,
			     slash ? slash + 1 : path) < 0)
			tmp = NULL;
	} else {
		const char *dir = getenv("TMPDIR");

		if (asprintf(&tmp, "%s/plateau-export.XXXXXX", dir && *dir ? dir : "/tmp") < 0)
			tmp = NULL;
	}
	if (!tmp) {
		r = cli_error(CLI_USAGE, "out of memory");
		goto out;
	}
	fd = mkostemp(tmp, O_CLOEXEC);
	if (fd < 0) {
		r = export_fail_errno(path ? path : tmp, "cannot create a file beside it", errno);
		free(tmp);
		tmp = NULL;
		goto out;
	}
	/* mkstemp makes it 0600; an export is as readable as any new file */
	mask = umask(0);
	umask(mask);
	(void)fchmod(fd, 0666 & ~mask);
	close(fd);

	r = export_write(tmp, src, nsrc, &nruns);
	if (!r && path && strcmp(path, "-")) {
		fd = open(tmp, O_RDONLY | O_CLOEXEC);
		if (fd < 0 || fsync(fd) || rename(tmp, path))
			r = export_fail_errno(path, "writing the export", errno);
		if (fd >= 0)
			close(fd);
	} else if (!r) {
		r = export_cat(tmp);
	}
	if (!r)
		fprintf(stderr, "plateau: exported %zu run%s%s%s\n", nruns, nruns == 1 ? "" : "s",
			path && strcmp(path, "-") ? " to " : "",
			path && strcmp(path, "-") ? path : "");
out:
	if (tmp) {
		/* after a rename there is nothing left under the temporary name */
		unlink(tmp);
		free(tmp);
	}
	for (size_t i = 0; i < nsrc; i++)
		free(src[i].ids);
	free(src);
	return r;
}

const struct cli_cmd cli_cmd_export = {
	"export",
	"RUN... [-o FILE]",
	"copy ended runs to a file that plateau import reads",
	"  -o, --output FILE   the export file (default: standard output, not a\n"
	"                      terminal); written to a temporary file and renamed\n"
	"\nRUN is a run number, HOST:N or a uuid (prefix); with several --db each RUN\n"
	"is taken from the database that holds it.  Only ended runs (done, failed,\n"
	"stopped) are exported: plateaud resumes the unfinished runs of its database.\n"
	"The file is a plateau database of this plateau's schema holding only those\n"
	"runs, with their drives, phases, samples (histograms included), points and\n"
	"events: `plateau --db FILE runs` lists it.\n",
	cmd_export,
	CLI_FMT_NONE};

/* --- import --- */

struct import_ids {
	int64_t *ids;
	size_t n;
};

static int import_collect(void *ctx, const struct store_run *r)
{
	struct import_ids *x = ctx;
	int64_t *nv = realloc(x->ids, (x->n + 1) * sizeof(*nv));

	if (!nv)
		return -ENOMEM;
	x->ids = nv;
	nv[x->n++] = r->id;
	return 0;
}

/*
 * The database import writes to, and whether this process made it: a
 * refused import into a database that was not there leaves nothing behind.
 * Everything is decided through the directory's descriptor, by device and
 * inode: a file that was there before (the database, or a stray -wal) is
 * never removed.
 */
#define IMPORT_NSIDE 3
static const char *const import_sides[IMPORT_NSIDE] = {"-wal", "-shm", "-journal"};

struct import_new {
	int dfd; /* the database's directory; -1: the database was there (or not ours) */
	char base[4096];
	dev_t dev; /* of the database this process created */
	ino_t ino;
	bool side_was[IMPORT_NSIDE]; /* a -wal, -shm, -journal there before */
	dev_t side_dev[IMPORT_NSIDE];
	ino_t side_ino[IMPORT_NSIDE];
};

static void import_name(char *buf, size_t len, const char *base, const char *suffix)
{
	snprintf(buf, len, "%s%s", base, suffix);
}

/* Create @path when it is not there (empty: store_open() makes the schema)
 * and remember it; a database already there is left to store_open(). */
static void import_create(const char *path, struct import_new *nw)
{
	const char *slash = strrchr(path, '/');
	char dir[4096], name[4200];
	struct stat st;
	int fd;

	nw->dfd = -1;
	if (slash && !slash[1])
		return;
	snprintf(dir, sizeof(dir), "%.*s", slash ? (int)(slash - path + (slash == path)) : 1,
		 slash ? path : ".");
	if (snprintf(nw->base, sizeof(nw->base), "%s", slash ? slash + 1 : path) >=
	    (int)sizeof(nw->base))
		return;
	nw->dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (nw->dfd < 0)
		return;
	for (size_t i = 0; i < IMPORT_NSIDE; i++) {
		import_name(name, sizeof(name), nw->base, import_sides[i]);
		nw->side_was[i] = !fstatat(nw->dfd, name, &st, AT_SYMLINK_NOFOLLOW);
		nw->side_dev[i] = nw->side_was[i] ? st.st_dev : 0;
		nw->side_ino[i] = nw->side_was[i] ? st.st_ino : 0;
	}
	/* O_EXCL: made here, or there before and never ours to remove */
	fd = openat(nw->dfd, nw->base, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
	if (fd < 0 || fstat(fd, &st)) {
		if (fd >= 0)
			close(fd);
		close(nw->dfd);
		nw->dfd = -1;
		return;
	}
	nw->dev = st.st_dev;
	nw->ino = st.st_ino;
	close(fd);
}

/* unlink @name in @nw's directory when it is the file (@dev, @ino) */
static void import_unlink_if(const struct import_new *nw, const char *name, dev_t dev, ino_t ino)
{
	struct stat st;

	if (!fstatat(nw->dfd, name, &st, AT_SYMLINK_NOFOLLOW) && st.st_dev == dev &&
	    st.st_ino == ino)
		(void)unlinkat(nw->dfd, name, 0);
}

/* Nothing imported: remove the database this process created and the
 * -wal/-shm/-journal SQLite made beside it (none that was there before). */
static void import_undo(const struct import_new *nw)
{
	char name[4200];
	struct stat st;

	if (nw->dfd < 0)
		return;
	for (size_t i = 0; i < IMPORT_NSIDE; i++) {
		import_name(name, sizeof(name), nw->base, import_sides[i]);
		if (fstatat(nw->dfd, name, &st, AT_SYMLINK_NOFOLLOW))
			continue;
		if (nw->side_was[i] && st.st_dev == nw->side_dev[i] && st.st_ino == nw->side_ino[i])
			continue;
		import_unlink_if(nw, name, st.st_dev, st.st_ino);
	}
	import_unlink_if(nw, nw->base, nw->dev, nw->ino);
}

static int cmd_import(struct cli *cli, int argc, char **argv)
{
	static const struct option opts[] = {
		{NULL, 0, NULL, 0},
	};
	struct store *src = NULL, *dst = NULL;
	struct store_copied *out = NULL;
	struct import_ids x = {0};
	struct import_new nw = {.dfd = -1};
	struct stat st;
	size_t added = 0;
	char err[1024];
	int opt, r, fd;

	optind = 1;
	while ((opt = getopt_long(argc, argv, "", opts, NULL)) != -1)
		return cli_bad_option("import", argv);
	if (optind + 1 != argc)
		return cli_usage("import");

	/* the file: there, a plateau database, whole, with runs in it (a
	 * missing file is named as the one to import, not as a database) */
	fd = open(argv[optind], O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
	if (fd < 0)
		return cli_error(errno == ENOENT ? CLI_NOTFOUND : CLI_USAGE,
				 "import: %s: %s (the file to import: give a file plateau "
				 "export wrote)",
				 argv[optind], strerror(errno));
	r = fstat(fd, &st) ? -errno : 0;
	close(fd);
	if (r || !S_ISREG(st.st_mode))
		return cli_error(CLI_USAGE, "import: %s: %s", argv[optind],
				 r ? strerror(-r)
				   : "not a file (give a file plateau export wrote)");
	r = store_open(argv[optind], STORE_RDONLY, &src, err, sizeof(err));
	if (r)
		return cli_error(r == -ENOENT ? CLI_NOTFOUND : CLI_USAGE, "import: %s", err);
	if ((r = store_quick_check(src))) {
		r = cli_error(CLI_USAGE, "import: %s", store_errmsg(src));
		goto out;
	}
	if ((r = store_runs_foreach(src, NULL, import_collect, &x))) {
		r = cli_error(CLI_USAGE, "import: %s",
			      r == -ENOMEM ? "out of memory" : store_errmsg(src));
		goto out;
	}
	if (!x.n) {
		r = cli_error(CLI_USAGE, "import: %s: no runs in it", argv[optind]);
		goto out;
	}
	out = calloc(x.n, sizeof(*out));
	if (!out) {
		r = cli_error(CLI_USAGE, "out of memory");
		goto out;
	}

	import_create(cli->db_path, &nw);
	r = store_open(cli->db_path, STORE_CREATE, &dst, err, sizeof(err));
	if (r) {
		r = cli_error(r == -ENOENT ? CLI_NOTFOUND : CLI_USAGE, "import: %s", err);
		goto out;
	}
	if ((r = store_copy_runs(dst, src, x.ids, x.n, out))) {
		r = cli_error(CLI_USAGE, "import: nothing imported: %s", store_errmsg(dst));
		goto out;
	}
	for (size_t i = 0; i < x.n; i++) {
		const struct store_copied *c = &out[i];

		if (c->present) {
			printf("%s %s: already there as run %lld\n", c->host, c->uuid,
			       (long long)c->dst_id);
			continue;
		}
		added++;
		printf("%s %s: imported as run %lld (%zu samples, %zu points, %zu events)\n",
		       c->host, c->uuid, (long long)c->dst_id, c->samples, c->points, c->events);
	}
	printf("%s: %zu run%s imported, %zu already there\n", cli->db_path, added,
	       added == 1 ? "" : "s", x.n - added);
	r = CLI_OK;
out:
	store_close(dst);
	store_close(src);
	if (r)
		import_undo(&nw);
	if (nw.dfd >= 0)
		close(nw.dfd);
	free(out);
	free(x.ids);
	return r;
}

const struct cli_cmd cli_cmd_import = {
	"import",
	"FILE",
	"add the runs of an export file to the database",
	"FILE is a file plateau export wrote.  Its runs are added to --db (opened\n"
	"read-write, created if missing) in one transaction: all of them, or on any\n"
	"error none.  A run already there (the same uuid) is left as it is, so\n"
	"importing a file twice changes nothing; a drive already there (the same\n"
	"identity) is reused.  The file is checked whole first, and every row as it\n"
	"is read: a damaged file is refused naming the file, table, row and field.\n"
	"A refused import into a database that was not there leaves none behind.\n",
	cmd_import,
	CLI_FMT_NONE};
