/* SPDX-License-Identifier: MIT */
#ifndef PLATEAU_RUNNER_H
#define PLATEAU_RUNNER_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "sample.h"
#include "steady.h"
#include "store.h"
#include "target.h"

/*
 * runner: carries out a run's plan, phase by phase, committing every
 * sample, every state change and every event to the store as it happens,
 * so that a run interrupted anywhere (kill -9, reboot, SIGTERM) resumes
 * where it was: a fill from its last committed offset, a precondition with
 * its next round (after a "gap" event), a sweep at its first unmeasured
 * point, an erase restarted (an NVMe sanitize in progress is polled, never
 * restarted).  The daemon and `plateau run` both drive runs through here.
 *
 * Safety: before each phase that writes, the device at the plan's path is
 * identified again and must match the identifier the plan names, and must
 * not be in use (target.h); the engine then opens it O_EXCL.
 *
 * Run states follow docs/design.md: queued -> erasing -> filling ->
 * preconditioning -> sweeping -> done, or failed / stopped.  A
 * preconditioning phase that does not reach steady state within its limits
 * is recorded as not steady (event "steady-not-reached") and the run goes
 * on to its next phase: the sweep still measures, and `plateau show` says
 * the drive was not steady.
 *
 * Threads: runner_run() blocks and uses the store from its own thread
 * (runner_load() before it, from any one thread, as long as runner_run()
 * has not started); runner_stop() may be called from any thread.
 */

/* Event kinds; runner_event_kind() says what each is (runner.c's table). */
#define RUNNER_EV_CREATED "run-created"
#define RUNNER_EV_STARTED "run-started"
#define RUNNER_EV_RESUMED "run-resumed"
#define RUNNER_EV_PAUSED "run-paused"
#define RUNNER_EV_DONE "run-done"
#define RUNNER_EV_FAILED "run-failed"
#define RUNNER_EV_STOPPED "run-stopped"
#define RUNNER_EV_PHASE_STARTED "phase-started"
#define RUNNER_EV_PHASE_ENDED "phase-ended"
#define RUNNER_EV_GAP "gap"
#define RUNNER_EV_ERASE_PROGRESS "erase-progress"
#define RUNNER_EV_ERASE_VERIFY "erase-verify"
#define RUNNER_EV_STEADY_REACHED "steady-reached"
#define RUNNER_EV_STEADY_LOST "steady-lost"
#define RUNNER_EV_STEADY_NOT_REACHED "steady-not-reached"
#define RUNNER_EV_POINT "point-measured"
/* the database shares a disk with the target: its commits disturb the load */
#define RUNNER_EV_STORE_SHARES_DISK "store-shares-disk"
/* a sweep point's interrupted measurement is set aside; it is measured again */
#define RUNNER_EV_POINT_ABORTED "point-aborted"

/* syslog priorities, without pulling <syslog.h> into every user */
enum runner_prio {
	RUNNER_PRIO_ERR = 3,
	RUNNER_PRIO_WARNING = 4,
	RUNNER_PRIO_NOTICE = 5,
	RUNNER_PRIO_INFO = 6,
};

/**
 * struct runner_event_kind - one kind of run event
 * @kind: its name, RUNNER_EV_*
 * @message_id: its journal MESSAGE_ID (32 hex digits), documented in
 *              plateaud(8): never change one
 * @priority: its priority (erase-verify is a warning when it failed)
 */
struct runner_event_kind {
	const char *kind;
	const char *message_id;
	enum runner_prio priority;
};

/**
 * runner_event_kind() - look up an event kind by name
 * @kind: RUNNER_EV_* name (not NULL)
 *
 * Return: the kind's entry in a static table, or NULL when there is none.
 */
const struct runner_event_kind *runner_event_kind(const char *kind);

/*
 * struct runner_event - one event of a run, as runner_ops.event gets it:
 * already committed to the store (@id), or @id 0 when it could not be
 * stored (it is announced anyway).  The strings are valid during the call
 * only.
 */
