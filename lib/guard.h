/* SPDX-License-Identifier: MIT */
#ifndef PLATEAU_GUARD_H
#define PLATEAU_GUARD_H

/*
 * guard: the one safety gate every writer goes through (erase, fill,
 * precondition, sweep; the daemon's start check, its dry run and
 * `plateau run`).
 *
 * guard_open() opens the target once and decides everything through that
 * descriptor, never through a path looked up a second time:
 *   1. identity: read through the descriptor (fstat, ioctls, NVMe Identify
 *      on the fd) and matched with the name the operator gave (serial,
 *      EUI64, NGUID, WWN).  A drive is never written unless it is named.
 *   2. in use, by device and inode numbers (target_inuse()): mounts in
 *      every mount namespace, swap, holders (dm, md, LVM, bcache) at any
 *      depth, loop devices stacked on it at any depth (LOOP_GET_STATUS64
 *      lo_rdevice / lo_device+lo_inode), and what the target itself is
 *      stacked on.  A check that cannot decide refuses.
 *   3. locks shared by every plateau process: an OFD lock (fcntl
 *      F_OFD_SETLK) on a file per storage object (the target and everything
 *      it is stacked on) in the lock directory,
 *      named after its device (and inode) numbers, holding "who" for the
 *      dry run to print; the kernel's O_EXCL claim on block devices; an
 *      OFD lock on regular files.
 * The same descriptor then goes to the engine and the erase.  Before every
 * destructive phase guard_recheck() reads the identity through it again
 * and repeats the in-use checks.
 *
 * Never logs; every reason not to write is in the verdict, which
 * guard_refusal() formats the one way the daemon, the CLI and the dry run
 * print it.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "erase.h"
#include "target.h"

#define GUARD_REASONS_MAX 16
#define GUARD_REASON_LEN 256
#define GUARD_LOCKS_MAX 12
#define GUARD_LOCK_DIR "/run/plateau/locks"

/* Journal MESSAGE_IDs (plateaud(8)); never change one.  The daemon and
 * `plateau run` log every refusal with the first, `plateau run` its start
 * with the second. */
#define GUARD_REFUSED_MESSAGE_ID "6d082feaeaf0481aa1bc8fa343b2616a"
#define GUARD_RUN_STARTED_MESSAGE_ID "43a8c46012f143b78bb68e4c007098e3"

enum guard_flags {
	GUARD_WRITES = 1 << 0, /* writes: named, not in use, locked */
	GUARD_PROBE = 1 << 1,  /* dry run: check and probe the locks, hold nothing */
};

/**
 * struct guard_files - where a regular file may be a target (plateaud)
 * @dirs: absolute directories (plateaud.conf's file_targets); a regular
 *        file must be reached beneath one of them without following a
 *        symlink; none: no regular file is allowed
 * @ndirs: number of @dirs
 * @owner_uid: the requester; the file must be owned by it or by root
 * @deny_paths: files (and, for a directory, everything in it) that are never
 *              a target whatever @dirs says: the database, its WAL and SHM,
 *              the textfile, the hook directories; NULL-terminated
 */
struct guard_files {
	const char *const *dirs;
	size_t ndirs;
	uid_t owner_uid;
	const char *const *deny_paths;
};

/**
 * struct guard_req - what the caller is about to do
 * @path: the target as the operator named it
 * @want: serial / EUI64 / NGUID / WWN the operator named; required to write
 * @want_field: the plan field @want came from ("serial"), for messages
 * @kind: TARGET_UNKNOWN detects; TARGET_NVME accepts an ioctl-mocked file
 * @flags: enum guard_flags
 * @erase_method: the erase the run will do (ERASE_NONE: none); an erase
 *                reaching every namespace adds them all to the checks
 * @run_id: written into the lock files (0 = none yet, see guard_set_run())
 * @lock_dir: NULL or "" = $PLATEAU_LOCK_DIR when set and not empty, else
 *            GUARD_LOCK_DIR
 * @files: NULL: any regular file the caller can open (plateau run, the
 *         requester's own rights); else the rule for regular files
 */
struct guard_req {
	const char *path;
	const char *want;
	const char *want_field;
	enum target_kind kind;
	unsigned int flags;
	enum erase_method erase_method;
	int64_t run_id;
	const char *lock_dir;
	const struct guard_files *files;
};

/**
 * struct guard_lock - one lock held
 * @key: "block-259-0", "file-254-0-1318211"
 * @fd: the lock file, OFD-locked
 */
struct guard_lock {
	char key[TARGET_KEY_LEN];
	int fd;
};

/**
 * struct guard - an open, checked target
 * @fd: the descriptor for I/O (O_DIRECT; O_RDWR when writing; block
 *      devices O_EXCL); -1 when the gate refused or in probe mode
 * @id: identity read through @fd
 * @matched: which name of @id matched @want
 * @flags: the request's flags
 * @erase_all_ns: the planned erase reaches every namespace of the controller
 * @namespaces: with @erase_all_ns: the namespaces it would reach ("nvme0n1 nvme0n2")
 * @nlocks: entries of @locks in use
 * @locks: locks held (probe mode: none)
 * @lock_note: how the drive is locked, for the verdict
 * @path: the request's path, for guard_refusal()
 * @lock_dir: the lock directory in use
 * @run_id: the run written into the lock files (guard_set_run())
 * @err: 0, or the -errno of the refusal (-EPERM identity, -EBUSY in use or
 *       locked, -ESTALE changed, other: a check failed); the first refusal
 *       decides it, later ones only add reasons
 * @nreasons: reasons for the refusal (more than GUARD_REASONS_MAX counted)
 * @reason: each reason, without the path
 */
