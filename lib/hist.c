// SPDX-License-Identifier: MIT
/*
 * hist: log-linear latency histogram; the bucket scheme and its error bound
 * are documented in hist.h.
 */
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <string.h>

#include "hist-int.h"

#define HIST_MAGIC0 'P'
#define HIST_MAGIC1 'L'
#define HIST_MAGIC2 'H'
#define HIST_VERSION 1

void hist_init(struct hist *h)
{
	memset(h, 0, sizeof(*h));
	h->min_ns = UINT64_MAX;
}

void hist_merge(struct hist *dst, const struct hist *src)
{
	if (!src->count)
		return;
	for (unsigned int i = 0; i < HIST_NBUCKETS; i++)
		dst->buckets[i] += src->buckets[i];
	dst->count += src->count;
	dst->sum_ns += src->sum_ns;
	dst->sumsq_ns2 += src->sumsq_ns2;
	if (src->min_ns < dst->min_ns)
		dst->min_ns = src->min_ns;
	if (src->max_ns > dst->max_ns)
		dst->max_ns = src->max_ns;
}

uint64_t hist_bucket_lo(unsigned int i)
{
	unsigned int g;

	if (i < 2 * HIST_SUB)
		return i;
	g = i / HIST_SUB;
	return (uint64_t)(i - (g - 1) * HIST_SUB) << (g - 1);
}

uint64_t hist_bucket_value(unsigned int i)
{
	if (i < 2 * HIST_SUB)
		return i;
	/* midpoint of a bucket of width 2^(g-1) */
	return hist_bucket_lo(i) + (1ULL << (i / HIST_SUB - 2));
}

uint64_t hist_min(const struct hist *h)
{
	return h->count ? h->min_ns : 0;
}

uint64_t hist_max(const struct hist *h)
{
	return h->count ? h->max_ns : 0;
}

double hist_mean(const struct hist *h)
{
	return h->count ? (double)h->sum_ns / (double)h->count : 0.0;
}

double hist_stddev(const struct hist *h)
{
	double n = (double)h->count, mean, var;

	if (h->count < 2)
		return 0.0;
	mean = (double)h->sum_ns / n;
	/* (sum(x^2) - n * mean^2) / (n - 1); sumsq is exact, so the only
	 * rounding is in the final doubles */
	var = ((double)h->sumsq_ns2 - n * mean * mean) / (n - 1.0);
	return var > 0.0 ? sqrt(var) : 0.0;
}

uint64_t hist_rank(uint64_t count, double pct)
{
	/* pct as an exact integer in units of 1e-7 %: every percentile a
	 * person types (99.9, 99.99, 99.999) is exact there, and the rank is
	 * then integer arithmetic.  ceil(0.999 * 1000) in doubles is 1000, not
	 * 999: p99.9 of 1000 values was the maximum. */
	unsigned __int128 scaled, den = 1000000000ULL; /* 100 % = 1e9 units */
	uint64_t units, rank;

	if (!count || !(pct > 0.0 && pct <= 100.0))
		return 0;
	units = (uint64_t)llround(pct * 1e7);
	scaled = (unsigned __int128)units * count;
	rank = (uint64_t)((scaled + den - 1) / den);
	if (rank < 1)
		rank = 1;
	if (rank > count)
		rank = count;
	return rank;
}

uint64_t hist_percentile(const struct hist *h, double pct)
{
	uint64_t rank, seen = 0, v;

	if (!h->count || !(pct > 0.0 && pct <= 100.0))
		return 0;
	rank = hist_rank(h->count, pct);
	for (unsigned int i = 0; i < HIST_NBUCKETS; i++) {
		seen += h->buckets[i];
		if (seen < rank)
			continue;
		v = hist_bucket_value(i);
		if (v < h->min_ns)
			v = h->min_ns;
		if (v > h->max_ns)
			v = h->max_ns;
		return v;
	}
	return h->max_ns; /* unreachable while the buckets sum to count */
}

/* CRC-32 (IEEE 802.3, reflected 0xEDB88320), table built once. */
static uint32_t hist_crc_table[256];
static pthread_once_t hist_crc_once = PTHREAD_ONCE_INIT;

static void hist_crc_init(void)
{
	for (uint32_t i = 0; i < 256; i++) {
		uint32_t c = i;

		for (int k = 0; k < 8; k++)
			c = (c & 1) ? 0xEDB88320U ^ (c >> 1) : c >> 1;
		hist_crc_table[i] = c;
	}
}

static uint32_t hist_crc32(const uint8_t *p, size_t n)
{
	uint32_t c = 0xFFFFFFFFU;

	pthread_once(&hist_crc_once, hist_crc_init);
	while (n--)
		c = hist_crc_table[(c ^ *p++) & 0xFF] ^ (c >> 8);
	return c ^ 0xFFFFFFFFU;
}

struct hist_wbuf {
	uint8_t *p;
	size_t len, off;
	int overflow;
};

static void hist_put_varint(struct hist_wbuf *w, uint64_t v)
{
	do {
		uint8_t b = v & 0x7F;

		v >>= 7;
		if (v)
			b |= 0x80;
		if (w->off >= w->len) {
			w->overflow = 1;
			return;
		}
		w->p[w->off++] = b;
	} while (v);
}

static void hist_put_byte(struct hist_wbuf *w, uint8_t b)
{
	if (w->off >= w->len) {
		w->overflow = 1;
		return;
	}
	w->p[w->off++] = b;
}

