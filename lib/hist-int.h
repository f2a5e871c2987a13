/* SPDX-License-Identifier: MIT */
#ifndef PLATEAU_HIST_INT_H
#define PLATEAU_HIST_INT_H

/*
 * hist's insides: parts only lib/hist.c uses, which its unit test pins down
 * on their own.  Not part of the library's interface.
 */

#include "hist.h"

/**
 * hist_bucket_lo() - the lowest value bucket @i holds
 * @i: bucket index, < HIST_NBUCKETS
 *
 * Return: the bound in ns.
 */
uint64_t hist_bucket_lo(unsigned int i);

/**
 * hist_bucket_value() - the value bucket @i is reported as: its midpoint
 * @i: bucket index, < HIST_NBUCKETS
 *
 * Return: the value in ns (exact below 2 * HIST_SUB).
 */
uint64_t hist_bucket_value(unsigned int i);

/**
 * hist_rank() - the nearest rank of percentile @pct among @count values
 * @count: number of values
 * @pct: 0 < pct <= 100, taken to 7 decimals
 *
 * Return: ceil(pct/100 * count) computed exactly (integer arithmetic on
 * @pct in units of 1e-7 %), at least 1 and at most @count; 0 when @count
 * is 0 or @pct out of range.
 */
uint64_t hist_rank(uint64_t count, double pct);

#endif
