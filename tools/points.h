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

#endif
