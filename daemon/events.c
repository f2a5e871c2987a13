// SPDX-License-Identifier: MIT
/*
 * events: where run events go besides the database: the journal (one
 * structured entry per event, a fixed MESSAGE_ID per kind, fields RUN=,
 * DEVICE=, SERIAL=, PHASE=), the hook commands (started by the event loop
 * as hook_user without capabilities, under a time limit, never on a run's
 * thread), and the Prometheus textfile.  The kinds and their MESSAGE_IDs
 * are runner.c's table (runner_event_kind()).
 */
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <limits.h>
#include <math.h>
#include <pwd.h>
#include <sched.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <linux/capability.h>

#ifdef __SANITIZE_ADDRESS__
#include <sanitizer/asan_interface.h>
#endif

#include <systemd/sd-journal.h>

#include "events.h"
#include "guard.h"
#include "manager.h"
#include "parse.h"
#include "paths.h"
#include "plateaud.h"

void events_journal(const struct runner_event *ev)
{
	const struct runner_event_kind *k = runner_event_kind(ev->kind);

	/* the plain line when stderr is not the journal (by hand, tests);
	 * under systemd the structured entry below is the one line */
	if (!log_is_journal())
		log_msg(ev->priority, "run %lld: %s", (long long)ev->run_id, ev->message);
	(void)sd_journal_send(
		"MESSAGE=run %lld: %s", (long long)ev->run_id, ev->message, "MESSAGE_ID=%s",
		k ? k->message_id : "00000000000000000000000000000000", "PRIORITY=%d", ev->priority,
		"SYSLOG_IDENTIFIER=plateaud", "PLATEAU_EVENT=%s", ev->kind, "RUN=%lld",
		(long long)ev->run_id, "DEVICE=%s", ev->device ? ev->device : "", "SERIAL=%s",
		ev->serial ? ev->serial : "", "PHASE=%d", ev->phase_seq, "PHASE_KIND=%s",
		ev->phase_kind ? ev->phase_kind : "", "PLATEAU_DATA=%s", ev->data ? ev->data : "",
		NULL);
}

void events_journal_refusal(const char *device, const char *serial, unsigned int uid, int pid,
			    const char *message)
{
	if (!log_is_journal())
		log_msg(LOG_WARNING, "%s (asked by uid %u, pid %d)", message, uid, pid);
	(void)sd_journal_send("MESSAGE=%s (asked by uid %u, pid %d)", message, uid, pid,
			      "MESSAGE_ID=%s", GUARD_REFUSED_MESSAGE_ID, "PRIORITY=%d", LOG_WARNING,
			      "SYSLOG_IDENTIFIER=plateaud", "PLATEAU_EVENT=refused", "DEVICE=%s",
			      device ? device : "", "SERIAL=%s", serial ? serial : "",
			      "REQUESTER_UID=%u", uid, "REQUESTER_PID=%d", pid, NULL);
}

/* --- hooks --- */

/*
 * Hooks are code plateaud runs, so only plateaud.conf (root's) names them;
 * a plan chooses one by name.  At every call the file is opened once,
 * walking from "/" one component at a time without following symbolic
 * links, each step checked through the descriptor it opened, and that same
 * descriptor is executed: a path is never looked up twice, so the file
 * checked is the file that runs.  The hook runs as hook_user, never as
 * root, with no capabilities and no way to gain any (hook_child()).
 */

const struct hook_def *events_hook_def(const struct manager *m, const char *name)
{
	for (size_t i = 0; i < m->nhook_defs; i++)
		if (!strcmp(m->hook_defs[i].name, name))
			return &m->hook_defs[i];
	return NULL;
}

/* Who may own a hook and the directories above it: root, whose
 * plateaud.conf named it; and a daemon that is not root runs its hooks as
 * its own user, so that user's files add no one else's code. */
static bool hook_owner_ok(uid_t uid)
{
	uid_t me = geteuid();

	return uid == 0 || (me != 0 && uid == me);
}

static const char *hook_owner_rule(void)
{
	return geteuid() == 0 ? "root" : "root or plateaud's user";
}

/*
 * Open hook @path for execution, checking as it goes: 0 and *fdp (O_PATH,
 * close-on-exec), or -errno and why (naming the component at fault).
 */
static int hook_open(const char *path, int *fdp, char *why, size_t len)
{
	char buf[PATH_MAX], at[PATH_MAX] = "", *comp, *next, *save = NULL;
	struct stat st;
	int dfd, fd, r;

	if (path[0] != '/') {
		snprintf(why, len, "'%s': expected an absolute path", path);
		return -EINVAL;
	}
	if (strlen(path) >= sizeof(buf)) {
		snprintf(why, len, "path too long");
		return -ENAMETOOLONG;
	}
	memcpy(buf, path, strlen(path) + 1);
	dfd = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0 || fstat(dfd, &st) < 0) {
		r = -errno;
		snprintf(why, len, "/: %s", strerror(-r));
		if (dfd >= 0)
			close(dfd);
		return r;
	}
	strcpy(at, "/");
	for (comp = strtok_r(buf, "/", &save); comp; comp = next) {
		next = strtok_r(NULL, "/", &save);
		/*
		 * The directory @dfd holds: owned by root (or by plateaud's
		 * user) and writable by its owner only.  A root-owned sticky
		 * directory (/tmp) is allowed: others may add entries there but
		 * may not rename or remove root's, and what they add is theirs
		 * and fails the owner check of the next step.
		 */
		if (!hook_owner_ok(st.st_uid) || ((st.st_mode & (S_IWGRP | S_IWOTH)) &&
						  !(st.st_uid == 0 && (st.st_mode & S_ISVTX)))) {
			snprintf(why, len,
				 "directory %.200s must be owned by %s and writable by its owner "
				 "only "
				 "(it is owned by uid %u, mode %04o)",
				 at, hook_owner_rule(), (unsigned)st.st_uid,
				 (unsigned)(st.st_mode & 07777));
			close(dfd);
			return -EPERM;
		}
		if (!strcmp(comp, ".") || !strcmp(comp, "..")) {
			snprintf(why, len, "'%s' in the path: expected a plain absolute path",
				 comp);
			close(dfd);
			return -EINVAL;
		}
		snprintf(at + strlen(at), sizeof(at) - strlen(at), "%s%s",
			 strcmp(at, "/") ? "/" : "", comp);
		fd = openat(dfd, comp, O_PATH | O_NOFOLLOW | O_CLOEXEC);
		r = -errno;
		close(dfd);
		if (fd < 0) {
			snprintf(why, len, "%.200s: %s", at, strerror(-r));
			return r;
		}
		if (fstat(fd, &st) < 0) {
			r = -errno;
			snprintf(why, len, "%.200s: %s", at, strerror(-r));
			close(fd);
			return r;
		}
		if (S_ISLNK(st.st_mode)) {
			snprintf(why, len,
				 "%.200s is a symbolic link: name the hook by a path without any",
				 at);
			close(fd);
			return -ELOOP;
		}
		if (next) {
			if (!S_ISDIR(st.st_mode)) {
				snprintf(why, len, "%.200s: not a directory", at);
				close(fd);
				return -ENOTDIR;
			}
			dfd = fd;
			continue;
		}
		if (!S_ISREG(st.st_mode) || !(st.st_mode & (S_IXUSR | S_IXGRP | S_IXOTH))) {
			snprintf(why, len, "%.200s: not an executable regular file", at);
			close(fd);
			return -EACCES;
		}
		if (!hook_owner_ok(st.st_uid) || (st.st_mode & (S_IWGRP | S_IWOTH))) {
			snprintf(why, len,
				 "%.200s must be owned by %s and writable by its owner only (it is "
				 "owned by uid %u, mode %04o)",
				 at, hook_owner_rule(), (unsigned)st.st_uid,
				 (unsigned)(st.st_mode & 07777));
			close(fd);
			return -EPERM;
		}
		*fdp = fd;
		return 0;
	}
	close(dfd);
	snprintf(why, len, "/: not an executable regular file");
	return -EACCES;
}

