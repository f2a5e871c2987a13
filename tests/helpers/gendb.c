// SPDX-License-Identifier: MIT
/*
 * gendb PATH [SAMPLES]: a large database for measuring the query side
 * (tools/bench-query.sh).  One drive, one run in state done, an erase and a
 * fill phase without samples, and a precondition phase with SAMPLES
 * (default 1,000,000) one-minute samples of 4 KiB random writes:
 *
 *   IOPS(t) = (100000 + 300000 * exp(-t / 5)) * (1 +- 2 % uniform noise)
 *
 * a burst that decays to a noisy plateau, so `plateau steady` finds steady
 * state (SNIA, W 5, R 20 %, S 10 %: at round 17 with this generator's fixed
 * seed) and then checks every later window for "steady lost" (the phase's
 * max_rounds is 0: no cap).  On the plateau the noise never loses it: five
 * values within +-2 % span at most 4 % of their average (limit 20 %), and
 * their fitted slope times 4 is at most (2*2 + 1*2) * 2 % / 10 * 4 = 4.8 %
 * (limit 10 %); the decay adds 4 * 60000 * exp(-t / 5) IOPS, under 1 % of
 * the plateau from round 28 on.
 *
 * Latency follows Little's law for 16 x 16 I/Os in flight (256 / IOPS);
 * each sample carries a write histogram of seven buckets whose count is the
 * sample's I/O count, built as that many hist_record() calls would, so
 * store_sample_insert() encodes a small (< 100 byte) blob per sample.
 * Inserts are committed in transactions of 10,000.
 *
 * Options, after the path and count (tests of several hosts and of export):
 *   --host H   the run's host name (default "gendb")
 *   --sweep    a fourth phase, a sweep of three load points (1x1, 2x4, 4x8)
 *              with a stored point each and two samples per point with read
 *              and write histograms; point 2 measured twice, its first two
 *              samples marked aborted; an event per phase and per point
 */
#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "parse.h"
#include "store.h"

#define T0_NS 1796000000000000000LL
#define ROUND_NS 60000000000LL
#define BATCH 10000
#define INFLIGHT 256.0 /* 16 threads x 16 deep */

static uint64_t rng_state = 0x2545F4914F6CDD1DULL;

/* xorshift64*, uniform in [0, 1) */
static double rng01(void)
{
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return (double)((rng_state * 0x2545F4914F6CDD1DULL) >> 11) / 9007199254740992.0;
}

/* what @k calls of hist_record(@h, @v_ns) would do */
static void hist_record_n(struct hist *h, uint64_t v_ns, uint64_t k)
{
	if (!k)
		return;
	h->buckets[hist_index(v_ns)] += k;
	h->count += k;
	h->sum_ns += v_ns * k;
	h->sumsq_ns2 += (unsigned __int128)v_ns * v_ns * k;
	if (v_ns < h->min_ns)
		h->min_ns = v_ns;
	if (v_ns > h->max_ns)
		h->max_ns = v_ns;
}

/* @ios latencies around @mean_ns: a right-skewed shape of seven values */
static void make_hist(struct hist *h, uint64_t ios, double mean_ns)
{
	static const struct {
		double factor;
		unsigned int permille;
	} shape[] = {
		{0.45, 50}, {0.75, 200}, {0.95, 390}, {1.2, 220}, {1.7, 100}, {3.0, 35}, {8.0, 5},
	};
	uint64_t left = ios;

	hist_init(h);
	for (size_t i = 0; i < sizeof(shape) / sizeof(shape[0]); i++) {
		uint64_t k = i + 1 < sizeof(shape) / sizeof(shape[0])
				     ? ios * shape[i].permille / 1000
				     : left;

		if (k > left)
			k = left;
		hist_record_n(h, (uint64_t)(mean_ns * shape[i].factor), k);
		left -= k;
	}
}

