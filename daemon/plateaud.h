/* SPDX-License-Identifier: MIT */
#ifndef PLATEAUD_H
#define PLATEAUD_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include <systemd/sd-event.h>

#include "runner.h"
#include "store.h"

/*
 * plateaud: one sd-event loop (this thread) owns the control socket, the
 * timers, the signals, the watchdog and the hook processes; every run has
 * its own worker thread (runner.h) with its own database connection.
 * Workers talk back to the loop through an eventfd, never by blocking it.
 */

#define PLATEAUD_DEFAULT_DB "/var/lib/plateau/plateau.db"
#define PLATEAUD_DEFAULT_SOCKET "/run/plateau/control.sock"
#define PLATEAUD_DEFAULT_CONFIG "/etc/plateau/plateaud.conf"
/* whom hooks run as when plateaud is root and hook_user is not set */
#define PLATEAUD_DEFAULT_HOOK_USER "plateau-hook"
#define PLATEAUD_CLIENTS_MAX 64
#define PLATEAUD_CLIENT_IDLE_NS (60LL * 1000000000LL)
#define PLATEAUD_HOOK_TIMEOUT_NS (30ULL * 1000000000ULL)
/* calls of one hook for one run waiting behind a running one; beyond, dropped */
#define PLATEAUD_HOOK_QUEUE_MAX 64

struct manager;

/* What `plateau status` shows of a run; written by its worker under lock. */
struct drun_status {
	char state[24];
	int phase_seq;
	char phase_kind[16];
	char phase_name[64];
	double progress; /* -1 unknown */
	int64_t rounds;
	unsigned int window;
	bool steady;
	int64_t steady_round;
	bool steady_lost;
	int64_t last_sample_ns;
	int64_t last_seq;
	double iops, bw_mbps, lat_us, p99_us;
	unsigned int threads, iodepth;
	char error[512];
};

struct drun {
	struct manager *m;
	struct drun *next;
	int64_t id;
	char name[128];
	char device[256];
	char serial[96];
	char hook[256]; /* the plan's own hook: a name of plateaud.conf's [hooks] */
	int64_t interval_ns;
	struct store *store; /* the worker's connection */
	struct runner *runner;
	pthread_t thread;
	bool started;
	pthread_mutex_t lock;
	struct drun_status st;
	bool finished; /* worker returned (under lock) */
	int result;
	int64_t ended_ns; /* kept in the textfile for a day after it ended */
};

struct hook_job {
	struct hook_job *next;
	char *argv0;
	char **envp;
	long long run;
	char event[32];
};

/*
 * The calls of one hook for one run, in the order the events happened: the
 * next starts when the one before has exited or been killed, so an alert
 * never hears "steady lost" before "steady reached".  Loop thread only.
 */
struct hook_run;
struct hook_lane {
	struct hook_lane *next;
	char cmd[256];
	long long run;
	struct hook_run *running; /* the call in progress, or NULL */
	size_t nqueued;
	struct hook_job *head, *tail;
};

#define PLATEAUD_FILE_TARGETS_MAX 16
#define PLATEAUD_HOOKS_MAX 32

/* a hook named in plateaud.conf's [hooks] section; plans choose by name */
struct hook_def {
	char name[64];
	char path[256];
};

struct manager {
	sd_event *event;
	struct store *store;
	char db_path[1024];
	char socket_path[1024];
	char config_path[1024]; /* plateaud.conf, named in messages */
	char hook[256];
	uint64_t hook_timeout_ns;
	/* plateaud.conf: the hooks plans may name, the user hooks run as, and
	 * the directories whose regular files a plan may name as its target */
	struct hook_def hook_defs[PLATEAUD_HOOKS_MAX];
	size_t nhook_defs;
	char hook_user[64];
	char file_targets[PLATEAUD_FILE_TARGETS_MAX][256];
	size_t nfile_targets;
	char prom_path[1024];
	int listen_fd;
	bool socket_activated;
	dev_t socket_dev;
	ino_t socket_ino;
	gid_t group_gid;
	bool have_group;
	int wake_fd;
	sd_event_source *wake_src;
	sd_event_source *status_timer;
	struct drun *runs;
	struct drun *ended; /* finished runs the textfile still shows */
	pthread_mutex_t runs_lock; /* the list, for readers off the loop thread */
	size_t nclients;
	bool stopping;
	pthread_mutex_t hook_lock;
	struct hook_job *hooks; /* queued by any thread, newest first */
	struct hook_lane *lanes;
	sd_event_source *exit_timer; /* stopping: the hooks' last chance */
	pthread_mutex_t prom_lock;
	int64_t started_ns;
};

/* plateaud.c */
int64_t now_ns(void);
void log_msg(int prio, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* stderr is connected to the journal (JOURNAL_STREAM) */
bool log_is_journal(void);

/* manager.c */
/* created: the run-created event to journal and hand to the hooks before
 * the run's thread can report anything (NULL when resuming); g: the open
 * gate the start was checked with, adopted by the run (NULL: the run opens
 * its own) */
struct guard;
int manager_start_run(struct manager *m, int64_t run_id, const struct runner_event *created,
		      struct guard *g, char *err, size_t errlen);
struct drun *manager_find_run(struct manager *m, int64_t run_id);
void manager_wake(struct manager *m);
int manager_resume_all(struct manager *m);
void manager_notify_status(struct manager *m);

/* control.c */
int control_listen(struct manager *m);
void control_close_idle(struct manager *m);

/* events.c: journal, hooks, Prometheus */
void events_journal(const struct runner_event *ev);
/* a refusal of the safety gate (no run exists), with its own MESSAGE_ID
 * (guard.h) and the requester */
void events_journal_refusal(const char *device, const char *serial, unsigned int uid, int pid,
			    const char *message);
const char *events_message_id(const char *kind);
void events_queue_hooks(struct manager *m, struct drun *r, const struct runner_event *ev);
void events_run_hooks(struct manager *m);
/* no hook call running or waiting */
bool events_hooks_idle(struct manager *m);
/* at exit: log and free the calls still waiting (the running ones are the
 * service's to kill) */
void events_drop_hooks(struct manager *m);
/* the [hooks] definition called @name, or NULL */
const struct hook_def *events_hook_def(const struct manager *m, const char *name);
/*
 * 0 when a plan's "hook = NAME" can run: NAME is defined in plateaud.conf's
 * [hooks], its file passes the checks made at every call (plateaud(8),
 * HOOKS) and hook_user exists; else -ENOENT (not defined) or another
 * -errno, with why (for "FILE: [run] hook = NAME: why").
 */
int events_hook_resolve(const struct manager *m, const char *name, char *why, size_t len);
/* at start: log the hooks that would not run as they stand */
void events_hooks_check(const struct manager *m);
void events_write_prom(struct manager *m);

#endif
