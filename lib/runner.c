// SPDX-License-Identifier: MIT
/* runner: a run's plan, phase by phase, resumable (see runner.h). */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <json-c/json.h>

#include "clock.h"
#include "engine.h"
#include "erase.h"
#include "guard.h"
#include "msg.h"
#include "parse.h"
#include "plan.h"
#include "runner.h"
#include "verdict.h"
#include "version.h"

struct runner {
	struct store *s;
	int64_t run_id;
	const struct runner_ops *ops;
	void *ctx;

	struct store_run run;
	struct plan own_plan;	 /* the stored plan, parsed by runner_load() */
	const struct plan *plan; /* &own_plan, or runner_set_plan()'s */
	bool loaded;		 /* runner_load() ran: load_ret, have_run */
	bool have_run;		 /* r->run was read */
	int load_ret;
	struct store_phase *phases;
	size_t nphases;
	struct store_phase *cur; /* phase running */
	const struct plan_phase *cur_plan;
	const char *run_state;

	atomic_int stop;   /* 0, RUNNER_PAUSE or RUNNER_CANCEL */
	atomic_int nstops; /* runner_stop() calls: a new one ends runner_record_end()'s retries */
	pthread_mutex_t lock; /* guards engine */
	struct engine *engine;

	/* precondition */
	double *series[SAMPLE_METRIC_N];
	size_t rounds, cap;
	bool steady_reported, lost_reported;
	struct steady_result evidence;
	bool judged;
	/* progress throttle for erase events */
	double last_progress_event;
	int64_t last_progress_ns;
	unsigned int cur_threads, cur_iodepth;
	int cur_point; /* the sweep point being measured, 1-based; 0: none */
	/* for the status's rate and ETA (runner_timing()) */
	double rate;		   /* latest full sample: MB/s (fill) or IOPS; NaN none yet */
	uint64_t measured_ns;	   /* precondition: time under load, resumed rounds included */
	int64_t point_started_ns;  /* sweep: when the current point's engine started */
	double erase_fraction;	   /* erase: last progress, -1 unknown */
	uint32_t erase_estimate_s; /* the controller's, UINT32_MAX none */
	uint64_t erase_elapsed_ns;
	/* the checked, locked descriptor all I/O goes through (guard.h) */
	struct guard guard;
	bool have_guard;
	const struct guard_files *files; /* regular-file targets, runner_set_files() */
	/* events about the sample being committed: stored in its transaction,
	 * announced (journal, hooks, Prometheus) only after the commit */
	struct runner_pending {
		int prio;
		const char *kind;
		char *data;
		char msg[1024];
	} pending[4];
	size_t npending;
	bool store_failed; /* a commit failed: nothing more is stored */

	char err[2048];
};

enum {
	RUNNER_PAUSE = 1,
	RUNNER_CANCEL = 2,
};

/* Every event kind: its fixed MESSAGE_ID (plateaud(8)) and priority. */
static const struct runner_event_kind runner_event_kinds[] = {
	{RUNNER_EV_CREATED, "d6c9341cef9a46d8bf09fb8750fb2199", RUNNER_PRIO_NOTICE},
	{RUNNER_EV_STARTED, "c9a455dd112f47d2ace783c753d58a2d", RUNNER_PRIO_NOTICE},
	{RUNNER_EV_RESUMED, "b636964931cc4b25b9f73a8b1d93e6e2", RUNNER_PRIO_NOTICE},
	{RUNNER_EV_PAUSED, "5a7e0c7de2284b6b8c8450c72cdc581f", RUNNER_PRIO_NOTICE},
	{RUNNER_EV_DONE, "37261e4039764541ba9b17f7e621b27d", RUNNER_PRIO_NOTICE},
	{RUNNER_EV_FAILED, "60615e27d6c94a3d84a1b130e02b1854", RUNNER_PRIO_ERR},
	{RUNNER_EV_STOPPED, "8247a8c2e4cf4331abd53246266eaef5", RUNNER_PRIO_NOTICE},
	{RUNNER_EV_PHASE_STARTED, "1f4ecabd52c142198773131a361d9e40", RUNNER_PRIO_INFO},
	{RUNNER_EV_PHASE_ENDED, "f05fd554c59c43dca67926eb732fea2e", RUNNER_PRIO_INFO},
	{RUNNER_EV_GAP, "5098ec7307594a179afba4e89a89ddfe", RUNNER_PRIO_NOTICE},
	{RUNNER_EV_ERASE_PROGRESS, "33df96b2f29a44759e67f6453aaa3eaf", RUNNER_PRIO_INFO},
	{RUNNER_EV_ERASE_VERIFY, "a1536b0033ca4817b370d35a8550214a", RUNNER_PRIO_INFO},
	{RUNNER_EV_STEADY_REACHED, "d6d0170943534bc5a6e3fdaa9aa23f20", RUNNER_PRIO_NOTICE},
	{RUNNER_EV_STEADY_LOST, "be55c4fb7c02437f9e6640aa1a8520cc", RUNNER_PRIO_WARNING},
	{RUNNER_EV_STEADY_NOT_REACHED, "a70b202910f0446faf4ecea693cca65a", RUNNER_PRIO_WARNING},
	{RUNNER_EV_POINT, "f7e3fb31d6ed4f43af35f7103bddb40c", RUNNER_PRIO_INFO},
	{RUNNER_EV_STORE_SHARES_DISK, "fa9d5181473047e7aa5cecf31d9e8b19", RUNNER_PRIO_WARNING},
	{RUNNER_EV_POINT_ABORTED, "709c20920b55474fbbfc3d5a416f986b", RUNNER_PRIO_NOTICE},
};

const struct runner_event_kind *runner_event_kind(const char *kind)
{
	for (size_t i = 0; i < sizeof(runner_event_kinds) / sizeof(runner_event_kinds[0]); i++)
		if (!strcmp(runner_event_kinds[i].kind, kind))
			return &runner_event_kinds[i];
	return NULL;
}

static int runner_prio(const char *kind)
{
	const struct runner_event_kind *k = runner_event_kind(kind);

	return k ? (int)k->priority : RUNNER_PRIO_INFO;
}