#define HOOK_GROUPS_MAX 64

/* The identity a hook runs as, looked up before the clone (NSS is not for
 * the child). */
struct hook_cred {
	bool root; /* plateaud is root: set the groups, the bounding set must go */
	uid_t uid;
	gid_t gid;
	gid_t groups[HOOK_GROUPS_MAX];
	int ngroups;
};

static int hook_cred(const struct manager *m, struct hook_cred *c, char *why, size_t len)
{
	const char *user = *m->hook_user ? m->hook_user : PLATEAUD_DEFAULT_HOOK_USER;
	struct passwd pw, *res = NULL;
	char buf[4096];
	int r;

	memset(c, 0, sizeof(*c));
	if (geteuid() != 0) {
		/* a test's or a user's daemon: hooks run as its own user */
		c->uid = geteuid();
		c->gid = getegid();
		return 0;
	}
	c->root = true;
	r = getpwnam_r(user, &pw, buf, sizeof(buf), &res);
	if (!res) {
		snprintf(why, len,
			 "hook_user '%s' %s (hooks never fall back to root: create the user or "
			 "set hook_user in %s)",
			 user, r ? strerror(r) : "does not exist",
			 *m->config_path ? m->config_path : PLATEAU_DEFAULT_CONFIG);
		return -ENOENT;
	}
	if (pw.pw_uid == 0 || pw.pw_gid == 0) {
		snprintf(why, len, "hook_user '%s' has uid or gid 0: hooks never run as root",
			 user);
		return -EPERM;
	}
	c->uid = pw.pw_uid;
	c->gid = pw.pw_gid;
	/* the user's own groups (an admin may add it to plateau to let hooks
	 * read the database), never the daemon's */
	c->ngroups = HOOK_GROUPS_MAX;
	if (getgrouplist(user, pw.pw_gid, c->groups, &c->ngroups) < 0) {
		snprintf(why, len, "hook_user '%s' is in more than %d groups", user,
			 HOOK_GROUPS_MAX);
		return -E2BIG;
	}
	for (int i = 0; i < c->ngroups; i++)
		if (c->groups[i] == 0) {
			snprintf(why, len, "hook_user '%s' is in group 0: hooks never run as root",
				 user);
			return -EPERM;
		}
	return 0;
}

int events_hook_resolve(const struct manager *m, const char *name, char *why, size_t len)
{
	const struct hook_def *d = events_hook_def(m, name);
	struct hook_cred c;
	char w[512];
	int fd, r;

	if (!d) {
		snprintf(why, len,
			 "no hook '%s' in the [hooks] section of %s: plans choose among the hooks "
			 "it defines (plateaud(8), HOOKS)",
			 name, *m->config_path ? m->config_path : PLATEAU_DEFAULT_CONFIG);
		return -ENOENT;
	}
	r = hook_open(d->path, &fd, w, sizeof(w));
	if (r) {
		snprintf(why, len, "[hooks] %s = %s: %s", d->name, d->path, w);
		return r;
	}
	close(fd);
	r = hook_cred(m, &c, why, len);
	return r;
}

void events_hooks_check(const struct manager *m)
{
	char why[768];
	struct hook_cred c;
	int fd;

	if (*m->hook && !hook_open(m->hook, &fd, why, sizeof(why)))
		close(fd);
	else if (*m->hook)
		log_msg(LOG_WARNING,
			"hook %s: not run as it stands (checked again at every call): %s", m->hook,
			why);
	for (size_t i = 0; i < m->nhook_defs; i++) {
		if (!hook_open(m->hook_defs[i].path, &fd, why, sizeof(why)))
			close(fd);
		else
			log_msg(LOG_WARNING,
				"[hooks] %s = %s: not run as it stands (checked again at every "
				"call): %s",
				m->hook_defs[i].name, m->hook_defs[i].path, why);
	}
	if ((*m->hook || m->nhook_defs) && hook_cred(m, &c, why, sizeof(why)))
		log_msg(LOG_WARNING, "hooks will not run: %s", why);
}

/* a hook call waiting for its lane */
struct hook_job {
	struct hook_job *next;
	char *argv0;
	char **envp;
	long long run;
	char event[32];
};

/*
 * The calls of one hook for one run, in the order the events happened: the
 * next starts when the one before has exited or been killed, so an alert
 * never hears "steady lost" before "steady reached".  Loop thread only.
 */
struct hook_run;
struct hook_lane {
	struct hook_lane *next;
	char cmd[256];
	long long run;
	struct hook_run *running; /* the call in progress, or NULL */
	size_t nqueued;
	struct hook_job *head, *tail;
};

struct hook_run {
	struct manager *m;
	struct hook_lane *lane;
	pid_t pid;
	char cmd[256];
	char event[32];
	long long run;
	sd_event_source *child, *timer;
};

static char *events_env(const char *key, const char *val)
{
	char *s;

	if (asprintf(&s, "%s=%s", key, val ? val : "") < 0)
		return NULL;
	return s;
}

static void hook_job_free(struct hook_job *j)
{
	if (!j)
		return;
	for (size_t i = 0; j->envp && j->envp[i]; i++)
		free(j->envp[i]);
	free(j->envp);
	free(j->argv0);
	free(j);
}

static void events_queue_one(struct manager *m, const char *cmd, struct drun *r,
			     const struct runner_event *ev)
{
	struct hook_job *j = calloc(1, sizeof(*j));
	char num[32], when[64];
	time_t t = time(NULL);
	struct tm tm;
	size_t k = 0;

	if (!j)
		return;
	j->argv0 = strdup(cmd);
	j->envp = calloc(16, sizeof(char *));
	j->run = (long long)ev->run_id;
	snprintf(j->event, sizeof(j->event), "%s", ev->kind);
	if (!j->argv0 || !j->envp) {
		hook_job_free(j);
		return;
	}
	gmtime_r(&t, &tm);
	strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%SZ", &tm);
	j->envp[k++] =
		events_env("PATH", "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin");
	j->envp[k++] = events_env("PLATEAU_EVENT", ev->kind);
	snprintf(num, sizeof(num), "%lld", (long long)ev->run_id);
	j->envp[k++] = events_env("PLATEAU_RUN", num);
	j->envp[k++] = events_env("PLATEAU_RUN_NAME", r->name);
	snprintf(num, sizeof(num), "%d", ev->phase_seq);
	j->envp[k++] = events_env("PLATEAU_PHASE", num);
	j->envp[k++] = events_env("PLATEAU_PHASE_KIND", ev->phase_kind);
	j->envp[k++] = events_env("PLATEAU_DEVICE", ev->device);
	j->envp[k++] = events_env("PLATEAU_SERIAL", ev->serial);
	j->envp[k++] = events_env("PLATEAU_MESSAGE", ev->message);
	j->envp[k++] = events_env("PLATEAU_DATA", ev->data);
	snprintf(num, sizeof(num), "%d", ev->priority);
	j->envp[k++] = events_env("PLATEAU_PRIORITY", num);
	j->envp[k++] = events_env("PLATEAU_TIME", when);
	j->envp[k++] = events_env("PLATEAU_DATABASE", m->db_path);
	j->envp[k] = NULL;
	for (size_t i = 0; i < k; i++)
		if (!j->envp[i]) {
			hook_job_free(j);
			return;
		}
	pthread_mutex_lock(&m->hook_lock);
	j->next = m->hooks;
	m->hooks = j;
	pthread_mutex_unlock(&m->hook_lock);
}

