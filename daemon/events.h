/* SPDX-License-Identifier: MIT */
#ifndef PLATEAUD_EVENTS_H
#define PLATEAUD_EVENTS_H

#include <stdbool.h>
#include <stddef.h>

#include "runner.h"

/*
 * events: where run events go besides the database: the journal, the hook
 * commands (plateaud(8), HOOKS) and the Prometheus textfile.
 */

/* whom hooks run as when plateaud is root and hook_user is not set */
#define PLATEAUD_DEFAULT_HOOK_USER "plateau-hook"
#define PLATEAUD_HOOK_TIMEOUT_NS (30ULL * 1000000000ULL)
/* calls of one hook for one run waiting behind a running one; beyond, dropped */
#define PLATEAUD_HOOK_QUEUE_MAX 64
#define PLATEAUD_HOOKS_MAX 32

/* a hook named in plateaud.conf's [hooks] section; plans choose by name */
struct hook_def {
	char name[64];
	char path[256];
};

struct manager;
struct drun;
/* a hook call waiting (queued by any thread), and the calls of one hook for
 * one run in order (loop thread): events.c's own */
struct hook_job;
struct hook_lane;

void events_journal(const struct runner_event *ev);
/* a refusal of the safety gate (no run exists), with its own MESSAGE_ID
 * (guard.h) and the requester */
void events_journal_refusal(const char *device, const char *serial, unsigned int uid, int pid,
			    const char *message);
void events_queue_hooks(struct manager *m, struct drun *r, const struct runner_event *ev);
void events_run_hooks(struct manager *m);
/* no hook call running or waiting */
bool events_hooks_idle(struct manager *m);
/* at exit: log and free the calls still waiting (the running ones are the
 * service's to kill) */
void events_drop_hooks(struct manager *m);
/* the [hooks] definition called @name, or NULL */
const struct hook_def *events_hook_def(const struct manager *m, const char *name);
/*
 * 0 when a plan's "hook = NAME" can run: NAME is defined in plateaud.conf's
 * [hooks], its file passes the checks made at every call (plateaud(8),
 * HOOKS) and hook_user exists; else -ENOENT (not defined) or another
 * -errno, with why (for "FILE: [run] hook = NAME: why").
 */
int events_hook_resolve(const struct manager *m, const char *name, char *why, size_t len);
/* at start: log the hooks that would not run as they stand */
void events_hooks_check(const struct manager *m);
void events_write_prom(struct manager *m);

#endif
