/* SPDX-License-Identifier: MIT */
#ifndef PLATEAU_STEADY_INT_H
#define PLATEAU_STEADY_INT_H

/*
 * steady's insides: parts only lib/steady.c uses, which its unit test pins down
 * on their own.  Not part of the library's interface.
 */

#include "steady.h"

/**
 * steady_judge() - judge a series
 * @y: values, one per round
 * @n: number of rounds
 * @p: parameters
 * @r: result, fully written on success
 *
 * Only the first min(@n, max_rounds) rounds are looked at, for the verdict
 * and for "steady lost" alike.  Fewer rounds than the window: not steady,
 * evidence all zero, and no error.
 *
 * Return: 0; -EINVAL for bad parameters (window < 2, a negative or
 * non-finite limit, unknown criterion, limits_absolute with SNIA,
 * 0 < max_rounds < window, NULL pointers); -EDOM if any judged value is
 * negative, NaN or infinite.
 */
int steady_judge(const double *y, size_t n, const struct steady_params *p, struct steady_result *r);

#endif
