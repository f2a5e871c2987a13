// SPDX-License-Identifier: MIT
/* guard: the one safety gate for every writer (see guard.h). */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include "cleanup.h"
#include "guard.h"
#include "msg.h"

static void guard_reason(struct guard *g, const char *f, ...) __attribute__((format(printf, 2, 3)));

static void guard_reason(struct guard *g, const char *f, ...)
{
	va_list ap;

	if (g->nreasons < GUARD_REASONS_MAX) {
		va_start(ap, f);
		vsnprintf(g->reason[g->nreasons], sizeof(g->reason[0]), f, ap);
		va_end(ap);
	}
	g->nreasons++;
}

/* The first refusal decides the errno; reasons accumulate. */
static void guard_refuse(struct guard *g, int err)
{
	if (!g->err)
		g->err = err;
}

static void guard_init(struct guard *g)
{
	memset(g, 0, sizeof(*g));
	g->fd = -1;
	for (size_t i = 0; i < GUARD_LOCKS_MAX; i++)
		g->locks[i].fd = -1;
}

/* Reopen the file behind an O_PATH descriptor (the same inode, no lookup). */
static int reopen_fd(int pfd, int flags)
{
	char p[64];
	int fd;

	snprintf(p, sizeof(p), "/proc/self/fd/%d", pfd);
	fd = open(p, flags);
	return fd < 0 ? -errno : fd;
}

static bool same_file(int a, int b)
{
	struct stat sa, sb;

	if (fstat(a, &sa) < 0 || fstat(b, &sb) < 0)
		return false;
	return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino && sa.st_rdev == sb.st_rdev;
}

/*
 * Open @pfd's file for I/O with @flags; on EBUSY (O_EXCL: mounted, or
 * claimed by another holder) open it shared to still identify it and say
 * why.  Returns the descriptor; *@busy tells which.
 */
