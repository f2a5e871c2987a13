// SPDX-License-Identifier: MIT
/* manager: the runs in progress, their worker threads, status and resume. */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <systemd/sd-daemon.h>

#include "clock.h"
#include "control.h"
#include "events.h"
#include "manager.h"
#include "parse.h"
#include "plan.h"
#include "plateaud.h"

#define MANAGER_STATUS_PERIOD_US (5ULL * 1000000ULL)

void manager_wake(struct manager *m)
{
	uint64_t one = 1;

	/* eventfd writes of 8 bytes do not fail short; a full counter (never)
	 * would still leave the loop woken */
	if (write(m->wake_fd, &one, sizeof(one)) < 0 && errno != EAGAIN)
		log_msg(LOG_WARNING, "waking the loop: %s, ignoring", strerror(errno));
}

struct drun *manager_find_run(struct manager *m, int64_t run_id)
{
	for (struct drun *r = m->runs; r; r = r->next)
		if (r->id == run_id)
			return r;
	return NULL;
}

/* --- runner callbacks, on the run's worker thread --- */

static void drun_event(void *ctx, const struct runner_event *ev)
{
	struct drun *r = ctx;

	events_journal(ev);
	if (!strcmp(ev->kind, RUNNER_EV_STEADY_LOST)) {
		pthread_mutex_lock(&r->lock);
		r->st.steady_lost = true;
		pthread_mutex_unlock(&r->lock);
	}
	events_queue_hooks(r->m, r, ev);
}

static void drun_status(void *ctx, const struct runner_status *st)
{
	struct drun *r = ctx;
	const struct sample *smp;
	bool changed;

	pthread_mutex_lock(&r->lock);
	changed = r->st.phase_seq != st->phase_seq || r->st.point != st->point ||
		  strcmp(r->st.state, st->run_state ? st->run_state : "");
	/* A new preconditioning phase starts a new verdict; other phases
	 * (a sweep) keep the drive's state as the last one left it. */
	if (r->st.phase_seq != st->phase_seq && st->phase_kind &&
	    !strcmp(st->phase_kind, "precondition")) {
		r->st.steady = false;
		r->st.steady_round = 0;
		r->st.steady_lost = false;
	}
	/* the last sample is the phase's own, in a sweep its point's own: a
	 * new phase or point has none yet */
	if (r->st.phase_seq != st->phase_seq || r->st.point != st->point) {
		r->st.last_sample_ns = 0;
		r->st.last_seq = 0;
		r->st.iops = r->st.bw_mbps = r->st.lat_us = r->st.p99_us = 0;
	}
	snprintf(r->st.state, sizeof(r->st.state), "%s", st->run_state ? st->run_state : "");
	r->st.phase_seq = st->phase_seq;
	snprintf(r->st.phase_kind, sizeof(r->st.phase_kind), "%s",
		 st->phase_kind ? st->phase_kind : "");
	snprintf(r->st.phase_name, sizeof(r->st.phase_name), "%s",
		 st->phase_name ? st->phase_name : "");
	r->st.progress = st->progress;
	r->st.rounds = st->rounds;
	if (st->window)
		r->st.window = st->window;
	if (st->phase_kind && !strcmp(st->phase_kind, "precondition")) {
		r->st.steady = st->steady;
		r->st.steady_round = st->steady_round;
	}
	r->st.threads = st->threads;
	r->st.iodepth = st->iodepth;
	r->st.updated_ns = clock_wall_ns();
	r->st.phase_started_ns = st->phase_started_ns;
	r->st.rate = st->rate;
	snprintf(r->st.rate_unit, sizeof(r->st.rate_unit), "%s",
		 st->rate_unit ? st->rate_unit : "");
	r->st.eta_ns = st->eta_ns;
	r->st.eta_max_ns = st->eta_max_ns;
	r->st.rounds_judged = st->rounds_judged;
	r->st.max_rounds = st->max_rounds;
	r->st.data_excursion = st->data_excursion;
	r->st.data_limit = st->data_limit;
	r->st.slope_excursion = st->slope_excursion;
	r->st.slope_limit = st->slope_limit;
	r->st.point = st->point;
	r->st.npoints = st->npoints;
	/* a resumed phase's last stored sample: its figures go with the rate
	 * the runner read back with it */
	smp = st->sample ? st->sample : st->stored_sample;
	if (smp) {
		r->st.last_sample_ns = smp->end_ns;
		r->st.last_seq = smp->seq;
	}
	/* a partial sample (a phase's cut-short end) is mostly the queue
	 * draining: status, STATUS= and the textfile keep the figures of the
	 * last full interval */
	if (smp && !smp->partial) {
		r->st.iops = sample_metric(smp, SAMPLE_METRIC_IOPS);
		r->st.bw_mbps = sample_metric(smp, SAMPLE_METRIC_BW);
		r->st.lat_us = sample_metric(smp, SAMPLE_METRIC_LAT);
		r->st.p99_us = sample_metric(smp, SAMPLE_METRIC_P99);
	}
	pthread_mutex_unlock(&r->lock);
	if (smp || changed)
		events_write_prom(r->m);
}

