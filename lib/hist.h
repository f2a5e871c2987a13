/* SPDX-License-Identifier: MIT */
#ifndef PLATEAU_HIST_H
#define PLATEAU_HIST_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/*
 * Log-linear latency histogram, after fio's stat.h (plat_bits).
 *
 * Buckets: values below 2 * HIST_SUB (128 ns) have a bucket each and are
 * exact.  Above that, every power of two [2^m, 2^(m+1)) is split into
 * HIST_SUB = 64 equal buckets of width 2^(m-6).  A bucket is reported by its
 * midpoint, so
 *
 *     |reported - true| / true <= 1 / (2 * HIST_SUB) = 1/128 = 0.78 %
 *
 * for every value below HIST_MAX_NS.  Values at or above HIST_MAX_NS
 * (2^36 ns = 68.7 s) share the last bucket; min and max stay exact, and
 * percentiles are clamped to [min, max], so a percentile never reports a
 * value that was not within the recorded range.
 *
 * Memory: HIST_NBUCKETS = 1984 counters of 8 bytes = 15,872 bytes, plus
 * 48 bytes of totals.  Recording is O(1) (one clz, a few adds), never
 * allocates, and is not thread-safe: one histogram per thread, then merge.
 *
 * Mean and standard deviation are exact (integer sum and 128-bit sum of
 * squares), not derived from the buckets.
 */

#define HIST_SUB_BITS 6
#define HIST_SUB (1U << HIST_SUB_BITS)
#define HIST_MAX_BITS 36
#define HIST_MAX_NS (1ULL << HIST_MAX_BITS)
#define HIST_NBUCKETS ((HIST_MAX_BITS - HIST_SUB_BITS + 1) * HIST_SUB)

struct hist {
	uint64_t count;
	uint64_t sum_ns;
	unsigned __int128 sumsq_ns2;
	uint64_t min_ns; /* UINT64_MAX while empty */
	uint64_t max_ns;
	uint64_t buckets[HIST_NBUCKETS];
};

/* Serialized size bound: header plus, per non-empty bucket, two varints. */
#define HIST_ENCODED_MAX (4 + 6 * 10 + 2 * 10 + HIST_NBUCKETS * 20 + 4)

static inline unsigned int hist_index(uint64_t v_ns)
{
	unsigned int m;

	if (v_ns < 2 * HIST_SUB)
		return (unsigned int)v_ns;
	if (v_ns >= HIST_MAX_NS)
		return HIST_NBUCKETS - 1;
	m = 63 - (unsigned int)__builtin_clzll(v_ns);
	return (m - HIST_SUB_BITS) * HIST_SUB + (unsigned int)(v_ns >> (m - HIST_SUB_BITS));
}

/**
 * hist_record() - count one latency
 * @h: histogram
 * @v_ns: latency in nanoseconds
 */
static inline void hist_record(struct hist *h, uint64_t v_ns)
{
	h->buckets[hist_index(v_ns)]++;
	h->count++;
	h->sum_ns += v_ns;
	h->sumsq_ns2 += (unsigned __int128)v_ns * v_ns;
	if (v_ns < h->min_ns)
		h->min_ns = v_ns;
	if (v_ns > h->max_ns)
		h->max_ns = v_ns;
}

/**
 * hist_init() - empty a histogram (also used to reset one)
 * @h: histogram; min becomes UINT64_MAX until the first value
 */
void hist_init(struct hist *h);

/**
 * hist_merge() - add every count of one histogram to another
 * @dst: histogram added to (min, max, sums and buckets)
 * @src: histogram added
 */
void hist_merge(struct hist *dst, const struct hist *src);

/**
 * hist_count() - how many values were recorded
 * @h: histogram
 *
 * Return: the count.
 */
static inline uint64_t hist_count(const struct hist *h)
{
	return h->count;
}

/**
 * hist_min() - the smallest value recorded, exact
 * @h: histogram
 *
 * Return: the value in ns, 0 when @h is empty.
 */
uint64_t hist_min(const struct hist *h);

/**
 * hist_max() - the largest value recorded, exact
 * @h: histogram
 *
 * Return: the value in ns, 0 when @h is empty.
 */
uint64_t hist_max(const struct hist *h);

/**
 * hist_mean() - the mean of the values recorded, exact
 * @h: histogram
 *
 * Return: the mean in ns, 0 when @h is empty.
 */
double hist_mean(const struct hist *h);

/**
 * hist_stddev() - the sample standard deviation (n - 1), as fio reports it
 * @h: histogram
 *
 * From the exact sums, not from the buckets.
 *
 * Return: the deviation in ns, 0 below two values.
 */
double hist_stddev(const struct hist *h);

/**
 * hist_percentile() - the value at percentile @pct
 * @h: histogram
 * @pct: 0 < pct <= 100
 *
 * The value of the nearest rank, ceil(pct/100 * count) computed exactly in
 * integers, as a bucket midpoint clamped to [min, max] (so pct = 100 gives
 * max exactly).
 *
 * Return: the latency in ns, 0 when @h is empty or @pct out of range.
 */
uint64_t hist_percentile(const struct hist *h, double pct);

/**
 * hist_encode() - serialize @h compactly
 * @h: histogram
 * @buf: output, HIST_ENCODED_MAX bytes always suffice
 * @len: size of @buf
 *
 * Format v1: "PLH" 0x01, varints sub_bits, max_bits, count, sum_ns,
 * sumsq (high, low), min, max, number of non-empty buckets, then per
 * non-empty bucket (index gap, count), then CRC-32 (IEEE) of all of the
 * preceding bytes, little endian.
 *
 * Return: bytes written, or -ENOSPC.
 */
ssize_t hist_encode(const struct hist *h, void *buf, size_t len);

/**
 * hist_decode() - parse a blob made by hist_encode()
 * @h: result, written only on success
 * @buf: blob
 * @len: its size
 *
 * Every read is bounds-checked against @len; the checksum, the bucket
 * indices, the sum of the bucket counts, min <= max and the absence of
 * trailing bytes are all verified.
 *
 * Return: 0, -EBADMSG for a corrupt or truncated blob, -EPROTONOSUPPORT
 * for a version or bucket geometry this build does not know.
 */
int hist_decode(struct hist *h, const void *buf, size_t len);

#endif
