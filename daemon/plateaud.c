// SPDX-License-Identifier: MIT
/*
 * plateaud: runs plans unattended (plateaud(8)).  Resumes every unfinished
 * run at start, serves the control socket, and pauses runs with their state
 * committed on SIGTERM so that the next start resumes them.
 */
#include <errno.h>
#include <getopt.h>
#include <libgen.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/file.h>
#include <limits.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <grp.h>

#include <systemd/sd-daemon.h>

#include "control.h"
#include "events.h"
#include "ini.h"
#include "manager.h"
#include "parse.h"
#include "paths.h"
#include "plateaud.h"
#include "version.h"

/* plateaud.conf is a few lines; a file this big is something else */
#define PLATEAUD_CONFIG_MAX (1024 * 1024)

static bool log_to_journal;

static int mkdir_parent(const char *path, mode_t mode);

bool log_is_journal(void)
{
	return log_to_journal;
}

void log_msg(int prio, const char *fmt, ...)
{
	char buf[2048];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	/* under systemd, stderr goes to the journal and "<N>" sets the priority */
	if (log_to_journal)
		fprintf(stderr, "<%d>%s\n", prio, buf);
	else
		fprintf(stderr, "plateaud: %s\n", buf);
}

int log_errno(int prio, int r, const char *fmt, ...)
{
	char buf[1536];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	log_msg(prio, "%s: %s", buf, strerror(-r));
	return r;
}

static void usage(FILE *f)
{
	fprintf(f,
		"usage: plateaud [--db PATH] [--socket PATH] [--config FILE] [--hook CMD]\n"
		"                [--hook-timeout D] [--prometheus-file PATH]\n\n"
		"The plateau daemon: erases, fills and preconditions drives to steady state and\n"
		"measures them, as plans handed to it by `plateau start` say.\n\n"
		"  --db PATH              database (default " PLATEAU_DEFAULT_DB ")\n"
		"  --socket PATH          control socket, when not socket-activated\n"
		"                         (default " PLATEAU_DEFAULT_SOCKET ")\n"
		"  --config FILE          settings (default " PLATEAU_DEFAULT_CONFIG
		", if present)\n"
		"  --hook CMD             run CMD on every run event (environment PLATEAU_*),\n"
		"                         as hook_user without capabilities\n"
		"  --hook-timeout D       kill a hook after D (default 30s)\n"
		"  --prometheus-file PATH node_exporter textfile, rewritten as the runs progress\n"
		"  --version, --help\n\n"
		"See plateaud(8) for the events, their journal MESSAGE_IDs and the hooks.\n");
}

/* file_targets = DIR [DIR...]: absolute, without "." or ".." components */
static int config_file_targets(struct manager *m, char *v, const char *path, unsigned int n)
{
	char *save = NULL, *tok;

	m->nfile_targets = 0;
	for (tok = strtok_r(v, " \t", &save); tok; tok = strtok_r(NULL, " \t", &save)) {
		size_t len = strlen(tok);

		while (len > 1 && tok[len - 1] == '/')
			tok[--len] = '\0';
		if (tok[0] != '/' || strstr(tok, "/./") || strstr(tok, "/../") ||
		    (len >= 2 && !strcmp(tok + len - 2, "/.")) ||
		    (len >= 3 && !strcmp(tok + len - 3, "/..")) ||
		    len >= sizeof(m->file_targets[0])) {
			log_msg(LOG_ERR,
				"%s:%u: file_targets: expected absolute directories without . or "
				".., "
				"not '%s'",
				path, n, tok);
			return -EINVAL;
		}
		if (m->nfile_targets == PLATEAUD_FILE_TARGETS_MAX) {
			log_msg(LOG_ERR, "%s:%u: file_targets: at most %d directories", path, n,
				PLATEAUD_FILE_TARGETS_MAX);
			return -EINVAL;
		}
		memcpy(m->file_targets[m->nfile_targets++], tok, len + 1);
	}
	return 0;
}

