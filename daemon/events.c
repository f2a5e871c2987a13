// SPDX-License-Identifier: MIT
/*
 * events: where run events go besides the database: the journal (one
 * structured entry per event, a fixed MESSAGE_ID per kind, fields RUN=,
 * DEVICE=, SERIAL=, PHASE=), the hook commands (run by the event loop under
 * a time limit, never on a run's thread), and the Prometheus textfile.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <systemd/sd-journal.h>

#include "guard.h"
#include "plateaud.h"

/* Fixed MESSAGE_IDs, documented in plateaud(8); never change one. */
static const struct {
	const char *kind;
	const char *id;
} events_ids[] = {
	{ "run-created", "d6c9341cef9a46d8bf09fb8750fb2199" },
	{ "run-started", "c9a455dd112f47d2ace783c753d58a2d" },
	{ "run-resumed", "b636964931cc4b25b9f73a8b1d93e6e2" },
	{ "run-paused", "5a7e0c7de2284b6b8c8450c72cdc581f" },
	{ "run-done", "37261e4039764541ba9b17f7e621b27d" },
	{ "run-failed", "60615e27d6c94a3d84a1b130e02b1854" },
	{ "run-stopped", "8247a8c2e4cf4331abd53246266eaef5" },
	{ "phase-started", "1f4ecabd52c142198773131a361d9e40" },
	{ "phase-ended", "f05fd554c59c43dca67926eb732fea2e" },
	{ "gap", "5098ec7307594a179afba4e89a89ddfe" },
	{ "erase-progress", "33df96b2f29a44759e67f6453aaa3eaf" },
	{ "erase-verify", "a1536b0033ca4817b370d35a8550214a" },
	{ "steady-reached", "d6d0170943534bc5a6e3fdaa9aa23f20" },
	{ "steady-lost", "be55c4fb7c02437f9e6640aa1a8520cc" },
	{ "steady-not-reached", "a70b202910f0446faf4ecea693cca65a" },
	{ "point-measured", "f7e3fb31d6ed4f43af35f7103bddb40c" },
};

const char *events_message_id(const char *kind)
{
	for (size_t i = 0; i < sizeof(events_ids) / sizeof(events_ids[0]); i++)
		if (!strcmp(events_ids[i].kind, kind))
			return events_ids[i].id;
	return NULL;
}

void events_journal(const struct runner_event *ev)
{
	const char *mid = events_message_id(ev->kind);

	/* the plain line when stderr is not the journal (by hand, tests);
	 * under systemd the structured entry below is the one line */
	if (!log_is_journal())
		log_msg(ev->priority, "run %lld: %s", (long long)ev->run_id, ev->message);
	(void)sd_journal_send("MESSAGE=run %lld: %s", (long long)ev->run_id, ev->message,
			      "MESSAGE_ID=%s", mid ? mid : "00000000000000000000000000000000",
			      "PRIORITY=%d", ev->priority, "SYSLOG_IDENTIFIER=plateaud",
			      "PLATEAU_EVENT=%s", ev->kind, "RUN=%lld", (long long)ev->run_id,
			      "DEVICE=%s", ev->device ? ev->device : "", "SERIAL=%s",
			      ev->serial ? ev->serial : "", "PHASE=%d", ev->phase_seq,
			      "PHASE_KIND=%s", ev->phase_kind ? ev->phase_kind : "",
			      "PLATEAU_DATA=%s", ev->data ? ev->data : "", NULL);
}

void events_journal_refusal(const char *device, const char *serial, unsigned int uid, int pid,
			    const char *message)
{
	if (!log_is_journal())
		log_msg(4, "%s (asked by uid %u, pid %d)", message, uid, pid);
	(void)sd_journal_send("MESSAGE=%s (asked by uid %u, pid %d)", message, uid, pid,
			      "MESSAGE_ID=%s", GUARD_REFUSED_MESSAGE_ID, "PRIORITY=4",
			      "SYSLOG_IDENTIFIER=plateaud", "PLATEAU_EVENT=refused",
			      "DEVICE=%s", device ? device : "", "SERIAL=%s", serial ? serial : "",
			      "REQUESTER_UID=%u", uid, "REQUESTER_PID=%d", pid, NULL);
}

