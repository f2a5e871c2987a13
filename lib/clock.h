/* SPDX-License-Identifier: MIT */
#ifndef PLATEAU_CLOCK_H
#define PLATEAU_CLOCK_H

#include <stdint.h>
#include <time.h>

/*
 * clock: the two times plateau uses, in ns.  Wall time (CLOCK_REALTIME) is
 * what is stored and shown (samples, events, runs); monotonic time
 * (CLOCK_MONOTONIC) measures durations and deadlines, immune to clock steps.
 */

#define CLOCK_NS_PER_SEC 1000000000LL

/**
 * clock_wall_ns() - wall time, for what is stored and shown
 *
 * Return: CLOCK_REALTIME in ns since the epoch (samples, events, runs);
 * it jumps when the clock is set, so never use it for a duration.
 */
static inline int64_t clock_wall_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (int64_t)ts.tv_sec * CLOCK_NS_PER_SEC + ts.tv_nsec;
}

/**
 * clock_mono_ns() - monotonic time, for durations
 *
 * Return: CLOCK_MONOTONIC in ns (since an unspecified start, usually boot):
 * durations, timeouts, rate limits; not comparable across reboots, so
 * never stored.
 */
static inline int64_t clock_mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * CLOCK_NS_PER_SEC + ts.tv_nsec;
}

#endif