/* [hooks] NAME = /absolute/path: a name a plan's "hook =" may choose */
static int config_hook_def(struct manager *m, const char *k, const char *v, const char *path,
			   unsigned int n)
{
	size_t i;

	if (!*k || strlen(k) >= sizeof(m->hook_defs[0].name) ||
	    strspn(k, "abcdefghijklmnopqrstuvwxyz"
		      "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-.") != strlen(k)) {
		log_msg(LOG_ERR,
			"%s:%u: [hooks]: expected a name of letters, digits, '_', '-' and '.', "
			"not '%s'",
			path, n, k);
		return -EINVAL;
	}
	if (v[0] != '/' || strlen(v) >= sizeof(m->hook_defs[0].path)) {
		log_msg(LOG_ERR, "%s:%u: [hooks] %s: expected an absolute path, not '%s'", path, n,
			k, v);
		return -EINVAL;
	}
	for (i = 0; i < m->nhook_defs; i++)
		if (!strcmp(m->hook_defs[i].name, k)) {
			log_msg(LOG_ERR, "%s:%u: [hooks] %s: defined twice", path, n, k);
			return -EINVAL;
		}
	if (m->nhook_defs == PLATEAUD_HOOKS_MAX) {
		log_msg(LOG_ERR, "%s:%u: [hooks]: at most %d hooks", path, n, PLATEAUD_HOOKS_MAX);
		return -EINVAL;
	}
	/* both lengths were checked above */
	memcpy(m->hook_defs[m->nhook_defs].name, k, strlen(k) + 1);
	memcpy(m->hook_defs[m->nhook_defs].path, v, strlen(v) + 1);
	m->nhook_defs++;
	return 0;
}

/* One "key = value" of [daemon] (@hooks false) or [hooks] (@hooks true). */
static int config_pair(struct manager *m, bool hooks, const char *k, const char *v,
		       const char *path, unsigned int n, const bool *set)
{
	char list[INI_LINE_MAX];
	uint64_t ns;

	if (hooks)
		return config_hook_def(m, k, v, path, n);
	if (!strcmp(k, "file_targets")) {
		/* split in place: a copy, of a length that fits (ini.h) */
		snprintf(list, sizeof(list), "%s", v);
		return config_file_targets(m, list, path, n);
	}
	if (!strcmp(k, "hook_user")) {
		if (!*v || strlen(v) >= sizeof(m->hook_user)) {
			log_msg(LOG_ERR, "%s:%u: hook_user: expected a user name", path, n);
			return -EINVAL;
		}
		memcpy(m->hook_user, v, strlen(v) + 1);
	} else if (!strcmp(k, "database")) {
		if (!set[0])
			snprintf(m->db_path, sizeof(m->db_path), "%s", v);
	} else if (!strcmp(k, "socket")) {
		if (!set[1])
			snprintf(m->socket_path, sizeof(m->socket_path), "%s", v);
	} else if (!strcmp(k, "hook")) {
		if (!set[2])
			snprintf(m->hook, sizeof(m->hook), "%s", v);
	} else if (!strcmp(k, "hook_timeout")) {
		if (parse_duration_ns(v, &ns) || !ns) {
			log_msg(LOG_ERR,
				"%s:%u: hook_timeout: expected a duration ('30s'), not '%s'", path,
				n, v);
			return -EINVAL;
		}
		if (!set[3])
			m->hook_timeout_ns = ns;
	} else if (!strcmp(k, "prometheus_textfile")) {
		if (!set[4])
			snprintf(m->prom_path, sizeof(m->prom_path), "%s", v);
	} else {
		log_msg(LOG_ERR,
			"%s:%u: unknown key '%s' (expected database, socket, hook, hook_timeout, "
			"hook_user, file_targets, prometheus_textfile)",
			path, n, k);
		return -EINVAL;
	}
	return 0;
}