static int runner_fail(struct runner *r, int ret, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int runner_fail(struct runner *r, int ret, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(r->err, sizeof(r->err), fmt, ap);
	va_end(ap);
	return ret;
}

const char *runner_errmsg(const struct runner *r)
{
	return r->err;
}

static int runner_store_event(struct runner *r, const char *kind, const char *data, const char *msg,
			      int64_t *id)
{
	struct store_event sev = {0};
	int ret;

	sev.run_id = r->run_id;
	sev.phase_id = r->cur ? r->cur->id : 0;
	sev.kind = kind;
	sev.message = msg;
	sev.data = data;
	ret = store_event_insert(r->s, &sev);
	*id = ret ? 0 : sev.id;
	return ret;
}

/* Hand a stored (or, id 0, unstorable) event to the caller. */
static void runner_announce(struct runner *r, int64_t id, int prio, const char *kind,
			    const char *data, const char *msg)
{
	struct runner_event ev = {0};

	ev.id = id;
	ev.run_id = r->run_id;
	ev.phase_id = r->cur ? r->cur->id : 0;
	ev.phase_seq = r->cur ? r->cur->seq : 0;
	ev.phase_kind = r->cur ? r->cur->kind : NULL;
	ev.kind = kind;
	ev.message = msg;
	ev.data = data;
	ev.priority = prio;
	ev.device = r->plan->device;
	ev.serial = r->run.drive.serial;
	if (r->ops && r->ops->event)
		r->ops->event(r->ctx, &ev);
}

/* Store an event and hand it to the caller, at @prio. */
static void runner_eventv(struct runner *r, int prio, const char *kind, const char *data,
			  const char *fmt, va_list ap) __attribute__((format(printf, 5, 0)));

static void runner_eventv(struct runner *r, int prio, const char *kind, const char *data,
			  const char *fmt, va_list ap)
{
	char msg[1024];
	int64_t id;

	vsnprintf(msg, sizeof(msg), fmt, ap);
	/* an event that cannot be stored still reaches the journal */
	(void)runner_store_event(r, kind, data, msg, &id);
	runner_announce(r, id, prio, kind, data, msg);
}

/* An event at its kind's priority. */
static void runner_event(struct runner *r, const char *kind, const char *data, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static void runner_event(struct runner *r, const char *kind, const char *data, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	runner_eventv(r, runner_prio(kind), kind, data, fmt, ap);
	va_end(ap);
}

/* An event at another priority than its kind's (a failed verification). */
static void runner_event_at(struct runner *r, int prio, const char *kind, const char *data,
			    const char *fmt, ...) __attribute__((format(printf, 5, 6)));

static void runner_event_at(struct runner *r, int prio, const char *kind, const char *data,
			    const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	runner_eventv(r, prio, kind, data, fmt, ap);
	va_end(ap);
}

/* An event about the sample runner_commit_sample() commits next: stored in
 * the same transaction, so a crash never leaves one without the other. */
static int runner_event_pending(struct runner *r, const char *kind, char *data, const char *fmt,
				...) __attribute__((format(printf, 4, 5)));

static int runner_event_pending(struct runner *r, const char *kind, char *data, const char *fmt,
				...)
{
	struct runner_pending *pe;
	va_list ap;

	if (r->npending == sizeof(r->pending) / sizeof(r->pending[0])) {
		free(data);
		return -ENOBUFS;
	}
	pe = &r->pending[r->npending++];
	pe->prio = runner_prio(kind);
	pe->kind = kind;
	pe->data = data; /* owned */
	va_start(ap, fmt);
	vsnprintf(pe->msg, sizeof(pe->msg), fmt, ap);
	va_end(ap);
	return 0;
}

static void runner_pending_clear(struct runner *r)
{
	for (size_t i = 0; i < r->npending; i++)
		free(r->pending[i].data);
	r->npending = 0;
}

static int64_t runner_left_ns(double ns)
{
	return ns > 0 ? (int64_t)ns : 0;
}

/* The phase's rate, progress and time left, from what the runner knows at
 * @now (CLOCK_REALTIME); runner.h says what each field means. */
static void runner_timing(const struct runner *r, struct runner_status *st, int64_t now)
{
	const struct plan_phase *pp = r->cur_plan;
	const struct store_phase *p = r->cur;

	st->rate = NAN;
	st->eta_ns = st->eta_max_ns = -1;
	st->data_excursion = st->data_limit = NAN;
	st->slope_excursion = st->slope_limit = NAN;
	if (!pp || !p)
		return;
	st->phase_started_ns = p->started_ns;
	st->elapsed_ns = p->started_ns && now > p->started_ns ? now - p->started_ns : 0;
	switch (pp->kind) {
	case PLAN_ERASE: {
		double f = r->erase_fraction;

		if (f > 0 && f < 1)
			st->eta_ns = runner_left_ns((double)r->erase_elapsed_ns * (1 - f) / f);
		else if (f >= 1)
			st->eta_ns = 0;
		else if (r->erase_estimate_s != UINT32_MAX)
			st->eta_ns = runner_left_ns((double)r->erase_estimate_s * 1e9 -
						    (double)r->erase_elapsed_ns);
		/* the erase fails at its deadline */
		if (pp->deadline_ns)
			st->eta_max_ns = runner_left_ns((double)pp->deadline_ns -
							(double)r->erase_elapsed_ns);
		break;
	}
	case PLAN_FILL:
		st->rate_unit = RUNNER_RATE_MBPS;
		st->rate = r->rate;
		if (p->total_bytes && isfinite(r->rate) && r->rate > 0)
			st->eta_ns = runner_left_ns((double)(p->total_bytes - p->progress_bytes) /
						    (r->rate * 1e6) * 1e9);
		break;
	case PLAN_PRECONDITION: {
		double bound = -1, interval = (double)r->plan->interval_ns;

		st->rate_unit = RUNNER_RATE_IOPS;
		st->rate = r->rate;
		st->max_rounds = pp->steady.max_rounds;
		st->rounds_judged = (int64_t)r->rounds;
		if (pp->steady.max_rounds)
			bound = (double)(pp->steady.max_rounds > r->rounds
						 ? pp->steady.max_rounds - r->rounds
						 : 0) *
				interval;
		if (pp->max_duration_ns) {
			double d = (double)pp->max_duration_ns - (double)r->measured_ns;

			if (d < 0)
				d = 0;
			if (bound < 0 || d < bound)
				bound = d;
		}
		if (bound >= 0)
			st->eta_max_ns = runner_left_ns(bound);
		/* it ends at its limit unless a passing window ends it sooner */
		if (!pp->steady_enabled || pp->continue_after_steady)
			st->eta_ns = st->eta_max_ns;
		else if (r->judged && r->evidence.steady)
			st->eta_ns = 0;
		if (r->judged && r->evidence.window_end) {
			st->data_excursion = r->evidence.data_excursion;
			st->data_limit = r->evidence.data_limit;
			st->slope_excursion = r->evidence.slope_excursion;
			st->slope_limit = r->evidence.slope_limit;
		}
		break;
	}
	case PLAN_SWEEP: {
		double per = (double)(pp->ramp_ns + pp->point_ns), cur = 0, done;

		st->rate_unit = RUNNER_RATE_IOPS;
		st->rate = r->rate;
		st->npoints = (int)pp->npoints;
		done = (double)(r->rounds < pp->npoints ? r->rounds : pp->npoints);
		st->point = r->cur_point ? r->cur_point
					 : (r->rounds < pp->npoints ? (int)r->rounds + 1 : 0);
		if (r->cur_point && r->point_started_ns && now > r->point_started_ns)
			cur = (double)(now - r->point_started_ns);
		if (cur > per)
			cur = per;
		st->eta_ns = st->eta_max_ns =
			runner_left_ns(((double)pp->npoints - done) * per - cur);
		break;
	}
	}
}

/* the phase's progress when the caller knows none */
static double runner_progress(const struct runner *r, const struct runner_status *st)
{
	const struct plan_phase *pp = r->cur_plan;

	if (!pp)
		return -1.0;
	if (pp->kind == PLAN_PRECONDITION && pp->steady.max_rounds)
		return r->rounds >= pp->steady.max_rounds
			       ? 1.0
			       : (double)r->rounds / (double)pp->steady.max_rounds;
	if (pp->kind == PLAN_PRECONDITION && pp->max_duration_ns)
		return r->measured_ns >= pp->max_duration_ns
			       ? 1.0
			       : (double)r->measured_ns / (double)pp->max_duration_ns;
	if (pp->kind == PLAN_SWEEP && pp->npoints) {
		double per = (double)(pp->ramp_ns + pp->point_ns);
		double left = st->eta_ns >= 0 ? (double)st->eta_ns : 0;
		double f = 1.0 - left / (per * (double)pp->npoints);

		return f < 0 ? 0 : f > 1 ? 1 : f;
	}
	return -1.0;
}

/* @stored: a resumed phase's last stored full sample (runner.h) or NULL */
static void runner_status_stored(struct runner *r, const struct sample *smp,
				 const struct sample *stored, double progress)
{
	struct runner_status st = {0};

	if (!r->ops || !r->ops->status)
		return;
	runner_timing(r, &st, clock_wall_ns());
	st.run_id = r->run_id;
	st.run_name = r->run.name;
	st.run_state = r->run_state;
	st.device = r->plan->device;
	st.serial = r->run.drive.serial;
	st.phase_seq = r->cur ? r->cur->seq : 0;
	st.phase_kind = r->cur ? r->cur->kind : NULL;
	st.phase_name = r->cur ? r->cur->name : NULL;
	st.sample = smp;
	st.stored_sample = stored;
	st.rounds = (int64_t)r->rounds;
	st.progress = progress;
	st.steady = r->judged && r->evidence.steady && !r->evidence.lost;
	st.steady_round = (int64_t)r->evidence.steady_round;
	st.evidence = r->judged ? &r->evidence : NULL;
	st.window = r->cur_plan && r->cur_plan->kind == PLAN_PRECONDITION
			    ? r->cur_plan->steady.window
			    : 0;
	st.threads = r->cur_threads;
	st.iodepth = r->cur_iodepth;
	if (st.progress < 0)
		st.progress = runner_progress(r, &st);
	r->ops->status(r->ctx, &st);
}

static void runner_status(struct runner *r, const struct sample *smp, double progress)
{
	runner_status_stored(r, smp, NULL, progress);
}

static int runner_set_run_state(struct runner *r, const char *state, const char *error)
{
	int ret = store_run_set_state(r->s, r->run_id, state, error, 0);

	if (ret)
		return runner_fail(r, ret, "%s", store_errmsg(r->s));
	r->run_state = state;
	snprintf(r->run.state, sizeof(r->run.state), "%s", state);
	return 0;
}

static int runner_save_phase(struct runner *r, struct store_phase *p)
{
	int ret = store_phase_update(r->s, p);

	return ret ? runner_fail(r, ret, "%s", store_errmsg(r->s)) : 0;
}

/* --- creating a run --- */

void runner_cmdline(pid_t pid, char *buf, size_t len)
{
	char p[64];
	ssize_t n = -1;
	int fd;

	if (!len)
		return;
	buf[0] = '\0';
	snprintf(p, sizeof(p), "/proc/%d/cmdline", (int)pid);
	fd = open(p, O_RDONLY | O_CLOEXEC);
	if (fd >= 0) {
		n = read(fd, buf, len - 1);
		close(fd);
	}
	if (n <= 0) {
		buf[0] = '\0';
		return;
	}
	buf[n] = '\0';
	while (n > 0 && buf[n - 1] == '\0')
		n--;
	for (ssize_t i = 0; i < n; i++)
		if (buf[i] == '\0')
			buf[i] = ' ';
}

void runner_drive_of(const struct target_identity *id, const char *path, struct store_drive *d)
{
	memset(d, 0, sizeof(*d));
	snprintf(d->kind, sizeof(d->kind), "%s", target_kind_name(id->kind));
	snprintf(d->path, sizeof(d->path), "%s", path);
	snprintf(d->model, sizeof(d->model), "%s", id->model);
	snprintf(d->serial, sizeof(d->serial), "%s", id->serial);
	snprintf(d->firmware, sizeof(d->firmware), "%s", id->firmware);
	snprintf(d->eui64, sizeof(d->eui64), "%s", id->eui64);
	snprintf(d->nguid, sizeof(d->nguid), "%s", id->nguid);
	snprintf(d->wwn, sizeof(d->wwn), "%s", id->wwn);
	d->capacity_bytes = id->capacity_bytes;
	d->lba_bytes = id->lba_bytes ? id->lba_bytes : 512;
}

int runner_create_run(struct store *s, const struct plan *p, const char *plan_text,
		      const struct target_identity *id, const char *host,
		      const struct runner_requester *who, int64_t *run_id,
		      struct runner_created *created, char *err, size_t errlen)
{
	struct store_drive d = {0};
	struct store_event ev = {.kind = RUNNER_EV_CREATED};
	struct store_run run;
	char by[384] = "", data[768] = "", msg[1024];
	int ret;

	store_run_init(&run);
	if (who) {
		json_object *j = json_object_new_object();

		run.requester_uid = who->uid;
		run.requester_pid = who->pid;
		snprintf(run.requester_cmd, sizeof(run.requester_cmd), "%s",
			 who->cmd ? who->cmd : "");
		snprintf(run.requester_via, sizeof(run.requester_via), "%s",
			 who->via ? who->via : "");
		snprintf(by, sizeof(by), ", by uid %lld (pid %lld, %s)", (long long)who->uid,
			 (long long)who->pid, who->via ? who->via : "?");
		json_object_object_add(j, "uid", json_object_new_int64(who->uid));
		json_object_object_add(j, "pid", json_object_new_int64(who->pid));
		json_object_object_add(j, "cmd",
				       who->cmd ? json_object_new_string(who->cmd) : NULL);
		json_object_object_add(j, "via",
				       who->via ? json_object_new_string(who->via) : NULL);
		snprintf(data, sizeof(data), "{\"requester\":%s}",
			 json_object_to_json_string_ext(j, JSON_C_TO_STRING_PLAIN |
								   JSON_C_TO_STRING_NOSLASHESCAPE));
		json_object_put(j);
	}
	runner_drive_of(id, p->device, &d);
	snprintf(msg, sizeof(msg), "'%s' created: %zu phase%s on %s (%s %s)%s", p->name, p->nphases,
		 p->nphases == 1 ? "" : "s", p->device, d.model, d.serial, by);

	if ((ret = store_begin(s)))
		goto fail;
	if ((ret = store_drive_upsert(s, &d)))
		goto rollback;
	run.drive_id = d.id;
	snprintf(run.name, sizeof(run.name), "%s", p->name);
	run.plan = (char *)(uintptr_t)plan_text;
	snprintf(run.state, sizeof(run.state), "queued");
	snprintf(run.host, sizeof(run.host), "%s", host ? host : "");
	snprintf(run.version, sizeof(run.version), "%s", PLATEAU_VERSION);
	if ((ret = store_run_insert(s, &run)))
		goto rollback;
	for (size_t i = 0; i < p->nphases; i++) {
		const struct plan_phase *pp = &p->phases[i];
		struct store_phase ph = {.run_id = run.id, .seq = (int)i + 1, .steady = -1};

		snprintf(ph.kind, sizeof(ph.kind), "%s", plan_kind_name(pp->kind));
		snprintf(ph.name, sizeof(ph.name), "%s", pp->name);
		snprintf(ph.state, sizeof(ph.state), "pending");
		ph.params = plan_phase_json(p, pp);
		if (!ph.params) {
			ret = -ENOMEM;
			goto rollback;
		}
		ret = store_phase_insert(s, &ph);
		free(ph.params);
		if (ret)
			goto rollback;
	}
	ev.run_id = run.id;
	ev.message = msg;
	ev.data = who ? data : NULL;
	if ((ret = store_event_insert(s, &ev)))
		goto rollback;
	if ((ret = store_commit(s)))
		goto rollback;
	*run_id = run.id;
	if (created) {
		/* the event as stored, for the caller to announce */
		memset(created, 0, sizeof(*created));
		snprintf(created->message, sizeof(created->message), "%s", msg);
		snprintf(created->data, sizeof(created->data), "%s", data);
		snprintf(created->device, sizeof(created->device), "%s", p->device);
		snprintf(created->serial, sizeof(created->serial), "%s", d.serial);
		created->ev.id = ev.id;
		created->ev.run_id = run.id;
		created->ev.kind = RUNNER_EV_CREATED;
		created->ev.message = created->message;
		created->ev.data = who ? created->data : NULL;
		created->ev.priority = runner_prio(RUNNER_EV_CREATED);
		created->ev.device = created->device;
		created->ev.serial = created->serial;
	}
	return 0;
rollback:
	snprintf(err, errlen, "%s", store_errmsg(s));
	(void)store_rollback(s);
	return ret;
fail:
	snprintf(err, errlen, "%s", store_errmsg(s));
	return ret;
}

/* --- the runner --- */

int runner_new(struct store *s, int64_t run_id, const struct runner_ops *ops, void *ctx,
	       struct runner **ret)
{
	struct runner *r = calloc(1, sizeof(*r));

	if (!r)
		return -ENOMEM;
	r->s = s;
	r->run_id = run_id;
	r->ops = ops;
	r->ctx = ctx;
	r->plan = &r->own_plan;
	pthread_mutex_init(&r->lock, NULL);
	*ret = r;
	return 0;
}

void runner_free(struct runner *r)
{
	if (!r)
		return;
	for (int i = 0; i < SAMPLE_METRIC_N; i++)
		free(r->series[i]);
	store_phases_free(r->phases, r->nphases);
	store_run_clear(&r->run);
	plan_free(&r->own_plan);
	if (r->have_guard)
		guard_close(&r->guard);
	pthread_mutex_destroy(&r->lock);
	free(r);
}

void runner_adopt_guard(struct runner *r, struct guard *g)
{
	if (r->have_guard)
		guard_close(&r->guard);
	r->guard = *g;
	r->have_guard = true;
	/* the caller's copy no longer owns anything */
	g->fd = -1;
	g->nlocks = 0;
}

void runner_stop(struct runner *r, bool pause)
{
	int want = pause ? RUNNER_PAUSE : RUNNER_CANCEL, cur = 0;

	atomic_fetch_add(&r->nstops, 1);
	/* a cancel overrides a pause, never the other way round */
	if (!atomic_compare_exchange_strong(&r->stop, &cur, want) && want == RUNNER_CANCEL)
		atomic_store(&r->stop, RUNNER_CANCEL);
	pthread_mutex_lock(&r->lock);
	if (r->engine)
		engine_stop(r->engine);
	pthread_mutex_unlock(&r->lock);
}

static int runner_stopped(struct runner *r)
{
	int s = atomic_load(&r->stop);

	return s == RUNNER_PAUSE ? -EINTR : s == RUNNER_CANCEL ? -ECANCELED : 0;
}

/* The erase method of the plan, ERASE_NONE without an erase phase. */
static enum erase_method runner_erase_method(const struct plan *p)
{
	for (size_t i = 0; i < p->nphases; i++)
		if (p->phases[i].kind == PLAN_ERASE)
			return p->phases[i].erase_method;
	return ERASE_NONE;
}

void runner_set_files(struct runner *r, const struct guard_files *files)
{
	r->files = files;
}

void runner_set_plan(struct runner *r, const struct plan *p)
{
	r->plan = p;
}

const struct plan *runner_plan(const struct runner *r)
{
	return r->plan;
}

int runner_guard_open(const struct plan *p, unsigned int extra_flags, int64_t run_id,
		      const struct guard_files *files, struct guard *g)
{
	struct guard_req rq = {
		.path = p->device,
		.want = p->ident,
		.want_field = *p->ident_field ? p->ident_field : "serial",
		.flags = (plan_writes(p) ? GUARD_WRITES : 0) | extra_flags,
		.erase_method = runner_erase_method(p),
		.run_id = run_id,
		.files = files,
	};

	return guard_open(&rq, g);
}

/* Open the gate for this process's part of the run (a resume, or a runner
 * nobody handed a guard to). */
static int runner_open_guard(struct runner *r)
{
	char msg[2048];
	int ret;

	if (r->have_guard)
		return 0;
	/* after a crash the dead process's io_uring may hold the device's
	 * exclusive claim for some milliseconds: a short, bounded retry */
	for (int tries = 0;; tries++) {
		ret = runner_guard_open(r->plan, 0, r->run_id, r->files, &r->guard);
		if (ret != -EBUSY || tries >= 30 || runner_stopped(r))
			break;
		guard_close(&r->guard);
		nanosleep(&(struct timespec){.tv_nsec = 100000000L}, NULL);
	}
	if (ret) {
		guard_refusal(&r->guard, msg, sizeof(msg));
		guard_close(&r->guard);
		return runner_fail(r, ret, "%s", msg);
	}
	r->have_guard = true;
	return 0;
}

/* Before a phase: still the drive the plan names, and free (guard.h). */
static int runner_check_target(struct runner *r, bool writes, bool whole_ctrl)
{
	char msg[2048];
	int ret;

	if (!writes)
		return 0;
	ret = guard_recheck(&r->guard, r->plan->ident, whole_ctrl);
	if (ret)
		return runner_fail(r, ret, "%s", guard_refusal(&r->guard, msg, sizeof(msg)));
	return 0;
}

/* --- erase --- */

static void runner_erase_progress(const struct erase_progress *p, void *userdata)
{
	struct runner *r = userdata;
	int64_t now = clock_wall_ns();

	r->erase_fraction = p->fraction;
	r->erase_estimate_s = p->estimate_s;
	r->erase_elapsed_ns = p->elapsed_ns;
	runner_status(r, NULL, p->fraction);
	/* progress events: at most every 5 % or 5 minutes, so an overnight
	 * sanitize leaves a trail without flooding the table */
	if (p->phase == ERASE_PHASE_RUNNING &&
	    (p->fraction - r->last_progress_event >= 0.05 ||
	     now - r->last_progress_ns >= 300LL * 1000000000LL)) {
		char data[256], est[64] = "no estimate";

		if (p->estimate_s != UINT32_MAX)
			snprintf(est, sizeof(est), "controller estimate %u s", p->estimate_s);
		snprintf(data, sizeof(data),
			 "{\"method\":\"%s\",\"fraction\":%.4f,\"estimate_s\":%lld,\"elapsed_s\":%."
			 "1f,"
			 "\"resumed\":%s}",
			 erase_method_name(p->method), p->fraction,
			 p->estimate_s == UINT32_MAX ? -1LL : (long long)p->estimate_s,
			 (double)p->elapsed_ns / 1e9, p->resumed ? "true" : "false");
		runner_event(r, RUNNER_EV_ERASE_PROGRESS, data, "%s%s: %.1f%% (%s)",
			     erase_method_name(p->method), p->resumed ? " (resumed)" : "",
			     p->fraction < 0 ? 0 : 100.0 * p->fraction, est);
		r->last_progress_event = p->fraction;
		r->last_progress_ns = now;
	}
}

static bool runner_erase_should_stop(void *userdata)
{
	return runner_stopped(userdata) != 0;
}

static char *runner_erase_json(const struct erase_record *rec)
{
	json_object *o = json_object_new_object(), *a = json_object_new_array(),
		    *w = json_object_new_array(), *v = json_object_new_object();
	char *ret;

	json_object_object_add(o, "requested",
			       json_object_new_string(erase_method_name(rec->requested)));
	json_object_object_add(o, "method", json_object_new_string(erase_method_name(rec->ran)));
	json_object_object_add(o, "completed", json_object_new_boolean(rec->completed));
	json_object_object_add(o, "resumed", json_object_new_boolean(rec->resumed));
	for (size_t i = 0; i < rec->n_attempts; i++) {
		const struct erase_attempt *at = &rec->attempts[i];
		json_object *j = json_object_new_object();

		json_object_object_add(j, "method",
				       json_object_new_string(erase_method_name(at->method)));
		json_object_object_add(j, "sent", json_object_new_boolean(at->sent));
		json_object_object_add(j, "ok", json_object_new_boolean(at->err == 0));
		json_object_object_add(j, "message", json_object_new_string(at->msg));
		if (at->nvme_status)
			json_object_object_add(j, "nvme_status",
					       json_object_new_int(at->nvme_status));
		json_object_array_add(a, j);
	}
	json_object_object_add(o, "attempts", a);
	for (size_t i = 0; i < rec->plan.n_warnings; i++)
		json_object_array_add(w, json_object_new_string(rec->plan.warnings[i]));
	json_object_object_add(o, "warnings", w);
	json_object_object_add(v, "done", json_object_new_boolean(rec->verify.done));
	json_object_object_add(v, "passed", json_object_new_boolean(rec->verify.passed));
	json_object_object_add(v, "expect", json_object_new_int(rec->verify.expect));
	json_object_object_add(v, "ranges", json_object_new_int((int)rec->verify.ranges));
	json_object_object_add(v, "ranges_zero", json_object_new_int((int)rec->verify.ranges_zero));
	json_object_object_add(v, "ranges_ones", json_object_new_int((int)rec->verify.ranges_ones));
	json_object_object_add(v, "ranges_other",
			       json_object_new_int((int)rec->verify.ranges_other));
	json_object_object_add(v, "bytes_read",
			       json_object_new_int64((int64_t)rec->verify.bytes_read));
	json_object_object_add(o, "verify", v);
	json_object_object_add(o, "elapsed_s",
			       json_object_new_double((double)rec->elapsed_ns / 1e9));
	if (rec->err)
		json_object_object_add(o, "error", json_object_new_string(rec->msg));
	ret = strdup(json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN |
							       JSON_C_TO_STRING_NOSLASHESCAPE));
	json_object_put(o);
	return ret;
}

static int runner_erase(struct runner *r, struct store_phase *p, const struct plan_phase *pp,
			bool resuming)
{
	struct erase_opts o = {
		.method = pp->erase_method,
		.want = r->plan->ident,
		.deadline_ns = pp->deadline_ns,
		.no_verify = !pp->verify,
		.verify_seed = r->plan->seed ? r->plan->seed : (uint64_t)r->run_id,
		.progress = runner_erase_progress,
		.should_stop = runner_erase_should_stop,
		.userdata = r,
	};
	struct erase_record rec;
	int ret = -ENOENT;
	char *json;

	r->last_progress_event = -1;
	r->last_progress_ns = clock_wall_ns();
	if (resuming && r->guard.id.kind == TARGET_NVME) {
		/* an NVMe sanitize survives our crash: follow it, never restart it */
		ret = erase_resume(r->guard.fd, &r->guard.id, &o, &rec);
		if (!ret)
			runner_event(r, RUNNER_EV_RESUMED, NULL,
				     "a sanitize found in progress after the restart completed");
	}
	if (ret == -ENOENT) {
		ret = runner_check_target(r, pp->erase_method != ERASE_NONE, r->guard.erase_all_ns);
		if (ret) {
			memset(&rec, 0, sizeof(rec));
			rec.requested = pp->erase_method;
			msg_set(rec.msg, sizeof(rec.msg), "%s", r->err);
			rec.err = ret;
		} else {
			ret = erase_run(&r->guard.fd, &r->guard.id, &o, &rec);
		}
	}
	json = runner_erase_json(&rec);
	free(p->result);
	p->result = json;
	if (runner_stopped(r) && (ret == -ECANCELED || ret == 0))
		return runner_stopped(r);
	if (ret)
		return runner_fail(r, ret, "erase: %s", *rec.msg ? rec.msg : strerror(-ret));
	if (rec.verify.done)
		runner_event_at(r, rec.verify.passed ? RUNNER_PRIO_INFO : RUNNER_PRIO_WARNING,
				RUNNER_EV_ERASE_VERIFY, NULL,
				"erase by %s: %u of %u sampled ranges read as 0x%02x%s",
				erase_method_name(rec.ran),
				rec.verify.expect ? rec.verify.ranges_ones : rec.verify.ranges_zero,
				rec.verify.ranges, rec.verify.expect,
				rec.verify.passed ? "" : ": the drive does NOT read back erased");
	return 0;
}

/* --- samples --- */

static void runner_footprint(struct runner *r, struct engine_job *job)
{
	job->path = r->plan->device;
	job->use_fd = true;
	job->fd = r->guard.fd;
	job->offset_bytes = r->plan->offset_bytes;
	job->size_bytes = r->plan->footprint_bytes;
	job->interval_ns = r->plan->interval_ns;
	job->io_timeout_ns = r->plan->io_timeout_ns;
	/* the ring setup the benchmark measures (engine.h), not a bare ring */
	job->ring_flags = ENGINE_RING_FLAGS_AUTO;
	job->seed = (r->plan->seed ? r->plan->seed : 0x9E3779B97F4A7C15ULL * (uint64_t)r->run_id) ^
		    (uint64_t)r->cur->seq;
}

/* engine_job.size_bytes from a percentage footprint */
static int runner_resolve_footprint(struct runner *r, struct engine_job *job)
{
	struct engine_target t;
	char err[256];
	int ret;

	if (r->plan->footprint_pct <= 0)
		return 0;
	ret = engine_target_probe_fd(r->guard.fd, &t);
	if (ret)
		return runner_fail(r, ret, "%s: %s", r->plan->device, strerror(-ret));
	ret = engine_footprint(t.size_bytes, t.lba_bytes, r->plan->offset_bytes, 0,
			       r->plan->footprint_pct, &job->size_bytes, err, sizeof(err));
	if (ret)
		return runner_fail(r, ret, "footprint: %s", err);
	return 0;
}

static bool runner_partial(const struct runner *r, const struct sample *s,
			   const struct engine_progress *p)
{
	/* the last interval of a phase is a round only if (nearly) whole */
	return p->final && (double)(s->end_ns - s->start_ns) < 0.9 * (double)r->plan->interval_ns;
}

/*
 * Store one sample with the phase's progress and the events about it
 * (runner_event_pending()), in one transaction; the events reach the
 * journal and the hooks only once it is committed.  After a failure nothing
 * more is stored: the engine's last, partial interval would come after a
 * hole in the sequence (the run fails with the first error instead).
 */
static int runner_commit_sample(struct runner *r, const struct sample *smp)
{
	int64_t ids[sizeof(r->pending) / sizeof(r->pending[0])];
	int ret;

	if (r->store_failed) {
		runner_pending_clear(r);
		return -EIO;
	}
	if ((ret = store_begin(r->s)))
		goto fail;
	if ((ret = store_sample_insert(r->s, r->cur->id, smp)) ||
	    (ret = store_phase_update(r->s, r->cur)))
		goto rollback;
	for (size_t i = 0; i < r->npending; i++)
		if ((ret = runner_store_event(r, r->pending[i].kind, r->pending[i].data,
					      r->pending[i].msg, &ids[i])))
			goto rollback;
	if ((ret = store_commit(r->s)))
		goto rollback;
	for (size_t i = 0; i < r->npending; i++)
		runner_announce(r, ids[i], r->pending[i].prio, r->pending[i].kind,
				r->pending[i].data, r->pending[i].msg);
	runner_pending_clear(r);
	return 0;
rollback:
	(void)store_rollback(r->s);
fail:
	runner_pending_clear(r);
	r->store_failed = true;
	return runner_fail(r, ret, "storing sample %lld: %s", (long long)smp->seq,
			   store_errmsg(r->s));
}

static int runner_run_engine(struct runner *r, struct engine_job *job, struct engine_result *res)
{
	struct engine *e;
	char err[256];
	int ret;

	if ((ret = runner_stopped(r)))
		return ret;
	/* through the gate's descriptor: nothing is opened here (a claim left
	 * by a crashed process is waited out in runner_open_guard()) */
	ret = engine_new(job, &e, err, sizeof(err));
	if (ret)
		return runner_fail(r, ret, "%s", err);
	pthread_mutex_lock(&r->lock);
	r->engine = e;
	pthread_mutex_unlock(&r->lock);
	/* a stop that came between the check above and here */
	if (runner_stopped(r))
		engine_stop(e);
	ret = engine_run(e, res);
	pthread_mutex_lock(&r->lock);
	r->engine = NULL;
	pthread_mutex_unlock(&r->lock);
	engine_free(e);
	if (*r->err)
		return -EIO; /* a callback failed to store */
	if (ret < 0 || res->stop == ENGINE_STOP_ERROR)
		return runner_fail(r, ret < 0 ? ret : -EIO, "%s",
				   *res->msg ? res->msg : "I/O failed");
	return 0;
}

/* --- fill --- */

static int runner_fill_sample(void *ctx, const struct sample *s, const struct engine_progress *p)
{
	struct runner *r = ctx;
	struct sample smp = *s;
	uint64_t progress = r->cur->progress_bytes, total = r->cur->total_bytes;

	smp.partial = runner_partial(r, s, p);
	if (!smp.partial)
		r->rate = sample_metric(&smp, SAMPLE_METRIC_BW);
	r->cur->progress_bytes = p->stream_bytes;
	r->cur->total_bytes = p->total_bytes;
	if (runner_commit_sample(r, &smp)) {
		/* the fill resumes where the database says it got to */
		r->cur->progress_bytes = progress;
		r->cur->total_bytes = total;
		return 1;
	}
	runner_status(r, &smp,
		      p->total_bytes ? (double)p->stream_bytes / (double)p->total_bytes : -1.0);
	return 0;
}

static int runner_fill(struct runner *r, struct store_phase *p, const struct plan_phase *pp)
{
	struct engine_job job = {0};
	struct engine_result *res;
	int64_t last;
	int ret;

	runner_footprint(r, &job);
	if ((ret = runner_resolve_footprint(r, &job)))
		return ret;
	job.profile.pattern = PROFILE_SEQUENTIAL;
	job.profile.read_share = 0;
	job.profile.nbs = 1;
	job.profile.bs[0].size_bytes = pp->bs_bytes;
	job.profile.bs[0].share = PROFILE_SHARE_SCALE;
	snprintf(job.profile.name, sizeof(job.profile.name), "fill");
	job.threads = pp->threads;
	job.iodepth = pp->iodepth;
	job.fill_passes = pp->passes;
	job.resume_bytes = p->progress_bytes;
	if ((ret = store_sample_last_seq(r->s, p->id, &last)))
		return runner_fail(r, ret, "%s", store_errmsg(r->s));
	job.seq_base = last;
	job.on_sample = runner_fill_sample;
	job.ctx = r;
	r->cur_threads = pp->threads;
	r->cur_iodepth = pp->iodepth;
	if (p->progress_bytes)
		runner_event(r, RUNNER_EV_RESUMED, NULL, "fill resumes at byte %llu of %llu",
			     (unsigned long long)p->progress_bytes,
			     (unsigned long long)p->total_bytes);
	res = malloc(sizeof(*res));
	if (!res)
		return -ENOMEM;
	ret = runner_run_engine(r, &job, res);
	if (!ret) {
		p->progress_bytes = res->stream_bytes;
		if (res->stop != ENGINE_STOP_DONE)
			ret = runner_stopped(r) ? runner_stopped(r)
						: runner_fail(r, -EIO, "fill ended early (%s)",
							      engine_stop_reason_name(res->stop));
	}
	free(res);
	return ret;
}

/* --- precondition --- */

/* The verdict as stored (the phase's result) and as an event's data (with
 * @seq, the sample it is about; 0: none): verdict_result_json(), the form
 * `plateau steady --json` prints, at full precision. */
static char *runner_evidence_json(const struct runner *r, const struct plan_phase *pp,
				  const struct steady_result *all, int64_t seq)
{
	enum sample_metric m = (enum sample_metric)pp->metrics[0];
	json_object *o = verdict_result_json(&r->evidence, all, &pp->steady, sample_metric_name(m),
					     sample_metric_unit(m), NULL, 0);
	char *ret;

	if (!o)
		return NULL;
	if (seq > 0)
		json_object_object_add(o, "sample_seq", json_object_new_int64(seq));
	ret = strdup(json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN));
	json_object_put(o);
	return ret;
}

