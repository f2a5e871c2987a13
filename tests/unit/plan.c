// SPDX-License-Identifier: MIT
/*
 * plan: the job-file parser.  A full lab plan (every section, repeated
 * sections), the defaults, the write variant of read workloads, CRLF, and
 * every error path with its exact message ("file:line: [section] field:
 * expected ..., not '...'").
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "parse.h"
#include "plan.h"
#include "tap.h"

#define S_NS 1000000000ULL

/* the same JSON: numbers compared as numbers (20 and 20.0 are one value),
 * keys in any order */
static bool json_same(json_object *a, json_object *b)
{
	json_type ta = json_object_get_type(a), tb = json_object_get_type(b);
	bool na = ta == json_type_int || ta == json_type_double;
	bool nb = tb == json_type_int || tb == json_type_double;

	if (na || nb)
		return na && nb && json_object_get_double(a) == json_object_get_double(b);
	if (ta != tb)
		return false;
	switch (ta) {
	case json_type_object:
		if (json_object_object_length(a) != json_object_object_length(b))
			return false;
		json_object_object_foreach(a, k, va)
		{
			json_object *vb;

			if (!json_object_object_get_ex(b, k, &vb) || !json_same(va, vb))
				return false;
		}
		return true;
	case json_type_array:
		if (json_object_array_length(a) != json_object_array_length(b))
			return false;
		for (size_t i = 0; i < json_object_array_length(a); i++)
			if (!json_same(json_object_array_get_idx(a, i),
				       json_object_array_get_idx(b, i)))
				return false;
		return true;
	case json_type_string:
		return !strcmp(json_object_get_string(a), json_object_get_string(b));
	default:
		return json_object_equal(a, b);
	}
}

static void is_json(const char *got, const char *want, const char *name)
{
	json_object *g = got ? json_tokener_parse(got) : NULL, *w = json_tokener_parse(want);

	if (!ok(g && w && json_same(g, w), "%s", name)) {
		diag("     got: %s", got ? got : "(null)");
		diag("expected: %s", want);
	}
	json_object_put(g);
	json_object_put(w);
}

/* a check of a bug once reported and since fixed: it must stay fixed */
static void fixed_bug(int pass, const char *bug, const char *name)
{
	if (!ok(pass, "%s", name))
		diag("regression: %s", bug);
}

static int parse(const char *text, const char *file, struct plan *p)
{
	char err[1024] = "";
	int r = plan_parse(text, file, p, err, sizeof(err));

	if (r)
		diag("plan_parse: %s", err);
	return r;
}

/* plan_parse() fails with -EINVAL and exactly @want */
static void fails(const char *text, const char *want, const char *name)
{
	struct plan p;
	char err[1024] = "";
	int r = plan_parse(text, "job.plan", &p, err, sizeof(err));

	if (r == -EINVAL)
		is_str(err, want, "%s", name);
	else
		ok(0, "%s: plan_parse returned %d, not -EINVAL", name, r);
	plan_free(&p);
}

static bool same_profile(const struct profile *a, const struct profile *b)
{
	if (strcmp(a->name, b->name) || a->pattern != b->pattern ||
	    a->read_share != b->read_share || a->nbs != b->nbs)
		return false;
	for (unsigned int i = 0; i < a->nbs; i++)
		if (a->bs[i].size_bytes != b->bs[i].size_bytes || a->bs[i].share != b->bs[i].share)
			return false;
	return true;
}

/* a single-size profile: @bytes at 100 % */
static bool is_profile(const struct profile *p, const char *name, enum profile_pattern pat,
		       uint32_t read_share, uint32_t bytes)
{
	bool r = !strcmp(p->name, name) && p->pattern == pat && p->read_share == read_share &&
		 p->nbs == 1 && p->bs[0].size_bytes == bytes &&
		 p->bs[0].share == PROFILE_SHARE_SCALE;

	if (!r)
		diag("profile '%s' pattern %d read %u nbs %u bs0 %u/%u", p->name, p->pattern,
		     p->read_share, p->nbs, p->nbs ? p->bs[0].size_bytes : 0,
		     p->nbs ? p->bs[0].share : 0);
	return r;
}

/* the line numbers below are asserted: keep the text in step */
static const char lab_plan[] = "# the nightly lab plan\n"			/*  1 */
			       "[run]\n"					/*  2 */
			       "device = /dev/nvme0n1\n"			/*  3 */
			       "serial = S6CKNA0R123456\n"			/*  4 */
			       "name = lab-nightly\n"				/*  5 */
			       "interval = 30s\n"				/*  6 */
			       "footprint = 50%\n"				/*  7 */
			       "offset = 1g\n"					/*  8 */
			       "database = /var/lib/plateau/lab.db\n"		/*  9 */
			       "hook = notify\n"				/* 10 */
			       "seed = 42\n"					/* 11 */
			       "\n"						/* 12 */
			       "[erase]\n"					/* 13 */
			       "method = format-user\n"				/* 14 */
			       "verify = no\n"					/* 15 */
			       "deadline = 2h\n"				/* 16 */
			       "\n"						/* 17 */
			       "[fill]\n"					/* 18 */
			       "passes = 1\n"					/* 19 */
			       "bs = 1m\n"					/* 20 */
			       "iodepth = 64\n"					/* 21 */
			       "threads = 2\n"					/* 22 */
			       "\n"						/* 23 */
			       "; 4K random write first\n"			/* 24 */
			       "[precondition]\n"				/* 25 */
			       "profile = 4k-randwrite\n"			/* 26 */
			       "threads = 8\n"					/* 27 */
			       "\tiodepth\t=\t32\t\n"				/* 28 */
			       "steady = snia\n"				/* 29 */
			       "window = 6\n"					/* 30 */
			       "data_limit = 15\n"				/* 31 */
			       "Slope-Limit = 8%\n"				/* 32 */
			       "max_rounds = 40\n"				/* 33 */
			       "max_duration = 4h\n"				/* 34 */
			       "metrics = iops, lat\n"				/* 35 */
			       "after_steady = continue\n"			/* 36 */
			       "\n"						/* 37 */
			       "[sweep]\n"					/* 38 */
			       "points = 1x1 2x4 4x8 16x16\n"			/* 39 */
			       "time = 30s\n"					/* 40 */
			       "ramp = 10s\n"					/* 41 */
			       "\n"						/* 42 */
			       "  # then 8K 70/30, with its own precondition\n" /* 43 */
			       "[precondition]\n"				/* 44 */
			       "rw = randrw\n"					/* 45 */
			       "rwmix = 70\n"					/* 46 */
			       "bssplit = 8k\n"					/* 47 */
			       "steady = fio-dev\n"				/* 48 */
			       "data_limit = 500\n"				/* 49 */
			       "limits_absolute = yes\n"			/* 50 */
			       "\n"						/* 51 */
			       "[sweep]\n"					/* 52 */
			       "profile = 8k-7030\n"				/* 53 */
			       "points = 16x16\n";				/* 54 */