struct runner_event {
	int64_t id; /* events row; 0: not stored */
	int64_t run_id;
	int64_t phase_id; /* 0: the run as a whole */
	int phase_seq;	  /* 0: none */
	const char *phase_kind;
	const char *kind;
	const char *message;
	const char *data; /* JSON, may be NULL */
	int priority;
	const char *device;
	const char *serial;
};

/* What the run is doing, after every sample or progress step. */
struct runner_status {
	int64_t run_id;
	const char *run_name;
	const char *run_state;
	const char *device;
	const char *serial;
	int phase_seq;
	const char *phase_kind;
	const char *phase_name;
	const struct sample *sample; /* NULL for progress-only updates */
	/* a resumed phase's last full sample, read back from the database
	 * (no histograms), once, before its next sample: the figures the
	 * status shows until then; not a new sample (NULL otherwise) */
	const struct sample *stored_sample;
	int64_t rounds;	 /* full samples of the phase so far, resumed ones included */
	double progress; /* 0..1, -1 unknown */
	bool steady;	 /* the latest judgement */
	int64_t steady_round;
	const struct steady_result *evidence; /* NULL when not judged */
	unsigned int window;
	/* the load of the phase running now (a sweep: of its current point);
	 * 0 when it has none (erase) */
	unsigned int threads, iodepth;

	/*
	 * Timing and rate, for status, top, wait and the textfile.  Stable
	 * names: plateaud's Prometheus textfile exports them.
	 *
	 * @phase_started_ns: CLOCK_REALTIME when the phase first started (a
	 *   resumed phase keeps its stored start), 0 unknown
	 * @elapsed_ns: now - @phase_started_ns at this update, 0 unknown
	 * @rate: the phase's latest rate in @rate_unit, NaN unknown (no full
	 *   sample yet)
	 * @rate_unit: RUNNER_RATE_MBPS (fill: 10^6 bytes per second) or
	 *   RUNNER_RATE_IOPS (precondition, sweep); NULL when the phase has
	 *   no rate (erase)
	 * @eta_ns: estimated time left in the phase, -1 unknown (a
	 *   precondition that stops at steady state: unknown until it is)
	 * @eta_max_ns: the most time the phase can still take (a precondition:
	 *   its remaining rounds up to max_rounds, capped by max_duration; a
	 *   sweep: its remaining points), -1 unknown or unbounded
	 * @rounds_judged: precondition: rounds the verdict has judged (rounds
	 *   already stored count after a resume); 0 otherwise
	 * @max_rounds: precondition: the plan's max_rounds; 0 otherwise
	 * @data_excursion, @data_limit, @slope_excursion, @slope_limit: the
	 *   current window of the steady-state metric against its limits, in
	 *   the metric's units (steady.h); NaN when no window is judged yet; a
	 *   limit the criterion does not judge is 0
	 * @point, @npoints: sweep: the point being measured (1-based) and how
	 *   many there are; 0 otherwise
	 */
	int64_t phase_started_ns;
	int64_t elapsed_ns;
	double rate;
	const char *rate_unit;
	int64_t eta_ns;
	int64_t eta_max_ns;
	int64_t rounds_judged;
	int64_t max_rounds;
	double data_excursion, data_limit;
	double slope_excursion, slope_limit;
	int point, npoints;
};

/* units of runner_status.rate */
#define RUNNER_RATE_MBPS "MB/s"
#define RUNNER_RATE_IOPS "IOPS"

/*
 * struct runner_ops - what the runner tells its caller, from the thread
 * running runner_run(): @event for every event as it is recorded, @status
 * after every sample or progress step.  Either may be NULL.  What they are
 * handed is valid during the call only.
 */
struct runner_ops {
	void (*event)(void *ctx, const struct runner_event *ev);
	void (*status)(void *ctx, const struct runner_status *st);
};

struct runner;

/**
 * struct runner_requester - who asked for a run (stored with it, and in its
 * run-created event)
 * @uid: the requester's uid (SO_PEERCRED for the daemon)
 * @pid: its pid
 * @cmd: its command line, NULL when unknown
 * @via: STORE_VIA_DAEMON or STORE_VIA_CLI
 */