void drun_status_now(struct drun_status *st, int64_t now_ns, int64_t *elapsed_ns)
{
	int64_t since = st->updated_ns && now_ns > st->updated_ns ? now_ns - st->updated_ns : 0;

	*elapsed_ns = st->phase_started_ns && now_ns > st->phase_started_ns
			      ? now_ns - st->phase_started_ns
			      : 0;
	if (st->eta_ns >= 0)
		st->eta_ns = st->eta_ns > since ? st->eta_ns - since : 0;
	if (st->eta_max_ns >= 0)
		st->eta_max_ns = st->eta_max_ns > since ? st->eta_max_ns - since : 0;
}

static const struct runner_ops drun_ops = {
	.event = drun_event,
	.status = drun_status,
};

static void *drun_thread(void *arg)
{
	struct drun *r = arg;
	int ret = runner_run(r->runner);

	pthread_mutex_lock(&r->lock);
	r->finished = true;
	r->result = ret;
	if (ret)
		snprintf(r->st.error, sizeof(r->st.error), "%s", runner_errmsg(r->runner));
	pthread_mutex_unlock(&r->lock);
	manager_wake(r->m);
	return NULL;
}

/* a run, the file-target rule its runner uses for as long as it lives, and
 * the plan of a fresh start (parsed once, by the start request) */
struct drun_box {
	struct drun r;
	struct control_files files;
	struct plan plan;
};

static void drun_free(struct drun *r)
{
	struct drun_box *box;

	if (!r)
		return;
	box = (struct drun_box *)((char *)r - offsetof(struct drun_box, r));
	runner_free(r->runner);
	store_close(r->store);
	pthread_mutex_destroy(&r->lock);
	plan_free(&box->plan);
	free(box);
}

/* What status, the textfile and the hooks show of the run's plan: the
 * stored drive's path when the plan could not be parsed */
static void drun_set_plan(struct drun *r, const struct plan *p, const char *drive_path)
{
	snprintf(r->device, sizeof(r->device), "%s", *p->device ? p->device : drive_path);
	snprintf(r->hook, sizeof(r->hook), "%s", p->hook);
	r->interval_ns = (int64_t)p->interval_ns;
}