static void check_lab(const struct plan *p)
{
	const struct plan_phase *ph = p->phases;

	is_str(p->device, "/dev/nvme0n1", "device");
	is_str(p->ident_field, "serial", "named by serial");
	is_str(p->ident, "S6CKNA0R123456", "serial");
	is_str(p->name, "lab-nightly", "name");
	is_u64(p->interval_ns, 30 * S_NS, "interval 30s");
	is_dbl(p->footprint_pct, 50.0, 0, "footprint 50%%");
	is_u64(p->footprint_bytes, 0, "no footprint in bytes");
	is_u64(p->offset_bytes, 1ULL << 30, "offset 1g = 2^30");
	is_str(p->database, "/var/lib/plateau/lab.db", "database");
	is_str(p->hook, "notify", "hook");
	is_u64(p->seed, 42, "seed");
	is_u64(p->nphases, 6, "six phases, in file order");
	if (p->nphases != 6)
		return;
	ok(ph[0].kind == PLAN_ERASE && ph[1].kind == PLAN_FILL && ph[2].kind == PLAN_PRECONDITION &&
		   ph[3].kind == PLAN_SWEEP && ph[4].kind == PLAN_PRECONDITION &&
		   ph[5].kind == PLAN_SWEEP,
	   "erase, fill, precondition, sweep, precondition, sweep");
	is_int(ph[0].line, 13, "[erase] at line 13");
	is_int(ph[2].line, 25, "[precondition] at line 25");
	is_int(ph[4].line, 44, "second [precondition] at line 44");
	is_int(ph[5].line, 52, "second [sweep] at line 52");

	is_int(ph[0].erase_method, ERASE_FORMAT_USER, "erase method format-user");
	ok(!ph[0].verify, "verify = no");
	is_u64(ph[0].deadline_ns, 2 * 3600 * S_NS, "deadline 2h");
	is_str(ph[0].name, "format-user", "erase phase named by its method");

	is_int(ph[1].passes, 1, "fill passes");
	is_int(ph[1].bs_bytes, 1 << 20, "fill bs 1m");
	is_int(ph[1].iodepth, 64, "fill iodepth");
	is_int(ph[1].threads, 2, "fill threads");

	ok(is_profile(&ph[2].workload, "4k-randwrite", PROFILE_RANDOM, 0, 4096),
	   "precondition 1: 4k-randwrite");
	ok(same_profile(&ph[2].load, &ph[2].workload), "a write workload runs as itself");
	is_int(ph[2].threads, 8, "precondition 1 threads");
	is_int(ph[2].iodepth, 32, "precondition 1 iodepth (tabs around the '=')");
	ok(ph[2].steady_enabled, "steady-state judged");
	is_int(ph[2].steady.criterion, STEADY_SNIA, "criterion snia");
	is_int(ph[2].steady.window, 6, "window 6");
	is_dbl(ph[2].steady.data_limit, 15.0, 0, "data_limit 15");
	is_dbl(ph[2].steady.slope_limit, 8.0, 0, "Slope-Limit = 8%% (case and '-' folded)");
	ok(!ph[2].steady.limits_absolute, "percent limits");
	is_int(ph[2].steady.max_rounds, 40, "max_rounds 40");
	is_u64(ph[2].max_duration_ns, 4 * 3600 * S_NS, "max_duration 4h");
	is_u64(ph[2].nmetrics, 2, "two metrics");
	ok(ph[2].metrics[0] == SAMPLE_METRIC_IOPS && ph[2].metrics[1] == SAMPLE_METRIC_LAT,
	   "metrics iops, lat in order");
	ok(ph[2].continue_after_steady, "after_steady = continue");
	is_str(ph[2].name, "4k-randwrite", "precondition 1 named by its workload");

	ok(same_profile(&ph[3].workload, &ph[2].workload),
	   "sweep 1 without a workload measures the precondition's");
	is_str(ph[3].name, "4k-randwrite", "sweep 1 name");
	is_u64(ph[3].npoints, 4, "four load points");
	ok(ph[3].npoints == 4 && ph[3].points[0].threads == 1 && ph[3].points[0].iodepth == 1 &&
		   ph[3].points[1].threads == 2 && ph[3].points[1].iodepth == 4 &&
		   ph[3].points[2].threads == 4 && ph[3].points[2].iodepth == 8 &&
		   ph[3].points[3].threads == 16 && ph[3].points[3].iodepth == 16,
	   "points 1x1 2x4 4x8 16x16");
	is_u64(ph[3].point_ns, 30 * S_NS, "time 30s");
	is_u64(ph[3].ramp_ns, 10 * S_NS, "ramp 10s");

	ok(is_profile(&ph[4].workload, "random 8k/100 70% read", PROFILE_RANDOM, 7000, 8192),
	   "precondition 2: rw/rwmix/bssplit make 'random 8k/100 70%% read'");
	fixed_bug(same_profile(&ph[4].load, &ph[4].workload),
		  "plan.c applies the 100%-write variant to every workload with reads; "
		  "docs/method.md "
		  "step 3 asks for it only for a 100%-read workload",
		  "a 70/30 precondition runs the 70/30 mix itself");
	is_int(ph[4].steady.criterion, STEADY_FIO_DEV, "criterion fio-dev");
	is_dbl(ph[4].steady.data_limit, 500.0, 0, "data_limit 500");
	ok(ph[4].steady.limits_absolute, "absolute limits");
	is_int(ph[4].steady.window, 5, "window: the criterion's default 5");
	is_dbl(ph[4].steady.slope_limit, 0.0, 0, "slope_limit: fio-dev's default 0");
	is_int(ph[4].steady.max_rounds, 25, "max_rounds: the default 25");
	ok(ph[4].nmetrics == 1 && ph[4].metrics[0] == SAMPLE_METRIC_IOPS, "metrics: iops");
	is_int(ph[4].threads, 16, "precondition 2: 16 threads (defaults per section)");
	is_int(ph[4].iodepth, 16, "precondition 2: depth 16");
	ok(!ph[4].continue_after_steady, "after_steady: stop");
	is_u64(ph[4].max_duration_ns, 0, "no max_duration");

	ok(is_profile(&ph[5].workload, "8k-7030", PROFILE_RANDOM, 7000, 8192),
	   "sweep 2: its own profile 8k-7030");
	ok(same_profile(&ph[5].load, &ph[5].workload), "a sweep runs its workload as is");
	is_u64(ph[5].point_ns, 60 * S_NS, "sweep 2: time 60s by default");
	is_u64(ph[5].ramp_ns, 5 * S_NS, "sweep 2: ramp 5s by default");
	ok(plan_writes(p), "the lab plan writes");
}