/* the sweep phase of --sweep; returns 0 or 1 (failed, said why) */
static int add_sweep(struct store *s, int64_t run_id, int64_t t0_ns, int64_t *end_ns)
{
	static struct hist rd, wr;
	static const unsigned int load[3][2] = {{1, 1}, {2, 4}, {4, 8}};
	struct store_phase ph = {.run_id = run_id, .seq = 4, .steady = -1};
	int64_t t = t0_ns, seq = 0;
	char msg[128];

	snprintf(ph.kind, sizeof(ph.kind), "sweep");
	snprintf(ph.name, sizeof(ph.name), "4k-randrw");
	snprintf(ph.state, sizeof(ph.state), "done");
	if (store_phase_insert(s, &ph))
		return 1;
	for (int p = 0; p < 3; p++) {
		double iops = 20000.0 * (p + 1);
		struct store_point pt = {
			.seq = p + 1, .threads = load[p][0], .iodepth = load[p][1]};
		struct store_event ev = {.run_id = run_id, .phase_id = ph.id, .kind = "point-done"};

		/* point 2 interrupted once: its first two samples set aside */
		for (int pass = 0; pass < (p == 1 ? 2 : 1); pass++) {
			for (int k = 0; k < 2; k++) {
				struct sample smp = {.seq = ++seq,
						     .start_ns = t,
						     .end_ns = t + ROUND_NS,
						     .point = p + 1};
				uint64_t ios = (uint64_t)(iops * 60.0) + (uint64_t)k;

				make_hist(&rd, ios * 7 / 10, INFLIGHT / iops * 1e9);
				make_hist(&wr, ios - ios * 7 / 10, 2 * INFLIGHT / iops * 1e9);
				sample_summarize(&smp, &rd, ios * 7 / 10 * 4096, &wr,
						 (ios - ios * 7 / 10) * 4096);
				smp.hist[0] = &rd;
				smp.hist[1] = &wr;
				if (store_sample_insert(s, ph.id, &smp))
					return 1;
				t += ROUND_NS;
			}
			if (p == 1 && !pass && store_samples_abort_point(s, ph.id, 2) != 2)
				return 1;
		}
		pt.smp = (struct sample){.seq = p + 1, .start_ns = t - 2 * ROUND_NS, .end_ns = t};
		make_hist(&rd, (uint64_t)(iops * 120.0) * 7 / 10, INFLIGHT / iops * 1e9);
		make_hist(&wr, (uint64_t)(iops * 120.0) * 3 / 10, 2 * INFLIGHT / iops * 1e9);
		sample_summarize(&pt.smp, &rd, rd.count * 4096, &wr, wr.count * 4096);
		pt.smp.hist[0] = &rd;
		pt.smp.hist[1] = &wr;
		if (store_point_insert(s, ph.id, &pt))
			return 1;
		snprintf(msg, sizeof(msg), "point %d (%ux%u) measured", p + 1, pt.threads,
			 pt.iodepth);
		ev.message = msg;
		ev.time_ns = t;
		ev.data = "{\"point\":1}";
		if (store_event_insert(s, &ev))
			return 1;
	}
	ph.started_ns = t0_ns;
	ph.ended_ns = t;
	if (store_phase_update(s, &ph))
		return 1;
	*end_ns = t;
	return 0;
}

static int fail(struct store *s, const char *what)
{
	fprintf(stderr, "gendb: %s: %s\n", what, store_errmsg(s));
	store_close(s);
	return 1;
}