struct runner_requester {
	int64_t uid;
	int64_t pid;
	const char *cmd;
	const char *via;
};

/**
 * runner_cmdline() - the command line of a process, for the run's record
 * @pid: process (the requester, from SO_PEERCRED)
 * @buf: destination
 * @len: size of @buf; 0 leaves @buf alone
 *
 * /proc/@pid/cmdline with its arguments joined by blanks, cut to @len - 1
 * bytes; "" when it cannot be read (the process is gone, or not visible).
 */
void runner_cmdline(pid_t pid, char *buf, size_t len);

struct plan;

/*
 * The run-created event runner_create_run() stored, for its caller to
 * announce (plateaud: the journal and the hooks).  @ev points into the
 * struct: use it in place, never a copy.
 */
struct runner_created {
	struct runner_event ev;
	char message[1024];
	char data[768];
	char device[256];
	char serial[96];
};

/**
 * runner_drive_of() - the drive record of an identity
 * @id: the identity read through the target's descriptor
 * @path: the path the plan names
 * @d: result (zeroed first): kind, path, model, serial, firmware, EUI64,
 *     NGUID, WWN, capacity and block size (512 when unknown), as a run
 *     stores them and store_drive_json() shows them
 */
void runner_drive_of(const struct target_identity *id, const char *path, struct store_drive *d);

/**
 * runner_create_run() - record a new run (queued) with its phases
 * @s: writable store
 * @p: the plan, parsed by the caller from @plan_text
 * @plan_text: the plan as given (stored verbatim; a resume parses it)
 * @id: the drive's identity, read by the caller, who has checked that the
 *      plan names it
 * @host: host name for the record
 * @who: the requester (NULL: unknown)
 * @run_id: the new run's id, written only on success
 * @created: NULL, or where the stored run-created event is copied
 * @err: why not (the store's message)
 * @errlen: size of @err
 *
 * One transaction: the drive row (inserted or updated), the run in state
 * queued, one pending row per phase with its parameters
 * (plan_phase_json()) and the run-created event; on failure it is rolled
 * back and nothing is stored.  The event is only stored: announcing it is
 * the caller's (@created).
 *
 * Return: 0 or -errno from the store; -ENOMEM when a phase's parameters
 * could not be formatted.
 */
int runner_create_run(struct store *s, const struct plan *p, const char *plan_text,
		      const struct target_identity *id, const char *host,
		      const struct runner_requester *who, int64_t *run_id,
		      struct runner_created *created, char *err, size_t errlen);

/**
 * runner_new() - a runner for one stored run
 * @s: store, writable; it must outlive the runner, which uses it in
 *     runner_load() and runner_run() only
 * @run_id: the run (runner_create_run(), or one to resume)
 * @ops: callbacks (may be NULL); must outlive the runner
 * @ctx: passed to them
 * @ret: the runner, written only on success; runner_free() it
 *
 * Reads nothing yet: runner_load() (or runner_run()) does.
 *
 * Return: 0, or -ENOMEM.
 */
int runner_new(struct store *s, int64_t run_id, const struct runner_ops *ops, void *ctx,
	       struct runner **ret);

struct guard;
struct guard_files;

/**
 * runner_guard_open() - the safety gate for a plan (guard.h)
 * @p: the parsed plan: device, the name it gives the drive, its phases
 * @extra_flags: GUARD_PROBE for a dry run
 * @run_id: for the lock files (0: not created yet)
 * @files: the rule for regular-file targets (guard.h); NULL: any regular
 *         file this process can open
 * @g: result; guard_close() it (or hand it to runner_adopt_guard())
 *
 * guard_open() on the plan's device with the name it gives the drive
 * ("serial" when it names no field), GUARD_WRITES when plan_writes(), and
 * the erase method of its first [erase] phase (ERASE_NONE without one).
 *
 * Return: 0, or the refusal's -errno with its reasons in @g.
 */
int runner_guard_open(const struct plan *p, unsigned int extra_flags, int64_t run_id,
		      const struct guard_files *files, struct guard *g);