/* --- hooks --- */

/*
 * A plan's hook runs as root, and plans come from the plateau group: only a
 * program that root alone could have put there is run.  The file (symlinks
 * resolved) must be a regular executable owned by root and not writable by
 * group or others, and every directory up to "/" owned by root and not
 * writable by group or others unless sticky.  Checked when the
 * plan is started and again before every run of the hook.
 */
int events_hook_untrusted(const char *path, char *why, size_t len)
{
	char real[PATH_MAX], *slash;
	struct stat st;

	if (path[0] != '/') {
		snprintf(why, len, "expected an absolute path");
		return -EPERM;
	}
	if (!realpath(path, real)) {
		snprintf(why, len, "%s", strerror(errno));
		return -EPERM;
	}
	if (stat(real, &st) < 0) {
		snprintf(why, len, "%s", strerror(errno));
		return -EPERM;
	}
	if (!S_ISREG(st.st_mode) || !(st.st_mode & S_IXUSR)) {
		snprintf(why, len, "not an executable file");
		return -EPERM;
	}
	if (st.st_uid != 0 || (st.st_mode & (S_IWGRP | S_IWOTH))) {
		snprintf(why, len, "hooks run as root: it must be owned by root and writable by "
				   "root only");
		return -EPERM;
	}
	for (;;) {
		slash = strrchr(real, '/');
		if (!slash)
			break;
		if (slash == real)
			slash[1] = '\0';
		else
			*slash = '\0';
		/* a sticky directory (/tmp) is fine: others cannot rename or
		 * remove what root owns in it */
		if (stat(real, &st) < 0 || st.st_uid != 0 ||
		    ((st.st_mode & (S_IWGRP | S_IWOTH)) && !(st.st_mode & S_ISVTX))) {
			snprintf(why, len,
				 "hooks run as root: its directory %.200s must be owned by root and "
				 "writable by root only",
				 real);
			return -EPERM;
		}
		if (!strcmp(real, "/"))
			break;
	}
	return 0;
}

struct hook_run {
	struct manager *m;
	struct hook_lane *lane;
	pid_t pid;
	char cmd[256];
	char event[32];
	long long run;
	sd_event_source *child, *timer;
};

static char *events_env(const char *key, const char *val)
{
	char *s;

	if (asprintf(&s, "%s=%s", key, val ? val : "") < 0)
		return NULL;
	return s;
}

static void hook_job_free(struct hook_job *j)
{
	if (!j)
		return;
	for (size_t i = 0; j->envp && j->envp[i]; i++)
		free(j->envp[i]);
	free(j->envp);
	free(j->argv0);
	free(j);
}