/* The sections and pairs of @text (lib/ini.h's rules). */
static int config_parse(struct manager *m, const char *text, const char *path, const bool *set)
{
	static struct ini it; /* 8 KiB; main's thread alone reads the file */
	bool in_daemon = false, in_hooks = false;
	int t;

	ini_init(&it, text);
	while ((t = ini_next(&it)) != INI_END) {
		if (t == INI_SECTION) {
			in_daemon = !strcmp(it.section, "daemon");
			in_hooks = !strcmp(it.section, "hooks");
			if (in_daemon || in_hooks)
				continue;
		} else if (t == INI_PAIR && (in_daemon || in_hooks)) {
			if (config_pair(m, in_hooks, it.key, it.value, path, it.line, set))
				return -EINVAL;
			continue;
		} else if (it.error == INI_ERR_NO_KEY && (in_daemon || in_hooks)) {
			/* "= value": the section's own words for an empty key */
			return config_pair(m, in_hooks, "", "", path, it.line, set);
		} else if (it.error == INI_ERR_LONG || it.error == INI_ERR_CONTROL) {
			log_msg(LOG_ERR, "%s:%u: %s", path, it.line, ini_error_message(it.error));
			return -EINVAL;
		}
		/* a section of another name, a pair before [daemon] or [hooks],
		 * a malformed section header or a line without '=' */
		log_msg(LOG_ERR, "%s:%u: expected [daemon] or [hooks] and then 'key = value' lines",
			path, it.line);
		return -EINVAL;
	}
	return 0;
}

/* [daemon] key = value and [hooks] name = path; command-line options win
 * over the file. */
static int config_load(struct manager *m, const char *path, bool must_exist, const bool *set)
{
	struct stat st;
	char *text;
	size_t len = 0;
	ssize_t got;
	int r, fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);

	if (fd < 0) {
		if (!must_exist && errno == ENOENT)
			return 0;
		return log_errno(LOG_ERR, -errno, "%s", path);
	}
	/* the file read is the file checked: through its descriptor */
	if (fstat(fd, &st) < 0) {
		r = log_errno(LOG_ERR, -errno, "%s", path);
		close(fd);
		return r;
	}
	if (!S_ISREG(st.st_mode)) {
		log_msg(LOG_ERR, "%s: not a regular file", path);
		close(fd);
		return -EINVAL;
	}
	/* as root, it names the code plateaud runs and the files it may
	 * write: nobody but root may have had a say in it */
	if (geteuid() == 0 && (st.st_uid != 0 || (st.st_mode & (S_IWGRP | S_IWOTH)))) {
		log_msg(LOG_ERR,
			"%s: owned by uid %u, mode %04o: plateaud runs as root and this file names "
			"the hooks it runs and the files it may write, so it must be owned by root "
			"and writable by root only (chown root %s; chmod go-w %s); not starting",
			path, (unsigned)st.st_uid, (unsigned)(st.st_mode & 07777), path, path);
		close(fd);
		return -EPERM;
	}
	text = malloc(PLATEAUD_CONFIG_MAX + 1);
	if (!text) {
		close(fd);
		return log_errno(LOG_ERR, -ENOMEM, "%s", path);
	}
	while ((got = read(fd, text + len, PLATEAUD_CONFIG_MAX + 1 - len)) > 0 &&
	       (len += (size_t)got) <= PLATEAUD_CONFIG_MAX)
		;
	if (got < 0) {
		r = log_errno(LOG_ERR, -errno, "%s", path);
	} else if (len > PLATEAUD_CONFIG_MAX) {
		log_msg(LOG_ERR, "%s: larger than %d bytes: not a plateaud.conf", path,
			PLATEAUD_CONFIG_MAX);
		r = -EFBIG;
	} else {
		text[len] = '\0';
		r = config_parse(m, text, path, set);
	}
	close(fd);
	free(text);
	return r;
}

/*
 * One daemon per database: a second one would resume the same runs again.
 * flock() on a file next to the database (never on the database itself,
 * whose POSIX locks SQLite owns and a close() here would drop).
 */
