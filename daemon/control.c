// SPDX-License-Identifier: MIT
/*
 * control: the control socket.  One JSON object per line each way.  Peers
 * must be root, the daemon's own user or in the "plateau" group
 * (SO_PEERCRED, SO_PEERGROUPS);
 * every request is length-checked, must be strict JSON (RFC 8259) in UTF-8
 * without NUL characters, and is validated field by field before anything
 * is done; a bad request gets an error, never a crash.  Replies are queued
 * per connection and sent as the peer reads them: a peer that does not
 * read never holds up the loop, and is dropped once CONTROL_OUTPUT_MAX
 * bytes wait for it.
 *
 *   {"cmd":"start","plan":TEXT[,"file":NAME][,"dry_run":BOOL]}
 *   {"cmd":"stop","run":N}
 *   {"cmd":"status"[,"run":N]}
 *   {"cmd":"list"}
 *
 * Replies: {"ok":true,...} or {"ok":false,"error":TEXT}.
 */
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <json-c/json.h>
#include <systemd/sd-daemon.h>

#include "clock.h"
#include "control.h"
#include "erase.h"
#include "events.h"
#include "guard.h"
#include "manager.h"
#include "parse.h"
#include "plan.h"
#include "plateaud.h"
#include "target.h"
#include "version.h"

struct client {
	struct manager *m;
	int fd;
	sd_event_source *src;
	char *buf;
	size_t len, cap;
	char *out; /* replies not sent yet: out[off..olen) */
	size_t off, olen, ocap;
	uint32_t events;
	bool closing;  /* close now */
	bool draining; /* read no more; close once the replies are out */
	uid_t uid;
	pid_t pid;
	int64_t last_ns; /* last time it sent anything (clock_mono_ns()) */
	struct client *next;
};

/* every connection, to close the idle ones */
static struct client *clients;

static void client_free(struct client *c)
{
	if (!c)
		return;
	for (struct client **pp = &clients; *pp; pp = &(*pp)->next)
		if (*pp == c) {
			*pp = c->next;
			break;
		}
	sd_event_source_unref(c->src);
	close(c->fd);
	c->m->nclients--;
	free(c->buf);
	free(c->out);
	free(c);
}

/*
 * Length of the valid UTF-8 sequence (RFC 3629: no overlong forms, no
 * surrogates, nothing above U+10FFFF) at @s, or 0.
 */
static size_t utf8_seq(const unsigned char *s, size_t n)
{
	unsigned char lo = 0x80, hi = 0xbf;
	size_t len;

	if (s[0] < 0x80)
		return 1;
	if (s[0] >= 0xc2 && s[0] <= 0xdf)
		len = 2;
	else if (s[0] >= 0xe0 && s[0] <= 0xef)
		len = 3;
	else if (s[0] >= 0xf0 && s[0] <= 0xf4)
		len = 4;
	else
		return 0;
	if (s[0] == 0xe0)
		lo = 0xa0;
	else if (s[0] == 0xed)
		hi = 0x9f;
	else if (s[0] == 0xf0)
		lo = 0x90;
	else if (s[0] == 0xf4)
		hi = 0x8f;
	if (n < len || s[1] < lo || s[1] > hi)
		return 0;
	for (size_t i = 2; i < len; i++)
		if (s[i] < 0x80 || s[i] > 0xbf)
			return 0;
	return len;
}

/* What the peer has not taken yet, and the events to wait for. */
static void client_flush(struct client *c)
{
	uint32_t want;

	while (c->off < c->olen && !c->closing) {
		ssize_t w =
			send(c->fd, c->out + c->off, c->olen - c->off, MSG_NOSIGNAL | MSG_DONTWAIT);

		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0 && errno == EAGAIN)
			break;
		if (w < 0) {
			c->closing = true; /* the peer is gone */
			break;
		}
		c->off += (size_t)w;
	}
	if (c->off == c->olen)
		c->off = c->olen = 0;
	want = (c->draining ? 0 : EPOLLIN) | (c->off < c->olen ? EPOLLOUT : 0);
	if (!c->closing && want != c->events && want &&
	    sd_event_source_set_io_events(c->src, want) >= 0)
		c->events = want;
}

/*
 * Queue a whole reply line and send what the socket takes now; never
 * waits.  Bytes that are not UTF-8 (a cut path in a reason, a file name
 * from the system) go out as '?': every reply is valid UTF-8 and valid JSON.
 */
static void client_reply(struct client *c, json_object *o)
{
	const unsigned char *s = (const unsigned char *)json_object_to_json_string_ext(
		o, JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE);
	size_t n = strlen((const char *)s);
	bool waiting = c->off < c->olen;

	if (c->closing)
		goto out;
	if (c->olen - c->off > CONTROL_OUTPUT_MAX) {
		log_msg(LOG_WARNING,
			"dropping the control connection of uid %u (pid %d): %zu bytes of "
			"replies unread (at most %d)",
			(unsigned)c->uid, (int)c->pid, c->olen - c->off, CONTROL_OUTPUT_MAX);
		c->closing = true;
		goto out;
	}
	if (c->off) {
		memmove(c->out, c->out + c->off, c->olen - c->off);
		c->olen -= c->off;
		c->off = 0;
	}
	if (c->ocap - c->olen < n + 1) {
		size_t cap = c->olen + n + 1 + 4096;
		char *b = realloc(c->out, cap);

		if (!b) {
			log_msg(LOG_ERR, "out of memory for a reply to uid %u; closing",
				(unsigned)c->uid);
			c->closing = true;
			goto out;
		}
		c->out = b;
		c->ocap = cap;
	}
	for (size_t i = 0; i < n;) {
		size_t k = utf8_seq(s + i, n - i);

		if (!k) {
			c->out[c->olen++] = '?';
			i++;
			continue;
		}
		memcpy(c->out + c->olen, s + i, k);
		c->olen += k;
		i += k;
	}
	c->out[c->olen++] = '\n';
	/* with replies already waiting, EPOLLOUT says when the peer reads */
	if (!waiting)
		client_flush(c);
out:
	json_object_put(o);
}