static void events_queue_one(struct manager *m, const char *cmd, struct drun *r,
			     const struct runner_event *ev)
{
	struct hook_job *j = calloc(1, sizeof(*j));
	char num[32], when[64];
	time_t t = time(NULL);
	struct tm tm;
	size_t k = 0;

	if (!j)
		return;
	j->argv0 = strdup(cmd);
	j->envp = calloc(16, sizeof(char *));
	j->run = (long long)ev->run_id;
	snprintf(j->event, sizeof(j->event), "%s", ev->kind);
	if (!j->argv0 || !j->envp) {
		hook_job_free(j);
		return;
	}
	gmtime_r(&t, &tm);
	strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%SZ", &tm);
	j->envp[k++] = events_env("PATH", "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin");
	j->envp[k++] = events_env("PLATEAU_EVENT", ev->kind);
	snprintf(num, sizeof(num), "%lld", (long long)ev->run_id);
	j->envp[k++] = events_env("PLATEAU_RUN", num);
	j->envp[k++] = events_env("PLATEAU_RUN_NAME", r->name);
	snprintf(num, sizeof(num), "%d", ev->phase_seq);
	j->envp[k++] = events_env("PLATEAU_PHASE", num);
	j->envp[k++] = events_env("PLATEAU_PHASE_KIND", ev->phase_kind);
	j->envp[k++] = events_env("PLATEAU_DEVICE", ev->device);
	j->envp[k++] = events_env("PLATEAU_SERIAL", ev->serial);
	j->envp[k++] = events_env("PLATEAU_MESSAGE", ev->message);
	j->envp[k++] = events_env("PLATEAU_DATA", ev->data);
	snprintf(num, sizeof(num), "%d", ev->priority);
	j->envp[k++] = events_env("PLATEAU_PRIORITY", num);
	j->envp[k++] = events_env("PLATEAU_TIME", when);
	j->envp[k++] = events_env("PLATEAU_DATABASE", m->db_path);
	j->envp[k] = NULL;
	for (size_t i = 0; i < k; i++)
		if (!j->envp[i]) {
			hook_job_free(j);
			return;
		}
	pthread_mutex_lock(&m->hook_lock);
	j->next = m->hooks;
	m->hooks = j;
	pthread_mutex_unlock(&m->hook_lock);
}

void events_queue_hooks(struct manager *m, struct drun *r, const struct runner_event *ev)
{
	char why[256];

	if (!*m->hook && !*r->hook)
		return;
	if (*m->hook)
		events_queue_one(m, m->hook, r, ev);
	if (*r->hook && strcmp(r->hook, m->hook)) {
		/* the file may have changed since the plan was accepted */
		if (events_hook_untrusted(r->hook, why, sizeof(why)))
			log_msg(4, "run %lld: hook %s not run for %s: %s", (long long)r->id, r->hook,
				ev->kind, why);
		else
			events_queue_one(m, r->hook, r, ev);
	}
	manager_wake(m);
}

static void hook_run_free(struct hook_run *h)
{
	sd_event_source_unref(h->child);
	sd_event_source_unref(h->timer);
	free(h);
}

static void events_pump(struct manager *m);

static int on_hook_exit(sd_event_source *s, const siginfo_t *si, void *userdata)
{
	struct hook_run *h = userdata;
	struct manager *m = h->m;

	(void)s;
	if (si->si_code != CLD_EXITED || si->si_status != 0)
		log_msg(4, "hook %s for %s of run %lld %s %d, ignoring", h->cmd, h->event, h->run,
			si->si_code == CLD_EXITED ? "exited with status" : "was killed by signal",
			si->si_status);
	h->lane->running = NULL;
	hook_run_free(h);
	events_pump(m);
	if (m->stopping)
		manager_wake(m); /* it may be waiting for the last hook */
	return 0;
}

static int on_hook_timeout(sd_event_source *s, uint64_t usec, void *userdata)
{
	struct hook_run *h = userdata;

	(void)s;
	(void)usec;
	log_msg(4, "hook %s for %s of run %lld ran past its time limit: killed", h->cmd, h->event,
		h->run);
	/* the hook runs in its own process group: take its children too,
	 * and the hook itself should it have left the group */
	(void)kill(-h->pid, SIGKILL);
	(void)kill(h->pid, SIGKILL);
	return 0;
}

/* Start @j: its lane's running call, or, when it cannot be started, logged
 * and the lane goes on with the next call. */