static int instance_lock(const char *db)
{
	char path[PATH_MAX + 8], pid[32];
	int fd, n;

	if (strlen(db) >= PATH_MAX) {
		log_msg(LOG_ERR, "%.200s...: database path too long", db);
		return -ENAMETOOLONG;
	}
	snprintf(path, sizeof(path), "%.*s.lock", PATH_MAX - 1, db);
	if (mkdir_parent(path, 0750) < 0)
		log_msg(LOG_WARNING, "%s: cannot create its directory, ignoring", path);
	fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0640);
	if (fd < 0)
		return log_errno(LOG_ERR, -errno, "%s", path);
	if (flock(fd, LOCK_EX | LOCK_NB) < 0) {
		int e = errno;

		n = (int)pread(fd, pid, sizeof(pid) - 1, 0);
		pid[n > 0 ? n : 0] = '\0';
		pid[strcspn(pid, "\n")] = '\0';
		log_msg(LOG_ERR,
			"another plateaud (pid %s) already runs on %s; refusing to start a second",
			*pid ? pid : "?", db);
		close(fd);
		return e == EWOULDBLOCK ? -EBUSY : -e;
	}
	n = snprintf(pid, sizeof(pid), "%d\n", (int)getpid());
	if (ftruncate(fd, 0) < 0 || pwrite(fd, pid, (size_t)n, 0) != n)
		log_msg(LOG_WARNING, "%s: cannot write the pid, ignoring", path);
	/* held until exit: the descriptor stays open on purpose */
	return 0;
}

static int on_signal(sd_event_source *s, const struct signalfd_siginfo *si, void *userdata)
{
	struct manager *m = userdata;

	(void)s;
	if (m->stopping)
		return 0;
	log_msg(LOG_NOTICE, "%s: pausing %s; unfinished runs resume at the next start",
		strsignal((int)si->ssi_signo), m->runs ? "the runs" : "nothing");
	m->stopping = true;
	(void)sd_notify(0, "STOPPING=1\nSTATUS=pausing runs");
	for (struct drun *r = m->runs; r; r = r->next)
		runner_stop(r->runner, true);
	manager_wake(m);
	return 0;
}

static int mkdir_parent(const char *path, mode_t mode)
{
	char *copy = strdup(path), *dir;
	int r = 0;

	if (!copy)
		return -ENOMEM;
	dir = dirname(copy);
	if (mkdir(dir, mode) < 0 && errno != EEXIST)
		r = -errno;
	free(copy);
	return r;
}