ssize_t hist_encode(const struct hist *h, void *buf, size_t len)
{
	struct hist_wbuf w = {.p = buf, .len = len};
	uint64_t nonzero = 0, prev = 0;
	uint32_t crc;

	for (unsigned int i = 0; i < HIST_NBUCKETS; i++)
		nonzero += h->buckets[i] != 0;
	hist_put_byte(&w, HIST_MAGIC0);
	hist_put_byte(&w, HIST_MAGIC1);
	hist_put_byte(&w, HIST_MAGIC2);
	hist_put_byte(&w, HIST_VERSION);
	hist_put_varint(&w, HIST_SUB_BITS);
	hist_put_varint(&w, HIST_MAX_BITS);
	hist_put_varint(&w, h->count);
	hist_put_varint(&w, h->sum_ns);
	hist_put_varint(&w, (uint64_t)(h->sumsq_ns2 >> 64));
	hist_put_varint(&w, (uint64_t)h->sumsq_ns2);
	hist_put_varint(&w, hist_min(h));
	hist_put_varint(&w, hist_max(h));
	hist_put_varint(&w, nonzero);
	for (unsigned int i = 0; i < HIST_NBUCKETS; i++) {
		if (!h->buckets[i])
			continue;
		hist_put_varint(&w, i - prev);
		hist_put_varint(&w, h->buckets[i]);
		prev = i + 1;
	}
	if (w.overflow || w.len - w.off < 4)
		return -ENOSPC;
	crc = hist_crc32(w.p, w.off);
	for (int k = 0; k < 4; k++)
		w.p[w.off++] = (uint8_t)(crc >> (8 * k));
	return (ssize_t)w.off;
}

struct hist_rbuf {
	const uint8_t *p;
	size_t len, off;
};

/* Return 0 or -EBADMSG; never reads at or past len. */
static int hist_get_varint(struct hist_rbuf *r, uint64_t *v)
{
	uint64_t x = 0;

	for (unsigned int shift = 0; shift < 64; shift += 7) {
		uint8_t b;

		if (r->off >= r->len)
			return -EBADMSG;
		b = r->p[r->off++];
		if (shift == 63 && (b & 0x7E))
			return -EBADMSG; /* more than 64 bits */
		x |= (uint64_t)(b & 0x7F) << shift;
		if (!(b & 0x80)) {
			*v = x;
			return 0;
		}
	}
	return -EBADMSG;
}

int hist_decode(struct hist *out, const void *buf, size_t len)
{
	struct hist_rbuf r = {.p = buf};
	uint64_t sub_bits, max_bits, hi, lo, min, max, nonzero, idx = 0, total = 0;
	uint32_t crc;
	struct hist h;
	int ret;

	if (!buf || len < 4 + 4)
		return -EBADMSG;
	if (r.p[0] != HIST_MAGIC0 || r.p[1] != HIST_MAGIC1 || r.p[2] != HIST_MAGIC2)
		return -EBADMSG;
	crc = (uint32_t)r.p[len - 4] | (uint32_t)r.p[len - 3] << 8 | (uint32_t)r.p[len - 2] << 16 |
	      (uint32_t)r.p[len - 1] << 24;
	if (hist_crc32(r.p, len - 4) != crc)
		return -EBADMSG;
	if (r.p[3] != HIST_VERSION)
		return -EPROTONOSUPPORT;
	r.len = len - 4;
	r.off = 4;

	hist_init(&h);
	if ((ret = hist_get_varint(&r, &sub_bits)) || (ret = hist_get_varint(&r, &max_bits)))
		return ret;
	if (sub_bits != HIST_SUB_BITS || max_bits != HIST_MAX_BITS)
		return -EPROTONOSUPPORT;
	if ((ret = hist_get_varint(&r, &h.count)) || (ret = hist_get_varint(&r, &h.sum_ns)) ||
	    (ret = hist_get_varint(&r, &hi)) || (ret = hist_get_varint(&r, &lo)) ||
	    (ret = hist_get_varint(&r, &min)) || (ret = hist_get_varint(&r, &max)) ||
	    (ret = hist_get_varint(&r, &nonzero)))
		return ret;
	h.sumsq_ns2 = (unsigned __int128)hi << 64 | lo;
	if (nonzero > HIST_NBUCKETS || min > max || (!h.count && (min || max || nonzero)))
		return -EBADMSG;
	for (uint64_t k = 0; k < nonzero; k++) {
		uint64_t gap, c;

		if ((ret = hist_get_varint(&r, &gap)) || (ret = hist_get_varint(&r, &c)))
			return ret;
		if (gap >= HIST_NBUCKETS - idx || !c || c > h.count - total)
			return -EBADMSG;
		idx += gap;
		h.buckets[idx] = c;
		total += c;
		idx++;
	}
	if (total != h.count || r.off != r.len)
		return -EBADMSG;
	if (h.count) {
		/* min and max must fall in the first and last non-empty buckets */
		unsigned int first = 0, last = HIST_NBUCKETS - 1;

		while (!h.buckets[first])
			first++;
		while (!h.buckets[last])
			last--;
		if (hist_index(min) != first || hist_index(max) != last)
			return -EBADMSG;
		if ((unsigned __int128)min * h.count > h.sum_ns ||
		    (unsigned __int128)max * h.count < h.sum_ns)
			return -EBADMSG;
		h.min_ns = min;
		h.max_ns = max;
	}
	*out = h;
	return 0;
}