static int runner_append_round(struct runner *r, const struct plan_phase *pp,
			       const struct sample *smp)
{
	if (r->rounds == r->cap) {
		size_t cap = r->cap ? 2 * r->cap : 256;

		for (size_t k = 0; k < pp->nmetrics; k++) {
			double *v = realloc(r->series[k], cap * sizeof(double));

			if (!v)
				return -ENOMEM;
			r->series[k] = v;
		}
		r->cap = cap;
	}
	for (size_t k = 0; k < pp->nmetrics; k++)
		r->series[k][r->rounds] = sample_metric(smp, (enum sample_metric)pp->metrics[k]);
	r->rounds++;
	return 0;
}

/* Judge the rounds so far; events on the way into and out of steady state,
 * about sample @seq (0: re-judging stored rounds, no events; else they are
 * committed with that sample).  Returns 1 when the phase should end. */
static int runner_judge(struct runner *r, const struct plan_phase *pp, int64_t seq)
{
	bool live = seq > 0;
	struct steady_result res[SAMPLE_METRIC_N], all;
	char *ev;
	int ret;

	if (pp->steady_enabled) {
		ret = steady_judge_all((const double *const *)r->series, pp->nmetrics, r->rounds,
				       &pp->steady, res, &all);
		if (ret) {
			/* a round with a value the math rejects (NaN, negative) */
			runner_fail(r, ret, "round %zu: steady-state judgement failed (%s)",
				    r->rounds, strerror(-ret));
			return -1;
		}
		r->evidence = res[0];
		r->evidence.steady = all.steady;
		r->evidence.steady_round = all.steady_round;
		r->evidence.lost = all.lost;
		r->evidence.lost_round = all.lost_round;
		r->judged = true;
		r->cur->steady = all.steady ? 1 : 0;
		r->cur->steady_round = all.steady ? (int64_t)all.steady_round : 0;
		free(r->cur->result);
		r->cur->result = runner_evidence_json(r, pp, &all, 0);
		if (all.steady && !r->steady_reported) {
			r->steady_reported = true;
			if (live) {
				ev = runner_evidence_json(r, pp, &all, seq);
				runner_event_pending(
					r, RUNNER_EV_STEADY_REACHED, ev,
					"steady state at round %zu (window %zu-%zu, average "
					"%.6g %s, data excursion %.6g <= %.6g, slope excursion "
					"%.6g <= %.6g)",
					all.steady_round, res[0].window_start, res[0].window_end,
					res[0].average,
					sample_metric_unit((enum sample_metric)pp->metrics[0]),
					res[0].data_excursion, res[0].data_limit,
					res[0].slope_excursion, res[0].slope_limit);
			}
		}
		if (all.lost && !r->lost_reported) {
			r->lost_reported = true;
			if (live) {
				ev = runner_evidence_json(r, pp, &all, seq);
				runner_event_pending(
					r, RUNNER_EV_STEADY_LOST, ev,
					"steady state lost at round %zu (steady since round "
					"%zu)",
					all.lost_round, all.steady_round);
			}
		}
		if (all.steady && !pp->continue_after_steady)
			return 1;
	}
	if (pp->steady.max_rounds && r->rounds >= pp->steady.max_rounds)
		return 1;
	return 0;
}