static void test_lab(void)
{
	struct plan p, q;
	char *crlf = malloc(2 * sizeof(lab_plan)), *o = crlf;
	int r;

	r = parse(lab_plan, "lab.plan", &p);
	is_int(r, 0, "the full lab plan parses");
	if (!r)
		check_lab(&p);

	/* the same file with CRLF line ends */
	for (const char *s = lab_plan; *s; s++) {
		if (*s == '\n')
			*o++ = '\r';
		*o++ = *s;
	}
	*o = '\0';
	r = parse(crlf, "lab.plan", &q);
	is_int(r, 0, "the lab plan with CRLF line ends parses");
	if (!r && q.nphases == p.nphases) {
		bool same = !strcmp(p.device, q.device) && !strcmp(p.name, q.name) &&
			    !strcmp(p.hook, q.hook) && p.interval_ns == q.interval_ns;

		for (size_t i = 0; i < p.nphases; i++) {
			char *a = plan_phase_json(&p, &p.phases[i]);
			char *b = plan_phase_json(&q, &q.phases[i]);

			same = same && a && b && !strcmp(a, b) &&
			       p.phases[i].line == q.phases[i].line;
			free(a);
			free(b);
		}
		ok(same, "CRLF and LF give the same plan");
	} else {
		ok(0, "CRLF and LF give the same plan");
	}
	plan_free(&p);
	plan_free(&q);
	free(crlf);
}

static void test_defaults(void)
{
	static const char text[] = "[run]\n"
				   "device = /dev/nvme0n1\n"
				   "serial = S1\n"
				   "[erase]\n"
				   "[fill]\n"
				   "[precondition]\n"
				   "profile = 4k-randwrite\n"
				   "[sweep]\n"
				   "points = 2x2\n";
	struct plan p;
	char *json;
	int r;

	r = parse(text, "/etc/plateau/nightly.plan", &p);
	is_int(r, 0, "a minimal plan parses");
	if (r || p.nphases != 4) {
		plan_free(&p);
		return;
	}
	is_str(p.name, "nightly", "name: the file's name without directory and extension");
	is_u64(p.interval_ns, 60 * S_NS, "interval 60s");
	is_dbl(p.footprint_pct, 0, 0, "footprint: all");
	is_u64(p.footprint_bytes, 0, "footprint bytes: all");
	is_u64(p.offset_bytes, 0, "offset 0");
	is_str(p.database, "", "database: the daemon's");
	is_u64(p.io_timeout_ns, 0, "io_timeout: the engine's default");
	is_int(p.phases[0].erase_method, ERASE_AUTO, "erase: auto");
	ok(p.phases[0].verify, "erase: verify");
	is_u64(p.phases[0].deadline_ns, 48 * 3600 * S_NS, "erase: deadline 48h");
	is_int(p.phases[1].passes, 2, "fill: 2 passes");
	is_int(p.phases[1].bs_bytes, 128 * 1024, "fill: bs 128k");
	is_str(p.phases[1].name, "128k x2", "fill: named '128k x2'");
	is_int(p.phases[2].threads, 16, "precondition: 16 threads");
	is_int(p.phases[2].iodepth, 16, "precondition: depth 16");
	ok(p.phases[2].steady_enabled, "precondition: judged");
	is_int(p.phases[2].steady.criterion, STEADY_SNIA, "precondition: snia");
	is_int(p.phases[2].steady.window, 5, "precondition: W 5");
	is_dbl(p.phases[2].steady.data_limit, 20.0, 0, "precondition: R 20");
	is_dbl(p.phases[2].steady.slope_limit, 10.0, 0, "precondition: S 10");
	is_int(p.phases[2].steady.max_rounds, 25, "precondition: max_rounds 25");
	ok(!p.phases[2].steady.limits_absolute, "precondition: percent limits");
	ok(p.phases[2].nmetrics == 1 && p.phases[2].metrics[0] == SAMPLE_METRIC_IOPS,
	   "precondition: tracks iops");
	ok(!p.phases[2].continue_after_steady, "precondition: stops at steady state");
	is_u64(p.phases[2].max_duration_ns, 0, "precondition: no time cap");
	ok(same_profile(&p.phases[3].workload, &p.phases[2].workload),
	   "sweep: inherits the precondition's workload");
	is_u64(p.phases[3].point_ns, 60 * S_NS, "sweep: 60s a point");
	is_u64(p.phases[3].ramp_ns, 5 * S_NS, "sweep: 5s ramp");

	/* the keys the steady-state judgement reads back (lib/verdict.c) */
	json = plan_phase_json(&p, &p.phases[2]);
	is_json(json,
		"{\"kind\":\"precondition\",\"workload\":{\"name\":\"4k-randwrite\",\"pattern\":"
		"\"random\",\"read_pct\":0.0,\"bssplit\":\"4k/100\"},\"load\":{\"name\":"
		"\"4k-randwrite\",\"pattern\":\"random\",\"read_pct\":0.0,\"bssplit\":\"4k/100\"},"
		"\"threads\":16,\"iodepth\":16,\"criterion\":\"snia\",\"window\":5,\"data_limit\":"
		"20.0,\"slope_limit\":10.0,\"limits_absolute\":false,\"max_rounds\":25,"
		"\"metrics\":[\"iops\"],\"max_duration_s\":0,\"after_steady\":\"stop\"}",
		"plan_phase_json of the default precondition");
	free(json);
	plan_free(&p);

	r = parse("[run]\ndevice = /dev/sdb\nserial = S\n[fill]\n", "plan-without-dot", &p);
	is_int(r, 0, "a file name without an extension");
	is_str(p.name, "plan-without-dot", "is the name as is");
	plan_free(&p);
	r = parse("[run]\ndevice = /dev/sdb\nserial = S\n[fill]\n", NULL, &p);
	is_int(r, 0, "no file name");
	is_str(p.name, "plan", "name 'plan'");
	plan_free(&p);
}

/* a later sweep measures the precondition just before it */
static void test_sweep_inherits(void)
{
	static const char text[] = "[run]\ndevice = /dev/x\nserial = S\n"
				   "[precondition]\nprofile = 4k-randwrite\n"
				   "[precondition]\nprofile = 64k-randread\n"
				   "[sweep]\npoints = 1x1\n";
	struct plan p;

	if (parse(text, "job.plan", &p) || p.nphases != 3) {
		ok(0, "sweep after two preconditions parses");
		plan_free(&p);
		return;
	}
	ok(is_profile(&p.phases[2].workload, "64k-randread", PROFILE_RANDOM, PROFILE_SHARE_SCALE,
		      65536),
	   "the sweep measures the nearest precondition's workload (64k-randread, not its write "
	   "variant)");
	ok(same_profile(&p.phases[2].load, &p.phases[2].workload), "and runs it as is");
	plan_free(&p);
}