void events_queue_hooks(struct manager *m, struct drun *r, const struct runner_event *ev)
{
	const struct hook_def *d = *r->hook ? events_hook_def(m, r->hook) : NULL;

	if (!*m->hook && !*r->hook)
		return;
	if (*m->hook)
		events_queue_one(m, m->hook, r, ev);
	if (*r->hook && !d)
		/* a resumed run whose hook plateaud.conf no longer defines */
		log_msg(LOG_WARNING,
			"run %lld: hook '%s' not run for %s: no such hook in the [hooks] section "
			"of %s",
			(long long)r->id, r->hook, ev->kind,
			*m->config_path ? m->config_path : PLATEAU_DEFAULT_CONFIG);
	else if (d && strcmp(d->path, m->hook))
		events_queue_one(m, d->path, r, ev);
	manager_wake(m);
}

static void hook_run_free(struct hook_run *h)
{
	sd_event_source_unref(h->child);
	sd_event_source_unref(h->timer);
	free(h);
}

static void events_pump(struct manager *m);

static int on_hook_exit(sd_event_source *s, const siginfo_t *si, void *userdata)
{
	struct hook_run *h = userdata;
	struct manager *m = h->m;

	(void)s;
	if (si->si_code != CLD_EXITED || si->si_status != 0)
		log_msg(LOG_WARNING, "hook %s for %s of run %lld %s %d, ignoring", h->cmd, h->event,
			h->run,
			si->si_code == CLD_EXITED ? "exited with status" : "was killed by signal",
			si->si_status);
	h->lane->running = NULL;
	hook_run_free(h);
	events_pump(m);
	if (m->stopping)
		manager_wake(m); /* it may be waiting for the last hook */
	return 0;
}

static int on_hook_timeout(sd_event_source *s, uint64_t usec, void *userdata)
{
	struct hook_run *h = userdata;

	(void)s;
	(void)usec;
	log_msg(LOG_WARNING, "hook %s for %s of run %lld ran past its time limit: killed", h->cmd,
		h->event, h->run);
	/* the hook runs in its own process group: take its children too,
	 * and the hook itself should it have left the group */
	(void)kill(-h->pid, SIGKILL);
	(void)kill(h->pid, SIGKILL);
	return 0;
}

/*
 * What the hook's child needs, and where it says why it stopped short of
 * the exec.  The child shares the daemon's memory (CLONE_VM, as
 * posix_spawn does: a fork would copy the runs' pinned I/O buffers) and the
 * daemon waits until it has exec'd or exited (CLONE_VFORK), so it makes
 * system calls only: no allocation, no lock, no NSS, and the id changes
 * through syscall(), not glibc's wrappers, which would try to change the
 * daemon's threads too.
 */
struct hook_child {
	int fd; /* the checked hook, O_PATH */
	char **argv, **envp;
	const struct hook_cred *cred;
	const char *volatile failed; /* the step that failed, set by the child */
	volatile int err;
};

static __attribute__((noreturn)) void hook_child_fail(struct hook_child *k, const char *step,
						      int err)
{
	k->failed = step;
	k->err = err ? err : EPERM;
	_exit(127);
}

static int hook_child(void *arg)
{
	struct hook_child *k = arg;
	const struct hook_cred *c = k->cred;
	struct __user_cap_header_struct hdr = {.version = _LINUX_CAPABILITY_VERSION_3};
	struct __user_cap_data_struct caps[2];
	struct sigaction sa;
	uint64_t none = 0;
	bool bounded = true;
	uid_t ru, eu, su;
	gid_t rg, eg, sg;
	int fd, cap;

	/* default dispositions before the mask opens (the daemon blocked all) */
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = SIG_DFL;
	for (int s = 1; s < _NSIG; s++)
		(void)sigaction(s, &sa, NULL);
	/* its own process group: a time limit kills its children too */
	if (setpgid(0, 0) < 0)
		hook_child_fail(k, "setpgid", errno);
	fd = open("/dev/null", O_RDONLY);
	if (fd < 0)
		hook_child_fail(k, "open /dev/null", errno);
	if (fd != 0 && (dup2(fd, 0) < 0 || close(fd) < 0))
		hook_child_fail(k, "dup2", errno);
	if (chdir("/") < 0)
		hook_child_fail(k, "chdir /", errno);
	if (c->root && syscall(SYS_setgroups, (size_t)c->ngroups, c->groups) < 0)
		hook_child_fail(k, "setgroups", errno);
	/* the bounding set needs CAP_SETPCAP: before the ids change */
	for (cap = 0; cap < 64; cap++) {
		if (!prctl(PR_CAPBSET_DROP, cap, 0, 0, 0))
			continue;
		if (errno == EINVAL)
			break; /* past the kernel's last capability */
		if (errno == EPERM && !c->root) {
			/* a user's daemon without CAP_SETPCAP: nothing of the
			 * bounding set can come back under no_new_privs */
			bounded = false;
			break;
		}
		hook_child_fail(k, "PR_CAPBSET_DROP", errno);
	}
	if (prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0) < 0 && errno != EINVAL)
		hook_child_fail(k, "PR_CAP_AMBIENT_CLEAR_ALL", errno);
	if (syscall(SYS_setresgid, c->gid, c->gid, c->gid) < 0)
		hook_child_fail(k, "setresgid", errno);
	if (syscall(SYS_setresuid, c->uid, c->uid, c->uid) < 0)
		hook_child_fail(k, "setresuid", errno);
	memset(caps, 0, sizeof(caps));
	if (syscall(SYS_capset, &hdr, caps) < 0)
		hook_child_fail(k, "capset", errno);
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
		hook_child_fail(k, "PR_SET_NO_NEW_PRIVS", errno);

	/* never exec what the above did not make: check every part of it */
	if (syscall(SYS_getresuid, &ru, &eu, &su) < 0 || ru != c->uid || eu != c->uid ||
	    su != c->uid)
		hook_child_fail(k, "verifying the uids", EPERM);
	if (syscall(SYS_getresgid, &rg, &eg, &sg) < 0 || rg != c->gid || eg != c->gid ||
	    sg != c->gid)
		hook_child_fail(k, "verifying the gids", EPERM);
	hdr.version = _LINUX_CAPABILITY_VERSION_3;
	hdr.pid = 0;
	if (syscall(SYS_capget, &hdr, caps) < 0 || caps[0].effective || caps[0].permitted ||
	    caps[0].inheritable || caps[1].effective || caps[1].permitted || caps[1].inheritable)
		hook_child_fail(k, "verifying that no capability is left", EPERM);
	for (cap = 0; bounded && cap < 64; cap++) {
		int in = prctl(PR_CAPBSET_READ, cap, 0, 0, 0);

		if (in < 0)
			break;
		if (in)
			hook_child_fail(k, "verifying the bounding set", EPERM);
	}
	if (prctl(PR_GET_NO_NEW_PRIVS, 0, 0, 0, 0) != 1)
		hook_child_fail(k, "verifying no_new_privs", EPERM);

	/* the kernel hands a #! script to its interpreter as /dev/fd/N: the
	 * descriptor must outlive the exec */
	if (fcntl(k->fd, F_SETFD, 0) < 0)
		hook_child_fail(k, "fcntl", errno);
	if (syscall(SYS_rt_sigprocmask, SIG_SETMASK, &none, NULL, sizeof(none)) < 0)
		hook_child_fail(k, "sigprocmask", errno);
	syscall(SYS_execveat, k->fd, "", k->argv, k->envp, AT_EMPTY_PATH);
	hook_child_fail(k, "execveat", errno);
}

