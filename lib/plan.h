/* SPDX-License-Identifier: MIT */
#ifndef PLATEAU_PLAN_H
#define PLATEAU_PLAN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "erase.h"
#include "profile.h"
#include "sample.h"
#include "steady.h"

/*
 * plan: a job file, fio-like INI (plateau.plan(5)).
 *
 *   [run]           device, serial | eui64 | nguid | wwn, name, interval,
 *                   footprint, offset, database, hook, seed, io_timeout
 *   [erase]         method, verify, deadline
 *   [fill]          passes, bs, iodepth, threads, expected_rate
 *   [precondition]  profile | rw + rwmix + bssplit, threads, iodepth,
 *                   steady (criterion or none), window, data_limit,
 *                   slope_limit, limits_absolute, metrics, max_rounds,
 *                   max_duration, after_steady, write_variant
 *   [sweep]         profile | rw + rwmix + bssplit, points, time, ramp
 *
 * Every section but [run] is a phase, in file order; sections repeat to
 * chain workloads.  A [sweep] without a workload measures the workload of
 * the [precondition] before it.  A 100 %-read precondition runs the
 * 100 %-write variant of its transfer sizes (docs/method.md step 3) unless it
 * says write_variant = no (write_variant = yes forces it for a mix).
 *
 * Errors name the file, line and field and say what was expected:
 *   "job.plan:12: [precondition] iodepth: expected a number 1..4096, not 'x'"
 */

enum plan_kind {
	PLAN_ERASE,
	PLAN_FILL,
	PLAN_PRECONDITION,
	PLAN_SWEEP,
};

#define PLAN_POINTS_MAX 64
/* the largest plan text: plateau check, plateau start and plateaud's
 * request limit all derive from this one figure */
#define PLAN_TEXT_MAX (200 * 1024)
#define PLAN_METRICS_MAX SAMPLE_METRIC_N

/* One load point of a sweep. */
struct plan_point {
	unsigned int threads;
	unsigned int iodepth;
};

/* One phase (section) of a plan, as parsed and validated. */
struct plan_phase {
	enum plan_kind kind;
	unsigned int line; /* of the section header */
	char name[64];	   /* label: workload name, erase method, "128k x2" */
	/* erase */
	enum erase_method erase_method;
	bool verify;
	uint64_t deadline_ns;
	/* fill, precondition, sweep */
	unsigned int threads;
	unsigned int iodepth;
	/* fill */
	unsigned int passes;
	uint32_t bs_bytes;
	uint64_t expected_rate_bps; /* for the duration estimate only; 0: not given */
	/* precondition, sweep: the workload as named, and what runs */
	struct profile workload;
	struct profile load; /* precondition: the write variant of a read workload */
	/* precondition */
	bool steady_enabled;
	struct steady_params steady;
	int metrics[PLAN_METRICS_MAX];
	size_t nmetrics;
	uint64_t max_duration_ns; /* 0: none */
	bool continue_after_steady;
	/* sweep */
	struct plan_point points[PLAN_POINTS_MAX];
	size_t npoints;
	uint64_t point_ns;
	uint64_t ramp_ns;
};

/* A parsed plan: the [run] section and its phases, in file order. */
struct plan {
	char device[256];
	char ident[96];	      /* the serial / EUI64 / NGUID / WWN the plan names */
	char ident_field[32]; /* "serial", "eui64", "nguid", "wwn" or "" */
	char name[128];
	uint64_t interval_ns;
	double footprint_pct;	  /* > 0: a percentage of the target */
	uint64_t footprint_bytes; /* else bytes (0: all) */
	uint64_t offset_bytes;
	char database[256];
	char hook[256];
	uint64_t seed;
	uint64_t io_timeout_ns; /* 0: the engine's default */
	struct plan_phase *phases;
	size_t nphases;
};

/**
 * plan_parse() - parse and validate a plan
 * @text: the job file's contents
 * @file: its name, for messages and the default run name (NULL: "plan")
 * @p: result, zeroed first; free with plan_free() (also on failure)
 * @err: "file:line: what was wrong and what was expected"
 * @errlen: size of @err
 *
 * Besides each field, the whole: a [run] section with a device, at least
 * one phase, and a serial (or EUI64, NGUID, WWN) when plan_writes().  A
 * plan without a name is named after @file without its directory and
 * extension.  Text over PLAN_TEXT_MAX is refused before parsing.
 *
 * Return: 0 or -EINVAL (out of memory too, with "out of memory" in @err).
 */
int plan_parse(const char *text, const char *file, struct plan *p, char *err, size_t errlen);

/**
 * plan_free() - free what plan_parse() allocated
 * @p: plan; the struct itself is the caller's, its phases are freed and
 *     @p->nphases set to 0, so a second call is harmless
 */
void plan_free(struct plan *p);

/**
 * plan_writes() - does some phase write to the drive?
 * @p: plan
 *
 * An erase other than "none", a fill, or a precondition or sweep whose
 * load is not 100 % reads.  Such a plan must name the drive.
 *
 * Return: true when it writes.
 */
bool plan_writes(const struct plan *p);

/**
 * plan_kind_name() - "erase", "fill", "precondition" or "sweep"
 * @k: kind
 *
 * Return: a static string, as sections and the store name phases; "?" out
 * of range.
 */
const char *plan_kind_name(enum plan_kind k);

struct verdict_params;

/**
 * plan_phase_verdict() - a precondition phase's steady-state parameters
 * @ph: a PLAN_PRECONDITION phase
 * @vp: result, initialised here: its criterion (none when steady = none),
 *      every limit as resolved by the parser, max_rounds and the tracking
 *      metrics
 */
void plan_phase_verdict(const struct plan_phase *ph, struct verdict_params *vp);

