// SPDX-License-Identifier: MIT
/* hist: error bound, exact moments, merge, serialization, corrupt blobs. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "hist-int.h"
#include "tap.h"

static uint64_t rng_state = 0x9E3779B97F4A7C15ULL;

static uint64_t rng(void)
{
	/* xorshift64* */
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return rng_state * 0x2545F4914F6CDD1DULL;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* Reference CRC-32 (bitwise), checked against the standard check value. */
static uint32_t ref_crc32(const uint8_t *p, size_t n)
{
	uint32_t c = 0xFFFFFFFFU;

	while (n--) {
		c ^= *p++;
		for (int k = 0; k < 8; k++)
			c = (c >> 1) ^ (0xEDB88320U & -(c & 1));
	}
	return ~c;
}

static void fix_crc(uint8_t *b, size_t n)
{
	uint32_t c = ref_crc32(b, n - 4);

	for (int k = 0; k < 4; k++)
		b[n - 4 + k] = (uint8_t)(c >> (8 * k));
}

static int same_hist(const struct hist *a, const struct hist *b)
{
	return a->count == b->count && a->sum_ns == b->sum_ns && a->sumsq_ns2 == b->sumsq_ns2 &&
	       hist_min(a) == hist_min(b) && hist_max(a) == hist_max(b) &&
	       !memcmp(a->buckets, b->buckets, sizeof(a->buckets));
}

static void test_buckets(void)
{
	int bad_exact = 0, bad_range = 0, bad_bound = 0, bad_mono = 0;
	double worst = 0.0;

	for (uint64_t v = 0; v < 2 * HIST_SUB; v++)
		bad_exact += hist_bucket_value(hist_index(v)) != v;
	ok(!bad_exact, "values below %u ns are exact", 2 * HIST_SUB);

	for (unsigned int i = 1; i < HIST_NBUCKETS; i++)
		bad_mono += hist_bucket_lo(i) <= hist_bucket_lo(i - 1) ||
			    hist_index(hist_bucket_lo(i)) != i ||
			    hist_index(hist_bucket_lo(i) - 1) != i - 1;
	ok(!bad_mono, "bucket bounds are increasing and contiguous");
	is_u64(hist_bucket_lo(HIST_NBUCKETS - 1) + (1ULL << ((HIST_NBUCKETS - 1) / HIST_SUB - 1)),
	       HIST_MAX_NS, "last bucket ends at HIST_MAX_NS");

	for (int k = 0; k < 2000000; k++) {
		/* log-uniform over [1, 2^36) */
		unsigned int bits = 1 + (unsigned int)(rng() % HIST_MAX_BITS);
		uint64_t v = rng() & ((1ULL << bits) - 1);
		unsigned int i;
		double err;

		if (!v)
			v = 1;
		i = hist_index(v);
		if (i >= HIST_NBUCKETS || v < hist_bucket_lo(i) ||
		    (i + 1 < HIST_NBUCKETS && v >= hist_bucket_lo(i + 1)))
			bad_range++;
		err = fabs((double)hist_bucket_value(i) - (double)v) / (double)v;
		if (err > worst)
			worst = err;
		if (err > 1.0 / 128.0)
			bad_bound++;
	}
	ok(!bad_range, "2M random values land in the bucket whose bounds contain them");
	ok(!bad_bound, "relative error <= 1/128 on 2M random values (worst %.5f)", worst);
	ok(worst > 0.007, "the bound is tight (worst %.5f is near 1/128 = 0.0078)", worst);
	is_int(hist_index(HIST_MAX_NS), HIST_NBUCKETS - 1, "2^36 ns clamps to the last bucket");
	is_int(hist_index(UINT64_MAX), HIST_NBUCKETS - 1, "UINT64_MAX clamps to the last bucket");
	is_int((int)sizeof(((struct hist *)0)->buckets), 15872, "bucket memory is 15,872 bytes");
}