static int runner_pre_sample(void *ctx, const struct sample *s, const struct engine_progress *p)
{
	struct runner *r = ctx;
	const struct plan_phase *pp = r->cur_plan;
	struct sample smp = *s;
	/* what judging this round changes, restored if its sample is not
	 * committed: a round counts only once it is stored */
	struct steady_result evidence = r->evidence;
	bool steady_reported = r->steady_reported, lost_reported = r->lost_reported;
	bool judged = r->judged;
	int steady = r->cur->steady;
	int64_t steady_round = r->cur->steady_round;
	char *result = r->cur->result ? strdup(r->cur->result) : NULL;
	int end = 0;

	if (r->store_failed) {
		free(result);
		return 1;
	}
	smp.partial = runner_partial(r, s, p);
	if (!smp.partial) {
		if (runner_append_round(r, pp, &smp)) {
			free(result);
			runner_fail(r, -ENOMEM, "out of memory");
			return 1;
		}
		r->cur->rounds = (int64_t)r->rounds;
		end = runner_judge(r, pp, smp.seq);
		if (end < 0) {
			free(result);
			runner_pending_clear(r);
			return 1;
		}
	}
	if (runner_commit_sample(r, &smp)) {
		if (!smp.partial) {
			r->rounds--;
			r->cur->rounds = (int64_t)r->rounds;
			r->evidence = evidence;
			r->steady_reported = steady_reported;
			r->lost_reported = lost_reported;
			r->judged = judged;
			r->cur->steady = steady;
			r->cur->steady_round = steady_round;
			free(r->cur->result);
			r->cur->result = result;
			result = NULL;
		}
		free(result);
		return 1;
	}
	free(result);
	r->measured_ns += (uint64_t)(smp.end_ns - smp.start_ns);
	if (!smp.partial)
		r->rate = sample_metric(&smp, SAMPLE_METRIC_IOPS);
	runner_status(r, &smp, -1.0);
	return end;
}