static void events_spawn(struct manager *m, struct hook_lane *lane, struct hook_job *j)
{
	posix_spawn_file_actions_t fa;
	posix_spawnattr_t attr;
	sigset_t none, all;
	char *argv[2] = { j->argv0, NULL };
	struct hook_run *h;
	uint64_t now;
	pid_t pid;
	int r;

	h = calloc(1, sizeof(*h));
	if (!h) {
		log_msg(4, "hook %s for %s of run %lld: out of memory, ignoring", j->argv0,
			j->event, j->run);
		return;
	}
	snprintf(h->cmd, sizeof(h->cmd), "%s", j->argv0);
	snprintf(h->event, sizeof(h->event), "%s", j->event);
	h->run = j->run;
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
	posix_spawnattr_init(&attr);
	/* the hook starts with default signals, whatever the daemon blocks */
	sigemptyset(&none);
	sigfillset(&all);
	posix_spawnattr_setsigmask(&attr, &none);
	posix_spawnattr_setsigdefault(&attr, &all);
	posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF |
						POSIX_SPAWN_SETPGROUP);
	r = posix_spawn(&pid, j->argv0, &fa, &attr, argv, j->envp);
	posix_spawn_file_actions_destroy(&fa);
	posix_spawnattr_destroy(&attr);
	if (r) {
		log_msg(4, "hook %s for %s of run %lld: %s, ignoring", h->cmd, h->event, h->run,
			strerror(r));
		free(h);
		return;
	}
	h->m = m;
	h->lane = lane;
	h->pid = pid;
	lane->running = h;
	sd_event_now(m->event, CLOCK_MONOTONIC, &now);
	if (sd_event_add_child(m->event, &h->child, pid, WEXITED, on_hook_exit, h) < 0 ||
	    sd_event_add_time(m->event, &h->timer, CLOCK_MONOTONIC,
			      now + m->hook_timeout_ns / 1000, 0, on_hook_timeout, h) < 0) {
		/* unwatched, it would hold its lane for ever: stop it now */
		log_msg(4, "hook %s for %s of run %lld: cannot watch pid %d, killed", h->cmd,
			h->event, h->run, (int)pid);
		(void)kill(-pid, SIGKILL);
		(void)waitpid(pid, NULL, WNOHANG); /* never block the loop */
		lane->running = NULL;
		hook_run_free(h);
		return;
	}
}

/* Start the next call of every idle lane; free the lanes left empty. */
static void events_pump(struct manager *m)
{
	struct hook_lane **pp = &m->lanes;

	while (*pp) {
		struct hook_lane *l = *pp;

		while (!l->running && l->head) {
			struct hook_job *j = l->head;

			l->head = j->next;
			if (!l->head)
				l->tail = NULL;
			l->nqueued--;
			events_spawn(m, l, j);
			hook_job_free(j);
		}
		if (!l->running && !l->head) {
			*pp = l->next;
			free(l);
			continue;
		}
		pp = &l->next;
	}
}

static void events_lane_add(struct manager *m, struct hook_job *j)
{
	struct hook_lane *l;

	for (l = m->lanes; l; l = l->next)
		if (l->run == j->run && !strcmp(l->cmd, j->argv0))
			break;
	if (!l) {
		l = calloc(1, sizeof(*l));
		if (!l) {
			log_msg(4, "hook %s for %s of run %lld: out of memory, ignoring", j->argv0,
				j->event, j->run);
			hook_job_free(j);
			return;
		}
		snprintf(l->cmd, sizeof(l->cmd), "%s", j->argv0);
		l->run = j->run;
		l->next = m->lanes;
		m->lanes = l;
	}
	/* an idle lane starts its first call at once; the end of a run is
	 * always passed on */
	if (l->nqueued >= PLATEAUD_HOOK_QUEUE_MAX + (l->running ? 0 : 1) &&
	    strcmp(j->event, RUNNER_EV_DONE) && strcmp(j->event, RUNNER_EV_FAILED) &&
	    strcmp(j->event, RUNNER_EV_STOPPED) && strcmp(j->event, RUNNER_EV_PAUSED)) {
		log_msg(4, "hook %s: %zu calls for run %lld already wait behind a running one: "
			   "%s not passed on",
			l->cmd, l->nqueued, j->run, j->event);
		hook_job_free(j);
		return;
	}
	j->next = NULL;
	if (l->tail)
		l->tail->next = j;
	else
		l->head = j;
	l->tail = j;
	l->nqueued++;
}