static void test_write_variant(void)
{
	struct plan p;

	if (!parse("[run]\ndevice = /dev/x\nserial = S\n[precondition]\nprofile = 4k-randread\n",
		   "job.plan", &p)) {
		ok(is_profile(&p.phases[0].workload, "4k-randread", PROFILE_RANDOM,
			      PROFILE_SHARE_SCALE, 4096),
		   "4k-randread is the workload");
		ok(is_profile(&p.phases[0].load, "4k-randread+write", PROFILE_RANDOM, 0, 4096),
		   "a read workload preconditions with its 100%% write variant");
		is_str(p.phases[0].name, "4k-randread", "the phase keeps the workload's name");
	} else {
		ok(0, "4k-randread parses");
	}
	plan_free(&p);

	if (!parse("[run]\ndevice = /dev/x\nserial = S\n[precondition]\nprofile = webserver\n",
		   "job.plan", &p)) {
		struct profile w = p.phases[0].workload;

		w.read_share = 0;
		snprintf(w.name, sizeof(w.name), "webserver+write");
		ok(same_profile(&p.phases[0].load, &w),
		   "webserver's write variant keeps all ten transfer sizes");
	} else {
		ok(0, "webserver parses");
	}
	plan_free(&p);

	if (!parse("[run]\ndevice = /dev/x\n[erase]\nmethod = none\n[precondition]\n"
		   "profile = 4k-randread\nwrite_variant = no\n[sweep]\npoints = 1x1\n",
		   "job.plan", &p)) {
		ok(same_profile(&p.phases[1].load, &p.phases[1].workload),
		   "write_variant = no: the read workload runs as itself");
		ok(!plan_writes(&p), "a plan that only reads does not write");
		is_str(p.ident, "", "and needs no serial");
	} else {
		ok(0, "write_variant = no parses without a serial");
	}
	plan_free(&p);

	if (!parse("[run]\ndevice = /dev/x\nserial = S\n[precondition]\nprofile = 8k-7030\n"
		   "write_variant = yes\n",
		   "job.plan", &p)) {
		ok(is_profile(&p.phases[0].load, "8k-7030+write", PROFILE_RANDOM, 0, 8192),
		   "write_variant = yes on a mix: the 100%% write variant");
	} else {
		ok(0, "write_variant = yes parses");
	}
	plan_free(&p);

	if (!parse("[run]\ndevice = /dev/x\nserial = S\n[precondition]\nprofile = 8k-7030\n",
		   "job.plan", &p)) {
		fixed_bug(same_profile(&p.phases[0].load, &p.phases[0].workload),
			  "plan.c applies the write variant to mixed workloads (docs/method.md "
			  "step 3: "
			  "only 100%-read ones)",
			  "8k-7030 preconditions with the 70/30 mix itself");
	} else {
		ok(0, "8k-7030 parses");
	}
	plan_free(&p);
}

static void test_steady_none(void)
{
	struct plan p;

	if (!parse("[run]\ndevice = /dev/x\nserial = S\n[precondition]\nprofile = 4k-randwrite\n"
		   "steady = none\nmax_rounds = 10\n",
		   "job.plan", &p)) {
		ok(!p.phases[0].steady_enabled, "steady = none: not judged");
		is_int(p.phases[0].steady.max_rounds, 10, "runs max_rounds 10");
	} else {
		ok(0, "steady = none with max_rounds parses");
	}
	plan_free(&p);
	if (!parse("[run]\ndevice = /dev/x\nserial = S\n[precondition]\nprofile = 4k-randwrite\n"
		   "steady = none\nmax_duration = 30m\n",
		   "job.plan", &p)) {
		is_int(p.phases[0].steady.max_rounds, 0,
		       "steady = none with max_duration: no round cap");
		is_u64(p.phases[0].max_duration_ns, 1800 * S_NS, "30 minutes");
	} else {
		ok(0, "steady = none with max_duration parses");
	}
	plan_free(&p);
	if (!parse("[run]\ndevice = /dev/x\nserial = S\n[precondition]\nprofile = 4k-randwrite\n"
		   "steady = fio-slope\nlimits_absolute = yes\nslope_limit = 250\n",
		   "job.plan", &p)) {
		is_int(p.phases[0].steady.criterion, STEADY_FIO_SLOPE, "fio-slope");
		is_dbl(p.phases[0].steady.slope_limit, 250.0, 0, "absolute slope limit 250");
		is_dbl(p.phases[0].steady.data_limit, 0.0, 0, "fio-slope's unused data limit 0");
	} else {
		ok(0, "fio-slope with absolute limits parses");
	}
	plan_free(&p);
}

#define RUN "[run]\ndevice = /dev/x\nserial = S\n"
#define PRE RUN "[precondition]\nprofile = 4k-randwrite\n"