struct runner_load_ctx {
	struct runner *r;
	const struct plan_phase *pp;
	int64_t last_end_ns;
	uint64_t measured_ns;
	struct sample last; /* the last full sample stored; last.seq 0: none */
};

static int runner_load_round(void *ctx, const struct sample *s)
{
	struct runner_load_ctx *c = ctx;

	c->last_end_ns = s->end_ns;
	c->measured_ns += (uint64_t)(s->end_ns - s->start_ns);
	if (s->partial)
		return 0;
	c->r->rate = sample_metric(s, SAMPLE_METRIC_IOPS);
	c->last = *s;
	/* read back without them, and gone once the callback returns */
	c->last.hist[0] = c->last.hist[1] = NULL;
	return runner_append_round(c->r, c->pp, s);
}

static int runner_precondition(struct runner *r, struct store_phase *p, const struct plan_phase *pp)
{
	struct runner_load_ctx lc = {.r = r, .pp = pp};
	struct engine_job job = {0};
	struct engine_result *res;
	int64_t last;
	int ret;

	/* the series are the phase's own: a second precondition may track
	 * more metrics than the first (its series were never allocated, and
	 * the capacity left by the first said they were) */
	for (size_t k = 0; k < SAMPLE_METRIC_N; k++) {
		free(r->series[k]);
		r->series[k] = NULL;
	}
	r->cap = 0;
	/* rounds already measured (a resume): judge them again */
	r->rounds = 0;
	r->steady_reported = r->lost_reported = r->judged = false;
	ret = store_samples_foreach(r->s, p->id, 1, 0, runner_load_round, &lc);
	if (ret)
		return runner_fail(r, ret, "%s", store_errmsg(r->s));
	r->measured_ns = lc.measured_ns;
	if (r->rounds) {
		char gap[64];

		ret = runner_judge(r, pp, 0);
		if (ret < 0)
			return -EINVAL;
		parse_fmt_duration(gap, sizeof(gap), (uint64_t)(clock_wall_ns() - lc.last_end_ns));
		/* the resumed rounds, their verdict and the last one's figures
		 * (its rate with its latency), before the gap's event: whoever
		 * sees it asks a status that already shows them */
		runner_status_stored(r, NULL, lc.last.seq ? &lc.last : NULL, -1.0);
		runner_event(r, RUNNER_EV_GAP, NULL,
			     "precondition resumes after %zu rounds; a gap of %s without load "
			     "precedes round %zu",
			     r->rounds, gap, r->rounds + 1);
		if (ret == 1)
			return 0; /* it had already ended */
	}
	runner_footprint(r, &job);
	if ((ret = runner_resolve_footprint(r, &job)))
		return ret;
	job.profile = pp->load;
	job.threads = pp->threads;
	job.iodepth = pp->iodepth;
	if (pp->max_duration_ns) {
		if (lc.measured_ns >= pp->max_duration_ns)
			return 0;
		job.duration_ns = pp->max_duration_ns - lc.measured_ns;
	}
	if ((ret = store_sample_last_seq(r->s, p->id, &last)))
		return runner_fail(r, ret, "%s", store_errmsg(r->s));
	job.seq_base = last;
	job.on_sample = runner_pre_sample;
	job.ctx = r;
	r->cur_threads = pp->threads;
	r->cur_iodepth = pp->iodepth;
	res = malloc(sizeof(*res));
	if (!res)
		return -ENOMEM;
	ret = runner_run_engine(r, &job, res);
	free(res);
	if (ret)
		return ret;
	if (runner_stopped(r) && !(r->evidence.steady && !pp->continue_after_steady) &&
	    !(pp->steady.max_rounds && r->rounds >= pp->steady.max_rounds))
		return runner_stopped(r);
	if (pp->steady_enabled && !r->evidence.steady)
		runner_event(r, RUNNER_EV_STEADY_NOT_REACHED, r->cur->result,
			     "not steady after %zu rounds (%s)", r->rounds,
			     pp->steady.max_rounds && r->rounds >= pp->steady.max_rounds
				     ? "max_rounds reached"
				     : "max_duration reached");
	return 0;
}