int manager_start_run(struct manager *m, int64_t run_id, struct plan *plan,
		      const struct runner_event *created, struct guard *g, char *err, size_t errlen)
{
	struct store_run run = {0};
	struct drun_box *box;
	struct drun *r;
	uid_t owner;
	int ret;

	ret = store_run_get(m->store, run_id, &run);
	if (ret) {
		snprintf(err, errlen, "%s", store_errmsg(m->store));
		return ret;
	}
	box = calloc(1, sizeof(*box));
	if (!box) {
		store_run_clear(&run);
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	r = &box->r;
	/* a resume opens the gate again with the rights of whoever asked for
	 * the run; not known: root's files only */
	owner = run.requester_uid >= 0 && run.requester_uid < (int64_t)(uid_t)-1
			? (uid_t)run.requester_uid
			: 0;
	control_files_init(m, owner, &box->files);
	r->m = m;
	r->id = run_id;
	snprintf(r->name, sizeof(r->name), "%s", run.name);
	snprintf(r->serial, sizeof(r->serial), "%s", run.drive.serial);
	snprintf(r->st.state, sizeof(r->st.state), "%s", run.state);
	r->st.progress = -1;
	r->st.rate = NAN;
	r->st.eta_ns = r->st.eta_max_ns = -1;
	r->st.data_excursion = r->st.data_limit = NAN;
	r->st.slope_excursion = r->st.slope_limit = NAN;
	pthread_mutex_init(&r->lock, NULL);
	if (plan) {
		/* the box keeps the start request's plan for the runner */
		box->plan = *plan;
		memset(plan, 0, sizeof(*plan));
		drun_set_plan(r, &box->plan, run.drive.path);
	}
	/* before the thread exists, so its run-started comes after */
	if (created) {
		events_journal(created);
		events_queue_hooks(m, r, created);
	}
	ret = store_open(m->db_path, 0, &r->store, err, errlen);
	if (!ret && runner_new(r->store, run_id, &drun_ops, r, &r->runner))
		ret = -ENOMEM;
	if (!ret && plan)
		runner_set_plan(r->runner, &box->plan);
	/* a resume: the stored plan, parsed here once for the device and hook,
	 * and by the same runner for the run (a plan that does not parse
	 * fails the run on its thread, which records why) */
	if (!ret && !plan) {
		(void)runner_load(r->runner);
		drun_set_plan(r, runner_plan(r->runner), run.drive.path);
	}
	store_run_clear(&run);
	if (!ret)
		runner_set_files(r->runner, &box->files.gf);
	/* the descriptor and locks the start request was checked with */
	if (!ret && g)
		runner_adopt_guard(r->runner, g);
	if (!ret) {
		ret = -pthread_create(&r->thread, NULL, drun_thread, r);
		if (ret)
			snprintf(err, errlen, "cannot start a thread: %s", strerror(-ret));
	}
	if (ret) {
		drun_free(r);
		return ret;
	}
	r->started = true;
	pthread_mutex_lock(&m->runs_lock);
	r->next = m->runs;
	m->runs = r;
	pthread_mutex_unlock(&m->runs_lock);
	events_write_prom(m);
	return 0;
}

/* Join the runs whose worker returned. */
static void manager_reap(struct manager *m)
{
	struct drun **pp = &m->runs;

	while (*pp) {
		struct drun *r = *pp;
		bool done;

		pthread_mutex_lock(&r->lock);
		done = r->finished;
		pthread_mutex_unlock(&r->lock);
		if (!done) {
			pp = &r->next;
			continue;
		}
		pthread_join(r->thread, NULL);
		runner_free(r->runner);
		r->runner = NULL;
		store_close(r->store);
		r->store = NULL;
		if (r->result == -EINTR)
			log_msg(LOG_INFO, "run %lld paused", (long long)r->id);
		else if (r->result && r->result != -ECANCELED)
			log_msg(LOG_ERR, "run %lld failed: %s", (long long)r->id, r->st.error);
		pthread_mutex_lock(&m->runs_lock);
		*pp = r->next;
		if (r->result == -EINTR) {
			/* paused: it resumes, it has not ended */
			pthread_mutex_unlock(&m->runs_lock);
			drun_free(r);
		} else {
			/* the textfile keeps its final state for a day, so that an
			 * alert on "failed" or "steady" sees it at a scrape */
			snprintf(r->st.state, sizeof(r->st.state), "%s",
				 !r->result		   ? "done"
				 : r->result == -ECANCELED ? "stopped"
							   : "failed");
			r->ended_ns = clock_wall_ns();
			r->next = m->ended;
			m->ended = r;
			pthread_mutex_unlock(&m->runs_lock);
		}
		events_write_prom(m);
	}
}

static int on_exit_timer(sd_event_source *s, uint64_t usec, void *userdata)
{
	struct manager *m = userdata;

	(void)s;
	(void)usec;
	sd_event_exit(m->event, 0);
	return 0;
}

/*
 * Stopping, with every run paused: the hooks hear of that (run-paused)
 * before plateaud exits, for at most one hook time limit; the service's
 * stop would kill them otherwise (KillMode=mixed).
 */
static void manager_exit_when_idle(struct manager *m)
{
	uint64_t now;

	if (events_hooks_idle(m)) {
		sd_event_exit(m->event, 0);
		return;
	}
	if (m->exit_timer)
		return;
	sd_event_now(m->event, CLOCK_MONOTONIC, &now);
	if (sd_event_add_time(m->event, &m->exit_timer, CLOCK_MONOTONIC,
			      now + m->hook_timeout_ns / 1000, 0, on_exit_timer, m) < 0) {
		sd_event_exit(m->event, 0);
		return;
	}
	log_msg(LOG_INFO, "runs paused; waiting up to %llu ms for the hooks",
		(unsigned long long)(m->hook_timeout_ns / 1000000ULL));
	(void)sd_notify(0, "STATUS=waiting for the hooks");
}

static int on_wake(sd_event_source *s, int fd, uint32_t revents, void *userdata)
{
	struct manager *m = userdata;
	uint64_t n;

	(void)s;
	(void)revents;
	if (read(fd, &n, sizeof(n)) < 0 && errno != EAGAIN)
		log_msg(LOG_WARNING, "eventfd: %s, ignoring", strerror(errno));
	/* reap first: a run's last events are queued by the time it is
	 * joined, and are started here, not lost to the exit below */
	manager_reap(m);
	events_run_hooks(m);
	manager_notify_status(m);
	if (m->stopping && !m->runs)
		manager_exit_when_idle(m);
	return 0;
}

/* append to @buf, never past its end (a long device path is cut) */
static void notify_cat(char *buf, size_t len, size_t *off, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static void notify_cat(char *buf, size_t len, size_t *off, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (*off + 1 >= len)
		return;
	va_start(ap, fmt);
	n = vsnprintf(buf + *off, len - *off, fmt, ap);
	va_end(ap);
	if (n > 0)
		*off = *off + (size_t)n < len ? *off + (size_t)n : len - 1;
}

void manager_notify_status(struct manager *m)
{
	char buf[2048], d[40];
	size_t off = 0;
	unsigned int n = 0;

	buf[0] = '\0';
	for (struct drun *r = m->runs; r && off < sizeof(buf) - 256; r = r->next) {
		struct drun_status st;
		int64_t el;

		pthread_mutex_lock(&r->lock);
		st = r->st;
		pthread_mutex_unlock(&r->lock);
		drun_status_now(&st, clock_wall_ns(), &el);
		notify_cat(buf, sizeof(buf), &off, "%srun %lld %s: %s", n ? "; " : "",
			   (long long)r->id, r->device, st.state);
		if (st.phase_seq)
			notify_cat(buf, sizeof(buf), &off, " %s", st.phase_name);
		/* a precondition's share of max_rounds is its round, shown below */
		if (st.progress >= 0 && strcmp(st.phase_kind, "precondition"))
			notify_cat(buf, sizeof(buf), &off, " %.1f%%", 100.0 * st.progress);
		if (st.last_sample_ns)
			notify_cat(buf, sizeof(buf), &off, " round %lld %.0f IOPS",
				   (long long)st.rounds, st.iops);
		if (st.steady)
			notify_cat(buf, sizeof(buf), &off, " steady@%lld",
				   (long long)st.steady_round);
		if (st.eta_ns >= 0)
			notify_cat(buf, sizeof(buf), &off, " ETA %s",
				   parse_fmt_duration(d, sizeof(d), (uint64_t)st.eta_ns));
		else if (st.eta_max_ns >= 0)
			notify_cat(buf, sizeof(buf), &off, " ETA <=%s",
				   parse_fmt_duration(d, sizeof(d), (uint64_t)st.eta_max_ns));
		n++;
	}
	if (!n)
		snprintf(buf, sizeof(buf), "%s", m->stopping ? "stopping" : "idle, no runs");
	(void)sd_notifyf(0, "STATUS=%s", buf);
}

#define MANAGER_ENDED_KEEP_NS (24LL * 3600 * 1000000000LL)

/* Forget ended runs after a day; true when one went. */
static bool manager_expire_ended(struct manager *m)
{
	int64_t now = clock_wall_ns();
	bool any = false;

	pthread_mutex_lock(&m->runs_lock);
	for (struct drun **pp = &m->ended; *pp;) {
		struct drun *r = *pp;

		if (now - r->ended_ns < MANAGER_ENDED_KEEP_NS) {
			pp = &r->next;
			continue;
		}
		*pp = r->next;
		drun_free(r);
		any = true;
	}
	pthread_mutex_unlock(&m->runs_lock);
	return any;
}

static int on_status_timer(sd_event_source *s, uint64_t usec, void *userdata)
{
	struct manager *m = userdata;

	/* an erase takes no samples: its progress and ETA in the textfile
	 * would stand still until the next phase without this rewrite */
	if (manager_expire_ended(m) || m->runs)
		events_write_prom(m);
	control_close_idle(m);
	manager_notify_status(m);
	(void)sd_event_source_set_time(s, usec + MANAGER_STATUS_PERIOD_US);
	(void)sd_event_source_set_enabled(s, SD_EVENT_ONESHOT);
	return 0;
}

static int manager_resume_one(void *ctx, const struct store_run *run)
{
	struct manager *m = ctx;
	char err[512];

	log_msg(LOG_NOTICE, "resuming run %lld '%s' (%s) on %s", (long long)run->id, run->name,
		run->state, run->drive.path);
	if (manager_start_run(m, run->id, NULL, NULL, NULL, err, sizeof(err)))
		log_msg(LOG_ERR, "run %lld cannot resume: %s", (long long)run->id, err);
	return 0;
}

int manager_resume_all(struct manager *m)
{
	struct store_run_filter f = {.state = "active"};
	uint64_t now;
	int r;

	r = sd_event_add_io(m->event, &m->wake_src, m->wake_fd, EPOLLIN, on_wake, m);
	if (r < 0)
		return log_errno(LOG_ERR, r, "cannot watch the eventfd");
	sd_event_now(m->event, CLOCK_MONOTONIC, &now);
	r = sd_event_add_time(m->event, &m->status_timer, CLOCK_MONOTONIC,
			      now + MANAGER_STATUS_PERIOD_US, 0, on_status_timer, m);
	if (r < 0)
		return log_errno(LOG_ERR, r, "cannot add a timer");
	r = store_runs_foreach(m->store, &f, manager_resume_one, m);
	if (r) {
		log_msg(LOG_ERR, "listing unfinished runs: %s", store_errmsg(m->store));
		return r;
	}
	/* a textfile left by the previous instance says nothing true any more */
	events_write_prom(m);
	return 0;
}