static void test_errors(void)
{
	char big[5000];

	/* sections */
	fails("[run]\ndevice = /dev/x\n[bogus]\n",
	      "job.plan:3: unknown section [bogus] (expected [run], [erase], [fill], "
	      "[precondition], [sweep])",
	      "unknown section");
	fails("[run]\ndevice = /dev/x\n[run]\n", "job.plan:3: [run] given twice; a plan has one",
	      "[run] twice");
	fails("[run\n", "job.plan:1: expected a section header like [fill]", "unclosed header");
	fails("[run] x\n", "job.plan:1: expected a section header like [fill]",
	      "text after a header");
	fails("device = /dev/x\n", "job.plan:1: 'device' outside a section (start with [run])",
	      "a field before any section");
	fails("[run]\ndevice\n", "job.plan:2: expected 'field = value' or a [section]",
	      "a line without '='");
	fails("[run]\n = /dev/x\n", "job.plan:2: a field name is missing before '='",
	      "a value without a field");

	/* unknown and duplicate fields */
	fails("[run]\ndevice = /dev/x\nfoo = 1\n",
	      "job.plan:3: [run] unknown field 'foo' (expected device, serial, eui64, nguid, wwn, "
	      "name, interval, footprint, offset, database, hook, seed, io_timeout)",
	      "unknown field in [run]");
	fails(RUN "[erase]\nforce = yes\n",
	      "job.plan:5: [erase] unknown field 'force' (expected method, verify, deadline)",
	      "unknown field in [erase]");
	fails(RUN "[fill]\nruntime = 1h\n",
	      "job.plan:5: [fill] unknown field 'runtime' (expected passes, bs, iodepth, threads, "
	      "expected_rate)",
	      "unknown field in [fill]");
	fails(PRE "points = 1x1\n",
	      "job.plan:6: [precondition] unknown field 'points' (expected profile, rw, rwmix, "
	      "bssplit, threads, iodepth, steady, window, data_limit, slope_limit, "
	      "limits_absolute, metrics, max_rounds, max_duration, after_steady, write_variant)",
	      "unknown field in [precondition]");
	fails(RUN "[sweep]\nprofile = 4k-randwrite\nwindow = 5\n",
	      "job.plan:6: [sweep] unknown field 'window' (expected profile, rw, rwmix, bssplit, "
	      "points, time, ramp)",
	      "unknown field in [sweep]");
	fails(RUN "[fill]\npasses = 2\npasses = 3\n", "job.plan:6: [fill] passes given twice",
	      "duplicate field");
	fails(RUN "[fill]\npasses = 2\nPASSES = 3\n", "job.plan:6: [fill] passes given twice",
	      "duplicate field, other case");
	fails(PRE "data_limit = 10\ndata-limit = 20\n",
	      "job.plan:7: [precondition] data_limit given twice", "duplicate field, '-' for '_'");
	{
		struct plan p;
		char err[512] = "";
		int r = plan_parse(PRE "steady = snia\ncriterion = fio-dev\n", "job.plan", &p, err,
				   sizeof(err));

		fixed_bug(r == -EINVAL,
			  "aliases (steady/criterion, bs/bssplit, metric/metrics, time/runtime, "
			  "ramp/ramp_time, rwmix/rwmixread) escape the duplicate check",
			  "steady and its alias criterion in one section: refused");
		plan_free(&p);
	}
	fails("[run]\ndevice = \n", "job.plan:2: [run] device: empty value", "empty value");

	/* numbers */
	fails(RUN "[fill]\npasses = two\n",
	      "job.plan:5: [fill] passes: expected a number 1..100, not 'two'", "bad number");
	fails(RUN "[fill]\npasses = 0\n",
	      "job.plan:5: [fill] passes: expected a number 1..100, not '0'", "number below range");
	fails(RUN "[fill]\nthreads = 257\n",
	      "job.plan:5: [fill] threads: expected a number 1..256, not '257'",
	      "number above range");
	fails(PRE "iodepth = 4096x\n",
	      "job.plan:6: [precondition] iodepth: expected a number 1..4096, not '4096x'",
	      "trailing garbage");
	fails(PRE "threads = 4 # four\n",
	      "job.plan:6: [precondition] threads: expected a number 1..256, not '4 # four'",
	      "no comments after a value");
	fails(PRE "window = 1\n",
	      "job.plan:6: [precondition] window: expected a number 2..1000, not '1'", "window 1");
	fails(PRE "data_limit = -5\n",
	      "job.plan:6: [precondition] data_limit: expected a non-negative number ('20', "
	      "'20%'), not '-5'",
	      "negative limit");
	fails(RUN "[fill]\nbs = 256\n",
	      "job.plan:5: [fill] bs: expected a block size from 512 to 16m ('128k'), not '256'",
	      "fill bs too small");
	fails("[run]\ndevice = /dev/x\nseed = -1\n",
	      "job.plan:3: [run] seed: expected a number, not '-1'", "negative seed");

	/* durations */
	fails("[run]\ndevice = /dev/x\ninterval = 5 parsecs\n",
	      "job.plan:3: [run] interval: expected a duration of at least 100ms ('60s', '5m', "
	      "'2h'), not '5 parsecs'",
	      "bad duration");
	fails("[run]\ndevice = /dev/x\ninterval = 10ms\n",
	      "job.plan:3: [run] interval: expected a duration of at least 100ms ('60s', '5m', "
	      "'2h'), not '10ms'",
	      "interval below 100ms");
	fails("[run]\ndevice = /dev/x\nio_timeout = 500ms\n",
	      "job.plan:3: [run] io_timeout: expected a duration of at least 1.0s ('60s', '5m', "
	      "'2h'), not '500ms'",
	      "io_timeout below 1s");
	{
		struct plan p;
		char err[512] = "";
		int r = plan_parse(RUN "io_timeout = 90s\n[precondition]\nprofile = 4k-randwrite\n",
				   "job.plan", &p, err, sizeof(err));

		is_int(r, 0, "io_timeout = 90s parses");
		is_u64(p.io_timeout_ns, 90 * S_NS, "  io_timeout 90 s");
		plan_free(&p);
	}
	fails(RUN "[sweep]\nprofile = 4k-randwrite\npoints = 1x1\ntime = 50ms\n",
	      "job.plan:7: [sweep] time: expected a duration of at least 100ms ('60s', '5m', "
	      "'2h'), not '50ms'",
	      "sweep time below 100ms");
	{
		struct plan p;
		char err[512] = "";

		/* the minimum is 1 s, so "at least 100ms" is wrong for 0.5s */
		plan_parse(RUN "[erase]\ndeadline = 0.5s\n", "job.plan", &p, err, sizeof(err));
		fixed_bug(!strstr(err, "at least 100ms"),
			  "plan_duration() says 'at least 100ms' for every minimum >= 100ms; "
			  "[erase] deadline and [precondition] max_duration need 1s",
			  "deadline 0.5s: the message states the real minimum (1s)");
		plan_free(&p);
	}

	/* workloads */
	fails(RUN "[precondition]\nrw = randwrite\nbssplit = 4k/50:8k/40\n",
	      "job.plan:6: [precondition] bssplit: bssplit '4k/50:8k/40': percentages sum to 90; "
	      "expected 100",
	      "bssplit not summing to 100");
	fails(RUN "[precondition]\nthreads = 4\n",
	      "job.plan:4: [precondition] needs a workload: profile = NAME, or rw = and bssplit =",
	      "precondition without a workload");
	fails(RUN "[precondition]\nrw = randrw\n",
	      "job.plan:4: [precondition] needs bssplit = (or bs =) with rw =", "rw without bs");
	fails(RUN "[precondition]\nbs = 4k\n",
	      "job.plan:4: [precondition] needs rw = (or profile =) to say what it does",
	      "bs without rw");
	fails(RUN "[precondition]\nprofile = 4k-bogus\n",
	      "job.plan:5: [precondition] profile: expected a profile (4k-randwrite, 4k-randread, "
	      "8k-7030, 64k-randwrite, 64k-randread, 128k-seqwrite, 128k-seqread, fileserver, "
	      "webserver), not '4k-bogus'",
	      "unknown profile");
	fails(RUN "[precondition]\nrw = sideways\nbs = 4k\n",
	      "job.plan:5: [precondition] rw: rw 'sideways': expected read, write, randread, "
	      "randwrite, rw, readwrite or randrw",
	      "bad rw");
	fails(RUN "[precondition]\nrw = randrw\nrwmix = 170\nbs = 4k\n",
	      "job.plan:6: [precondition] rwmix: rwmix '170': expected the percentage of reads, 0 "
	      "to 100 with at most two decimals",
	      "bad rwmix");
	fails(RUN "[sweep]\npoints = 1x1\n",
	      "job.plan:4: [sweep] needs a workload (profile = NAME), or a [precondition] before "
	      "it to measure",
	      "sweep without a workload and no precondition");

	/* points */
	fails(RUN "[sweep]\nprofile = 4k-randwrite\npoints = 2y2\n",
	      "job.plan:6: [sweep] points: expected load points THREADSxDEPTH ('2x2 4x8 16x16'), "
	      "not '2y2'",
	      "points syntax");
	fails(RUN "[sweep]\nprofile = 4k-randwrite\npoints = 2x\n",
	      "job.plan:6: [sweep] points: expected load points THREADSxDEPTH with threads 1..256 "
	      "and depth 1..4096, not '2x'",
	      "points without a depth");
	fails(RUN "[sweep]\nprofile = 4k-randwrite\npoints = 0x4\n",
	      "job.plan:6: [sweep] points: expected load points THREADSxDEPTH with threads 1..256 "
	      "and depth 1..4096, not '0x4'",
	      "points with 0 threads");
	fails(RUN "[sweep]\nprofile = 4k-randwrite\n",
	      "job.plan:4: [sweep] needs points = THREADSxDEPTH ... ('2x2 4x8 16x16')",
	      "sweep without points");

	/* steady state */
	fails(PRE "steady = none\n",
	      "job.plan:4: [precondition] steady = none needs max_rounds or max_duration, or it "
	      "never ends",
	      "steady = none without limits");
	fails(PRE "limits_absolute = yes\n",
	      "job.plan:4: [precondition] limits_absolute applies to the fio criteria only",
	      "limits_absolute with snia");
	fails(PRE "steady = sometimes\n",
	      "job.plan:6: [precondition] steady: expected snia, fio-slope, fio-dev or none, not "
	      "'sometimes'",
	      "unknown criterion");
	fails(PRE "metrics = iops,foo\n",
	      "job.plan:6: [precondition] metrics: expected metrics from iops, bw, lat, lat-min, "
	      "lat-max, lat-stddev, p50, p90, p99, p99.9, p99.99, each alone or after read. or "
	      "write. (comma-separated), not 'iops,foo'",
	      "unknown metric");
	fails(PRE "metrics = iops,iops\n",
	      "job.plan:6: [precondition] metrics: expected each metric once, not 'iops,iops'",
	      "a metric twice");
	/* a metric of a direction the phase never does: judged on zeros */
	fails(PRE "metrics = iops,read.p99.9\n",
	      "job.plan:6: [precondition] metrics: read.p99.9 measures reads, but the phase runs "
	      "100 % writes (4k-randwrite): it would judge no data",
	      "read.* metrics on a write-only workload");
	fails(RUN "[precondition]\nprofile = 4k-randread\nmetric = write.lat\nwrite_variant = no\n",
	      "job.plan:6: [precondition] metrics: write.lat measures writes, but the phase runs "
	      "100 % reads (4k-randread): it would judge no data",
	      "write.* metrics on a read workload run as itself");
	fails(RUN "[precondition]\nprofile = 4k-randread\nmetrics = read.iops\n",
	      "job.plan:6: [precondition] metrics: read.iops measures reads, but the phase runs "
	      "100 % writes (4k-randread, preconditioned as its write variant): it would judge "
	      "no data",
	      "read.* metrics on a read workload preconditioned as its write variant");
	{
		struct plan p;

		ok(!parse(RUN "[precondition]\nprofile = 4k-randread\nmetrics = write.p99\n",
			  "job.plan", &p) &&
			   p.phases[0].metrics[0] == SAMPLE_METRIC_WRITE_P99,
		   "write.* metrics on a read workload run as its write variant: accepted");
		plan_free(&p);
		ok(!parse(RUN "[precondition]\nprofile = 8k-7030\nmetrics = read.p99,write.p99\n",
			  "job.plan", &p) &&
			   p.phases[0].nmetrics == 2,
		   "read. and write. metrics on a mix: accepted");
		plan_free(&p);
	}
	fails(PRE "after_steady = never\n",
	      "job.plan:6: [precondition] after_steady: expected stop or continue, not 'never'",
	      "bad after_steady");
	fails(PRE "write_variant = perhaps\n",
	      "job.plan:6: [precondition] write_variant: expected yes or no, not 'perhaps'",
	      "bad write_variant");

	/* [run] and [erase] values */
	fails("[run]\ndevice = dev/x\n",
	      "job.plan:2: [run] device: expected an absolute path to a device or file, not "
	      "'dev/x'",
	      "relative device");
	fails("[run]\ndevice = /dev/x\ndatabase = rel.db\n",
	      "job.plan:3: [run] database: expected an absolute path, not 'rel.db'",
	      "relative database");
	fails("[run]\ndevice = /dev/x\nfootprint = 150%\n",
	      "job.plan:3: [run] footprint: expected a percentage above 0 and up to 100%, not "
	      "'150%'",
	      "footprint over 100%");
	fails("[run]\ndevice = /dev/x\nserial = S\neui64 = E\n",
	      "job.plan:4: [run] eui64: the drive is already named by serial; name it once",
	      "serial and eui64");
	fails(RUN "[erase]\nmethod = shred\n",
	      "job.plan:5: [erase] method: expected auto, sanitize-crypto, sanitize-block, "
	      "format-crypto, format-user, secure-discard, discard, zero, punch or none, not "
	      "'shred'",
	      "unknown erase method");
	fails(RUN "[erase]\nverify = maybe\n",
	      "job.plan:5: [erase] verify: expected yes or no, not 'maybe'", "bad bool");

	/* the whole plan */
	fails("[fill]\npasses = 2\n", "job.plan: no [run] section (it names the device)",
	      "missing [run]");
	fails("", "job.plan: no [run] section (it names the device)", "an empty file");
	fails("[run]\nserial = S\n[fill]\n", "job.plan: [run] device is required",
	      "missing device");
	fails("[run]\ndevice = /dev/x\n",
	      "job.plan: nothing to do: add [erase], [fill], [precondition] or [sweep]",
	      "no phases");
	fails("[run]\ndevice = /dev/x\n[fill]\n",
	      "job.plan: [run] serial (or eui64, nguid, wwn) is required: this plan writes to "
	      "/dev/x, and plateau only writes to a drive the plan names (`plateau drives` shows "
	      "them)",
	      "a writing plan without a serial");
	fails("[run]\ndevice = /dev/x\nserial = S\n[precondition]\nprofile = 4k-randwrite\n"
	      "max_rounds = 3\n",
	      "job.plan:4: [precondition] max_rounds: expected 0 (no cap) or at least the window "
	      "of 5 rounds, not 3",
	      "max_rounds below the window can never be judged");
	fails("[run]\ndevice = /dev/x\nserial = S\n[precondition]\nprofile = 4k-randwrite\n"
	      "after_steady = continue\nmax_rounds = 0\n",
	      "job.plan:4: [precondition] after_steady = continue needs max_rounds or "
	      "max_duration, or it never ends",
	      "continuing after steady state without a limit");
	fails("[run]\ndevice = /dev/x\nserial = S\n[precondition]\nprofile = 4k-randwrite\n"
	      "[sweep]\npoints = 1x1\nthreads = 4\n",
	      "job.plan:8: [sweep] threads: a sweep's load is its points = THREADSxDEPTH list",
	      "threads in a sweep is refused, not ignored");
	{
		struct plan p;
		char err[256] = "";

		is_int(plan_parse(NULL, "job.plan", &p, err, sizeof(err)), -EINVAL, "NULL text");
		is_str(err, "job.plan: empty plan", "says empty plan");
		plan_free(&p);
	}

	/* line ends and control characters */
	fails("[run]\ndevice = /dev/x\rserial = S\n",
	      "job.plan:2: control character 0x0d in the line (expected text)", "a stray CR");
	{
		struct plan p;
		char err[256] = "";
		int r = plan_parse("[run]\ndevice = /dev/x\x01y\nserial = S\n[fill]\n", "job.plan",
				   &p, err, sizeof(err));

		fixed_bug(r == -EINVAL && !strcmp(err, "job.plan:2: control character 0x01 in the "
						       "line (expected text)"),
			  "only CR and NUL are checked; other control characters (\\x01, ESC) "
			  "reach device names and terminals",
			  "a control character (\\x01) in a value is refused");
		plan_free(&p);
		r = plan_parse("[run]\ndevice = /dev/x\n\x1b[2J\n[fill]\n", "job.plan", &p, err,
			       sizeof(err));
		ok(r == -EINVAL, "an escape sequence on its own line is refused (%s)", err);
		plan_free(&p);
	}
	memset(big, 'a', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	memcpy(big, "[run]\nname = ", 13);
	fails(big, "job.plan:2: line longer than 4096 characters", "a line over 4096 characters");
	{
		/* PLAN_TEXT_MAX passes the size check, one byte more does not */
		size_t n = PLAN_TEXT_MAX + 1;
		char *huge = malloc(n + 1);
		struct plan hp;
		char herr[256];

		if (!huge)
			bail_out("out of memory");
		memset(huge, '\n', n);
		huge[n] = '\0';
		fails(huge, "job.plan: larger than 200 KiB; not a plan", "a plan over 200 KiB");
		huge[n - 1] = '\0';
		plan_parse(huge, "job.plan", &hp, herr, sizeof(herr));
		ok(!strstr(herr, "larger than"),
		   "a plan of exactly PLAN_TEXT_MAX bytes is not too large");
		plan_free(&hp);
		free(huge);
	}
}

/* An alias is read with its own value: the field's main name is longer
 * than the alias and must not spill over the value ("bs" -> "bssplit"). */
static void test_alias_values(void)
{
	struct plan p;
	char bs[64];

	if (!ok(!parse("[run]\ndevice = /dev/x\nserial = S\n[precondition]\nrw = randwrite\n"
		       "bs = 8k/50:64k/50\nmetric=p99\ncriterion=fio-dev\n[sweep]\n"
		       "points = 1x1\nrw = randread\nbs=4k\nruntime = 2s\nramp_time = 1s\n",
		       "job.plan", &p),
		"a plan written with the aliases parses")) {
		plan_free(&p);
		return;
	}
	is_str(profile_format_bssplit(&p.phases[0].workload, bs, sizeof(bs)), "8k/50:64k/50",
	       "bs = 8k/50:64k/50 keeps its value");
	is_int(p.phases[0].nmetrics, 1, "metric=p99: one metric");
	is_int(p.phases[0].metrics[0], SAMPLE_METRIC_P99, "metric=p99: p99");
	is_int(p.phases[0].steady.criterion, STEADY_FIO_DEV, "criterion=fio-dev");
	is_str(profile_format_bssplit(&p.phases[1].workload, bs, sizeof(bs)), "4k/100",
	       "bs=4k in [sweep]");
	is_u64(p.phases[1].point_ns, 2 * S_NS, "runtime = 2s");
	is_u64(p.phases[1].ramp_ns, 1 * S_NS, "ramp_time = 1s");
	plan_free(&p);
}

/* "[run]\ndevice = /dev/x\nname = e\ninterval = 1m\n" + @body */
static int parse_body(const char *body, struct plan *p)
{
	char text[2048];

	snprintf(text, sizeof(text), "[run]\ndevice = /dev/x\nname = e\ninterval = 1m\n%s", body);
	return parse(text, "e.plan", p);
}

static void test_estimate(void)
{
	struct plan_estimate_input in = {.capacity_bytes = 0, .erase_ns = PLAN_ESTIMATE_UNKNOWN};
	struct plan_estimate e[8], t;
	struct plan p;
	json_object *o, *v;
	char *json;

	/* the figure: an unknown erase bounded by its deadline (here
	 * 2 h), a fill of 64 GiB at 128 MiB/s (8 min 32 s), a precondition of at
	 * most 25 rounds of 1 min, two sweeps of 16 points x (5 s + 60 s) */
	if (parse_body("serial = S\nfootprint = 64g\n"
		       "[erase]\nmethod = zero\ndeadline = 2h\n"
		       "[fill]\npasses = 1\nexpected_rate = 128m/s\n"
		       "[precondition]\nprofile = 4k-randwrite\n"
		       "[sweep]\npoints = 1x1 1x2 1x4 1x8 2x1 2x2 2x4 2x8 4x1 4x2 4x4 4x8 8x1 8x2 "
		       "8x4 8x8\nramp = 5s\ntime = 60s\n"
		       "[sweep]\nprofile = 4k-randread\npoints = 1x1 1x2 1x4 1x8 2x1 2x2 2x4 2x8 "
		       "4x1 4x2 4x4 4x8 8x1 8x2 8x4 8x8\nramp = 5s\ntime = 60s\n",
		       &p)) {
		plan_free(&p);
		return;
	}
	is_u64(p.phases[1].expected_rate_bps, 128ULL << 20, "[fill] expected_rate = 128m/s");
	plan_estimate(&p, &in, e, &t);
	is_int(e[0].basis, PLAN_EST_DEADLINE, "erase without a controller estimate: its deadline");
	is_int(e[0].min_ns, PLAN_ESTIMATE_UNKNOWN, "  at least: unknown");
	is_int(e[0].max_ns, 2 * 3600 * (int64_t)S_NS, "  at most the deadline, 2 h");
	is_int(e[1].basis, PLAN_EST_FILL_PLAN, "fill: the plan's expected_rate");
	is_u64(e[1].bytes, 64ULL << 30, "  64 GiB (the footprint)");
	is_int(e[1].min_ns, 512 * (int64_t)S_NS, "  64 GiB at 128 MiB/s: 512 s");
	is_int(e[1].max_ns, 512 * (int64_t)S_NS, "  at most the same");
	is_int(e[2].min_ns, 5 * 60 * (int64_t)S_NS, "precondition: at least its window, 5 min");
	is_int(e[2].max_ns, 25 * 60 * (int64_t)S_NS, "  at most max_rounds 25 x 1 min");
	is_int(e[3].min_ns, 16 * 65 * (int64_t)S_NS, "sweep: exactly 16 x (5 s + 60 s)");
	is_int(e[3].max_ns, e[3].min_ns, "  at most the same");
	is_int(t.max_ns, (7200 + 512 + 1500 + 2 * 1040) * (int64_t)S_NS,
	       "total at most: deadline + fill + max_rounds + sweeps (3 h 8 min 12 s)");
	is_int(t.min_ns, (512 + 300 + 2 * 1040) * (int64_t)S_NS,
	       "total at least: the known least of each phase");

	/* a measured rate wins over the plan's; the controller's estimate wins
	 * over the deadline */
	in.fill_rate_bps = 256.0 * (1 << 20);
	in.erase_ns = 90 * (int64_t)S_NS;
	plan_estimate(&p, &in, e, &t);
	is_int(e[1].basis, PLAN_EST_FILL_MEASURED, "a measured fill rate is used first");
	is_int(e[1].min_ns, 256 * (int64_t)S_NS, "  64 GiB at 256 MiB/s: 256 s");
	is_int(e[0].basis, PLAN_EST_CONTROLLER, "erase: the controller's estimate");
	is_int(e[0].min_ns, 90 * (int64_t)S_NS, "  90 s");
	is_int(e[0].max_ns, 90 * (int64_t)S_NS, "  at most the same");

	/* the JSON: seconds that read back, null unknown */
	o = plan_estimate_object(&p, e, &t);
	json = strdup(json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN));
	json_object_put(o);
	o = json_tokener_parse(json);
	ok(o && json_object_object_get_ex(o, "max_s", &v) &&
		   json_object_is_type(v, json_type_int) &&
		   json_object_get_int64(v) == 90 + 256 + 1500 + 2 * 1040,
	   "estimate JSON: max_s %s, whole seconds as an integer", json);
	v = json_object_array_get_idx(json_object_object_get(o, "phases"), 1);
	ok(v && json_object_get_int64(json_object_object_get(v, "bytes")) == 64LL << 30 &&
		   json_object_get_double(json_object_object_get(v, "rate_bps")) ==
			   256.0 * (1 << 20) &&
		   !strcmp(json_object_get_string(json_object_object_get(v, "basis")),
			   "measured-rate"),
	   "  the fill's bytes, rate and basis");
	json_object_put(o);
	free(json);
	plan_free(&p);

	/* nothing known: a fill of the whole drive, a run that stops at steady
	 * state with no bound: unknown */
	if (!parse_body("serial = S\n[fill]\n[precondition]\nprofile = 4k-randwrite\n"
			"max_rounds = 0\n",
			&p)) {
		plan_estimate(&p, NULL, e, &t);
		is_int(e[0].basis, PLAN_EST_UNKNOWN, "fill of the whole drive, no rate: unknown");
		is_int(e[0].min_ns, PLAN_ESTIMATE_UNKNOWN, "  no least");
		is_int(e[1].max_ns, PLAN_ESTIMATE_UNKNOWN,
		       "precondition without max_rounds or max_duration: no bound");
		is_int(t.max_ns, PLAN_ESTIMATE_UNKNOWN, "  nor has the run");
		is_int(t.min_ns, 5 * 60 * (int64_t)S_NS, "  at least its window");
	}
	plan_free(&p);

	/* a percentage of a known capacity; max_duration shorter than the
	 * rounds; steady = none runs to its limit */
	in = (struct plan_estimate_input){.capacity_bytes = 100ULL << 30,
					  .erase_ns = PLAN_ESTIMATE_UNKNOWN};
	if (!parse_body("serial = S\nfootprint = 25%\n[fill]\npasses = 2\nexpected_rate = 1g\n"
			"[precondition]\nprofile = 4k-randwrite\nsteady = none\nmax_rounds = 100\n"
			"max_duration = 30m\n[erase]\nmethod = none\n",
			&p)) {
		plan_estimate(&p, &in, e, &t);
		is_u64(e[0].bytes, 50ULL << 30, "fill: 2 passes over 25 %% of 100 GiB");
		is_int(e[0].min_ns, 50 * (int64_t)S_NS, "  at 1 GiB/s: 50 s");
		is_int(e[1].max_ns, 30 * 60 * (int64_t)S_NS,
		       "precondition: max_duration 30 min bounds 100 rounds of 1 min");
		is_int(e[1].min_ns, e[1].max_ns, "  steady = none runs to its limit");
		is_int(e[2].basis, PLAN_EST_NONE, "erase method none: nothing");
		is_int(e[2].max_ns, 0, "  0 s");
		is_int(t.min_ns, t.max_ns, "the run: exactly known");
	}
	plan_free(&p);

	/* overflow: no wrap-around into a small figure */
	if (!parse_body("[sweep]\nprofile = 4k-randread\npoints = 1x1 1x2\nramp = 0s\n"
			"time = 60000d\n",
			&p)) {
		plan_estimate(&p, NULL, e, &t);
		is_int(e[0].max_ns, PLAN_ESTIMATE_UNKNOWN,
		       "a sweep past 2^63 ns: unknown, not wrapped");
	}
	plan_free(&p);
}