/* Move the calls queued by any thread to their lanes, oldest first. */
static void events_take_hooks(struct manager *m)
{
	struct hook_job *list, *rev = NULL;

	pthread_mutex_lock(&m->hook_lock);
	list = m->hooks;
	m->hooks = NULL;
	pthread_mutex_unlock(&m->hook_lock);
	/* oldest first */
	while (list) {
		struct hook_job *n = list->next;

		list->next = rev;
		rev = list;
		list = n;
	}
	while (rev) {
		struct hook_job *n = rev->next;

		events_lane_add(m, rev);
		rev = n;
	}
}

void events_run_hooks(struct manager *m)
{
	events_take_hooks(m);
	events_pump(m);
}

bool events_hooks_idle(struct manager *m)
{
	bool queued;

	pthread_mutex_lock(&m->hook_lock);
	queued = m->hooks != NULL;
	pthread_mutex_unlock(&m->hook_lock);
	return !queued && !m->lanes;
}

void events_drop_hooks(struct manager *m)
{
	/* the loop is over: nothing is started now, nothing watched */
	events_take_hooks(m);
	while (m->lanes) {
		struct hook_lane *l = m->lanes;

		if (l->running)
			hook_run_free(l->running);
		if (l->nqueued)
			log_msg(4, "hook %s: %zu calls for run %lld not made: plateaud is stopping",
				l->cmd, l->nqueued, l->run);
		while (l->head) {
			struct hook_job *j = l->head;

			l->head = j->next;
			hook_job_free(j);
		}
		m->lanes = l->next;
		free(l);
	}
}

/* --- Prometheus textfile (node_exporter textfile collector format) --- */

static void prom_label(FILE *f, const char *s)
{
	for (; *s; s++) {
		if (*s == '\\' || *s == '"')
			fputc('\\', f);
		if (*s == '\n') {
			fputs("\\n", f);
			continue;
		}
		fputc(*s, f);
	}
}

static void prom_labels(FILE *f, const struct drun *r)
{
	fprintf(f, "{run=\"%lld\",device=\"", (long long)r->id);
	prom_label(f, r->device);
	fputs("\",serial=\"", f);
	prom_label(f, r->serial);
	fputs("\"}", f);
}