static void test_moments(void)
{
	static const uint64_t v[] = {2, 4, 4, 4, 5, 5, 7, 9};
	struct hist h;

	hist_init(&h);
	is_u64(hist_count(&h), 0, "empty: count 0");
	is_u64(hist_min(&h), 0, "empty: min 0");
	is_u64(hist_percentile(&h, 99), 0, "empty: p99 0");
	is_dbl(hist_stddev(&h), 0, 0, "empty: stddev 0");
	for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++)
		hist_record(&h, v[i]);
	/* sum 40, n 8: mean 5; squares sum 232, (232 - 8*25)/7 = 32/7 */
	is_dbl(hist_mean(&h), 5.0, 1e-12, "mean of {2,4,4,4,5,5,7,9} = 5");
	is_dbl(hist_stddev(&h), sqrt(32.0 / 7.0), 1e-12, "sample stddev = sqrt(32/7)");
	is_u64(hist_min(&h), 2, "min 2");
	is_u64(hist_max(&h), 9, "max 9");
	/* rank ceil(0.5*8) = 4 -> 4; rank ceil(0.99*8) = 8 -> 9 */
	is_u64(hist_percentile(&h, 50), 4, "p50 is the 4th value");
	is_u64(hist_percentile(&h, 99), 9, "p99 is the 8th value");
	is_u64(hist_percentile(&h, 100), 9, "p100 is max");
	is_u64(hist_percentile(&h, 0), 0, "p0 is rejected");
	is_u64(hist_percentile(&h, 100.5), 0, "p100.5 is rejected");

	/* constant large values: stddev exactly 0 despite mean^2 ~ 1e20 */
	hist_init(&h);
	for (int i = 0; i < 1000; i++)
		hist_record(&h, 10000000000ULL);
	is_dbl(hist_stddev(&h), 0, 0, "constant 10 s values: stddev 0");
	is_u64(hist_percentile(&h, 50), 10000000000ULL, "constant: p50 clamps to the exact value");

	/* beyond HIST_MAX_NS: bucket clamps, min/max and mean stay exact */
	hist_init(&h);
	hist_record(&h, 100 * HIST_MAX_NS);
	hist_record(&h, 200 * HIST_MAX_NS);
	is_u64(hist_max(&h), 200 * HIST_MAX_NS, "huge max is exact");
	is_dbl(hist_mean(&h), 150.0 * (double)HIST_MAX_NS, 1.0, "huge mean is exact");
	is_u64(hist_percentile(&h, 50), 100 * HIST_MAX_NS, "huge p50 clamps to min");
}

static void test_percentiles(void)
{
	enum { N = 200000 };
	static uint64_t vals[N];
	static const double pcts[] = {1, 10, 50, 90, 99, 99.9, 99.99, 100};
	struct hist h;
	int bad = 0;

	hist_init(&h);
	for (int i = 0; i < N; i++) {
		/* a skewed latency-like distribution: 20 us .. 20 ms */
		double u = (double)(rng() >> 11) / 9007199254740992.0;

		vals[i] = 20000 + (uint64_t)(20000000.0 * u * u * u * u);
		hist_record(&h, vals[i]);
	}
	qsort(vals, N, sizeof(vals[0]), cmp_u64);
	for (size_t k = 0; k < sizeof(pcts) / sizeof(pcts[0]); k++) {
		size_t rank = (size_t)hist_rank(N, pcts[k]);
		double want = (double)vals[rank - 1], got = (double)hist_percentile(&h, pcts[k]);

		if (fabs(got - want) / want > 1.0 / 128.0) {
			diag("p%g: got %.0f want %.0f", pcts[k], got, want);
			bad++;
		}
	}
	ok(!bad, "percentiles within 1/128 of the exact order statistic");
}

/* The rank of every stored percentile for every n up to 10^5, against
 * ceil(num/den * n) in exact integers (p99.9 = 999/1000): the double
 * formula ceil(99.9 / 100.0 * n) is one too high for n = 1000, 2000, ... */
static void test_ranks(void)
{
	static const struct {
		double pct;
		uint64_t num, den;
	} p[] = {{50, 1, 2},	       {90, 9, 10}, {99, 99, 100}, {99.9, 999, 1000},
		 {99.99, 9999, 10000}, {100, 1, 1}, {1, 1, 100},   {99.999, 99999, 100000}};
	int bad = 0;

	for (size_t k = 0; k < sizeof(p) / sizeof(p[0]); k++)
		for (uint64_t n = 1; n <= 100000; n++) {
			uint64_t want = (p[k].num * n + p[k].den - 1) / p[k].den;

			if (!want)
				want = 1;
			if (hist_rank(n, p[k].pct) != want && bad++ < 5)
				diag("p%g of %llu: rank %llu, want %llu", p[k].pct,
				     (unsigned long long)n,
				     (unsigned long long)hist_rank(n, p[k].pct),
				     (unsigned long long)want);
		}
	ok(!bad, "every percentile's rank is exact for every n up to 10^5 (%d wrong)", bad);
	is_u64(hist_rank(1000, 99.9), 999, "p99.9 of 1000 values is the 999th");
	is_u64(hist_rank(UINT64_MAX, 100), UINT64_MAX, "p100 of 2^64-1 values is the last");
	is_u64(hist_rank(UINT64_MAX, 50), UINT64_MAX / 2 + 1,
	       "p50 of 2^64-1 values without overflow");
	is_u64(hist_rank(0, 50), 0, "no values: rank 0");
	is_u64(hist_rank(10, 0), 0, "p0: out of range");
}