/* --- sweep --- */

struct runner_points_ctx {
	bool done[PLAN_POINTS_MAX];
};

static int runner_point_seen(void *ctx, const struct store_point *pt)
{
	struct runner_points_ctx *c = ctx;

	if (pt->seq >= 1 && pt->seq <= PLAN_POINTS_MAX)
		c->done[pt->seq - 1] = true;
	return 0;
}

static int runner_sweep_sample(void *ctx, const struct sample *s, const struct engine_progress *p)
{
	struct runner *r = ctx;
	struct sample smp = *s;

	smp.partial = runner_partial(r, s, p);
	smp.point = r->cur_point;
	if (runner_commit_sample(r, &smp))
		return 1;
	if (!smp.partial)
		r->rate = sample_metric(&smp, SAMPLE_METRIC_IOPS);
	runner_status(r, &smp, -1.0);
	return 0;
}

/*
 * A point measured again after an interruption: the samples of the
 * attempt that was cut short are marked aborted, with an event, in one
 * transaction, so that they never count in the point's figures.
 */
static int runner_abort_point(struct runner *r, struct store_phase *p, int point)
{
	char msg[256];
	int64_t id = 0;
	int ret, n;

	if ((ret = store_begin(r->s)))
		return runner_fail(r, ret, "%s", store_errmsg(r->s));
	n = store_samples_abort_point(r->s, p->id, point);
	if (n <= 0) {
		(void)store_rollback(r->s);
		return n < 0 ? runner_fail(r, n, "%s", store_errmsg(r->s)) : 0;
	}
	snprintf(msg, sizeof(msg),
		 "load point %d was interrupted after %d samples: they are set aside (aborted) and "
		 "the point is measured again",
		 point, n);
	if ((ret = runner_store_event(r, RUNNER_EV_POINT_ABORTED, NULL, msg, &id)) ||
	    (ret = store_commit(r->s))) {
		(void)store_rollback(r->s);
		return runner_fail(r, ret, "%s", store_errmsg(r->s));
	}
	runner_announce(r, id, runner_prio(RUNNER_EV_POINT_ABORTED), RUNNER_EV_POINT_ABORTED, NULL,
			msg);
	return 0;
}