#define HOOK_STACK_BYTES (256 * 1024)

/* Start the hook checked as @fd: its pid, or -errno and the step in @why. */
static pid_t hook_exec(int fd, char **argv, char **envp, const struct hook_cred *c, char *why,
		       size_t len)
{
	struct hook_child k = {.fd = fd, .argv = argv, .envp = envp, .cred = c};
	sigset_t all, old;
	char *stack;
	pid_t pid;
	int e;

	stack = mmap(NULL, HOOK_STACK_BYTES, PROT_READ | PROT_WRITE,
		     MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK, -1, 0);
	if (stack == MAP_FAILED) {
		e = errno;
		snprintf(why, len, "stack: %s", strerror(e));
		return -e;
	}
	/* no handler of the daemon's may run on the child's stack */
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &old);
	pid = clone(hook_child, stack + HOOK_STACK_BYTES, CLONE_VM | CLONE_VFORK | SIGCHLD, &k);
	e = errno;
	pthread_sigmask(SIG_SETMASK, &old, NULL);
#ifdef __SANITIZE_ADDRESS__
	/* the child's frames left their redzones in this stack's shadow: a
	 * later mapping at the same address (an engine's buffers) would
	 * inherit them and trip AddressSanitizer */
	ASAN_UNPOISON_MEMORY_REGION(stack, HOOK_STACK_BYTES);
#endif
	munmap(stack, HOOK_STACK_BYTES);
	if (pid < 0) {
		snprintf(why, len, "clone: %s", strerror(e));
		return -e;
	}
	if (k.failed) {
		/* it has exited (CLONE_VFORK): reap it here, nobody watches it */
		(void)waitpid(pid, NULL, 0);
		snprintf(why, len, "%s: %s (not run)", (const char *)k.failed, strerror(k.err));
		return -k.err;
	}
	return pid;
}

/* Start @j: its lane's running call, or, when it cannot be started, logged
 * and the lane goes on with the next call. */
static void events_spawn(struct manager *m, struct hook_lane *lane, struct hook_job *j)
{
	char *argv[2] = {j->argv0, NULL};
	struct hook_cred cred;
	struct hook_run *h;
	char why[768];
	uint64_t now;
	pid_t pid;
	int fd;

	/* checked at every call: the file may have changed since the last */
	if (hook_open(j->argv0, &fd, why, sizeof(why))) {
		log_msg(LOG_WARNING, "hook %s for %s of run %lld not run: %s", j->argv0, j->event,
			j->run, why);
		return;
	}
	if (hook_cred(m, &cred, why, sizeof(why))) {
		log_msg(LOG_WARNING, "hook %s for %s of run %lld not run: %s", j->argv0, j->event,
			j->run, why);
		close(fd);
		return;
	}
	h = calloc(1, sizeof(*h));
	if (!h) {
		log_msg(LOG_WARNING, "hook %s for %s of run %lld: out of memory, ignoring",
			j->argv0, j->event, j->run);
		close(fd);
		return;
	}
	snprintf(h->cmd, sizeof(h->cmd), "%s", j->argv0);
	snprintf(h->event, sizeof(h->event), "%s", j->event);
	h->run = j->run;
	pid = hook_exec(fd, argv, j->envp, &cred, why, sizeof(why));
	close(fd);
	if (pid < 0) {
		log_msg(LOG_WARNING, "hook %s for %s of run %lld: %s, ignoring", h->cmd, h->event,
			h->run, why);
		free(h);
		return;
	}
	h->m = m;
	h->lane = lane;
	h->pid = pid;
	lane->running = h;
	sd_event_now(m->event, CLOCK_MONOTONIC, &now);
	if (sd_event_add_child(m->event, &h->child, pid, WEXITED, on_hook_exit, h) < 0 ||
	    sd_event_add_time(m->event, &h->timer, CLOCK_MONOTONIC, now + m->hook_timeout_ns / 1000,
			      0, on_hook_timeout, h) < 0) {
		/* unwatched, it would hold its lane for ever: stop it now */
		log_msg(LOG_WARNING, "hook %s for %s of run %lld: cannot watch pid %d, killed",
			h->cmd, h->event, h->run, (int)pid);
		(void)kill(-pid, SIGKILL);
		(void)waitpid(pid, NULL, WNOHANG); /* never block the loop */
		lane->running = NULL;
		hook_run_free(h);
		return;
	}
}

/* Start the next call of every idle lane; free the lanes left empty. */
static void events_pump(struct manager *m)
{
	struct hook_lane **pp = &m->lanes;

	while (*pp) {
		struct hook_lane *l = *pp;

		while (!l->running && l->head) {
			struct hook_job *j = l->head;

			l->head = j->next;
			if (!l->head)
				l->tail = NULL;
			l->nqueued--;
			events_spawn(m, l, j);
			hook_job_free(j);
		}
		if (!l->running && !l->head) {
			*pp = l->next;
			free(l);
			continue;
		}
		pp = &l->next;
	}
}

static void events_lane_add(struct manager *m, struct hook_job *j)
{
	struct hook_lane *l;

	for (l = m->lanes; l; l = l->next)
		if (l->run == j->run && !strcmp(l->cmd, j->argv0))
			break;
	if (!l) {
		l = calloc(1, sizeof(*l));
		if (!l) {
			log_msg(LOG_WARNING, "hook %s for %s of run %lld: out of memory, ignoring",
				j->argv0, j->event, j->run);
			hook_job_free(j);
			return;
		}
		snprintf(l->cmd, sizeof(l->cmd), "%s", j->argv0);
		l->run = j->run;
		l->next = m->lanes;
		m->lanes = l;
	}
	/* an idle lane starts its first call at once; the end of a run is
	 * always passed on */
	if (l->nqueued >= PLATEAUD_HOOK_QUEUE_MAX + (l->running ? 0 : 1) &&
	    strcmp(j->event, RUNNER_EV_DONE) && strcmp(j->event, RUNNER_EV_FAILED) &&
	    strcmp(j->event, RUNNER_EV_STOPPED) && strcmp(j->event, RUNNER_EV_PAUSED)) {
		log_msg(LOG_WARNING,
			"hook %s: %zu calls for run %lld already wait behind a running one: "
			"%s not passed on",
			l->cmd, l->nqueued, j->run, j->event);
		hook_job_free(j);
		return;
	}
	j->next = NULL;
	if (l->tail)
		l->tail->next = j;
	else
		l->head = j;
	l->tail = j;
	l->nqueued++;
}

/* Move the calls queued by any thread to their lanes, oldest first. */
static void events_take_hooks(struct manager *m)
{
	struct hook_job *list, *rev = NULL;

	pthread_mutex_lock(&m->hook_lock);
	list = m->hooks;
	m->hooks = NULL;
	pthread_mutex_unlock(&m->hook_lock);
	/* oldest first */
	while (list) {
		struct hook_job *n = list->next;

		list->next = rev;
		rev = list;
		list = n;
	}
	while (rev) {
		struct hook_job *n = rev->next;

		events_lane_add(m, rev);
		rev = n;
	}
}