static void test_merge(void)
{
	struct hist *all = malloc(sizeof(*all)), *a = malloc(sizeof(*a)), *b = malloc(sizeof(*b));

	hist_init(all);
	hist_init(a);
	hist_init(b);
	for (int i = 0; i < 100000; i++) {
		uint64_t v = rng() % 50000000;

		hist_record(all, v);
		hist_record(i % 3 ? a : b, v);
	}
	hist_merge(a, b);
	ok(same_hist(a, all), "merge of two parts equals recording everything in one");
	hist_init(b);
	hist_merge(a, b);
	ok(same_hist(a, all), "merging an empty histogram changes nothing");
	hist_init(b);
	hist_merge(b, all);
	ok(same_hist(b, all), "merging into an empty histogram copies it");
	free(all);
	free(a);
	free(b);
}

static void test_serialize(void)
{
	static uint8_t buf[HIST_ENCODED_MAX];
	struct hist *h = malloc(sizeof(*h)), *d = malloc(sizeof(*d));
	ssize_t n;
	int ret, bad_trunc = 0, bad_flip = 0;

	uint8_t chk[] = "123456789";
	is_u64(ref_crc32(chk, 9), 0xCBF43926U, "reference CRC-32 check value");

	hist_init(h);
	n = hist_encode(h, buf, sizeof(buf));
	ok(n > 0 && n < 32, "empty histogram encodes in %zd bytes", n);
	ret = hist_decode(d, buf, (size_t)n);
	ok(!ret && same_hist(d, h), "empty round trip");

	for (int i = 0; i < 50000; i++)
		hist_record(h, 50000 + rng() % 5000000);
	hist_record(h, 3 * HIST_MAX_NS);
	n = hist_encode(h, buf, sizeof(buf));
	ok(n > 0, "full histogram encodes (%zd bytes)", n);
	ret = hist_decode(d, buf, (size_t)n);
	ok(!ret && same_hist(d, h), "round trip is exact");
	is_int(hist_encode(h, buf, (size_t)n - 1), -ENOSPC, "encode into a short buffer: -ENOSPC");

	/* all counts in one bucket: tiny */
	hist_init(h);
	for (int i = 0; i < 1000000; i++)
		hist_record(h, 100000);
	n = hist_encode(h, buf, sizeof(buf));
	ok(n > 0 && n < 48, "one-bucket histogram of 1M values is %zd bytes", n);
	ret = hist_decode(d, buf, (size_t)n);
	ok(!ret && same_hist(d, h), "one-bucket round trip");

	/* every truncation and every single-bit flip is rejected */
	hist_init(h);
	for (int i = 0; i < 300; i++)
		hist_record(h, 1000 + rng() % 1000000);
	n = hist_encode(h, buf, sizeof(buf));
	for (ssize_t len = 0; len < n; len++)
		bad_trunc += hist_decode(d, buf, (size_t)len) != -EBADMSG;
	ok(!bad_trunc, "all %zd truncations rejected with -EBADMSG", n);
	for (ssize_t i = 0; i < n; i++)
		for (int bit = 0; bit < 8; bit++) {
			buf[i] ^= (uint8_t)(1 << bit);
			ret = hist_decode(d, buf, (size_t)n);
			bad_flip += ret != -EBADMSG && ret != -EPROTONOSUPPORT;
			buf[i] ^= (uint8_t)(1 << bit);
		}
	ok(!bad_flip, "all %zd single-bit flips rejected", n * 8);
	is_int(hist_decode(d, NULL, 0), -EBADMSG, "NULL blob rejected");

	/* well-formed checksum, wrong content */
	{
		uint8_t b2[HIST_ENCODED_MAX];
		ssize_t m;

		memcpy(b2, buf, (size_t)n);
		b2[3] = 2;
		fix_crc(b2, (size_t)n);
		is_int(hist_decode(d, b2, (size_t)n), -EPROTONOSUPPORT, "unknown version 2");

		memcpy(b2, buf, (size_t)n);
		b2[4] = 7; /* sub_bits */
		fix_crc(b2, (size_t)n);
		is_int(hist_decode(d, b2, (size_t)n), -EPROTONOSUPPORT, "other bucket geometry");

		/* count says 5 more than the buckets hold: rewrite the count varint */
		hist_init(h);
		hist_record(h, 1000);
		hist_record(h, 2000);
		m = hist_encode(h, b2, sizeof(b2));
		/* layout: magic(4) sub(1) max(1) count(1) ... */
		b2[6] = 7;
		fix_crc(b2, (size_t)m);
		is_int(hist_decode(d, b2, (size_t)m), -EBADMSG, "count disagreeing with buckets");

		m = hist_encode(h, b2, sizeof(b2));
		memmove(b2 + m - 3, b2 + m - 4, 4); /* a trailing byte before the crc */
		b2[m - 4] = 0;
		fix_crc(b2, (size_t)m + 1);
		is_int(hist_decode(d, b2, (size_t)m + 1), -EBADMSG, "trailing byte rejected");
	}
	free(h);
	free(d);
}

