/* SPDX-License-Identifier: MIT */
#ifndef PLATEAUD_CONTROL_H
#define PLATEAUD_CONTROL_H

#include <limits.h>
#include <sys/types.h>

#include "guard.h"
#include "plan.h"
#include "manager.h"

/*
 * control: the control socket (plateaud(8), CONTROL PROTOCOL); the loop
 * thread alone serves it.
 */

#define PLATEAUD_CLIENTS_MAX 64
/* a connection that says nothing for this long is closed */
#define PLATEAUD_CLIENT_IDLE_NS (60LL * 1000000000LL)

/*
 * The longest request line: a plan of PLAN_TEXT_MAX bytes with every byte
 * escaped the longest way JSON has (a control byte is \u00XX, 6 bytes), a
 * file name of PATH_MAX bytes escaped the same way, and 1 KiB for the
 * rest of the object.  Any plan `plateau check` accepts fits; the daemon
 * then refuses a bad one with plan_parse()'s own words.
 */
#define CONTROL_REQUEST_MAX (6 * PLAN_TEXT_MAX + 6 * PATH_MAX + 1024)

/*
 * Replies a peer has not read yet, beyond what the kernel's socket buffer
 * holds.  A reply is always queued whole while less than this is waiting,
 * so one reply of any size (a status of thousands of runs) goes out; a
 * peer with more than this unread (some ten thousand status replies) is
 * not reading, and is dropped.  64 connections: at most 64 MiB plus one
 * reply each.
 */
#define CONTROL_OUTPUT_MAX (1024 * 1024)

/* the database, its -wal, -shm, -journal and .lock, the textfile, and the
 * directories of --hook and of every [hooks] entry */
#define CONTROL_DENY_MAX (5 + 1 + 1 + PLATEAUD_HOOKS_MAX)

/* plateaud's rule for regular-file targets (guard.h), with its storage */
struct control_files {
	struct guard_files gf;
	const char *dirs[PLATEAUD_FILE_TARGETS_MAX];
	const char *deny[CONTROL_DENY_MAX + 1];
	char paths[CONTROL_DENY_MAX][1040];
};

/* The rule for a request by @uid: plateaud.conf's file_targets, owned by
 * @uid or root, never one of plateaud's own files.  @cf must stay put while
 * the rule is in use (it points into itself). */
void control_files_init(const struct manager *m, uid_t uid, struct control_files *cf);

/* Listen (or take the activated socket): 0, or -errno, logged. */
int control_listen(struct manager *m);
/* Close the connections idle for PLATEAUD_CLIENT_IDLE_NS. */
void control_close_idle(struct manager *m);

#endif