void events_run_hooks(struct manager *m)
{
	events_take_hooks(m);
	events_pump(m);
}

bool events_hooks_idle(struct manager *m)
{
	bool queued;

	pthread_mutex_lock(&m->hook_lock);
	queued = m->hooks != NULL;
	pthread_mutex_unlock(&m->hook_lock);
	return !queued && !m->lanes;
}

void events_drop_hooks(struct manager *m)
{
	/* the loop is over: nothing is started now, nothing watched */
	events_take_hooks(m);
	while (m->lanes) {
		struct hook_lane *l = m->lanes;

		if (l->running)
			hook_run_free(l->running);
		if (l->nqueued)
			log_msg(LOG_WARNING,
				"hook %s: %zu calls for run %lld not made: plateaud is stopping",
				l->cmd, l->nqueued, l->run);
		while (l->head) {
			struct hook_job *j = l->head;

			l->head = j->next;
			hook_job_free(j);
		}
		m->lanes = l->next;
		free(l);
	}
}

/* --- Prometheus textfile (node_exporter textfile collector format) --- */

/*
 * The figures of the samples and the counters come from the database,
 * through a read-only connection of the textfile's own: what the file says
 * is what is stored (`plateau samples` prints the same sample), and the
 * counters go on from the stored samples after a restart.  Any thread
 * writes the file, under prom_lock, which guards this state too (one
 * manager per process); a write reads only the samples stored since the
 * one before, per phase by seq.
 */
struct prom_phase {
	int64_t id;
	int seq;
	char kind[16];
	char state[16];
	int steady;	  /* -1 not judged, 0, 1 */
	int64_t next_seq; /* the first seq not counted yet */
	bool complete;	  /* ended and read to its end: nothing more comes */
	bool have_full;
	struct sample full; /* the last full sample (not partial, not aborted) */
	/* the summary's count and sum, per direction: every stored sample's */
	uint64_t lat_count[SAMPLE_NDIRS];
	double lat_sum_ns[SAMPLE_NDIRS];
};

struct prom_run {
	struct prom_run *next;
	int64_t id;
	bool listed;   /* in the file being written */
	bool complete; /* read after the run ended: nothing more comes */
	bool have_run;
	char uuid[STORE_UUID_LEN + 1]; /* the run's global id, "": none stored */
	char host[128];		       /* the host that ran it, as stored */
	/* every stored sample's, partial and aborted ones too: I/O done */
	uint64_t ios[2], bytes[2], errors;
	int64_t last_end_ns;
	struct prom_phase *ph;
	size_t nph;
};

static struct {
	struct store *s;
	bool failing; /* logged once until a read succeeds again */
	struct prom_run *runs;
} prom_db;

/* What the file shows of one run, copied under the locks. */
struct prom_snap {
	int64_t id;
	char name[128];
	char device[256];
	char serial[96];
	int64_t interval_ns;
	int64_t ended_ns;
	struct drun_status st;
	const struct prom_run *pr;    /* NULL: the database could not be read */
	const struct prom_phase *cur; /* the current phase of a run in progress */
};

/* a label value, escaped as the text format wants */
static void prom_label(FILE *f, const char *s)
{
	for (; *s; s++) {
		if (*s == '\\' || *s == '"')
			fputc('\\', f);
		if (*s == '\n') {
			fputs("\\n", f);
			continue;
		}
		fputc(*s, f);
	}
}

static const char *const prom_dirs[SAMPLE_NDIRS] = {"read", "write", "all"};
/* sample_pcts as fractions, the quantile label's values */
static const char *const prom_quantiles[SAMPLE_NPCT] = {"0.5", "0.9", "0.99", "0.999", "0.9999"};

static void prom_db_failed(const char *what)
{
	if (!prom_db.failing)
		log_msg(LOG_WARNING,
			"Prometheus textfile: %s; the file goes on without the figures of the "
			"samples and the counters until the database can be read",
			what);
	prom_db.failing = true;
}

struct prom_scan {
	struct prom_run *pr;
	struct prom_phase *p;
};

static int prom_scan_sample(void *ctx, const struct sample *smp)
{
	struct prom_run *pr = ((struct prom_scan *)ctx)->pr;
	struct prom_phase *p = ((struct prom_scan *)ctx)->p;

	for (int d = SAMPLE_READ; d <= SAMPLE_WRITE; d++) {
		pr->ios[d] += smp->st[d].ios;
		pr->bytes[d] += smp->st[d].bytes;
	}
	pr->errors += smp->errors;
	for (int d = 0; d < SAMPLE_NDIRS; d++) {
		p->lat_count[d] += smp->st[d].ios;
		p->lat_sum_ns[d] += smp->st[d].lat_mean_ns * (double)smp->st[d].ios;
	}
	if (smp->end_ns > pr->last_end_ns)
		pr->last_end_ns = smp->end_ns;
	p->next_seq = smp->seq + 1;
	if (!smp->partial && !smp->aborted) {
		p->full = *smp;
		p->full.hist[0] = p->full.hist[1] = NULL;
		p->have_full = true;
	}
	return 0;
}

static bool prom_state_over(const char *state)
{
	return !strcmp(state, "done") || !strcmp(state, "failed") || !strcmp(state, "stopped") ||
	       !strcmp(state, "skipped");
}

/* Read what run @pr stored since the last call.  Phases are read before
 * their samples, so a phase seen over has all its samples stored. */
static int prom_refresh(struct prom_run *pr, bool ended)
{
	struct store_phase *ph = NULL;
	size_t n = 0;
	int ret;

	if (pr->complete)
		return 0;
	if (!pr->have_run) {
		struct store_run run;

		store_run_init(&run);
		ret = store_run_get(prom_db.s, pr->id, &run);
		if (!ret) {
			snprintf(pr->uuid, sizeof(pr->uuid), "%s", run.uuid);
			snprintf(pr->host, sizeof(pr->host), "%s", run.host);
			pr->have_run = true;
		}
		store_run_clear(&run);
		if (ret)
			return ret;
	}
	ret = store_phases_list(prom_db.s, pr->id, &ph, &n);
	if (ret)
		return ret;
	if (n > pr->nph) {
		struct prom_phase *np = realloc(pr->ph, n * sizeof(*np));

		if (!np) {
			store_phases_free(ph, n);
			return -ENOMEM;
		}
		memset(np + pr->nph, 0, (n - pr->nph) * sizeof(*np));
		pr->ph = np;
		pr->nph = n;
	}
	for (size_t i = 0; i < n && !ret; i++) {
		struct prom_phase *p = &pr->ph[i];
		struct prom_scan c = {pr, p};

		if (p->id != ph[i].id) {
			memset(p, 0, sizeof(*p));
			p->id = ph[i].id;
			p->next_seq = 1;
		}
		p->seq = ph[i].seq;
		snprintf(p->kind, sizeof(p->kind), "%s", ph[i].kind);
		snprintf(p->state, sizeof(p->state), "%s", ph[i].state);
		p->steady = ph[i].steady;
		if (p->complete || !strcmp(p->state, "pending") || !strcmp(p->kind, "erase"))
			continue;
		ret = store_samples_foreach(prom_db.s, p->id, p->next_seq, STORE_WITH_ABORTED,
					    prom_scan_sample, &c);
		if (!ret && prom_state_over(p->state))
			p->complete = true;
	}
	if (!ret && ended)
		pr->complete = true;
	store_phases_free(ph, n);
	return ret;
}

static struct prom_run *prom_run_of(int64_t id)
{
	struct prom_run *pr;