static int runner_sweep(struct runner *r, struct store_phase *p, const struct plan_phase *pp)
{
	struct runner_points_ctx pc = {0};
	struct engine_result *res;
	int ret;

	ret = store_points_foreach(r->s, p->id, 0, runner_point_seen, &pc);
	if (ret)
		return runner_fail(r, ret, "%s", store_errmsg(r->s));
	res = malloc(sizeof(*res));
	if (!res)
		return -ENOMEM;
	for (size_t i = 0; i < pp->npoints; i++) {
		struct engine_job job = {0};
		struct store_point pt = {0};
		int64_t last, evid = 0;
		char msg[256];

		if (pc.done[i])
			continue;
		if ((ret = runner_abort_point(r, p, (int)i + 1)))
			break;
		runner_footprint(r, &job);
		if ((ret = runner_resolve_footprint(r, &job)))
			break;
		job.profile = pp->load;
		job.threads = pp->points[i].threads;
		job.iodepth = pp->points[i].iodepth;
		job.duration_ns = pp->point_ns;
		job.ramp_ns = pp->ramp_ns;
		if (job.interval_ns > pp->point_ns)
			job.interval_ns = pp->point_ns;
		if ((ret = store_sample_last_seq(r->s, p->id, &last))) {
			ret = runner_fail(r, ret, "%s", store_errmsg(r->s));
			break;
		}
		job.seq_base = last;
		job.on_sample = runner_sweep_sample;
		job.ctx = r;
		r->cur_threads = job.threads;
		r->cur_iodepth = job.iodepth;
		r->cur->rounds = (int64_t)i;
		r->rounds = i; /* load points measured, for the status */
		r->cur_point = (int)i + 1;
		r->point_started_ns = clock_wall_ns();
		/* the point's load, before its first sample */
		runner_status(r, NULL, -1.0);
		ret = runner_run_engine(r, &job, res);
		r->cur_point = 0;
		/* the rate is the point's own: the next point shows none of
		 * this one's until its own first sample */
		r->rate = NAN;
		if (ret) {
			r->cur->rounds = (int64_t)i;
			break;
		}
		if ((ret = runner_stopped(r)))
			break; /* an interrupted point is measured again on resume */
		pt.seq = (int)i + 1;
		pt.threads = job.threads;
		pt.iodepth = job.iodepth;
		pt.smp.seq = pt.seq;
		pt.smp.start_ns = res->start_ns;
		pt.smp.end_ns = res->end_ns > res->start_ns ? res->end_ns : res->start_ns + 1;
		pt.smp.errors = res->errors;
		sample_summarize(&pt.smp, &res->hist[SAMPLE_READ], res->bytes[SAMPLE_READ],
				 &res->hist[SAMPLE_WRITE], res->bytes[SAMPLE_WRITE]);
		pt.smp.hist[0] = &res->hist[SAMPLE_READ];
		pt.smp.hist[1] = &res->hist[SAMPLE_WRITE];
		r->cur->rounds = (int64_t)i + 1;
		r->rounds = i + 1;
		/* before the point's event: whoever sees it asks a status that
		 * already shows the next point, with its load */
		if (i + 1 < pp->npoints) {
			r->cur_threads = pp->points[i + 1].threads;
			r->cur_iodepth = pp->points[i + 1].iodepth;
		}
		runner_status(r, NULL, -1.0);
		snprintf(msg, sizeof(msg),
			 "load point %d (%ux%u): %.0f IOPS, %.2f MB/s, mean %.1f us, p99 %.1f us",
			 pt.seq, pt.threads, pt.iodepth, sample_metric(&pt.smp, SAMPLE_METRIC_IOPS),
			 sample_metric(&pt.smp, SAMPLE_METRIC_BW),
			 sample_metric(&pt.smp, SAMPLE_METRIC_LAT),
			 sample_metric(&pt.smp, SAMPLE_METRIC_P99));
		/* the point, the phase's count and the event in one transaction */
		if ((ret = store_begin(r->s)) || (ret = store_point_insert(r->s, p->id, &pt)) ||
		    (ret = store_phase_update(r->s, r->cur)) ||
		    (ret = runner_store_event(r, RUNNER_EV_POINT, NULL, msg, &evid)) ||
		    (ret = store_commit(r->s))) {
			ret = runner_fail(r, ret, "storing point %d: %s", pt.seq,
					  store_errmsg(r->s));
			(void)store_rollback(r->s);
			r->cur->rounds = (int64_t)i;
			r->rounds = i;
			break;
		}
		runner_announce(r, evid, runner_prio(RUNNER_EV_POINT), RUNNER_EV_POINT, NULL, msg);
	}
	free(res);
	return ret;
}

/* --- the run --- */

static const char *runner_state_for(enum plan_kind k)
{
	switch (k) {
	case PLAN_ERASE:
		return "erasing";
	case PLAN_FILL:
		return "filling";
	case PLAN_PRECONDITION:
		return "preconditioning";
	default:
		return "sweeping";
	}
}

static bool runner_phase_writes(const struct plan_phase *pp)
{
	switch (pp->kind) {
	case PLAN_ERASE:
		return false; /* guard_erase() does its own, stricter checks */
	case PLAN_FILL:
		return true;
	default:
		return pp->load.read_share < PROFILE_SHARE_SCALE;
	}
}

static int runner_phase(struct runner *r, struct store_phase *p, const struct plan_phase *pp)
{
	bool resuming = !strcmp(p->state, "running");
	int ret;

	r->cur = p;
	r->cur_plan = pp;
	/* rounds, the verdict, the rate and the load are the phase's own: the
	 * status must never show the previous phase's */
	r->rounds = 0;
	r->judged = false;
	r->rate = NAN;
	r->measured_ns = 0;
	r->point_started_ns = 0;
	r->erase_fraction = -1;
	r->erase_estimate_s = UINT32_MAX;
	r->erase_elapsed_ns = 0;
	r->cur_threads = r->cur_iodepth = 0;
	if (pp->kind == PLAN_FILL || pp->kind == PLAN_PRECONDITION) {
		r->cur_threads = pp->threads;
		r->cur_iodepth = pp->iodepth;
	}
	/* a resumed phase: the rounds (sweep: points) already stored */
	if (pp->kind == PLAN_PRECONDITION || pp->kind == PLAN_SWEEP)
		r->rounds = p->rounds > 0 ? (size_t)p->rounds : 0;
	if (pp->kind == PLAN_SWEEP && r->rounds < pp->npoints) {
		r->cur_threads = pp->points[r->rounds].threads;
		r->cur_iodepth = pp->points[r->rounds].iodepth;
	}
	if (pp->kind != PLAN_ERASE &&
	    (ret = runner_check_target(r, runner_phase_writes(pp), false)))
		return ret;
	if ((ret = runner_set_run_state(r, runner_state_for(pp->kind), NULL)))
		return ret;
	snprintf(p->state, sizeof(p->state), "running");
	if (!p->started_ns)
		p->started_ns = clock_wall_ns();
	if ((ret = runner_save_phase(r, p)))
		return ret;
	/* before the event: whoever sees the phase start asks a status that
	 * already shows it */
	runner_status(r, NULL, -1.0);
	runner_event(r, RUNNER_EV_PHASE_STARTED, p->params, "phase %d %s %s %s", p->seq, p->kind,
		     p->name, resuming ? "resumed" : "started");
	switch (pp->kind) {
	case PLAN_ERASE:
		ret = runner_erase(r, p, pp, resuming);
		break;
	case PLAN_FILL:
		ret = runner_fill(r, p, pp);
		break;
	case PLAN_PRECONDITION:
		ret = runner_precondition(r, p, pp);
		break;
	case PLAN_SWEEP:
		ret = runner_sweep(r, p, pp);
		break;
	}
	return ret;
}