struct guard {
	int fd;
	struct target_identity id;
	enum target_match_field matched;
	unsigned int flags;
	bool erase_all_ns;
	char namespaces[256];
	size_t nlocks;
	struct guard_lock locks[GUARD_LOCKS_MAX];
	char lock_note[192];
	char path[TARGET_PATH_LEN];
	char lock_dir[128];
	int64_t run_id;
	int err;
	unsigned int nreasons;
	char reason[GUARD_REASONS_MAX][GUARD_REASON_LEN];
};

/**
 * guard_open() - open, identify, check and lock a target
 * @rq: request
 * @g: result; always initialised (guard_close() it whatever the return)
 *
 * @rq->path is looked up once (O_PATH) and everything else goes through
 * the descriptor opened from it: O_DIRECT (block devices also O_EXCL),
 * read-write only for GUARD_WRITES without GUARD_PROBE.  An NVMe generic
 * char device is identified, then its block device is opened for I/O and
 * must identify as the same namespace.  Without GUARD_WRITES only the
 * identity is read and, when @rq->want is given, matched: nothing is
 * checked for use or locked.  With GUARD_PROBE the descriptor is closed
 * again before returning and no lock is taken (locks held by others are
 * still reported).  All the checks run and all their reasons are kept,
 * so one refusal lists everything that is wrong.
 *
 * Return: 0 (the target may be used as asked), or the refusal's -errno
 * (also in @g->err) with its reasons in @g: -EINVAL no path, or not a
 * drive or regular file; -EPERM not named, named otherwise, or a regular
 * file @rq->files does not allow; -EBUSY in use, locked or claimed;
 * -ESTALE a generic device's block device is another namespace, or a
 * regular file changed while its path was checked; -ENODEV a generic
 * device without a block device, to write; another -errno from open or
 * identify.
 */
int guard_open(const struct guard_req *rq, struct guard *g);

/**
 * guard_recheck() - before a destructive phase: still the same, still free?
 * @g: an open guard
 * @want: the name the plan gives the drive
 * @whole_ctrl: the phase is an erase that reaches every namespace
 *
 * Reads the identity through @g->fd again (the kernel revalidates a
 * namespace after a format), compares it with @g->id (target_same()),
 * matches @want and repeats the in-use checks; the locks are kept as they
 * are.  @g->err and the reasons are reset first.  A @want that does not
 * match is reported as a "serial" whatever field the plan used.
 *
 * Return: 0 or the refusal's -errno (also in @g->err): -EBADF @g holds no
 * descriptor (refused, probe mode or closed); -ESTALE no longer the same
 * drive; -EPERM not named; -EBUSY in use.
 */
int guard_recheck(struct guard *g, const char *want, bool whole_ctrl);

/**
 * guard_set_run() - record the run id in the lock files (who holds the drive)
 * @g: guard
 * @run_id: run
 *
 * Rewrites each lock file held as "pid=P uid=U run=R via=PROGRAM", what
 * another process's dry run prints; write errors are ignored (the lock is
 * what counts, the text only explains it).
 */
void guard_set_run(struct guard *g, int64_t run_id);

/**
 * guard_close() - release the descriptor and the locks
 * @g: guard from guard_open() (may be refused, or closed already)
 *
 * Lock files are emptied and closed, never unlinked (unlinking races with
 * the next process that locks the same file).  @g's identity and reasons
 * stay readable.
 */
void guard_close(struct guard *g);

/**
 * guard_refusal() - the one refusal message
 * @g: a refused guard
 * @buf: destination
 * @len: size of @buf
 *
 * "refusing /dev/loop3: loop3 is mounted at /mnt; loop3 is active swap":
 * the reasons kept, joined by "; ", then "; and N more" when there were
 * more than GUARD_REASONS_MAX; the errno text when there is no reason.
 * Cut to @len.
 *
 * Return: @buf.
 */
char *guard_refusal(const struct guard *g, char *buf, size_t len);

/**
 * guard_checks() - one line saying what was checked, for a passed gate
 * @g: guard
 * @buf: destination
 * @len: size of @buf
 *
 * "identity matches the plan (serial); not in use; <lock note>", or
 * "identity read; the plan does not write" without GUARD_WRITES.
 *
 * Return: @buf.
 */
char *guard_checks(const struct guard *g, char *buf, size_t len);

/**
 * guard_erase() - erase a target through the gate, from its path
 * @path: device or file
 * @o: options; @o->want is required unless @o->method is ERASE_NONE (it
 *     is reported as a "serial" in messages whatever it names)
 * @id: the identity erased, written once the gate passed (may be NULL)
 * @rec: result (zeroed first)
 *
 * guard_open() with GUARD_WRITES (ERASE_NONE: without), so the identity
 * is read through the descriptor that will be written and matched with
 * @o->want, every use is checked (over every namespace when the chain may
 * reach them) and the locks are taken; then erase_run() through that
 * descriptor.  The descriptor and the locks are released before it
 * returns.
 *
 * Return: as erase_run(), or the refusal of guard_open() (-EPERM, -EBUSY,
 * -ESTALE, -EINVAL, -errno of identify / open); @rec->msg says why.
 */
int guard_erase(const char *path, const struct erase_opts *o, struct target_identity *id,
		struct erase_record *rec);

#endif