static void client_error(struct client *c, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void client_error(struct client *c, const char *fmt, ...)
{
	json_object *o = json_object_new_object();
	char msg[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	json_object_object_add(o, "ok", json_object_new_boolean(0));
	json_object_object_add(o, "error", json_object_new_string(msg));
	client_reply(c, o);
}

/* The gate's refusal: one message, every reason, logged with the requester. */
static void client_refusal(struct client *c, const struct guard *g)
{
	json_object *o = json_object_new_object(), *a = json_object_new_array();
	char msg[GUARD_REASONS_MAX * GUARD_REASON_LEN + 300];

	guard_refusal(g, msg, sizeof(msg));
	events_journal_refusal(g->path, g->id.serial, (unsigned)c->uid, (int)c->pid, msg);
	for (unsigned i = 0; i < g->nreasons && i < GUARD_REASONS_MAX; i++)
		json_object_array_add(a, json_object_new_string(g->reason[i]));
	json_object_object_add(o, "ok", json_object_new_boolean(0));
	json_object_object_add(o, "refused", json_object_new_boolean(1));
	json_object_object_add(o, "error", json_object_new_string(msg));
	json_object_object_add(o, "reasons", a);
	client_reply(c, o);
}

static json_object *reply_ok(void)
{
	json_object *o = json_object_new_object();

	json_object_object_add(o, "ok", json_object_new_boolean(1));
	return o;
}

/* Every key of @req must be in @allowed; returns the first that is not. */
static const char *unknown_field(json_object *req, const char *const *allowed)
{
	json_object_object_foreach(req, key, val)
	{
		bool ok = false;

		(void)val;
		for (size_t i = 0; allowed[i]; i++)
			if (!strcmp(key, allowed[i]))
				ok = true;
		if (!ok)
			return key;
	}
	return NULL;
}

/* "run": a positive integer */
static int get_run_id(struct client *c, json_object *req, bool required, int64_t *id)
{
	json_object *v;

	*id = 0;
	if (!json_object_object_get_ex(req, "run", &v)) {
		if (required)
			client_error(c, "missing field 'run' (a run number)");
		return required ? -EINVAL : 0;
	}
	if (!json_object_is_type(v, json_type_int) || json_object_get_int64(v) < 1 ||
	    json_object_get_int64(v) == INT64_MAX) {
		client_error(c, "field 'run': expected a positive integer");
		return -EINVAL;
	}
	*id = json_object_get_int64(v);
	return 0;
}

/* a double for scripts (parse_fmt_double()); null when not finite */
static json_object *json_num(double v)
{
	char buf[PARSE_DOUBLE_BYTES];

	if (!isfinite(v))
		return NULL;
	return json_object_new_double_s(v, parse_fmt_double(buf, sizeof(buf), v));
}

/* a duration in ns, null when unknown (negative) */
static json_object *json_ns(int64_t ns)
{
	return ns >= 0 ? json_object_new_int64(ns) : NULL;
}

static json_object *run_json(struct drun *r)
{
	json_object *o = json_object_new_object();
	struct drun_status st;
	int64_t elapsed_ns;

	pthread_mutex_lock(&r->lock);
	st = r->st;
	pthread_mutex_unlock(&r->lock);
	drun_status_now(&st, clock_wall_ns(), &elapsed_ns);
	json_object_object_add(o, "run", json_object_new_int64(r->id));
	json_object_object_add(o, "name", json_object_new_string(r->name));
	json_object_object_add(o, "state", json_object_new_string(st.state));
	json_object_object_add(o, "device", json_object_new_string(r->device));
	json_object_object_add(o, "serial", json_object_new_string(r->serial));
	json_object_object_add(o, "phase", json_object_new_int(st.phase_seq));
	json_object_object_add(o, "phase_kind", json_object_new_string(st.phase_kind));
	json_object_object_add(o, "phase_name", json_object_new_string(st.phase_name));
	json_object_object_add(o, "progress", st.progress >= 0 ? json_num(st.progress) : NULL);
	json_object_object_add(o, "rounds", json_object_new_int64(st.rounds));
	json_object_object_add(o, "window", json_object_new_int((int)st.window));
	json_object_object_add(o, "steady", json_object_new_boolean(st.steady));
	json_object_object_add(o, "steady_round",
			       st.steady ? json_object_new_int64(st.steady_round) : NULL);
	json_object_object_add(o, "steady_lost", json_object_new_boolean(st.steady_lost));
	json_object_object_add(o, "threads", json_object_new_int((int)st.threads));
	json_object_object_add(o, "iodepth", json_object_new_int((int)st.iodepth));
	json_object_object_add(o, "interval_s",
			       r->interval_ns % 1000000000LL
				       ? json_num((double)r->interval_ns / 1e9)
				       : json_object_new_int64(r->interval_ns / 1000000000LL));
	/* the phase's timing: runner.h, struct runner_status */
	json_object_object_add(o, "phase_started_ns",
			       st.phase_started_ns ? json_object_new_int64(st.phase_started_ns)
						   : NULL);
	json_object_object_add(o, "elapsed_ns", json_object_new_int64(elapsed_ns));
	json_object_object_add(o, "rate", json_num(st.rate));
	json_object_object_add(o, "rate_unit",
			       *st.rate_unit ? json_object_new_string(st.rate_unit) : NULL);
	json_object_object_add(o, "eta_ns", json_ns(st.eta_ns));
	json_object_object_add(o, "eta_max_ns", json_ns(st.eta_max_ns));
	if (!strcmp(st.phase_kind, "precondition")) {
		json_object_object_add(o, "rounds_judged", json_object_new_int64(st.rounds_judged));
		json_object_object_add(o, "max_rounds", json_object_new_int64(st.max_rounds));
		json_object_object_add(o, "data_excursion", json_num(st.data_excursion));
		json_object_object_add(o, "data_limit", json_num(st.data_limit));
		json_object_object_add(o, "slope_excursion", json_num(st.slope_excursion));
		json_object_object_add(o, "slope_limit", json_num(st.slope_limit));
	}
	if (st.npoints) {
		json_object_object_add(o, "point", json_object_new_int(st.point));
		json_object_object_add(o, "npoints", json_object_new_int(st.npoints));
	}
	if (st.last_sample_ns) {
		json_object_object_add(o, "last_sample_ns",
				       json_object_new_int64(st.last_sample_ns));
		json_object_object_add(o, "last_round", json_object_new_int64(st.last_seq));
		json_object_object_add(o, "iops", json_num(st.iops));
		json_object_object_add(o, "bw_mbps", json_num(st.bw_mbps));
		json_object_object_add(o, "lat_mean_us", json_num(st.lat_us));
		json_object_object_add(o, "lat_p99_us", json_num(st.p99_us));
	}
	return o;
}

static void do_status(struct client *c, json_object *req)
{
	static const char *const allowed[] = {"cmd", "run", NULL};
	const char *bad = unknown_field(req, allowed);
	json_object *o, *arr;
	int64_t id;

	if (bad) {
		client_error(c, "unknown field '%s' in a status request (expected cmd, run)", bad);
		return;
	}
	if (get_run_id(c, req, false, &id))
		return;
	o = reply_ok();
	arr = json_object_new_array();
	for (struct drun *r = c->m->runs; r; r = r->next)
		if (!id || r->id == id)
			json_object_array_add(arr, run_json(r));
	if (id && !json_object_array_length(arr)) {
		json_object_put(arr);
		json_object_put(o);
		client_error(c, "run %lld is not running in this daemon", (long long)id);
		return;
	}
	json_object_object_add(o, "runs", arr);
	json_object_object_add(o, "version", json_object_new_string(PLATEAU_VERSION));
	json_object_object_add(o, "database", json_object_new_string(c->m->db_path));
	client_reply(c, o);
}

/*
 * A stop for a run this daemon is not carrying out: when its database says
 * the run ended, the refusal says how ("ended": true, its state, when and
 * why), so that `plateau stop` can tell "already over" from "unknown".
 */
static void stop_not_running(struct client *c, int64_t id)
{
	struct store_run run = {0};
	json_object *o;
	const char *why;

	if (store_run_get(c->m->store, id, &run) || store_run_state_active(run.state)) {
		store_run_clear(&run);
		client_error(c, "run %lld is not running in this daemon", (long long)id);
		return;
	}
	why = run.error && *run.error	   ? run.error
	      : !strcmp(run.state, "done") ? "every phase done"
					   : run.state;
	o = json_object_new_object();
	json_object_object_add(o, "ok", json_object_new_boolean(0));
	json_object_object_add(o, "ended", json_object_new_boolean(1));
	json_object_object_add(o, "run", json_object_new_int64(id));
	json_object_object_add(o, "state", json_object_new_string(run.state));
	json_object_object_add(o, "ended_ns",
			       run.ended_ns ? json_object_new_int64(run.ended_ns) : NULL);
	json_object_object_add(o, "reason", json_object_new_string(why));
	json_object_object_add(o, "error", json_object_new_string("the run had already ended"));
	client_reply(c, o);
	store_run_clear(&run);
}

static void do_stop(struct client *c, json_object *req)
{
	static const char *const allowed[] = {"cmd", "run", NULL};
	const char *bad = unknown_field(req, allowed);
	struct drun *r;
	int64_t id;

	if (bad) {
		client_error(c, "unknown field '%s' in a stop request (expected cmd, run)", bad);
		return;
	}
	if (get_run_id(c, req, true, &id))
		return;
	r = manager_find_run(c->m, id);
	if (!r) {
		stop_not_running(c, id);
		return;
	}
	log_msg(LOG_NOTICE, "run %lld: stop requested by uid %u (pid %d)", (long long)id,
		(unsigned)c->uid, (int)c->pid);
	runner_stop(r->runner, false);
	json_object *o = reply_ok();

	json_object_object_add(o, "run", json_object_new_int64(id));
	client_reply(c, o);
}

/* @path's directory, as an entry of @cf's deny list */
static void files_deny_dir(struct control_files *cf, size_t *n, const char *path)
{
	char *d;

	if (!*path || *n >= CONTROL_DENY_MAX)
		return;
	snprintf(cf->paths[*n], sizeof(cf->paths[0]), "%s", path);
	d = dirname(cf->paths[*n]);
	if (d != cf->paths[*n])
		snprintf(cf->paths[*n], sizeof(cf->paths[0]), "%s", d);
	cf->deny[*n] = cf->paths[*n];
	(*n)++;
}

void control_files_init(const struct manager *m, uid_t uid, struct control_files *cf)
{
	static const char *const db_files[] = {"", "-wal", "-shm", "-journal", ".lock"};
	size_t n = 0;

	memset(cf, 0, sizeof(*cf));
	for (size_t i = 0; i < m->nfile_targets; i++)
		cf->dirs[i] = m->file_targets[i];
	cf->gf.dirs = cf->dirs;
	cf->gf.ndirs = m->nfile_targets;
	cf->gf.owner_uid = uid;
	/* every file SQLite and the instance lock keep beside the database */
	for (size_t i = 0; i < sizeof(db_files) / sizeof(db_files[0]); i++) {
		snprintf(cf->paths[n], sizeof(cf->paths[0]), "%s%s", m->db_path, db_files[i]);
		cf->deny[n] = cf->paths[n];
		n++;
	}
	if (*m->prom_path) {
		snprintf(cf->paths[n], sizeof(cf->paths[0]), "%s", m->prom_path);
		cf->deny[n] = cf->paths[n];
		n++;
	}
	/* nothing beside a hook is written, whoever it runs as */
	files_deny_dir(cf, &n, m->hook);
	for (size_t i = 0; i < m->nhook_defs; i++)
		files_deny_dir(cf, &n, m->hook_defs[i].path);
	cf->deny[n] = NULL;
	cf->gf.deny_paths = cf->deny;
}

/* the drive as plateau show prints it (store_drive_json()), and what it
 * supports in the way of erasing */
static json_object *identity_json(const struct target_identity *id)
{
	struct store_drive d;
	json_object *o;
	char buf[256];

	runner_drive_of(id, id->path, &d);
	o = store_drive_json(&d);
	if (!o)
		return json_object_new_object();
	json_object_object_add(o, "erase_methods",
			       json_object_new_string(erase_methods_str(erase_methods_supported(id),
									buf, sizeof(buf))));
	return o;
}

/* the newest complete fill of a drive in the database: its rate */
struct fill_rate_ctx {
	struct store *s;
	double rate_bps;
};

static int fill_rate_of_run(void *ctx, const struct store_run *run)
{
	struct fill_rate_ctx *f = ctx;
	struct store_phase *ph = NULL;
	size_t n = 0;

	if (store_phases_list(f->s, run->id, &ph, &n))
		return 0;
	/* runs come oldest first: a later fill replaces an earlier one */
	for (size_t i = 0; i < n; i++)
		if (!strcmp(ph[i].kind, "fill") && !strcmp(ph[i].state, "done") &&
		    ph[i].progress_bytes && ph[i].ended_ns > ph[i].started_ns)
			f->rate_bps = (double)ph[i].progress_bytes * 1e9 /
				      (double)(ph[i].ended_ns - ph[i].started_ns);
	store_phases_free(ph, n);
	return 0;
}

/*
 * What a dry run's estimate knows beyond the plan: the drive's capacity,
 * and the rate of its newest complete fill in this database (measured; 0
 * when there is none).  The controller's erase estimate is not known before
 * an erase starts: the Sanitize Status log gives it then (the status shows
 * it); Identify data carries none.
 */
static json_object *dry_run_estimate(struct client *c, const struct plan *p,
				     const struct target_identity *id)
{
	struct plan_estimate_input in = {.capacity_bytes = id->capacity_bytes,
					 .erase_ns = PLAN_ESTIMATE_UNKNOWN};
	struct fill_rate_ctx f = {.s = c->m->store};
	struct store_run_filter flt = {.serial = id->serial};
	struct plan_estimate *ph, total;
	json_object *o;

	if (*id->serial)
		(void)store_runs_foreach(c->m->store, &flt, fill_rate_of_run, &f);
	in.fill_rate_bps = f.rate_bps;
	ph = calloc(p->nphases ? p->nphases : 1, sizeof(*ph));
	if (!ph)
		return NULL;
	plan_estimate(p, &in, ph, &total);
	o = plan_estimate_object(p, ph, &total);
	free(ph);
	return o;
}

static void do_start(struct client *c, json_object *req)
{
	static const char *const allowed[] = {"cmd", "plan", "file", "dry_run", NULL};
	const char *bad = unknown_field(req, allowed), *text, *file = "plan";
	struct target_identity id;
	struct guard g = {.fd = -1};
	json_object *v, *o, *phases;
	bool dry_run = false;
	char err[1024], desc[1024], host[128] = "", cmd[256];
	struct runner_requester who;
	/* static: the loop is one thread, and these are 40 KiB and 2 KiB */
	static struct control_files files_buf;
	static struct runner_created created;
	struct control_files *files = &files_buf;
	struct plan plan;
	char name[sizeof(plan.name)], device[sizeof(plan.device)];
	int64_t run_id;
	int ret;

	if (bad) {
		client_error(c,
			     "unknown field '%s' in a start request (expected cmd, plan, file, "
			     "dry_run)",
			     bad);
		return;
	}
	if (!json_object_object_get_ex(req, "plan", &v) ||
	    !json_object_is_type(v, json_type_string)) {
		client_error(c, "field 'plan': expected the plan's text as a string");
		return;
	}
	text = json_object_get_string(v);
	if (json_object_object_get_ex(req, "file", &v)) {
		if (!json_object_is_type(v, json_type_string) || !*json_object_get_string(v)) {
			client_error(c, "field 'file': expected the plan's file name as a string");
			return;
		}
		file = json_object_get_string(v);
	}
	if (json_object_object_get_ex(req, "dry_run", &v)) {
		if (!json_object_is_type(v, json_type_boolean)) {
			client_error(c, "field 'dry_run': expected true or false");
			return;
		}
		dry_run = json_object_get_boolean(v);
	}
	if (c->m->stopping) {
		client_error(c, "plateaud is stopping; start the run again after it restarts");
		return;
	}
	ret = plan_parse(text, file, &plan, err, sizeof(err));
	if (ret) {
		plan_free(&plan);
		client_error(c, "%s", err);
		return;
	}
	if (*plan.hook && events_hook_resolve(c->m, plan.hook, err, sizeof(err))) {
		client_error(c, "%s: [run] hook = %s: %s", file, plan.hook, err);
		goto out;
	}
	if (*plan.database && strcmp(plan.database, c->m->db_path)) {
		client_error(c, "%s: [run] database = %s, but this plateaud records into %s", file,
			     plan.database, c->m->db_path);
		goto out;
	}
	/* the one gate (guard.h): identity, every use, the locks, and where a
	 * regular file may be; a dry run probes them and holds nothing */
	control_files_init(c->m, c->uid, files);
	ret = runner_guard_open(&plan, dry_run ? GUARD_PROBE : 0, 0, &files->gf, &g);
	if (ret) {
		client_refusal(c, &g);
		guard_close(&g);
		goto out;
	}
	id = g.id;
	o = reply_ok();
	json_object_object_add(o, "drive", identity_json(&id));
	if (dry_run) {
		phases = json_object_new_array();
		for (size_t i = 0; i < plan.nphases; i++) {
			const struct plan_phase *ph = &plan.phases[i];
			json_object *jp = plan_phase_object(&plan, ph);

			if (!jp)
				jp = json_object_new_object();
			if (ph->kind == PLAN_ERASE) {
				struct erase_plan ep;
				json_object *chain = json_object_new_array(),
					    *warn = json_object_new_array();

				ret = erase_dry_run(&id, ph->erase_method, &ep, err, sizeof(err));
				if (ret) {
					json_object_object_add(jp, "refused",
							       json_object_new_string(err));
				} else {
					for (size_t k = 0; k < ep.n_chain; k++)
						json_object_array_add(
							chain,
							json_object_new_string(
								erase_method_name(ep.chain[k])));
					for (size_t k = 0; k < ep.n_warnings; k++)
						json_object_array_add(
							warn,
							json_object_new_string(ep.warnings[k]));
				}
				json_object_object_add(jp, "would_try", chain);
				json_object_object_add(jp, "warnings", warn);
			}
			json_object_array_add(phases, jp);
		}
		json_object_object_add(o, "dry_run", json_object_new_boolean(1));
		json_object_object_add(
			o, "checks", json_object_new_string(guard_checks(&g, desc, sizeof(desc))));
		if (g.erase_all_ns)
			json_object_object_add(o, "namespaces",
					       json_object_new_string(g.namespaces));
		json_object_object_add(o, "phases", phases);
		json_object_object_add(o, "estimate", dry_run_estimate(c, &plan, &id));
		client_reply(c, o);
		goto out;
	}
	(void)gethostname(host, sizeof(host) - 1);
	runner_cmdline(c->pid, cmd, sizeof(cmd));
	who.uid = c->uid;
	who.pid = c->pid;
	who.cmd = *cmd ? cmd : NULL;
	who.via = STORE_VIA_DAEMON;
	ret = runner_create_run(c->m->store, &plan, text, &id, host, &who, &run_id, &created, err,
				sizeof(err));
	if (ret) {
		json_object_put(o);
		client_error(c, "%s", err);
		goto out;
	}
	guard_set_run(&g, run_id);
	/* the run takes the plan over: say what it was before it goes */
	snprintf(name, sizeof(name), "%s", plan.name);
	snprintf(device, sizeof(device), "%s", plan.device);
	/* run-created is stored by runner_create_run(); the journal and the
	 * hooks hear of it when the run starts, before anything else of it */
	ret = manager_start_run(c->m, run_id, &plan, &created.ev, &g, err, sizeof(err));
	if (ret) {
		json_object_put(o);
		client_error(c, "run %lld recorded but not started: %s", (long long)run_id, err);
		goto out;
	}
	log_msg(LOG_NOTICE, "run %lld '%s' started on %s by uid %u", (long long)run_id, name,
		device, (unsigned)c->uid);
	json_object_object_add(o, "run", json_object_new_int64(run_id));
	client_reply(c, o);
	manager_notify_status(c->m);
out:
	guard_close(&g);
	plan_free(&plan);
}

static void do_list(struct client *c, json_object *req)
{
	static const char *const allowed[] = {"cmd", NULL};
	const char *bad = unknown_field(req, allowed);
	json_object *o, *arr;

	if (bad) {
		client_error(c, "unknown field '%s' in a list request (expected cmd)", bad);
		return;
	}
	o = reply_ok();
	arr = json_object_new_array();
	for (struct drun *r = c->m->runs; r; r = r->next)
		json_object_array_add(arr, run_json(r));
	json_object_object_add(o, "runs", arr);
	client_reply(c, o);
}

/*
 * RFC 8259, strictly: json-c's tokener, even with JSON_TOKENER_STRICT,
 * takes NaN, Infinity, "1.", raw control characters in strings, lone
 * surrogates and overlong UTF-8.  This checks the line first and says where
 * it is wrong, never quoting the bytes.
 */
#define CONTROL_JSON_DEPTH 16

struct jcheck {
	const unsigned char *s;
	size_t n, i;
	unsigned int depth;
	const char *why;
};

static int jfail(struct jcheck *j, const char *why)
{
	j->why = why;
	return -EINVAL;
}

static void jws(struct jcheck *j)
{
	while (j->i < j->n && strchr(" \t\r\n", j->s[j->i]) && j->s[j->i])
		j->i++;
}

static int jhex4(struct jcheck *j, unsigned int *cp)
{
	*cp = 0;
	for (int k = 0; k < 4; k++, j->i++) {
		unsigned char ch = j->i < j->n ? j->s[j->i] : 0;

		if (ch >= '0' && ch <= '9')
			*cp = *cp * 16 + (ch - '0');
		else if ((ch | 0x20) >= 'a' && (ch | 0x20) <= 'f')
			*cp = *cp * 16 + ((ch | 0x20) - 'a' + 10);
		else
			return jfail(j, "a \\u escape needs four hex digits");
	}
	return 0;
}

/* NUL is refused in a field name here, in a value by its field (below) */
static int jstring(struct jcheck *j, bool key)
{
	j->i++; /* the opening quote */
	while (j->i < j->n) {
		unsigned char ch = j->s[j->i];
		unsigned int cp, lo;
		size_t k;

		if (ch == '"') {
			j->i++;
			return 0;
		}
		if (ch < 0x20)
			return jfail(j, "a control character in a string (escape it)");
		if (ch >= 0x80) {
			k = utf8_seq(j->s + j->i, j->n - j->i);
			if (!k)
				return jfail(j, "not UTF-8");
			j->i += k;
			continue;
		}
		j->i++;
		if (ch != '\\')
			continue;
		ch = j->i < j->n ? j->s[j->i] : 0;
		if (ch && strchr("\"\\/bfnrt", ch)) {
			j->i++;
			continue;
		}
		if (ch != 'u')
			return jfail(j, "an unknown escape in a string");
		j->i++;
		if (jhex4(j, &cp))
			return -EINVAL;
		if (!cp && key)
			return jfail(j, "a NUL character (\\u0000) in a field name");
		if (cp >= 0xdc00 && cp <= 0xdfff)
			return jfail(j, "a lone UTF-16 surrogate in a string");
		if (cp >= 0xd800 && cp <= 0xdbff) {
			if (j->i + 2 > j->n || j->s[j->i] != '\\' || j->s[j->i + 1] != 'u')
				return jfail(j, "a lone UTF-16 surrogate in a string");
			j->i += 2;
			if (jhex4(j, &lo))
				return -EINVAL;
			if (lo < 0xdc00 || lo > 0xdfff)
				return jfail(j, "a lone UTF-16 surrogate in a string");
		}
	}
	return jfail(j, "a string without its closing quote");
}

static bool jdigit(struct jcheck *j)
{
	return j->i < j->n && j->s[j->i] >= '0' && j->s[j->i] <= '9';
}

static int jnumber(struct jcheck *j)
{
	if (j->s[j->i] == '-')
		j->i++;
	if (!jdigit(j))
		return jfail(j, "a number needs a digit");
	if (j->s[j->i] == '0')
		j->i++;
	else
		while (jdigit(j))
			j->i++;
	if (j->i < j->n && j->s[j->i] == '.') {
		j->i++;
		if (!jdigit(j))
			return jfail(j, "a number needs a digit after '.'");
		while (jdigit(j))
			j->i++;
	}
	if (j->i < j->n && (j->s[j->i] | 0x20) == 'e') {
		j->i++;
		if (j->i < j->n && (j->s[j->i] == '+' || j->s[j->i] == '-'))
			j->i++;
		if (!jdigit(j))
			return jfail(j, "a number needs a digit in its exponent");
		while (jdigit(j))
			j->i++;
	}
	return 0;
}

static int jvalue(struct jcheck *j)
{
	static const char *const lits[] = {"true", "false", "null"};
	unsigned char open;

	jws(j);
	if (j->i >= j->n)
		return jfail(j, "the line ends where a value should be");
	open = j->s[j->i];
	if (open == '"')
		return jstring(j, false);
	if (open == '-' || (open >= '0' && open <= '9'))
		return jnumber(j);
	for (size_t k = 0; k < 3; k++)
		if (j->n - j->i >= strlen(lits[k]) &&
		    !memcmp(j->s + j->i, lits[k], strlen(lits[k]))) {
			j->i += strlen(lits[k]);
			return 0;
		}
	if (open != '{' && open != '[')
		return jfail(j, "unexpected character (expected a value)");
	if (++j->depth > CONTROL_JSON_DEPTH)
		return jfail(j, "nesting deeper than 16 levels");
	j->i++;
	jws(j);
	if (j->i < j->n && j->s[j->i] == (open == '{' ? '}' : ']')) {
		j->i++;
		j->depth--;
		return 0;
	}
	for (;;) {
		if (open == '{') {
			jws(j);
			if (j->i >= j->n || j->s[j->i] != '"')
				return jfail(j, "expected a field name in double quotes");
			if (jstring(j, true))
				return -EINVAL;
			jws(j);
			if (j->i >= j->n || j->s[j->i] != ':')
				return jfail(j, "expected ':' after a field name");
			j->i++;
		}
		if (jvalue(j))
			return -EINVAL;
		jws(j);
		if (j->i < j->n && j->s[j->i] == ',') {
			j->i++;
			continue;
		}
		if (j->i < j->n && j->s[j->i] == (open == '{' ? '}' : ']')) {
			j->i++;
			j->depth--;
			return 0;
		}
		return jfail(j, open == '{' ? "expected ',' or '}'" : "expected ',' or ']'");
	}
}

/* 0, or -EINVAL with "WHAT at byte N" in @why */
static int json_strict(const char *line, size_t len, char *why, size_t whylen)
{
	struct jcheck j = {.s = (const unsigned char *)line, .n = len};

	if (!jvalue(&j)) {
		jws(&j);
		if (j.i == j.n)
			return 0;
		j.why = "trailing data";
	}
	snprintf(why, whylen, "%s at byte %zu", j.why, j.i + 1);
	return -EINVAL;
}

/* The name of the first field holding a string with a NUL character in
 * it ("plan", "a.b"), or NULL; json-c keeps such strings whole, but
 * every C string use of them would cut them short. */
static bool json_nul(json_object *o, char *field, size_t len)
{
	size_t n = strlen(field);

	switch (json_object_get_type(o)) {
	case json_type_string:
		return strlen(json_object_get_string(o)) != (size_t)json_object_get_string_len(o);
	case json_type_array:
		for (size_t i = 0; i < json_object_array_length(o); i++)
			if (json_nul(json_object_array_get_idx(o, i), field, len))
				return true;
		return false;
	case json_type_object: {
		json_object_object_foreach(o, key, val)
		{
			snprintf(field + n, len - n, "%s%s", n ? "." : "", key);
			if (json_nul(val, field, len))
				return true;
			field[n] = '\0';
		}
		return false;
	}
	default:
		return false;
	}
}

static void client_request(struct client *c, const char *line, size_t len)
{
	struct json_tokener *tok;
	json_object *req = NULL, *cmd;
	char why[128], field[256] = "";
	const char *name;

	if (json_strict(line, len, why, sizeof(why))) {
		client_error(c, "malformed JSON (%s): send one object per line", why);
		return;
	}
	tok = json_tokener_new_ex(CONTROL_JSON_DEPTH);
	if (!tok) {
		client_error(c, "out of memory");
		return;
	}
	json_tokener_set_flags(tok, JSON_TOKENER_STRICT | JSON_TOKENER_VALIDATE_UTF8);
	req = json_tokener_parse_ex(tok, line, (int)len);
	if (!req || json_tokener_get_error(tok) != json_tokener_success ||
	    json_tokener_get_parse_end(tok) < len) {
		client_error(c, "malformed JSON (%s): send one object per line",
			     req ? "trailing data"
				 : json_tokener_error_desc(json_tokener_get_error(tok)));
		goto out;
	}
	if (!json_object_is_type(req, json_type_object)) {
		client_error(c, "expected a JSON object");
		goto out;
	}
	if (json_nul(req, field, sizeof(field))) {
		client_error(c, "field '%s': a NUL character (\\u0000) in the string", field);
		goto out;
	}
	if (!json_object_object_get_ex(req, "cmd", &cmd) ||
	    !json_object_is_type(cmd, json_type_string)) {
		client_error(c, "field 'cmd': expected one of start, stop, status, list");
		goto out;
	}
	name = json_object_get_string(cmd);
	if (!strcmp(name, "start"))
		do_start(c, req);
	else if (!strcmp(name, "stop"))
		do_stop(c, req);
	else if (!strcmp(name, "status"))
		do_status(c, req);
	else if (!strcmp(name, "list"))
		do_list(c, req);
	else
		client_error(c, "unknown cmd '%.64s' (expected start, stop, status, list)", name);
out:
	json_object_put(req);
	json_tokener_free(tok);
}

/* One request line (without its newline). */
static void client_line(struct client *c, const char *line, size_t len)
{
	if (memchr(line, '\0', len))
		client_error(c, "NUL byte in the request");
	else if (len)
		client_request(c, line, len);
}

/* What the peer sent: every whole line is answered, in order. */
static void client_read(struct client *c)
{
	ssize_t n;

	if (c->cap - c->len < 4096) {
		size_t cap = c->cap ? c->cap * 2 : 8192;
		char *b;

		if (cap > CONTROL_REQUEST_MAX + 4096)
			cap = CONTROL_REQUEST_MAX + 4096;
		b = cap > c->cap ? realloc(c->buf, cap) : c->buf;
		if (!b) {
			c->closing = true;
			return;
		}
		c->buf = b;
		c->cap = cap;
	}
	n = recv(c->fd, c->buf + c->len, c->cap - c->len, MSG_DONTWAIT);
	if (n < 0 && (errno == EAGAIN || errno == EINTR))
		return;
	if (n < 0) {
		c->closing = true;
		return;
	}
	if (n == 0) {
		/* EOF: a last request without its newline is still answered */
		if (c->len)
			client_line(c, c->buf, c->len);
		c->len = 0;
		c->draining = true;
		client_flush(c);
		return;
	}
	c->last_ns = clock_mono_ns();
	c->len += (size_t)n;
	while (!c->closing && !c->draining) {
		char *nl = memchr(c->buf, '\n', c->len);
		size_t used;

		if (!nl && c->len <= CONTROL_REQUEST_MAX)
			break;
		used = nl ? (size_t)(nl - c->buf) + 1 : c->len;
		if (!nl || used - 1 > CONTROL_REQUEST_MAX) {
			/* what follows is the rest of that line: answer, then close */
			client_error(c, "request longer than %d bytes; closing",
				     CONTROL_REQUEST_MAX);
			c->draining = true;
			client_flush(c);
			break;
		}
		client_line(c, c->buf, used - 1);
		memmove(c->buf, c->buf + used, c->len - used);
		c->len -= used;
	}
}

static int on_client(sd_event_source *s, int fd, uint32_t revents, void *userdata)
{
	struct client *c = userdata;

	(void)s;
	(void)fd;
	if (revents & EPOLLOUT)
		client_flush(c);
	if (!c->closing && !c->draining && (revents & (EPOLLIN | EPOLLHUP | EPOLLERR)))
		client_read(c);
	else if (c->draining && (revents & (EPOLLHUP | EPOLLERR)))
		client_flush(c); /* the send fails: nobody will read the rest */
	if (c->closing || (c->draining && c->off == c->olen))
		client_free(c);
	return 0;
}

/* root, the daemon's own user (a plateaud started by hand, as `make demo`
 * does: that user already has every right the daemon has), or a member of
 * the plateau group (primary or supplementary) */
static bool peer_allowed(struct manager *m, int fd, struct ucred *cred)
{
	gid_t groups[256];
	socklen_t len = sizeof(*cred);

	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, cred, &len) < 0)
		return false;
	if (cred->uid == 0 || cred->uid == geteuid())
		return true;
	if (!m->have_group)
		return false;
	if (cred->gid == m->group_gid)
		return true;
	len = sizeof(groups);
	if (getsockopt(fd, SOL_SOCKET, SO_PEERGROUPS, groups, &len) < 0)
		return false;
	for (size_t i = 0; i < len / sizeof(gid_t); i++)
		if (groups[i] == m->group_gid)
			return true;
	return false;
}