static int open_io(int pfd, int flags, bool *busy)
{
	int fd = reopen_fd(pfd, flags);

	*busy = false;
	if (fd == -EBUSY && (flags & O_EXCL)) {
		*busy = true;
		fd = reopen_fd(pfd, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	}
	if (fd >= 0 && !same_file(pfd, fd)) {
		close(fd);
		return -ESTALE;
	}
	return fd;
}

static const char *lock_dir_of(const struct guard_req *rq)
{
	const char *e;

	if (rq->lock_dir && *rq->lock_dir)
		return rq->lock_dir;
	e = getenv("PLATEAU_LOCK_DIR");
	return e && *e ? e : GUARD_LOCK_DIR;
}

static int mkdir_p(const char *dir)
{
	char p[sizeof(((struct guard *)0)->lock_dir)];
	size_t n = strlen(dir);

	if (n >= sizeof(p))
		return -ENAMETOOLONG;
	memcpy(p, dir, n + 1);
	for (char *s = p + 1; *s; s++) {
		if (*s != '/')
			continue;
		*s = '\0';
		if (mkdir(p, 0755) < 0 && errno != EEXIST)
			return -errno;
		*s = '/';
	}
	if (mkdir(p, 0755) < 0 && errno != EEXIST)
		return -errno;
	return 0;
}

static int lock_open(const char *dir, const char *key, bool create)
{
	char p[256];
	int fd;

	if (snprintf(p, sizeof(p), "%s/%s", dir, key) >= (int)sizeof(p))
		return -ENAMETOOLONG;
	fd = open(p, (create ? O_RDWR | O_CREAT : O_RDONLY) | O_CLOEXEC | O_NOFOLLOW, 0644);
	return fd < 0 ? -errno : fd;
}

static void holder_text(int fd, char *buf, size_t len)
{
	char raw[256] = "", via[64] = "?";
	long long pid = 0, run = 0;
	unsigned uid = 0;
	ssize_t n = pread(fd, raw, sizeof(raw) - 1, 0);
	char *p;

	if (n > 0)
		raw[n] = '\0';
	if ((p = strstr(raw, "pid=")))
		pid = strtoll(p + 4, NULL, 10);
	if ((p = strstr(raw, "run=")))
		run = strtoll(p + 4, NULL, 10);
	if ((p = strstr(raw, "uid=")))
		uid = (unsigned)strtoul(p + 4, NULL, 10);
	if ((p = strstr(raw, "via=")))
		sscanf(p + 4, "%63s", via);
	if (!pid) {
		snprintf(buf, len, "another plateau process");
		return;
	}
	if (run > 0)
		snprintf(buf, len, "pid %lld (%s, run %lld, uid %u)", pid, via, run, uid);
	else
		snprintf(buf, len, "pid %lld (%s, uid %u)", pid, via, uid);
}

/*
 * A whole-file OFD write lock (fcntl F_OFD_SETLK): held per open file
 * description, released when the last descriptor closes or the process
 * dies.  @probe asks (F_OFD_GETLK) without taking it, so a dry run never
 * stands in the way of a start.  Returns 1 when another holds it, 0, -errno.
 */
static int ofd_lock(int fd, bool probe)
{
	struct flock fl = {.l_type = F_WRLCK, .l_whence = SEEK_SET};

	if (fcntl(fd, probe ? F_OFD_GETLK : F_OFD_SETLK, &fl) < 0)
		return errno == EAGAIN || errno == EACCES ? 1 : -errno;
	return probe && fl.l_type != F_UNLCK;
}

/* who holds the lock file of @key ("pid 4242 (run 7, plateau run, uid 0)"):
 * 1 when someone does, 0 when free, or -errno */
static int lock_holder(const char *lock_dir, const char *key, char *buf, size_t len)
{
	_cleanup_close_ int fd = lock_open(lock_dir, key, false);
	int r;

	if (fd == -ENOENT)
		return 0;
	if (fd < 0)
		return fd;
	r = ofd_lock(fd, true);
	if (r > 0)
		holder_text(fd, buf, len);
	return r;
}

static void lock_write_holder(const struct guard *g, int fd)
{
	char line[160];
	int n;

	n = snprintf(line, sizeof(line), "pid=%d uid=%u run=%lld via=%s\n", (int)getpid(),
		     (unsigned)getuid(), (long long)g->run_id, program_invocation_short_name);
	if (ftruncate(fd, 0) == 0 && n > 0)
		(void)!pwrite(fd, line, (size_t)n, 0);
}

/* A lock file someone holds: say who. */
static void lock_probe(struct guard *g, const char *key, const char *label)
{
	char who[160];

	if (lock_holder(g->lock_dir, key, who, sizeof(who)) > 0) {
		guard_reason(g, "%s is locked by %s", label, who);
		guard_refuse(g, -EBUSY);
	}
}

/* The per-storage-object locks shared by every plateau process. */
static void guard_lock(struct guard *g, bool probe)
{
	char keys[GUARD_LOCKS_MAX][TARGET_KEY_LEN], labels[GUARD_LOCKS_MAX][TARGET_NAME_LEN];
	int n, r, dir_err;

	n = target_storage_keys(&g->id, keys, labels, GUARD_LOCKS_MAX);
	if (n < 0) {
		guard_reason(g, "cannot tell what it is stacked on, to lock it: %s", strerror(-n));
		guard_refuse(g, n);
		return;
	}
	dir_err = probe ? 0 : mkdir_p(g->lock_dir);
	for (int i = 0; i < n; i++) {
		int fd;

		if (probe) {
			lock_probe(g, keys[i], labels[i]);
			continue;
		}
		fd = dir_err < 0 ? dir_err : lock_open(g->lock_dir, keys[i], true);
		if (fd < 0 && geteuid() != 0 && (fd == -EACCES || fd == -EPERM || fd == -EROFS)) {
			/* an unprivileged user: say who holds it if anyone, else carry
			 * on with the kernel's locks (O_EXCL, OFD on a file) */
			lock_probe(g, keys[i], labels[i]);
			snprintf(g->lock_note, sizeof(g->lock_note),
				 "no shared lock (%s: %s), only the kernel's", g->lock_dir,
				 strerror(-fd));
			continue;
		}
		if (fd < 0) {
			guard_reason(g, "cannot lock %s/%s: %s", g->lock_dir, keys[i],
				     strerror(-fd));
			guard_refuse(g, fd);
			continue;
		}
		r = ofd_lock(fd, false);
		if (r) {
			char who[160];

			if (r > 0) {
				holder_text(fd, who, sizeof(who));
				guard_reason(g, "%s is locked by %s", labels[i], who);
				guard_refuse(g, -EBUSY);
			} else {
				guard_reason(g, "cannot lock %s/%s: %s", g->lock_dir, keys[i],
					     strerror(-r));
				guard_refuse(g, r);
			}
			close(fd);
			continue;
		}
		lock_write_holder(g, fd);
		memcpy(g->locks[g->nlocks].key, keys[i], sizeof(g->locks[0].key));
		g->locks[g->nlocks].key[sizeof(g->locks[0].key) - 1] = '\0';
		g->locks[g->nlocks++].fd = fd;
	}
	/* a regular file: an OFD lock on it too, seen by any process that asks
	 * (said only where the lock files did not already name the holder) */
	if (g->fd >= 0 && g->id.kind == TARGET_FILE && g->err != -EBUSY) {
		r = ofd_lock(g->fd, probe);
		if (r > 0) {
			guard_reason(g, "the file is locked by another process (OFD lock)");
			guard_refuse(g, -EBUSY);
		} else if (r < 0) {
			guard_reason(g, "cannot lock the file: %s", strerror(-r));
			guard_refuse(g, r);
		}
	}
	if (!g->lock_note[0])
		snprintf(g->lock_note, sizeof(g->lock_note), "%s %d lock%s in %s",
			 probe ? "free:" : "holding", n, n == 1 ? "" : "s", g->lock_dir);
}

/* Does @want name the drive, and may it be written under that name? */
static void guard_name(struct guard *g, const char *want, const char *field, bool writes)
{
	char desc[512];

	g->matched = TARGET_MATCH_NONE;
	if (!want || !*want) {
		if (writes) {
			guard_reason(
				g,
				"the plan names no drive: plateau writes only to a drive named "
				"by its serial, EUI64, NGUID or WWN (this one's serial is %s)",
				*g->id.serial ? g->id.serial : "unknown");
			guard_refuse(g, -EPERM);
		}
		return;
	}
	g->matched = target_match(&g->id, want);
	if (g->matched == TARGET_MATCH_SERIAL && g->id.serial_weak) {
		if (writes) {
			guard_reason(
				g,
				"its serial %s cannot be told from a future one: the file behind "
				"it cannot be reached to read its birth time (unlinked, or in "
				"another mount namespace)",
				g->id.serial);
			guard_refuse(g, -EPERM);
		}
		return;
	}
	if (g->matched == TARGET_MATCH_NONE && target_serial_legacy(want)) {
		guard_reason(g,
			     "%s %s is the old synthetic form, which repeats when an inode number "
			     "is reused: re-read the serial with plateau drives %s",
			     field && *field ? field : "serial", want, g->path);
		guard_refuse(g, -EPERM);
		return;
	}
	if (g->matched == TARGET_MATCH_NONE) {
		const char *d;
		size_t n;

		/* "PATH (nvme MODEL, serial S, ...)": without the path and parentheses */
		target_describe(&g->id, desc, sizeof(desc));
		d = desc + strlen(g->id.path);
		d += strspn(d, " (");
		n = strlen(d);
		if (n && d[n - 1] == ')')
			n--;
		guard_reason(g, "it is %.*s, not the drive the plan names (%s %s)", (int)n, d,
			     field && *field ? field : "serial", want);
		guard_refuse(g, -EPERM);
	}
}

static void guard_inuse(struct guard *g)
{
	struct target_inuse u;
	int r = target_inuse(&g->id, g->erase_all_ns, &u);

	if (r < 0) {
		guard_reason(g, "cannot tell whether it is in use: %s", strerror(-r));
		guard_refuse(g, r);
	}
	for (unsigned i = 0; i < u.count && i < TARGET_REASONS_MAX; i++)
		guard_reason(g, "%s", u.reason[i]);
	if (u.count > TARGET_REASONS_MAX)
		guard_reason(g, "%u more reasons", u.count - TARGET_REASONS_MAX);
	if (u.count)
		guard_refuse(g, -EBUSY);
}

static void guard_namespaces(struct guard *g)
{
	struct target_devset set;
	size_t n = 0;

	memset(&set, 0, sizeof(set));
	g->namespaces[0] = '\0';
	if (!g->erase_all_ns || !g->id.ctrl[0] ||
	    target_devset_add_ctrl("/sys", g->id.ctrl, &set) < 0)
		return;
	for (size_t i = 0; i < set.n; i++) {
		int w = snprintf(g->namespaces + n, sizeof(g->namespaces) - n, "%s%s", n ? " " : "",
				 set.name[i]);

		if (w < 0 || (size_t)w >= sizeof(g->namespaces) - n)
			break;
		n += (size_t)w;
	}
}

/* the directories a file's path really goes through, up to the root */
#define GUARD_ANCESTORS_MAX 128

struct guard_ancestors {
	size_t n;
	dev_t dev[GUARD_ANCESTORS_MAX];
	ino_t ino[GUARD_ANCESTORS_MAX];
};

/* Walk ".." from @dirfd to the root: the real tree, whatever path led here. */
static int guard_ancestors(int dirfd, struct guard_ancestors *a)
{
	_cleanup_close_ int cur = openat(dirfd, ".", O_PATH | O_DIRECTORY | O_CLOEXEC);
	struct stat st;

	a->n = 0;
	if (cur < 0)
		return -errno;
	while (a->n < GUARD_ANCESTORS_MAX) {
		int up;

		if (fstat(cur, &st) < 0)
			return -errno;
		if (a->n && a->dev[a->n - 1] == st.st_dev && a->ino[a->n - 1] == st.st_ino)
			return 0; /* ".." of the root is the root */
		a->dev[a->n] = st.st_dev;
		a->ino[a->n++] = st.st_ino;
		up = openat(cur, "..", O_PATH | O_DIRECTORY | O_CLOEXEC);
		if (up < 0)
			return -errno;
		close(cur);
		cur = up;
	}
	return -ELOOP;
}

/* Is the file @st one of the entries of the directory @dirfd (a hard link)? */
static int guard_dir_has(int dirfd, const struct stat *st)
{
	int fd = openat(dirfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	struct dirent *de;
	struct stat est;
	DIR *d;
	int r = 0;

	if (fd < 0)
		return -errno;
	d = fdopendir(fd);
	if (!d) {
		r = -errno;
		close(fd);
		return r;
	}
	while ((de = readdir(d)))
		if (fstatat(dirfd, de->d_name, &est, AT_SYMLINK_NOFOLLOW) == 0 &&
		    est.st_dev == st->st_dev && est.st_ino == st->st_ino) {
			r = 1;
			break;
		}
	closedir(d);
	return r;
}

/*
 * From the allowed directory @dirfd down @rel one component at a time,
 * never following a symlink and never going up: the O_PATH descriptor of
 * what it reaches, or -errno with the reason in @g.
 */
static int guard_walk(struct guard *g, int dirfd, const char *rel, int *parent)
{
	_cleanup_close_ int cur = fcntl(dirfd, F_DUPFD_CLOEXEC, 3);
	char comp[256];
	struct stat st;

	*parent = -1;
	if (cur < 0)
		return -errno;
	for (const char *s = rel; *s;) {
		size_t n = strcspn(s, "/");
		int next;

		if (!n) {
			s++;
			continue;
		}
		if (n >= sizeof(comp)) {
			guard_reason(g, "a component of its path is longer than %zu bytes",
				     sizeof(comp) - 1);
			return -ENAMETOOLONG;
		}
		memcpy(comp, s, n);
		comp[n] = '\0';
		s += n;
		if (!strcmp(comp, "..")) {
			guard_reason(g, "its path goes up ('..') out of a file_targets directory");
			return -EPERM;
		}
		next = openat(cur, comp, O_PATH | O_NOFOLLOW | O_CLOEXEC);
		if (next < 0 || fstat(next, &st) < 0) {
			int r = -errno;

			if (next >= 0)
				close(next);
			guard_reason(g, "%s: %s", comp, strerror(-r));
			return r;
		}
		if (S_ISLNK(st.st_mode)) {
			close(next);
			guard_reason(g,
				     "reached through a symlink (component '%s'): a file target of "
				     "plateaud is named by its real path",
				     comp);
			return -EPERM;
		}
		if (s[strspn(s, "/")] && !S_ISDIR(st.st_mode)) {
			close(next);
			guard_reason(g, "%s: %s", comp, strerror(ENOTDIR));
			return -ENOTDIR;
		}
		if (!s[strspn(s, "/")]) {
			*parent = cur;
			cur = -1;
			return next;
		}
		close(cur);
		cur = next;
	}
	guard_reason(g, "it is a file_targets directory itself, not a file in it");
	return -EISDIR;
}

/* rq->files: where plateaud may use a regular file (guard.h) */
static int guard_file_rule(struct guard *g, const struct guard_files *f, const char *path,
			   const struct stat *st)
{
	_cleanup_close_ int parent = -1, wfd = -1;
	struct guard_ancestors *anc = NULL;
	char list[512];
	size_t off = 0;
	struct stat wst;
	int r;

	/* the first allowed directory the path names, as a string: the walk
	 * beneath it decides */
	for (size_t i = 0; i < f->ndirs && wfd < 0; i++) {
		const char *d = f->dirs[i];
		size_t n = strlen(d);
		_cleanup_close_ int dfd = -1;

		while (n > 1 && d[n - 1] == '/')
			n--;
		if (strncmp(path, d, n) || (path[n] != '/' && d[n - 1] != '/'))
			continue;
		dfd = open(d, O_PATH | O_DIRECTORY | O_CLOEXEC);
		if (dfd < 0) {
			r = -errno;
			guard_reason(g, "file_targets directory %s: %s", d, strerror(-r));
			guard_refuse(g, r);
			return g->err;
		}
		wfd = guard_walk(g, dfd, path + n, &parent);
		if (wfd < 0) {
			guard_refuse(g, wfd);
			return g->err;
		}
	}
	if (wfd < 0) {
		for (size_t i = 0; i < f->ndirs && off < sizeof(list); i++)
			off += (size_t)snprintf(list + off, sizeof(list) - off, "%s%s",
						i ? " " : "", f->dirs[i]);
		guard_reason(g,
			     "a regular file is a target of plateaud only beneath plateaud.conf's "
			     "file_targets (%s)",
			     f->ndirs ? list : "none set");
		guard_refuse(g, -EPERM);
		return g->err;
	}
	/* the walk must have reached the very file the name was opened as */
	if (fstat(wfd, &wst) < 0 || wst.st_dev != st->st_dev || wst.st_ino != st->st_ino) {
		guard_reason(g, "it changed while it was being checked");
		guard_refuse(g, -ESTALE);
		return g->err;
	}
	if (wst.st_uid != 0 && wst.st_uid != f->owner_uid) {
		guard_reason(g, "it is owned by uid %u, not by the requester (uid %u) or root",
			     (unsigned)wst.st_uid, (unsigned)f->owner_uid);
		guard_refuse(g, -EPERM);
	}
	for (size_t i = 0; f->deny_paths && f->deny_paths[i]; i++) {
		_cleanup_close_ int dfd = open(f->deny_paths[i], O_PATH | O_CLOEXEC);
		struct stat dst;

		if (dfd < 0 && (errno == ENOENT || errno == ENOTDIR))
			continue; /* not there: nothing to be confused with */
		if (dfd < 0 || fstat(dfd, &dst) < 0) {
			guard_reason(g, "cannot tell it from %s: %s", f->deny_paths[i],
				     strerror(errno));
			guard_refuse(g, -errno);
			continue;
		}
		if (!S_ISDIR(dst.st_mode)) {
			if (dst.st_dev == wst.st_dev && dst.st_ino == wst.st_ino) {
				guard_reason(g, "it is plateaud's own file %s (never a target)",
					     f->deny_paths[i]);
				guard_refuse(g, -EPERM);
			}
			continue;
		}
		if (!anc) {
			anc = malloc(sizeof(*anc));
			r = anc ? guard_ancestors(parent, anc) : -ENOMEM;
			if (r < 0) {
				guard_reason(g, "cannot tell which directories it is in: %s",
					     strerror(-r));
				guard_refuse(g, r);
				break;
			}
		}
		r = 0;
		for (size_t k = 0; k < anc->n; k++)
			if (anc->dev[k] == dst.st_dev && anc->ino[k] == dst.st_ino)
				r = 1;
		/* a hard link of a file in there is that file */
		if (!r && wst.st_nlink > 1)
			r = guard_dir_has(dfd, &wst);
		if (r > 0) {
			guard_reason(g,
				     "it is in %s, a directory of plateaud's own files (never a "
				     "target)",
				     f->deny_paths[i]);
			guard_refuse(g, -EPERM);
		} else if (r < 0) {
			guard_reason(g, "cannot read %s: %s", f->deny_paths[i], strerror(-r));
			guard_refuse(g, r);
		}
	}
	free(anc);
	return g->err;
}

int guard_open(const struct guard_req *rq, struct guard *g)
{
	bool writes = rq->flags & GUARD_WRITES, probe = rq->flags & GUARD_PROBE, busy = false;
	_cleanup_close_ int pfd = -1;
	char msg[512];
	struct stat st;
	int flags, fd, r;

	guard_init(g);
	g->flags = rq->flags;
	g->run_id = rq->run_id;
	snprintf(g->path, sizeof(g->path), "%s", rq->path ? rq->path : "");
	snprintf(g->lock_dir, sizeof(g->lock_dir), "%s", lock_dir_of(rq));
	if (!rq->path || !*rq->path) {
		guard_reason(g, "no drive or file given");
		guard_refuse(g, -EINVAL);
		return g->err;
	}
	/* 1. the one lookup of the name */
	pfd = open(rq->path, O_PATH | O_CLOEXEC);
	if (pfd < 0 || fstat(pfd, &st) < 0) {
		r = -errno;
		guard_reason(g, "%s", strerror(-r));
		guard_refuse(g, r);
		return g->err;
	}
	if (S_ISBLK(st.st_mode))
		flags = O_DIRECT | O_EXCL | (writes && !probe ? O_RDWR : O_RDONLY);
	else if (S_ISREG(st.st_mode))
		flags = O_DIRECT | (writes && !probe ? O_RDWR : O_RDONLY);
	else if (S_ISCHR(st.st_mode))
		flags = O_RDONLY; /* NVMe generic device: identify only, I/O on its block twin */
	else
		flags = -1;
	if (flags < 0) {
		guard_reason(g, "not a drive or regular file");
		guard_refuse(g, -EINVAL);
		return g->err;
	}
	if (S_ISREG(st.st_mode) && rq->files && guard_file_rule(g, rq->files, rq->path, &st))
		return g->err;
	fd = open_io(pfd, flags | O_CLOEXEC, &busy);
	if (fd < 0 && (fd == -EINVAL || fd == -EOPNOTSUPP) && (flags & O_DIRECT) && !writes) {
		/* reading the identity needs no O_DIRECT */
		fd = open_io(pfd, (flags & ~O_DIRECT) | O_CLOEXEC, &busy);
	}
	if (fd < 0) {
		guard_reason(g, "cannot open it%s: %s", flags & O_DIRECT ? " with O_DIRECT" : "",
			     strerror(-fd));
		guard_refuse(g, fd);
		return g->err;
	}
	g->fd = fd;

	/* 2. who it is, through that descriptor */
	r = target_identify_fd(g->fd, rq->path, rq->kind, &g->id, msg, sizeof(msg));
	if (r < 0) {
		/* target messages start with the path: keep it once */
		const char *m = strncmp(msg, rq->path, strlen(rq->path)) == 0 &&
						msg[strlen(rq->path)] == ':'
					? msg + strlen(rq->path) + 2
					: msg;

		guard_reason(g, "%s", *m ? m : strerror(-r));
		guard_refuse(g, r);
		return g->err;
	}
	/* an NVMe generic device: the I/O goes to its block twin, verified */
	if (S_ISCHR(st.st_mode)) {
		struct target_identity twin;
		_cleanup_close_ int tp = -1;

		if (!g->id.block_path[0]) {
			if (writes) {
				guard_reason(g, "%s has no block device to do I/O through",
					     g->id.name);
				guard_refuse(g, -ENODEV);
				return g->err;
			}
		} else {
			tp = open(g->id.block_path, O_PATH | O_CLOEXEC);
			fd = tp < 0 ? -errno
				    : open_io(tp,
					      O_DIRECT | O_EXCL | O_CLOEXEC |
						      (writes && !probe ? O_RDWR : O_RDONLY),
					      &busy);
			if (fd < 0) {
				guard_reason(g, "cannot open its block device %s: %s",
					     g->id.block_path, strerror(-fd));
				guard_refuse(g, fd);
				return g->err;
			}
			close(g->fd);
			g->fd = fd;
			r = target_identify_fd(fd, g->id.block_path, TARGET_NVME, &twin, msg,
					       sizeof(msg));
			if (r < 0 || !target_same(&g->id, &twin)) {
				guard_reason(g, "its block device %s is not the same namespace%s%s",
					     g->id.block_path, r < 0 ? ": " : "", r < 0 ? msg : "");
				guard_refuse(g, -ESTALE);
				return g->err;
			}
			memcpy(twin.path, g->id.path, sizeof(twin.path));
			g->id = twin;
		}
	}
	if (!writes) {
		/* reading: a name, where given, must still be this drive's */
		if (rq->want && *rq->want)
			guard_name(g, rq->want, rq->want_field, false);
		return g->err;
	}

	/* 3. named, 4. free, 5. locked */
	guard_name(g, rq->want, rq->want_field, true);
	if (rq->erase_method != ERASE_NONE) {
		struct erase_plan ep;

		if (erase_dry_run(&g->id, rq->erase_method, &ep, msg, sizeof(msg)) == 0)
			g->erase_all_ns = ep.all_namespaces;
		else
			g->erase_all_ns = g->id.kind == TARGET_NVME;
		guard_namespaces(g);
	}
	guard_inuse(g);
	guard_lock(g, probe);
	/* the kernel's claim, said only where nothing above explains it */
	if (busy) {
		if (!g->nreasons)
			guard_reason(g, "held open exclusively (O_EXCL) by another process, or "
					"claimed by the kernel");
		guard_refuse(g, -EBUSY);
	}
	if (probe) {
		/* a dry run holds nothing (it took no lock) */
		close(g->fd);
		g->fd = -1;
	}
	return g->err;
}

int guard_recheck(struct guard *g, const char *want, bool whole_ctrl)
{
	struct target_identity again;
	char msg[512];
	int r;

	g->err = 0;
	g->nreasons = 0;
	if (g->fd < 0) {
		guard_reason(g, "the drive is not open");
		guard_refuse(g, -EBADF);
		return g->err;
	}
	r = target_identify_fd(g->fd, g->id.block_path[0] ? g->id.block_path : g->id.path,
			       g->id.kind == TARGET_NVME ? TARGET_NVME : TARGET_UNKNOWN, &again,
			       msg, sizeof(msg));
	if (r < 0 || !target_same(&g->id, &again)) {
		guard_reason(g, "it is no longer the drive that was checked%s%s",
			     r < 0 ? ": " : " (serial now ", r < 0 ? msg : again.serial);
		if (r >= 0)
			snprintf(g->reason[g->nreasons - 1] + strlen(g->reason[g->nreasons - 1]),
				 sizeof(g->reason[0]) - strlen(g->reason[g->nreasons - 1]), ")");
		guard_refuse(g, -ESTALE);
		return g->err;
	}
	memcpy(again.path, g->id.path, sizeof(again.path));
	g->id = again;
	guard_name(g, want, "serial", true);
	if (whole_ctrl)
		g->erase_all_ns = true;
	guard_namespaces(g);
	guard_inuse(g);
	return g->err;
}

void guard_set_run(struct guard *g, int64_t run_id)
{
	g->run_id = run_id;
	for (size_t i = 0; i < g->nlocks; i++)
		if (g->locks[i].fd >= 0)
			lock_write_holder(g, g->locks[i].fd);
}

void guard_close(struct guard *g)
{
	for (size_t i = 0; i < g->nlocks; i++) {
		if (g->locks[i].fd >= 0) {
			/* the file stays: unlinking races with the next locker */
			(void)!ftruncate(g->locks[i].fd, 0);
			close(g->locks[i].fd);
		}
		g->locks[i].fd = -1;
	}
	g->nlocks = 0;
	if (g->fd >= 0)
		close(g->fd);
	g->fd = -1;
}

char *guard_refusal(const struct guard *g, char *buf, size_t len)
{
	size_t n;
	int w;

	w = snprintf(buf, len, "refusing %s: ", g->path);
	n = w < 0 ? 0 : (size_t)w;
	for (unsigned i = 0; i < g->nreasons && i < GUARD_REASONS_MAX && n < len; i++) {
		w = snprintf(buf + n, len - n, "%s%s", i ? "; " : "", g->reason[i]);
		n += w < 0 ? 0 : (size_t)w;
	}
	if (!g->nreasons && n < len)
		snprintf(buf + n, len - n, "%s", strerror(g->err ? -g->err : EPERM));
	if (g->nreasons > GUARD_REASONS_MAX && n < len)
		snprintf(buf + n, len - n, "; and %u more", g->nreasons - GUARD_REASONS_MAX);
	return buf;
}

char *guard_checks(const struct guard *g, char *buf, size_t len)
{
	if (!(g->flags & GUARD_WRITES)) {
		snprintf(buf, len, "identity read; the plan does not write");
		return buf;
	}
	snprintf(buf, len, "identity matches the plan (%s); not in use%s%s; %s",
		 target_match_name(g->matched), g->erase_all_ns ? ", nor are the namespaces " : "",
		 g->erase_all_ns ? g->namespaces : "", g->lock_note);
	return buf;
}