int main(int argc, char **argv)
{
	enum {
		O_DB = 0x100,
		O_SOCKET,
		O_CONFIG,
		O_HOOK,
		O_HOOK_TIMEOUT,
		O_PROM,
		O_VERSION,
		O_HELP
	};
	static const struct option opts[] = {
		{"db", required_argument, NULL, O_DB},
		{"socket", required_argument, NULL, O_SOCKET},
		{"config", required_argument, NULL, O_CONFIG},
		{"hook", required_argument, NULL, O_HOOK},
		{"hook-timeout", required_argument, NULL, O_HOOK_TIMEOUT},
		{"prometheus-file", required_argument, NULL, O_PROM},
		{"version", no_argument, NULL, O_VERSION},
		{"help", no_argument, NULL, O_HELP},
		{NULL, 0, NULL, 0},
	};
	static struct manager mgr;
	struct manager *m = &mgr;
	const char *config = PLATEAU_DEFAULT_CONFIG;
	bool config_given = false, set[5] = {0};
	char err[1024];
	sigset_t mask;
	struct group *gr;
	const char *js;
	int opt, r;

	js = getenv("JOURNAL_STREAM");
	log_to_journal = js && *js;
	snprintf(m->db_path, sizeof(m->db_path), "%s", PLATEAU_DEFAULT_DB);
	snprintf(m->socket_path, sizeof(m->socket_path), "%s", PLATEAU_DEFAULT_SOCKET);
	m->hook_timeout_ns = PLATEAUD_HOOK_TIMEOUT_NS;
	m->listen_fd = -1;
	m->wake_fd = -1;
	while ((opt = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		uint64_t ns;

		switch (opt) {
		case O_DB:
			snprintf(m->db_path, sizeof(m->db_path), "%s", optarg);
			set[0] = true;
			break;
		case O_SOCKET:
			snprintf(m->socket_path, sizeof(m->socket_path), "%s", optarg);
			set[1] = true;
			break;
		case O_CONFIG:
			config = optarg;
			config_given = true;
			break;
		case O_HOOK:
			snprintf(m->hook, sizeof(m->hook), "%s", optarg);
			set[2] = true;
			break;
		case O_HOOK_TIMEOUT:
			if (parse_duration_ns(optarg, &ns) || !ns) {
				fprintf(stderr,
					"plateaud: --hook-timeout: expected a duration, not '%s'\n",
					optarg);
				return 2;
			}
			m->hook_timeout_ns = ns;
			set[3] = true;
			break;
		case O_PROM:
			snprintf(m->prom_path, sizeof(m->prom_path), "%s", optarg);
			set[4] = true;
			break;
		case O_VERSION:
			printf("plateaud %s\n", PLATEAU_VERSION);
			return 0;
		case O_HELP:
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (optind != argc) {
		usage(stderr);
		return 2;
	}
	snprintf(m->config_path, sizeof(m->config_path), "%s", config);
	if (config_load(m, config, config_given, set))
		return 2;
	if (m->hook[0] && m->hook[0] != '/') {
		log_msg(LOG_ERR, "hook '%s': expected an absolute path", m->hook);
		return 2;
	}
	events_hooks_check(m);
	gr = getgrnam("plateau");
	if (gr) {
		m->group_gid = gr->gr_gid;
		m->have_group = true;
	}
	pthread_mutex_init(&m->hook_lock, NULL);
	pthread_mutex_init(&m->runs_lock, NULL);
	pthread_mutex_init(&m->prom_lock, NULL);

	/* signals are events of the loop; the run threads inherit the mask */
	sigemptyset(&mask);
	sigaddset(&mask, SIGTERM);
	sigaddset(&mask, SIGINT);
	sigaddset(&mask, SIGCHLD);
	sigaddset(&mask, SIGHUP);
	pthread_sigmask(SIG_BLOCK, &mask, NULL);
	signal(SIGPIPE, SIG_IGN);

	if (instance_lock(m->db_path) < 0)
		return 1;
	r = sd_event_default(&m->event);
	if (r < 0) {
		log_errno(LOG_ERR, r, "cannot create the event loop");
		return 1;
	}
	if (mkdir_parent(m->db_path, 0750) < 0)
		log_msg(LOG_WARNING, "%s: cannot create its directory, ignoring", m->db_path);
	/* the socket first: a daemon that must not start creates nothing */
	if (control_listen(m) < 0)
		return 1;
	r = store_open(m->db_path, STORE_CREATE, &m->store, err, sizeof(err));
	if (r) {
		log_msg(LOG_ERR, "%s", err);
		if (!m->socket_activated)
			(void)unlink(m->socket_path);
		return 1;
	}
	m->wake_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (m->wake_fd < 0) {
		log_errno(LOG_ERR, -errno, "eventfd");
		return 1;
	}
	if ((r = sd_event_add_signal(m->event, NULL, SIGTERM, on_signal, m)) < 0 ||
	    (r = sd_event_add_signal(m->event, NULL, SIGINT, on_signal, m)) < 0) {
		log_errno(LOG_ERR, r, "cannot watch signals");
		return 1;
	}
	(void)sd_event_set_watchdog(m->event, true);
	if (manager_resume_all(m) < 0)
		return 1;
	(void)sd_notifyf(0, "READY=1\nMAINPID=%lu", (unsigned long)getpid());
	manager_notify_status(m);
	log_msg(LOG_INFO, "plateaud %s ready: database %s, socket %s%s", PLATEAU_VERSION,
		m->db_path, m->socket_path, m->socket_activated ? " (socket-activated)" : "");
	r = sd_event_loop(m->event);
	if (r < 0)
		log_errno(LOG_ERR, r, "event loop failed");
	events_drop_hooks(m);
	m->exit_timer = sd_event_source_unref(m->exit_timer);
	if (!m->socket_activated && m->listen_fd >= 0) {
		struct stat st;

		/* only our own socket: never a later daemon's */
		if (stat(m->socket_path, &st) == 0 && st.st_dev == m->socket_dev &&
		    st.st_ino == m->socket_ino)
			(void)unlink(m->socket_path);
	}
	store_close(m->store);
	sd_event_unref(m->event);
	log_msg(LOG_INFO, "plateaud stopped");
	return r < 0 ? 1 : 0;
}