static int on_accept(sd_event_source *s, int fd, uint32_t revents, void *userdata)
{
	struct manager *m = userdata;
	struct ucred cred = {0};
	struct client *c;
	int cfd;

	(void)s;
	(void)revents;
	cfd = accept4(fd, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK);
	if (cfd < 0)
		return 0;
	if (!peer_allowed(m, cfd, &cred)) {
		static const char msg[] = "{\"ok\":false,\"error\":\"permission denied: plateaud "
					  "serves root and members of the plateau group\"}\n";

		log_msg(LOG_WARNING,
			"refused a control connection from uid %u (pid %d): not root or plateau",
			(unsigned)cred.uid, (int)cred.pid);
		(void)send(cfd, msg, sizeof(msg) - 1, MSG_NOSIGNAL | MSG_DONTWAIT);
		close(cfd);
		return 0;
	}
	if (m->nclients >= PLATEAUD_CLIENTS_MAX) {
		static const char msg[] = "{\"ok\":false,\"error\":\"too many connections\"}\n";

		(void)send(cfd, msg, sizeof(msg) - 1, MSG_NOSIGNAL | MSG_DONTWAIT);
		close(cfd);
		return 0;
	}
	c = calloc(1, sizeof(*c));
	if (!c) {
		close(cfd);
		return 0;
	}
	c->m = m;
	c->fd = cfd;
	c->uid = cred.uid;
	c->pid = cred.pid;
	c->last_ns = clock_mono_ns();
	c->events = EPOLLIN;
	c->next = clients;
	clients = c;
	m->nclients++;
	if (sd_event_add_io(m->event, &c->src, cfd, EPOLLIN, on_client, c) < 0)
		client_free(c);
	return 0;
}

