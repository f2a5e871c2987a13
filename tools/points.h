/* SPDX-License-Identifier: MIT */
#ifndef PLATEAU_POINTS_H
#define PLATEAU_POINTS_H

#include "cli.h"

/*
 * What `plateau points`, `plateau latency` and `plateau plot` share: the
 * choice of a run's sweep phase.
 */

/**
 * points_pick_sweep() - the sweep phase of a run: phase @want_seq, which
 * must be a sweep, or (@want_seq 0) the run's last sweep phase
 * @ph: run and phases loaded; ph->p is set
 * @run_id: for the messages
 * @want_seq: phase number, 0: the last sweep
 *
 * Return: an exit code, the reason printed.
 */
int points_pick_sweep(struct cli_phase *ph, int64_t run_id, int want_seq);

/* cli_open_phase() for a sweep phase (points_pick_sweep()'s choice) */
int points_open(struct cli *cli, int64_t run_id, int want_seq, struct cli_phase *ph);

/* "N", or "HOST:N" when the command reads several databases: the run as
 * cli_find_run() takes it back */
char *points_run_ref(struct cli *cli, const struct store_run *run, char *buf, size_t len);

/**
 * points_need_io() - refuse what asks for reads (writes) of a phase that
 * made none: its figures would be zeros, not data
 * @ph: the phase picked
 * @what: [SAMPLE_READ], [SAMPLE_WRITE]: what asks for that direction's
 *        I/O, for the message ("metric read.p99.9", "--dir read"); NULL:
 *        nothing does
 *
 * Every sample and load point of the phase is counted.  A phase with none
 * yet passes (the caller says so in its own words).
 *
 * Return: CLI_OK, or CLI_USAGE with the reason printed.
 */
int points_need_io(const struct cli_phase *ph, const char *const what[2]);

/* points_need_io() for metrics (their read. and write. ones) */
int points_need_metric_io(const struct cli_phase *ph, const int *metrics, size_t n);

#endif