int main(int argc, char **argv)
{
	static struct hist wr;
	struct store_drive d = {.lba_bytes = 4096, .capacity_bytes = 3840755982336ULL};
	struct store_run run = {0};
	struct store_phase ph[3];
	static const char *const kinds[] = {"erase", "fill", "precondition"};
	static const char *const names[] = {"auto", "128k x2", "4k-randwrite"};
	static char params[] = "{\"profile\":\"4k-randwrite\",\"threads\":16,\"iodepth\":16,"
			       "\"criterion\":\"snia\",\"window\":5,\"data_limit\":20,"
			       "\"slope_limit\":10,\"max_rounds\":0,\"metrics\":[\"iops\"]}";
	static char plan[] = "[run]\ndevice = /dev/nvme0n1\nserial = GENDB-0001\n\n[erase]\n\n"
			     "[fill]\n\n[precondition]\nprofile = 4k-randwrite\nmax_rounds = 0\n";
	uint64_t nsamples = 1000000;
	const char *host = "gendb";
	int64_t end_ns;
	bool sweep = false;
	struct store *s;
	struct stat st;
	char err[1024];

	for (int i = 3; i < argc; i++) {
		if (!strcmp(argv[i], "--host") && i + 1 < argc)
			host = argv[++i];
		else if (!strcmp(argv[i], "--sweep"))
			sweep = true;
		else
			argc = 0; /* usage */
	}
	if (argc < 2 || (argc >= 3 && parse_uint_range(argv[2], 1, 100000000, &nsamples))) {
		fprintf(stderr, "usage: gendb PATH [SAMPLES (default 1000000) [--host H] "
				"[--sweep]]\n");
		return 2;
	}
	if (stat(argv[1], &st) == 0) {
		fprintf(stderr, "gendb: %s exists; remove it first\n", argv[1]);
		return 2;
	}
	if (store_open(argv[1], STORE_CREATE, &s, err, sizeof(err))) {
		fprintf(stderr, "gendb: %s\n", err);
		return 1;
	}

	snprintf(d.kind, sizeof(d.kind), "nvme");
	snprintf(d.path, sizeof(d.path), "/dev/nvme0n1");
	snprintf(d.model, sizeof(d.model), "GENDB NVMe 3.84TB");
	snprintf(d.serial, sizeof(d.serial), "GENDB-0001");
	snprintf(d.firmware, sizeof(d.firmware), "1.0");
	d.first_seen_ns = T0_NS;
	if (store_drive_upsert(s, &d))
		return fail(s, "drive");
	run.drive_id = d.id;
	snprintf(run.name, sizeof(run.name), "gendb-%llu", (unsigned long long)nsamples);
	snprintf(run.state, sizeof(run.state), "queued");
	snprintf(run.host, sizeof(run.host), "%s", host);
	snprintf(run.version, sizeof(run.version), "%s", PLATEAU_VERSION);
	run.plan = plan;
	run.created_ns = T0_NS;
	if (store_run_insert(s, &run) ||
	    store_run_set_state(s, run.id, "preconditioning", NULL, T0_NS + 1000000000LL))
		return fail(s, "run");

	for (int i = 0; i < 3; i++) {
		memset(&ph[i], 0, sizeof(ph[i]));
		ph[i].run_id = run.id;
		ph[i].seq = i + 1;
		snprintf(ph[i].kind, sizeof(ph[i].kind), "%s", kinds[i]);
		snprintf(ph[i].name, sizeof(ph[i].name), "%s", names[i]);
		snprintf(ph[i].state, sizeof(ph[i].state), "done");
		ph[i].params = i == 2 ? params : NULL;
		if (store_phase_insert(s, &ph[i]))
			return fail(s, "phase");
		ph[i].params = NULL;
		ph[i].steady = -1;
		ph[i].started_ns = T0_NS + 1000000000LL + i;
		ph[i].ended_ns = i == 2 ? ph[i].started_ns + (int64_t)nsamples * ROUND_NS
					: ph[i].started_ns + 1;
	}

	for (uint64_t k = 0; k < nsamples; k++) {
		double t = (double)k, iops, noise = 1.0 + 0.04 * (rng01() - 0.5);
		int64_t start = ph[2].started_ns + (int64_t)k * ROUND_NS;
		struct sample smp = {
			.seq = (int64_t)k + 1, .start_ns = start, .end_ns = start + ROUND_NS};
		uint64_t ios;

		iops = (100000.0 + 300000.0 * exp(-t / 5.0)) * noise;
		ios = (uint64_t)(iops * 60.0);
		make_hist(&wr, ios, INFLIGHT / iops * 1e9);
		sample_summarize(&smp, NULL, 0, &wr, ios * 4096);
		smp.hist[1] = &wr;
		if (k % BATCH == 0 && store_begin(s))
			return fail(s, "begin");
		if (store_sample_insert(s, ph[2].id, &smp))
			return fail(s, "sample");
		if ((k + 1) % BATCH == 0 || k + 1 == nsamples) {
			if (store_commit(s))
				return fail(s, "commit");
		}
	}

	for (int i = 0; i < 3; i++) {
		struct store_event ev = {.run_id = run.id,
					 .phase_id = ph[i].id,
					 .time_ns = ph[i].ended_ns,
					 .kind = "phase-done",
					 .message = names[i]};

		ph[i].rounds = i == 2 ? (int64_t)nsamples : 0;
		if (store_phase_update(s, &ph[i]))
			return fail(s, "phase update");
		if (sweep && store_event_insert(s, &ev))
			return fail(s, "event");
	}
	end_ns = ph[2].ended_ns;
	if (sweep && (store_begin(s) || add_sweep(s, run.id, end_ns, &end_ns) || store_commit(s)))
		return fail(s, "sweep");
	if (store_run_set_state(s, run.id, "done", NULL, end_ns + 1000000000LL))
		return fail(s, "run state");
	store_close(s);
	printf("%s: run %lld, phase 3 with %llu samples\n", argv[1], (long long)run.id,
	       (unsigned long long)nsamples);
	return 0;
}
