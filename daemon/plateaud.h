/* SPDX-License-Identifier: MIT */
#ifndef PLATEAUD_H
#define PLATEAUD_H

#include <stdbool.h>
#include <syslog.h>

/*
 * plateaud: one sd-event loop (this thread) owns the control socket, the
 * timers, the signals, the watchdog and the hook processes; every run has
 * its own worker thread (runner.h) with its own database connection.
 * Workers talk back to the loop through an eventfd, never by blocking it.
 *
 * The modules: plateaud.c (options, plateaud.conf, logging, main),
 * manager.h (the runs), control.h (the control socket), events.h (the
 * journal, the hooks, the Prometheus textfile).  This header holds what
 * all of them use: the log.
 */

/* @prio: LOG_ERR, LOG_WARNING, LOG_NOTICE, LOG_INFO (<syslog.h>) */
void log_msg(int prio, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/*
 * Log "@fmt: strerror(-@r)" at @prio and return @r (a -errno), for the
 * daemon's "log why and fail" paths: return log_errno(LOG_ERR, -e, "%s", path);
 */
int log_errno(int prio, int r, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* stderr is connected to the journal (JOURNAL_STREAM) */
bool log_is_journal(void);

#endif