static void runner_end_phase(struct runner *r, struct store_phase *p, const char *state)
{
	snprintf(p->state, sizeof(p->state), "%s", state);
	p->ended_ns = clock_wall_ns();
	(void)runner_save_phase(r, p);
}

/* The run's end state, its phase's and its event in one transaction. */
static int runner_store_end(struct runner *r, struct store_phase *p, const char *state,
			    const char *error, const char *kind, const char *msg, int64_t *id)
{
	int ret;

	if ((ret = store_begin(r->s)))
		return ret;
	if ((p && (ret = store_phase_update(r->s, p))) ||
	    (ret = store_run_set_state(r->s, r->run_id, state, error, 0)) ||
	    (ret = runner_store_event(r, kind, NULL, msg, id)) || (ret = store_commit(r->s))) {
		(void)store_rollback(r->s);
		return ret;
	}
	r->run_state = state;
	snprintf(r->run.state, sizeof(r->run.state), "%s", state);
	return 0;
}

/*
 * A run that failed or was stopped must say so in the database, or the next
 * start would resume it.  When the database cannot take the write (a full
 * disk), the end is announced at once, and the write is retried every
 * RUNNER_END_RETRY_NS until it lands (space was freed) or runner_stop() is
 * called again (plateaud stopping, a second Ctrl-C: the database still says
 * the run is active, so the next start resumes it, and its run-resumed
 * event follows the run-failed one in the journal).
 */
#define RUNNER_END_RETRY_NS (2LL * 1000000000LL)
static void runner_record_end(struct runner *r, struct store_phase *p, const char *state,
			      const char *error, const char *kind, const char *msg)
{
	char why[2560];
	int64_t id = 0;
	int stops = atomic_load(&r->nstops);
	int ret;

	if (p) {
		snprintf(p->state, sizeof(p->state), "%s", state);
		p->ended_ns = clock_wall_ns();
	}
	if (!(ret = runner_store_end(r, p, state, error, kind, msg, &id))) {
		runner_announce(r, id, runner_prio(kind), kind, NULL, msg);
		return;
	}
	snprintf(why, sizeof(why), "%s; the database cannot record it yet (%s): retrying", msg,
		 store_errmsg(r->s));
	runner_announce(r, 0, runner_prio(kind), kind, NULL, why);
	while (atomic_load(&r->nstops) == stops) {
		nanosleep(&(struct timespec){.tv_sec = RUNNER_END_RETRY_NS / 1000000000LL}, NULL);
		if (!runner_store_end(r, p, state, error, kind, msg, &id))
			return;
	}
}

/*
 * Warn (not refuse) when the database sits on the target's storage: every
 * sample's commit then flushes a journal on the drive under test (make
 * bench, a loop over a file beside the database, 4k random writes at 2x16:
 * 17 % fewer IOPS, worst per-sample maximum latency 314 ms instead of 20.6;
 * store.h has the figures).
 * Not a refusal: a lab with one disk, or a file target for a trial, may
 * accept it; the warning is stored with the run so its figures say so.
 */
static void runner_check_store_disk(struct runner *r)
{
	char why[512];
	struct stat st;

	if (stat(store_path(r->s), &st) < 0)
		return;
	if (target_shares_disk(&r->guard.id, st.st_dev, why, sizeof(why)) == 1)
		runner_event(r, RUNNER_EV_STORE_SHARES_DISK, NULL,
			     "%s: each sample's commit flushes the database's journal to the "
			     "drive under test and slows it; put the database on another disk "
			     "(plateau(1), NOTES)",
			     why);
}

int runner_load(struct runner *r)
{
	char err[2048] = "", name[48];
	int ret;

	if (r->loaded)
		return r->load_ret;
	r->loaded = true;
	ret = store_run_get(r->s, r->run_id, &r->run);
	if (ret)
		return r->load_ret = runner_fail(r, ret, "%s", store_errmsg(r->s));
	r->have_run = true;
	r->run_state = r->run.state;
	if (!store_run_state_active(r->run.state))
		return 0;
	if (r->plan == &r->own_plan) {
		snprintf(name, sizeof(name), "run %lld plan", (long long)r->run_id);
		ret = plan_parse(r->run.plan, name, &r->own_plan, err, sizeof(err));
	}
	if (!ret)
		ret = store_phases_list(r->s, r->run_id, &r->phases, &r->nphases);
	if (!ret && r->nphases != r->plan->nphases)
		ret = -EBADMSG;
	for (size_t i = 0; !ret && i < r->nphases; i++)
		if (strcmp(r->phases[i].kind, plan_kind_name(r->plan->phases[i].kind)))
			ret = -EBADMSG;
	if (ret == -EBADMSG || ret == -EINVAL)
		runner_fail(r, ret, "the stored plan and phases of run %lld disagree: %s",
			    (long long)r->run_id, ret == -EINVAL ? err : "phase list");
	else if (ret)
		runner_fail(r, ret, "%s", store_errmsg(r->s));
	return r->load_ret = ret;
}

int runner_run(struct runner *r)
{
	struct store_phase *failed_phase = NULL;
	char err[2048];
	int ret;

	ret = runner_load(r);
	if (ret && !r->have_run)
		return ret;
	if (!store_run_state_active(r->run.state))
		return 0;
	if (ret)
		goto failed;
	if (r->run.started_ns)
		runner_event(r, RUNNER_EV_RESUMED, NULL, "resumed in state %s", r->run.state);
	else
		runner_event(r, RUNNER_EV_STARTED, NULL, "'%s' started on %s", r->run.name,
			     r->plan->device);
	/* the gate, before anything is written (a resume opens its own) */
	if ((ret = runner_open_guard(r)))
		goto failed;
	guard_set_run(&r->guard, r->run_id);
	runner_check_store_disk(r);

	for (size_t i = 0; i < r->nphases; i++) {
		struct store_phase *p = &r->phases[i];

		if (!strcmp(p->state, "done") || !strcmp(p->state, "skipped"))
			continue;
		ret = runner_phase(r, p, &r->plan->phases[i]);
		if (ret == -EINTR) {
			(void)runner_save_phase(r, p);
			runner_event(
				r, RUNNER_EV_PAUSED, NULL,
				"paused in phase %d (%s); it resumes when plateaud starts again",
				p->seq, p->kind);
			r->cur = NULL;
			return -EINTR;
		}
		if (ret == -ECANCELED) {
			char msg[128];

			snprintf(msg, sizeof(msg), "stopped by request in phase %d (%s)", p->seq,
				 p->kind);
			runner_record_end(r, p, "stopped", "stopped by request", RUNNER_EV_STOPPED,
					  msg);
			r->cur = NULL;
			runner_fail(r, ret, "stopped by request");
			return ret;
		}
		if (ret) {
			if (!*r->err)
				runner_fail(r, ret, "%s", strerror(-ret));
			failed_phase = p;
			goto failed;
		}
		runner_end_phase(r, p, "done");
		runner_event(r, RUNNER_EV_PHASE_ENDED, p->result, "phase %d %s %s done", p->seq,
			     p->kind, p->name);
		r->cur = NULL;
	}
	r->cur = NULL;
	if ((ret = runner_set_run_state(r, "done", NULL)))
		return ret;
	runner_event(r, RUNNER_EV_DONE, NULL, "done");
	return 0;
failed:
	snprintf(err, sizeof(err), "%s", r->err);
	{
		char msg[sizeof(err) + 16];

		snprintf(msg, sizeof(msg), "failed: %s", err);
		/* the run's error column keeps the reason without the prefix */
		runner_record_end(r, failed_phase, "failed", err, RUNNER_EV_FAILED, msg);
	}
	snprintf(r->err, sizeof(r->err), "%s", err);
	r->cur = NULL;
	return ret ? ret : -EIO;
}