/* check --json and show: phase parameters exact (time = 1234567s printed
 * 1.23457e+06 with %g) */
static void test_exact_params(void)
{
	struct plan p;
	char *json, buf[1024];

	if (parse_body("[sweep]\nprofile = 4k-randread\npoints = 1x1\nramp = 1.5s\n"
		       "time = 1234567s\n",
		       &p)) {
		plan_free(&p);
		return;
	}
	json = plan_phase_json(&p, &p.phases[0]);
	ok(json && strstr(json, "\"time_s\":1234567,") && strstr(json, "\"ramp_s\":1.5"),
	   "sweep time 1234567 s and ramp 1.5 s exact in the phase JSON: %s", json);
	free(json);
	plan_phase_describe(&p, &p.phases[0], buf, sizeof(buf));
	is_str(buf,
	       "4k-randread (random, 100% reads, 4k/100), points 1x1, ramp 1.5s, time 342h56m07s "
	       "per point",
	       "the phase for people");
	plan_free(&p);

	if (parse_body("serial = S\n[erase]\nmethod = zero\ndeadline = 90.5s\n"
		       "[precondition]\nprofile = 4k-randwrite\nmax_duration = 2.25s\n",
		       &p)) {
		plan_free(&p);
		return;
	}
	json = plan_phase_json(&p, &p.phases[0]);
	ok(json && strstr(json, "\"deadline_s\":90.5"), "deadline 90.5 s kept whole: %s", json);
	free(json);
	json = plan_phase_json(&p, &p.phases[1]);
	ok(json && strstr(json, "\"max_duration_s\":2.25"), "max_duration 2.25 s kept whole");
	free(json);
	plan_phase_describe(&p, &p.phases[1], buf, sizeof(buf));
	is_str(buf,
	       "4k-randwrite (random, 0% reads, 4k/100), 16 x 16 (threads x iodepth), steady snia: "
	       "window 5, data_limit 20%, slope_limit 10%, max_rounds 25, max_duration 2.2s, "
	       "metrics iops, after steady stop",
	       "a precondition for people");
	plan_free(&p);

	fails("[run]\ndevice = /dev/x\nserial = S\n[fill]\nexpected_rate = fast\n",
	      "job.plan:5: [fill] expected_rate: expected a size per second ('500m/s', '2g'), not "
	      "'fast'",
	      "expected_rate that is not a rate");
}

int main(void)
{
	test_alias_values();
	test_lab();
	test_defaults();
	test_sweep_inherits();
	test_write_variant();
	test_steady_none();
	test_errors();
	test_estimate();
	test_exact_params();
	return done_testing();
}
