/* SPDX-License-Identifier: MIT */
#ifndef PLATEAUD_MANAGER_H
#define PLATEAUD_MANAGER_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include <systemd/sd-event.h>

#include "events.h"
#include "runner.h"
#include "store.h"

/*
 * manager: the daemon's state (struct manager, set up by plateaud.c from
 * its options and plateaud.conf) and the runs in progress: their worker
 * threads, their status, resume at start.
 */

#define PLATEAUD_FILE_TARGETS_MAX 16

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
	/* the current phase's last full sample; all 0 (and last_sample_ns 0)
	 * until the phase has one: never the previous phase's */
	double iops, bw_mbps, lat_us, p99_us;
	unsigned int threads, iodepth;
	char error[512];
	/*
	 * Rate, progress and ETA, as the runner last reported them
	 * (runner.h, struct runner_status, same names and meaning) at
	 * @updated_ns (CLOCK_REALTIME): a reader subtracts the time since
	 * from @eta_ns and @eta_max_ns (drun_status_now()).
	 */
	int64_t updated_ns;
	int64_t phase_started_ns;
	double rate;		    /* NaN unknown */
	char rate_unit[8];	    /* "MB/s", "IOPS" or "" */
	int64_t eta_ns, eta_max_ns; /* -1 unknown */
	int64_t rounds_judged, max_rounds;
	double data_excursion, data_limit; /* NaN: no window judged */
	double slope_excursion, slope_limit;
	int point, npoints;
};

/*
 * drun_status_now() - a run's status as of @now_ns
 * @st: the status (a copy taken under the run's lock)
 * @now_ns: CLOCK_REALTIME
 * @elapsed_ns: the phase's elapsed time at @now_ns, 0 unknown
 *
 * The ETAs of @st counted down to @now_ns (never below 0; -1 stays).
 */
void drun_status_now(struct drun_status *st, int64_t now_ns, int64_t *elapsed_ns);

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
	struct drun *ended;	   /* finished runs the textfile still shows */
	pthread_mutex_t runs_lock; /* the list, for readers off the loop thread */
	size_t nclients;
	bool stopping;
	pthread_mutex_t hook_lock;
	struct hook_job *hooks; /* queued by any thread, newest first */
	struct hook_lane *lanes;
	sd_event_source *exit_timer; /* stopping: the hooks' last chance */
	pthread_mutex_t prom_lock;
};

struct guard;
struct plan;

/*
 * Start run @run_id on its own thread.  A fresh start (plateau start):
 * @plan is the plan the run was created from, parsed once by the caller and
 * taken over by the run (*@plan is left empty: plan_free() it as always); @created is the
 * run-created event, journaled and handed to the hooks before the run's thread can report anything;
 * @g is the open gate the start was checked with, adopted by the run.  A resume: all three NULL,
 * and the runner reads the stored plan and opens its own gate.
 */
int manager_start_run(struct manager *m, int64_t run_id, struct plan *plan,
		      const struct runner_event *created, struct guard *g, char *err,
		      size_t errlen);
struct drun *manager_find_run(struct manager *m, int64_t run_id);
void manager_wake(struct manager *m);
int manager_resume_all(struct manager *m);
void manager_notify_status(struct manager *m);

#endif
