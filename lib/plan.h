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
 *   [fill]          passes, bs, iodepth, threads
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

struct plan_point {
	unsigned int threads;
	unsigned int iodepth;
};

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
 * @file: its name, for messages
 * @p: result, zeroed first; free with plan_free() (also on failure)
 * @err: "file:line: what was wrong and what was expected"
 *
 * Return: 0 or -EINVAL.
 */
int plan_parse(const char *text, const char *file, struct plan *p, char *err, size_t errlen);
void plan_free(struct plan *p);
/* true when some phase writes to the drive (so the plan must name it) */
bool plan_writes(const struct plan *p);
const char *plan_kind_name(enum plan_kind k);

struct verdict_params;

/**
 * plan_phase_verdict() - a precondition phase's steady-state parameters
 * @ph: a PLAN_PRECONDITION phase
 * @vp: result: its criterion (none when steady = none), every limit as
 *      resolved by the parser, max_rounds and the tracking metrics
 */
void plan_phase_verdict(const struct plan_phase *ph, struct verdict_params *vp);

/**
 * plan_phase_json() - a phase's parameters as JSON for the store
 * @p: the plan
 * @ph: one of its phases
 *
 * A precondition's steady-state keys are written by verdict_params_json(),
 * which verdict_params_parse() reads back (lib/verdict.h).
 *
 * Return: a malloc'd string, or NULL when out of memory.
 */
char *plan_phase_json(const struct plan *p, const struct plan_phase *ph);

/* The same as a new JSON object (json_object_put() it), or NULL when out of
 * memory: for callers that put it into a document of their own. */
struct json_object;
struct json_object *plan_phase_object(const struct plan *p, const struct plan_phase *ph);

#endif