/**
 * runner_set_files() - the rule for regular-file targets of a resume
 * @r: runner, before runner_run()
 * @files: the rule (guard.h), kept by reference: it must outlive the
 *         runner; NULL: any regular file the process can open
 *
 * Used when the runner opens the gate itself (no runner_adopt_guard()).
 * Default: NULL, as `plateau run` needs.
 */
void runner_set_files(struct runner *r, const struct guard_files *files);

/**
 * runner_adopt_guard() - hand an open guard to the runner
 * @r: runner, before runner_run()
 * @g: a guard that passed (runner_guard_open()); copied into @r, which
 *     closes it in runner_free().  *@g owns nothing afterwards (its fd is
 *     -1, no locks): guard_close() on it is harmless.
 *
 * runner_run() then writes through this descriptor and these locks
 * instead of opening the gate again.  A guard adopted earlier is closed.
 */
void runner_adopt_guard(struct runner *r, struct guard *g);

/**
 * runner_set_plan() - the plan of a run just created from it
 * @r: runner, before runner_load()
 * @p: the plan given to runner_create_run(), kept by reference: it must
 *     outlive the runner
 *
 * So that the stored text is not parsed again.  Default: runner_load()
 * parses the stored plan (a resume).
 */
void runner_set_plan(struct runner *r, const struct plan *p);

/**
 * runner_load() - read the run, its plan and its phases
 * @r: runner
 *
 * Done by runner_run() if not before; plateaud calls it on its loop thread
 * before the run's thread starts, to learn the run's device and hook
 * (runner_plan()).  The stored plan is parsed here, once, unless
 * runner_set_plan() gave it.  Calling it again returns the first result.
 *
 * Return: 0 (also for a run that is over: runner_run() returns 0 for it),
 * or -errno with runner_errmsg(): the run cannot be read, or its stored
 * plan and phases disagree (runner_run() then records the run failed).
 */
int runner_load(struct runner *r);

/**
 * runner_plan() - the run's plan
 * @r: runner
 *
 * Return: the plan from runner_set_plan(), or the stored one that
 * runner_load() parsed; never NULL, but empty (no device, no phases)
 * until runner_load() has parsed it, when it could not, and for a run
 * that is already over (its plan is not parsed).
 */
const struct plan *runner_plan(const struct runner *r);

/**
 * runner_run() - run (or resume) the run to its end
 * @r: runner
 *
 * Blocks until the run is done, failed, stopped or paused.  Loads the run
 * (runner_load()) if not done yet, opens the gate unless a guard was
 * adopted, then runs every phase not yet done, committing as it goes and
 * calling the runner_ops on this thread.
 * A run whose stored plan cannot be loaded is recorded failed.
 *
 * Return: 0 when the run is done (or was already over), -EINTR when paused
 * by runner_stop(r, true) (state kept for resume), -ECANCELED when stopped
 * by runner_stop(r, false), another -errno when the run failed (-EIO when
 * no more precise one is known); the message is runner_errmsg().
 */
int runner_run(struct runner *r);

/**
 * runner_errmsg() - why the last runner_load() or runner_run() failed
 * @r: runner
 *
 * Return: a string owned by @r, "" when nothing failed; valid until
 * runner_free().  Read it from runner_run()'s thread, or after it returned.
 */
const char *runner_errmsg(const struct runner *r);

/**
 * runner_stop() - ask a run to stop at its next step
 * @r: runner
 * @pause: true keeps the run resumable (daemon shutdown: runner_run()
 *         returns -EINTR), false ends it "stopped" (-ECANCELED)
 *
 * Callable from any thread, before or during runner_run(), but not from a
 * signal handler (it takes a mutex).  A running engine is stopped at once
 * (engine_stop()); an erase stops at its next step boundary, never in the
 * middle of a command.  A cancel overrides an earlier pause, never the
 * other way round.
 */
void runner_stop(struct runner *r, bool pause);

/**
 * runner_free() - free a runner
 * @r: runner, or NULL; not while runner_run() runs
 *
 * Closes the adopted or opened guard (descriptor and locks).  The store,
 * the ops, a plan from runner_set_plan() and the files rule stay the
 * caller's.
 */
void runner_free(struct runner *r);

#endif