/*
 * A span of stored rounds, as `plateau latency` reads it: each round's
 * histogram encoded and decoded (the store's blob), then merged.  The
 * values are bucket midpoints (hist_bucket_value()), which a histogram
 * reports exactly, so every percentile of the span, stored or not (12.5,
 * 99.999), must equal the nearest-rank order statistic of all of the
 * rounds' values together, exactly; and no average of per-round
 * percentiles is that.
 */
static void test_span(void)
{
	enum { ROUNDS = 10, PER = 1000 };
	static uint64_t vals[ROUNDS * PER];
	static const double pcts[] = {0.01, 12.5, 50, 90, 99, 99.9, 99.99, 99.999, 100};
	static uint8_t blob[HIST_ENCODED_MAX];
	struct hist *all = malloc(sizeof(*all)), *round = malloc(sizeof(*round));
	struct hist *back = malloc(sizeof(*back));
	int bad = 0, bad_codec = 0;
	double avg99 = 0;

	if (!all || !round || !back)
		bail_out("out of memory");
	hist_init(all);
	for (int r = 0; r < ROUNDS; r++) {
		ssize_t n;

		hist_init(round);
		/* round r is slower than round r - 1: its values climb the buckets */
		for (int i = 0; i < PER; i++) {
			unsigned int b = 200 + (unsigned int)(rng() % (400 + 40 * (unsigned int)r));
			uint64_t v = hist_bucket_value(b);

			vals[r * PER + i] = v;
			hist_record(round, v);
		}
		avg99 += (double)hist_percentile(round, 99) / ROUNDS;
		n = hist_encode(round, blob, sizeof(blob));
		if (n < 0 || hist_decode(back, blob, (size_t)n) || !same_hist(back, round))
			bad_codec++;
		hist_merge(all, back);
	}
	ok(!bad_codec, "every round survives its blob");
	is_u64(hist_count(all), ROUNDS * PER, "the span holds every round's values");
	qsort(vals, ROUNDS * PER, sizeof(vals[0]), cmp_u64);
	for (size_t k = 0; k < sizeof(pcts) / sizeof(pcts[0]); k++) {
		uint64_t rank = hist_rank(ROUNDS * PER, pcts[k]);

		if (hist_percentile(all, pcts[k]) != vals[rank - 1] && bad++ < 5)
			diag("p%g of the span: %llu, exact %llu", pcts[k],
			     (unsigned long long)hist_percentile(all, pcts[k]),
			     (unsigned long long)vals[rank - 1]);
	}
	ok(!bad, "every percentile of the merged span is its exact order statistic");
	ok((double)hist_percentile(all, 99) != avg99,
	   "the span's p99 is not the average of the rounds' p99s");
	is_u64(hist_min(all), vals[0], "the span's minimum is exact");
	is_u64(hist_max(all), vals[ROUNDS * PER - 1], "the span's maximum is exact");
	free(all);
	free(round);
	free(back);
}

int main(void)
{
	test_buckets();
	test_moments();
	test_percentiles();
	test_ranks();
	test_merge();
	test_serialize();
	test_span();
	return done_testing();
}