void control_close_idle(struct manager *m)
{
	int64_t now = clock_mono_ns();

	(void)m;
	for (struct client *c = clients, *n; c; c = n) {
		n = c->next;
		/* a connection that says nothing for this long holds a slot */
		if (now - c->last_ns > PLATEAUD_CLIENT_IDLE_NS)
			client_free(c);
	}
}

int control_listen(struct manager *m)
{
	struct sockaddr_un sa = {.sun_family = AF_UNIX};
	int n = sd_listen_fds(1), fd, r;

	if (n > 1) {
		log_msg(LOG_ERR, "socket activation passed %d sockets; plateaud.socket has one", n);
		return -EINVAL;
	}
	if (n == 1) {
		fd = SD_LISTEN_FDS_START;
		if (sd_is_socket_unix(fd, SOCK_STREAM, 1, NULL, 0) <= 0) {
			log_msg(LOG_ERR,
				"the activated socket is not a listening unix stream socket");
			return -EINVAL;
		}
		m->socket_activated = true;
	} else {
		if (strlen(m->socket_path) >= sizeof(sa.sun_path)) {
			log_msg(LOG_ERR, "%s: socket path too long", m->socket_path);
			return -ENAMETOOLONG;
		}
		/* the length was checked above */
		memcpy(sa.sun_path, m->socket_path, strlen(m->socket_path) + 1);
		{
			char dir[sizeof(sa.sun_path)], *slash;

			memcpy(dir, sa.sun_path, sizeof(dir));
			slash = strrchr(dir, '/');
			if (slash && slash != dir) {
				*slash = '\0';
				(void)mkdir(dir, 0755);
			}
		}
		fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
		if (fd < 0)
			return log_errno(LOG_ERR, -errno, "socket");
		/* a socket that answers belongs to a live plateaud: leave it be;
		 * one that refuses is left over from a dead one */
		{
			int probe = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);

			if (probe >= 0 && connect(probe, (struct sockaddr *)&sa, sizeof(sa)) == 0) {
				close(probe);
				close(fd);
				log_msg(LOG_ERR,
					"%s: another plateaud answers there; refusing to take it "
					"over",
					m->socket_path);
				return -EADDRINUSE;
			}
			if (probe >= 0)
				close(probe);
		}
		(void)unlink(m->socket_path);
		if (bind(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0 || listen(fd, 16) < 0) {
			r = log_errno(LOG_ERR, -errno, "%s", m->socket_path);
			close(fd);
			return r;
		}
		/* root and the plateau group; SO_PEERCRED checks again on accept */
		if (m->have_group && chown(m->socket_path, 0, m->group_gid) < 0)
			log_msg(LOG_WARNING, "%s: chown: %s, ignoring", m->socket_path,
				strerror(errno));
		(void)chmod(m->socket_path, 0660);
		{
			struct stat st;

			/* unlink at exit only what is still ours */
			if (stat(m->socket_path, &st) == 0) {
				m->socket_dev = st.st_dev;
				m->socket_ino = st.st_ino;
			}
		}
	}
	m->listen_fd = fd;
	r = sd_event_add_io(m->event, NULL, fd, EPOLLIN, on_accept, m);
	if (r < 0) {
		return log_errno(LOG_ERR, r, "cannot watch the control socket");
	}
	return 0;
}