	for (pr = prom_db.runs; pr; pr = pr->next)
		if (pr->id == id)
			return pr;
	pr = calloc(1, sizeof(*pr));
	if (!pr)
		return NULL;
	pr->id = id;
	pr->next = prom_db.runs;
	prom_db.runs = pr;
	return pr;
}

/* Bring every run of @snap up to date with the database; forget the runs
 * that left the file. */
static void prom_read_db(struct manager *m, struct prom_snap *snap, size_t n)
{
	char err[512], what[768];
	int ret;

	if (!prom_db.s) {
		ret = store_open(m->db_path, STORE_RDONLY, &prom_db.s, err, sizeof(err));
		if (ret) {
			prom_db.s = NULL;
			snprintf(what, sizeof(what), "%s", err);
			prom_db_failed(what);
			return;
		}
	}
	for (struct prom_run *pr = prom_db.runs; pr; pr = pr->next)
		pr->listed = false;
	for (size_t i = 0; i < n; i++) {
		struct prom_run *pr = prom_run_of(snap[i].id);

		if (!pr) {
			prom_db_failed("out of memory");
			continue;
		}
		pr->listed = true;
		ret = prom_refresh(pr, snap[i].ended_ns != 0);
		if (ret) {
			snprintf(what, sizeof(what), "reading run %lld: %s", (long long)snap[i].id,
				 ret == -ENOMEM ? "out of memory" : store_errmsg(prom_db.s));
			prom_db_failed(what);
			continue;
		}
		if (prom_db.failing)
			log_msg(LOG_INFO, "Prometheus textfile: the database reads again");
		prom_db.failing = false;
		snap[i].pr = pr;
		if (snap[i].ended_ns)
			continue;
		for (size_t k = 0; k < pr->nph; k++)
			if (pr->ph[k].seq == snap[i].st.phase_seq)
				snap[i].cur = &pr->ph[k];
	}
	for (struct prom_run **pp = &prom_db.runs; *pp;) {
		struct prom_run *pr = *pp;

		if (pr->listed) {
			pp = &pr->next;
			continue;
		}
		*pp = pr->next;
		free(pr->ph);
		free(pr);
	}
}