/**
 * plan_phase_json() - a phase's parameters as JSON for the store
 * @p: the plan
 * @ph: one of its phases
 *
 * A precondition's steady-state keys are written by verdict_params_json(),
 * which verdict_params_parse() reads back (lib/verdict.h).  Durations are
 * in seconds rounded down ("deadline_s", "max_duration_s"), a sweep's "time_s"
 * and "ramp_s" with fractions.
 *
 * Return: a malloc'd string, or NULL when out of memory.
 */
char *plan_phase_json(const struct plan *p, const struct plan_phase *ph);

/**
 * plan_phase_object() - plan_phase_json() as a JSON object
 * @p: the plan
 * @ph: one of its phases
 *
 * For callers that put it into a document of their own.  Memory is not
 * checked: json-c allocation failures are not caught here.
 *
 * Return: a new object, json_object_put() it.
 */
struct json_object;
struct json_object *plan_phase_object(const struct plan *p, const struct plan_phase *ph);

/* plan_estimate(): a duration it cannot tell */
#define PLAN_ESTIMATE_UNKNOWN (-1)

/**
 * struct plan_estimate_input - what a duration estimate knows beyond the plan
 * @capacity_bytes: the target's size; 0 unknown (plateau check reads no drive)
 * @erase_ns: the controller's estimate for the erase that would run (the
 *            Sanitize Status log's ETCE / ETBE), PLAN_ESTIMATE_UNKNOWN when it
 *            gives none or the method has none
 * @fill_rate_bps: the drive's sequential write rate, bytes per second,
 *                 measured; 0 unknown: a [fill] expected_rate is used then
 */
struct plan_estimate_input {
	uint64_t capacity_bytes;
	int64_t erase_ns;
	double fill_rate_bps;
};

/* how a phase's estimate was reckoned */
enum plan_estimate_basis {
	PLAN_EST_NONE,		/* erase method none: nothing to do */
	PLAN_EST_CONTROLLER,	/* erase: the controller's estimate */
	PLAN_EST_DEADLINE,	/* erase: no estimate; its deadline bounds it */
	PLAN_EST_UNKNOWN,	/* erase without deadline; fill without size or rate */
	PLAN_EST_FILL_MEASURED, /* fill: size / the measured rate */
	PLAN_EST_FILL_PLAN,	/* fill: size / the plan's expected_rate */
	PLAN_EST_ROUNDS,	/* precondition: rounds x interval */
	PLAN_EST_EXACT,		/* sweep: points x (ramp + time) */
};

/**
 * struct plan_estimate - how long a phase, or a whole plan, takes
 * @min_ns: at least this (PLAN_ESTIMATE_UNKNOWN: not known)
 * @max_ns: at most this (PLAN_ESTIMATE_UNKNOWN: not known, or no bound)
 * @basis: how (a phase only)
 * @bytes: fill: what it writes, 0 unknown
 * @rate_bps: fill: the rate reckoned with, 0 unknown
 * @min_rounds, @max_rounds: precondition: the rounds bounding it (0: none)
 */
struct plan_estimate {
	int64_t min_ns;
	int64_t max_ns;
	enum plan_estimate_basis basis;
	uint64_t bytes;
	double rate_bps;
	uint64_t min_rounds, max_rounds;
};

/**
 * plan_estimate() - how long a plan's run takes, phase by phase
 * @p: the plan
 * @in: what is known beyond the plan (NULL: nothing)
 * @phases: @p->nphases results
 * @total: the run's
 *
 * Erase: the controller's estimate when @in gives one (at least and at most
 * that), else unknown, at most its deadline.  Fill: its bytes (the footprint,
 * or the capacity from the offset on, times passes) over the measured rate,
 * else the plan's expected_rate; unknown without both.  Precondition: at
 * most max_rounds rounds of the interval, or max_duration if shorter; at
 * least its window when it stops at steady state, else the same as at most.
 * Sweep: exactly points x (ramp + time).  The total's least is the sum of
 * the phases' known least; its most is unknown when any phase's is.
 * Sums that would overflow are unknown.
 */
void plan_estimate(const struct plan *p, const struct plan_estimate_input *in,
		   struct plan_estimate *phases, struct plan_estimate *total);

/**
 * plan_estimate_object() - plan_estimate()'s results as JSON
 * @p: the plan
 * @phases: its phases' estimates
 * @total: the total
 *
 * {"min_s":N|null,"max_s":N|null,"phases":[{"phase":1,"kind":...,
 * "min_s":...,"max_s":...,"basis":...[,"bytes":N,"rate_bps":N]
 * [,"min_rounds":N,"max_rounds":N]}]}; seconds round-trip
 * (parse_fmt_double()), null unknown.  Memory is not checked.
 *
 * Return: a new object, json_object_put() it.
 */
struct json_object *plan_estimate_object(const struct plan *p, const struct plan_estimate *phases,
					 const struct plan_estimate *total);

/**
 * plan_estimate_basis_name() - "controller", "deadline", "measured-rate", ...
 * @b: basis
 *
 * Return: a static string, as plan_estimate_object() writes it.
 */
const char *plan_estimate_basis_name(enum plan_estimate_basis b);

/**
 * plan_phase_describe() - a phase's parameters for people
 * @p: the plan
 * @ph: one of its phases
 * @buf: destination
 * @len: size of @buf
 *
 * "4k-randwrite (random, 0% reads, 4k), 2 x 8, snia: window 5, data 20%,
 * slope 10%, max_rounds 25, metrics iops, after steady: stop": what
 * plan_phase_json() stores, as text; cut to @len.
 *
 * Return: @buf.
 */
char *plan_phase_describe(const struct plan *p, const struct plan_phase *ph, char *buf, size_t len);

#endif