void events_write_prom(struct manager *m)
{
	static const char *const states[] = { "queued",   "erasing",  "filling", "preconditioning",
					      "sweeping", "done",     "failed",  "stopped" };
	struct drun *all[512];
	size_t n = 0;
	char tmp[1100];
	FILE *f;
	int fd;

	if (!*m->prom_path)
		return;
	pthread_mutex_lock(&m->prom_lock);
	pthread_mutex_lock(&m->runs_lock);
	for (struct drun *r = m->runs; r && n < sizeof(all) / sizeof(all[0]); r = r->next)
		all[n++] = r;
	for (struct drun *r = m->ended; r && n < sizeof(all) / sizeof(all[0]); r = r->next)
		all[n++] = r;
	snprintf(tmp, sizeof(tmp), "%s.%d.tmp", m->prom_path, (int)getpid());
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	/* node_exporter reads it whatever the daemon's umask */
	if (fd >= 0)
		(void)fchmod(fd, 0644);
	f = fd >= 0 ? fdopen(fd, "w") : NULL;
	if (!f) {
		if (fd >= 0)
			close(fd);
		pthread_mutex_unlock(&m->runs_lock);
		pthread_mutex_unlock(&m->prom_lock);
		return;
	}
	fputs("# HELP plateau_run_info A run plateaud is carrying out, or ended in the last day "
	      "(value 1).\n"
	      "# TYPE plateau_run_info gauge\n",
	      f);
	for (size_t i = 0; i < n; i++) {
		struct drun *r = all[i];

		pthread_mutex_lock(&r->lock);
		fprintf(f, "plateau_run_info{run=\"%lld\",name=\"", (long long)r->id);
		prom_label(f, r->name);
		fputs("\",device=\"", f);
		prom_label(f, r->device);
		fputs("\",serial=\"", f);
		prom_label(f, r->serial);
		fputs("\",phase=\"", f);
		prom_label(f, r->st.phase_kind);
		fputs("\",workload=\"", f);
		prom_label(f, r->st.phase_name);
		fputs("\"} 1\n", f);
		pthread_mutex_unlock(&r->lock);
	}
#define PROM_GAUGE(name, help, expr)                                                               \
	do {                                                                                       \
		fputs("# HELP " name " " help "\n# TYPE " name " gauge\n", f);                     \
		for (size_t i = 0; i < n; i++) {                                                   \
			struct drun *r = all[i];                                                   \
                                                                                                   \
			pthread_mutex_lock(&r->lock);                                              \
			fputs(name, f);                                                            \
			prom_labels(f, r);                                                         \
			fprintf(f, " %.15g\n", (double)(expr));                                    \
			pthread_mutex_unlock(&r->lock);                                            \
		}                                                                                  \
	} while (0)
	fputs("# HELP plateau_run_state The run's state (1 for the current one); a finished run "
	      "stays 24 h with its final state.\n"
	      "# TYPE plateau_run_state gauge\n",
	      f);
	for (size_t i = 0; i < n; i++) {
		struct drun *r = all[i];

		pthread_mutex_lock(&r->lock);
		for (size_t k = 0; k < sizeof(states) / sizeof(states[0]); k++) {
			fprintf(f, "plateau_run_state{run=\"%lld\",device=\"", (long long)r->id);
			prom_label(f, r->device);
			fputs("\",serial=\"", f);
			prom_label(f, r->serial);
			fprintf(f, "\",state=\"%s\"} %d\n", states[k], !strcmp(r->st.state, states[k]));
		}
		pthread_mutex_unlock(&r->lock);
	}
	PROM_GAUGE("plateau_phase", "The phase number the run is in.", r->st.phase_seq);
	PROM_GAUGE("plateau_iops", "Reads and writes per second in the last sample.", r->st.iops);
	PROM_GAUGE("plateau_bandwidth_bytes_per_second", "Bytes per second in the last sample.",
		   r->st.bw_mbps * 1e6);
	PROM_GAUGE("plateau_latency_mean_seconds", "Mean completion latency in the last sample.",
		   r->st.lat_us / 1e6);
	PROM_GAUGE("plateau_latency_p99_seconds", "99th percentile latency in the last sample.",
		   r->st.p99_us / 1e6);
	PROM_GAUGE("plateau_steady", "1 while the drive is in steady state, else 0.",
		   r->st.steady ? 1 : 0);
	PROM_GAUGE("plateau_steady_lost", "1 once steady state was reached and then lost.",
		   r->st.steady_lost ? 1 : 0);
	PROM_GAUGE("plateau_rounds", "Samples (rounds) of the current phase so far.", r->st.rounds);
	PROM_GAUGE("plateau_last_sample_timestamp_seconds", "When the last sample ended.",
		   (double)r->st.last_sample_ns / 1e9);
	PROM_GAUGE("plateau_sample_interval_seconds", "The run's sample interval.",
		   (double)r->interval_ns / 1e9);
	fputs("# HELP plateau_run_end_timestamp_seconds When a finished run ended (0: running).\n"
	      "# TYPE plateau_run_end_timestamp_seconds gauge\n",
	      f);
	for (size_t i = 0; i < n; i++) {
		fputs("plateau_run_end_timestamp_seconds", f);
		prom_labels(f, all[i]);
		fprintf(f, " %.15g\n", (double)all[i]->ended_ns / 1e9);
	}
#undef PROM_GAUGE
	if (fflush(f) || fsync(fileno(f)) || ferror(f)) {
		fclose(f);
		(void)unlink(tmp);
	} else {
		fclose(f);
		if (rename(tmp, m->prom_path) < 0)
			(void)unlink(tmp);
	}
	pthread_mutex_unlock(&m->runs_lock);
	pthread_mutex_unlock(&m->prom_lock);
}