static void prom_head(FILE *f, const char *name, const char *type, const char *help)
{
	fprintf(f, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
}

/* NAME{run="..",device="..",serial=".." (the caller adds its labels, then
 * the value) */
static void prom_open(FILE *f, const char *name, const struct prom_snap *s)
{
	fprintf(f, "%s{run=\"%lld\",device=\"", name, (long long)s->id);
	prom_label(f, s->device);
	fputs("\",serial=\"", f);
	prom_label(f, s->serial);
	fputc('"', f);
}

static void prom_phase_labels(FILE *f, int seq, const char *kind)
{
	fprintf(f, ",phase=\"%d\",phase_kind=\"", seq);
	prom_label(f, kind);
	fputc('"', f);
}

/* the shortest text that reads back (parse_fmt_double()); the text
 * format's NaN and Inf where that says null */
static void prom_value(FILE *f, double v)
{
	char buf[PARSE_DOUBLE_BYTES];

	if (isnan(v))
		fputs("} NaN\n", f);
	else if (isinf(v))
		fputs(v > 0 ? "} +Inf\n" : "} -Inf\n", f);
	else
		fprintf(f, "} %s\n", parse_fmt_double(buf, sizeof(buf), v));
}

static void prom_int(FILE *f, long long v)
{
	fprintf(f, "} %lld\n", v);
}

/* A gauge of the current phase's last full sample, per direction. */
enum prom_stat { PROM_IOPS, PROM_BYTES, PROM_LAT_MEAN, PROM_LAT_MAX };

static void prom_sample_gauge(FILE *f, const struct prom_snap *snap, size_t n, const char *name,
			      enum prom_stat stat, const char *help)
{
	prom_head(f, name, "gauge", help);
	for (size_t i = 0; i < n; i++) {
		const struct prom_phase *p = snap[i].cur;
		double secs;

		if (!p || !p->have_full)
			continue;
		/* as sample_metric() computes IOPS and MB/s */
		secs = (double)(p->full.end_ns - p->full.start_ns) / 1e9;
		for (int d = 0; d < SAMPLE_NDIRS; d++) {
			const struct sample_stats *st = &p->full.st[d];

			/* no I/O in a direction has no latency to show */
			if (stat >= PROM_LAT_MEAN && !st->ios)
				continue;
			prom_open(f, name, &snap[i]);
			prom_phase_labels(f, p->seq, p->kind);
			fprintf(f, ",direction=\"%s\"", prom_dirs[d]);
			switch (stat) {
			case PROM_IOPS:
				prom_value(f, secs > 0 ? (double)st->ios / secs : 0.0);
				break;
			case PROM_BYTES:
				prom_value(f, secs > 0 ? (double)st->bytes / secs : 0.0);
				break;
			case PROM_LAT_MEAN:
				prom_value(f, st->lat_mean_ns / 1e9);
				break;
			case PROM_LAT_MAX:
				prom_value(f, (double)st->lat_max_ns / 1e9);
				break;
			}
		}
	}
}

/*
 * The latency percentiles as a Prometheus summary: its quantiles are over
 * a recent window, here the current phase's last full sample (the stored
 * percentiles, exactly), and its _count and _sum are the phase's I/Os and
 * their total latency, so rate(_sum) / rate(_count) is the mean latency
 * over any range.
 */
static void prom_latency_summary(FILE *f, const struct prom_snap *snap, size_t n)
{
	static const char name[] = "plateau_latency_seconds";

	prom_head(f, name, "summary",
		  "Latency from before submission to completion: the stored percentiles of the "
		  "current phase's last full sample (label quantile), and the phase's I/Os "
		  "(_count) and their total latency (_sum).");
	for (size_t i = 0; i < n; i++) {
		const struct prom_phase *p = snap[i].cur;

		if (!p || !p->have_full)
			continue;
		for (int d = 0; d < SAMPLE_NDIRS; d++) {
			if (!p->lat_count[d])
				continue;
			for (int q = 0; p->full.st[d].ios && q < SAMPLE_NPCT; q++) {
				prom_open(f, name, &snap[i]);
				prom_phase_labels(f, p->seq, p->kind);
				fprintf(f, ",direction=\"%s\",quantile=\"%s\"", prom_dirs[d],
					prom_quantiles[q]);
				prom_value(f, (double)p->full.st[d].lat_pct_ns[q] / 1e9);
			}
			prom_open(f, "plateau_latency_seconds_sum", &snap[i]);
			prom_phase_labels(f, p->seq, p->kind);
			fprintf(f, ",direction=\"%s\"", prom_dirs[d]);
			prom_value(f, p->lat_sum_ns[d] / 1e9);
			prom_open(f, "plateau_latency_seconds_count", &snap[i]);
			prom_phase_labels(f, p->seq, p->kind);
			fprintf(f, ",direction=\"%s\"} %llu\n", prom_dirs[d],
				(unsigned long long)p->lat_count[d]);
		}
	}
}

/* the current phase of a run in progress, for a series of it */
static bool prom_live_phase(FILE *f, const char *name, const struct prom_snap *s)
{
	if (s->ended_ns || !s->st.phase_seq)
		return false;
	prom_open(f, name, s);
	prom_phase_labels(f, s->st.phase_seq, s->st.phase_kind);
	return true;
}

/*
 * Where the current phase is, as the runner last reported it (runner.h,
 * struct runner_status).  Its times are Unix times, not durations: the end
 * expected stays true between two rewrites of the file (a scrape computes
 * the time left with time()), and so does the start.
 */
static void prom_timing(FILE *f, const struct prom_snap *snap, size_t n)
{
	static const char *const bounds[] = {"data", "slope"};

	prom_head(f, "plateau_phase_start_timestamp_seconds", "gauge",
		  "When the current phase first started (a resumed phase keeps its start).");
	for (size_t i = 0; i < n; i++)
		if (snap[i].st.phase_started_ns > 0 &&
		    prom_live_phase(f, "plateau_phase_start_timestamp_seconds", &snap[i]))
			prom_value(f, (double)snap[i].st.phase_started_ns / 1e9);
	prom_head(f, "plateau_phase_eta_timestamp_seconds", "gauge",
		  "When the current phase is expected to end (absent: unknown, as for a "
		  "precondition that stops at steady state).");
	for (size_t i = 0; i < n; i++)
		if (snap[i].st.eta_ns >= 0 && snap[i].st.updated_ns > 0 &&
		    prom_live_phase(f, "plateau_phase_eta_timestamp_seconds", &snap[i]))
			prom_value(f, (double)(snap[i].st.updated_ns + snap[i].st.eta_ns) / 1e9);
	prom_head(f, "plateau_phase_eta_max_timestamp_seconds", "gauge",
		  "The latest the current phase can end (a precondition: at its max_rounds or "
		  "max_duration; absent: unbounded or unknown).");
	for (size_t i = 0; i < n; i++)
		if (snap[i].st.eta_max_ns >= 0 && snap[i].st.updated_ns > 0 &&
		    prom_live_phase(f, "plateau_phase_eta_max_timestamp_seconds", &snap[i]))
			prom_value(f,
				   (double)(snap[i].st.updated_ns + snap[i].st.eta_max_ns) / 1e9);
	prom_head(f, "plateau_phase_progress_ratio", "gauge",
		  "How far the current phase is, 0 to 1 (absent: unknown).");
	for (size_t i = 0; i < n; i++)
		if (snap[i].st.progress >= 0 &&
		    prom_live_phase(f, "plateau_phase_progress_ratio", &snap[i]))
			prom_value(f, snap[i].st.progress);
	prom_head(f, "plateau_phase_rate_bytes_per_second", "gauge",
		  "A fill's latest rate (the phases that sample have plateau_iops and "
		  "plateau_bandwidth_bytes_per_second).");
	for (size_t i = 0; i < n; i++)
		if (!strcmp(snap[i].st.rate_unit, RUNNER_RATE_MBPS) && isfinite(snap[i].st.rate) &&
		    prom_live_phase(f, "plateau_phase_rate_bytes_per_second", &snap[i]))
			prom_value(f, snap[i].st.rate * 1e6);
	prom_head(f, "plateau_phase_rounds_judged", "gauge",
		  "Rounds of the current preconditioning phase the verdict has judged.");
	for (size_t i = 0; i < n; i++)
		if (!strcmp(snap[i].st.phase_kind, "precondition") &&
		    prom_live_phase(f, "plateau_phase_rounds_judged", &snap[i]))
			prom_int(f, snap[i].st.rounds_judged);
	prom_head(f, "plateau_phase_rounds_max", "gauge",
		  "The current preconditioning phase's max_rounds (absent: no limit).");
	for (size_t i = 0; i < n; i++)
		if (snap[i].st.max_rounds > 0 &&
		    prom_live_phase(f, "plateau_phase_rounds_max", &snap[i]))
			prom_int(f, snap[i].st.max_rounds);
	prom_head(f, "plateau_window_excursion", "gauge",
		  "The current window's excursion of the steady-state metric, in its unit "
		  "(label bound: data, the spread; slope, the fitted slope's excursion).");
	for (size_t i = 0; i < n; i++)
		for (int b = 0; b < 2; b++) {
			double v = b ? snap[i].st.slope_excursion : snap[i].st.data_excursion;

			if (isnan(v) || !prom_live_phase(f, "plateau_window_excursion", &snap[i]))
				continue;
			fprintf(f, ",bound=\"%s\"", bounds[b]);
			prom_value(f, v);
		}
	prom_head(f, "plateau_window_limit", "gauge",
		  "The limit plateau_window_excursion must stay within for the window to pass, "
		  "in the metric's unit (0: not judged by the criterion).");
	for (size_t i = 0; i < n; i++)
		for (int b = 0; b < 2; b++) {
			double v = b ? snap[i].st.slope_limit : snap[i].st.data_limit;

			if (isnan(v) || !prom_live_phase(f, "plateau_window_limit", &snap[i]))
				continue;
			fprintf(f, ",bound=\"%s\"", bounds[b]);
			prom_value(f, v);
		}
	prom_head(f, "plateau_sweep_point", "gauge",
		  "The load point a sweep is measuring (1-based; 0: between points).");
	for (size_t i = 0; i < n; i++)
		if (snap[i].st.npoints > 0 && prom_live_phase(f, "plateau_sweep_point", &snap[i]))
			prom_int(f, snap[i].st.point);
	prom_head(f, "plateau_sweep_points", "gauge", "The load points of the current sweep.");
	for (size_t i = 0; i < n; i++)
		if (snap[i].st.npoints > 0 && prom_live_phase(f, "plateau_sweep_points", &snap[i]))
			prom_int(f, snap[i].st.npoints);
}

/* A counter of every run the database could be read for, per direction. */
static void prom_counter(FILE *f, const struct prom_snap *snap, size_t n, const char *name,
			 const char *help, size_t off)
{
	prom_head(f, name, "counter", help);
	for (size_t i = 0; i < n; i++) {
		if (!snap[i].pr)
			continue;
		for (int d = SAMPLE_READ; d <= SAMPLE_WRITE; d++) {
			const uint64_t *v = (const uint64_t *)((const char *)snap[i].pr + off);

			prom_open(f, name, &snap[i]);
			fprintf(f, ",direction=\"%s\"} %llu\n", prom_dirs[d],
				(unsigned long long)v[d]);
		}
	}
}

static void prom_write(FILE *f, const struct prom_snap *snap, size_t n)
{
	static const char *const states[] = {"queued",	 "erasing", "filling", "preconditioning",
					     "sweeping", "done",    "failed",  "stopped"};

	prom_head(f, "plateau_run_info", "gauge",
		  "A run plateaud is carrying out, or ended in the last day (value 1), with its "
		  "name, the phase it is in, its global id and host.");
	for (size_t i = 0; i < n; i++) {
		fprintf(f, "plateau_run_info{run=\"%lld\",name=\"", (long long)snap[i].id);
		prom_label(f, snap[i].name);
		fputs("\",device=\"", f);
		prom_label(f, snap[i].device);
		fputs("\",serial=\"", f);
		prom_label(f, snap[i].serial);
		fputc('"', f);
		prom_phase_labels(f, snap[i].st.phase_seq, snap[i].st.phase_kind);
		fputs(",workload=\"", f);
		prom_label(f, snap[i].st.phase_name);
		/* with the global id and host: the run in a lab database that
		 * collected every host's runs (plateau import) */
		fputs("\",uuid=\"", f);
		prom_label(f, snap[i].pr ? snap[i].pr->uuid : "");
		fputs("\",host=\"", f);
		prom_label(f, snap[i].pr ? snap[i].pr->host : "");
		fputs("\"} 1\n", f);
	}
	prom_head(f, "plateau_run_state", "gauge",
		  "The run's state (1 for the current one); a finished run stays 24 h with its "
		  "final state.");
	for (size_t i = 0; i < n; i++)
		for (size_t k = 0; k < sizeof(states) / sizeof(states[0]); k++) {
			prom_open(f, "plateau_run_state", &snap[i]);
			fprintf(f, ",state=\"%s\"", states[k]);
			prom_int(f, !strcmp(snap[i].st.state, states[k]));
		}
	prom_head(f, "plateau_run_end_timestamp_seconds", "gauge",
		  "When a finished run ended (0: running); rules use it to stop alerts on an "
		  "ended run.");
	for (size_t i = 0; i < n; i++) {
		prom_open(f, "plateau_run_end_timestamp_seconds", &snap[i]);
		prom_value(f, (double)snap[i].ended_ns / 1e9);
	}
	prom_head(f, "plateau_phase", "gauge", "The phase number the run is in.");
	for (size_t i = 0; i < n; i++) {
		prom_open(f, "plateau_phase", &snap[i]);
		prom_int(f, snap[i].st.phase_seq);
	}
	prom_head(f, "plateau_steady", "gauge", "1 while the drive is in steady state, else 0.");
	for (size_t i = 0; i < n; i++) {
		prom_open(f, "plateau_steady", &snap[i]);
		prom_int(f, snap[i].st.steady);
	}
	prom_head(f, "plateau_steady_lost", "gauge",
		  "1 once steady state was reached and then lost.");
	for (size_t i = 0; i < n; i++) {
		prom_open(f, "plateau_steady_lost", &snap[i]);
		prom_int(f, snap[i].st.steady_lost);
	}
	prom_head(f, "plateau_steady_not_reached", "gauge",
		  "1 when a preconditioning phase ended without reaching steady state (its "
		  "max_rounds or max_duration ran out), 0 while it runs or once it reached it.");
	for (size_t i = 0; i < n; i++)
		for (size_t k = 0; snap[i].pr && k < snap[i].pr->nph; k++) {
			const struct prom_phase *p = &snap[i].pr->ph[k];

			if (strcmp(p->kind, "precondition") || !strcmp(p->state, "pending") ||
			    !strcmp(p->state, "skipped"))
				continue;
			prom_open(f, "plateau_steady_not_reached", &snap[i]);
			prom_phase_labels(f, p->seq, p->kind);
			prom_int(f, !strcmp(p->state, "done") && p->steady == 0);
		}
	prom_head(f, "plateau_rounds", "gauge",
		  "Rounds of the current phase so far (a sweep: load points measured).");
	for (size_t i = 0; i < n; i++)
		if (prom_live_phase(f, "plateau_rounds", &snap[i]))
			prom_int(f, snap[i].st.rounds);
	prom_timing(f, snap, n);
	prom_sample_gauge(f, snap, n, "plateau_iops", PROM_IOPS,
			  "I/Os per second in the current phase's last full sample.");
	prom_sample_gauge(f, snap, n, "plateau_bandwidth_bytes_per_second", PROM_BYTES,
			  "Bytes per second in the current phase's last full sample.");
	prom_sample_gauge(f, snap, n, "plateau_latency_mean_seconds", PROM_LAT_MEAN,
			  "Mean latency in the current phase's last full sample, from before "
			  "submission to completion (fio's lat, not clat).");
	prom_sample_gauge(f, snap, n, "plateau_latency_max_seconds", PROM_LAT_MAX,
			  "Worst latency in the current phase's last full sample.");
	prom_latency_summary(f, snap, n);
	prom_counter(f, snap, n, "plateau_ios_total",
		     "I/Os completed in the run, the sum of its stored samples.",
		     offsetof(struct prom_run, ios));
	prom_counter(f, snap, n, "plateau_bytes_total",
		     "Bytes transferred in the run, the sum of its stored samples.",
		     offsetof(struct prom_run, bytes));
	prom_head(f, "plateau_io_errors_total", "counter",
		  "I/O errors in the run, the sum of its stored samples.");
	for (size_t i = 0; i < n; i++) {
		if (!snap[i].pr)
			continue;
		prom_open(f, "plateau_io_errors_total", &snap[i]);
		fprintf(f, "} %llu\n", (unsigned long long)snap[i].pr->errors);
	}
	prom_head(f, "plateau_last_sample_timestamp_seconds", "gauge",
		  "When the run's last stored sample ended (0: none yet).");
	for (size_t i = 0; i < n; i++) {
		int64_t t = snap[i].st.last_sample_ns;

		if (snap[i].pr && snap[i].pr->last_end_ns > t)
			t = snap[i].pr->last_end_ns;
		prom_open(f, "plateau_last_sample_timestamp_seconds", &snap[i]);
		prom_value(f, (double)t / 1e9);
	}
	prom_head(f, "plateau_sample_interval_seconds", "gauge", "The run's sample interval.");
	for (size_t i = 0; i < n; i++) {
		prom_open(f, "plateau_sample_interval_seconds", &snap[i]);
		prom_value(f, (double)snap[i].interval_ns / 1e9);
	}
}

void events_write_prom(struct manager *m)
{
	struct prom_snap *snap = NULL;
	size_t n = 0, cap = 0;
	char tmp[1100];
	FILE *f;
	int fd;

	if (!*m->prom_path)
		return;
	pthread_mutex_lock(&m->prom_lock);
	/* copied, so that the database is read without holding the runs */
	pthread_mutex_lock(&m->runs_lock);
	for (int list = 0; list < 2; list++)
		for (struct drun *r = list ? m->ended : m->runs; r; r = r->next)
			cap++;
	snap = cap ? calloc(cap, sizeof(*snap)) : NULL;
	for (int list = 0; snap && list < 2; list++)
		for (struct drun *r = list ? m->ended : m->runs; r; r = r->next) {
			struct prom_snap *s = &snap[n++];

			s->id = r->id;
			snprintf(s->name, sizeof(s->name), "%s", r->name);
			snprintf(s->device, sizeof(s->device), "%s", r->device);
			snprintf(s->serial, sizeof(s->serial), "%s", r->serial);
			s->interval_ns = r->interval_ns;
			s->ended_ns = r->ended_ns;
			pthread_mutex_lock(&r->lock);
			s->st = r->st;
			pthread_mutex_unlock(&r->lock);
		}
	pthread_mutex_unlock(&m->runs_lock);
	if (cap && !snap) {
		log_msg(LOG_WARNING, "Prometheus textfile: out of memory, not rewritten");
		pthread_mutex_unlock(&m->prom_lock);
		return;
	}
	prom_read_db(m, snap, n);
	snprintf(tmp, sizeof(tmp), "%s.%d.tmp", m->prom_path, (int)getpid());
	/* never through a symlink or into a file someone left there: the name
	 * is predictable, and the directory may be writable by others */
	(void)unlink(tmp);
	fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
	/* node_exporter reads it whatever the daemon's umask */
	if (fd >= 0)
		(void)fchmod(fd, 0644);
	f = fd >= 0 ? fdopen(fd, "w") : NULL;
	if (!f) {
		if (fd >= 0)
			close(fd);
		free(snap);
		pthread_mutex_unlock(&m->prom_lock);
		return;
	}
	prom_write(f, snap, n);
	if (fflush(f) || fsync(fileno(f)) || ferror(f)) {
		fclose(f);
		(void)unlink(tmp);
	} else {
		fclose(f);
		if (rename(tmp, m->prom_path) < 0)
			(void)unlink(tmp);
	}
	free(snap);
	pthread_mutex_unlock(&m->prom_lock);
}
