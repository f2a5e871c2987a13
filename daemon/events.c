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
#include <pwd.h>
#include <sched.h>
#include <signal.h>
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

static void prom_labels(FILE *f, const struct drun *r)
{
	fprintf(f, "{run=\"%lld\",device=\"", (long long)r->id);
	prom_label(f, r->device);
	fputs("\",serial=\"", f);
	prom_label(f, r->serial);
	fputs("\"}", f);
}

void events_write_prom(struct manager *m)
{
	static const char *const states[] = {"queued",	 "erasing", "filling", "preconditioning",
					     "sweeping", "done",    "failed",  "stopped"};
	struct drun *all[512];
	size_t n = 0;
	char tmp[1100];
	FILE *f;
	int fd;

	if (!*m->prom_path)
		return;
	pthread_mutex_lock(&m->prom_lock);
	pthread_mutex_lock(&m->runs_lock);
	for (struct drun *r = m->runs; r && n < sizeof(all) / sizeof(all[0]); r = r->next)
		all[n++] = r;
	for (struct drun *r = m->ended; r && n < sizeof(all) / sizeof(all[0]); r = r->next)
		all[n++] = r;
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
		pthread_mutex_unlock(&m->runs_lock);
		pthread_mutex_unlock(&m->prom_lock);
		return;
	}
	fputs("# HELP plateau_run_info A run plateaud is carrying out, or ended in the last day "
	      "(value 1).\n"
	      "# TYPE plateau_run_info gauge\n",
	      f);
	for (size_t i = 0; i < n; i++) {
		struct drun *r = all[i];

		pthread_mutex_lock(&r->lock);
		fprintf(f, "plateau_run_info{run=\"%lld\",name=\"", (long long)r->id);
		prom_label(f, r->name);
		fputs("\",device=\"", f);
		prom_label(f, r->device);
		fputs("\",serial=\"", f);
		prom_label(f, r->serial);
		fputs("\",phase=\"", f);
		prom_label(f, r->st.phase_kind);
		fputs("\",workload=\"", f);
		prom_label(f, r->st.phase_name);
		fputs("\"} 1\n", f);
		pthread_mutex_unlock(&r->lock);
	}
#define PROM_GAUGE(name, help, expr)                                           \
	do {                                                                   \
		fputs("# HELP " name " " help "\n# TYPE " name " gauge\n", f); \
		for (size_t i = 0; i < n; i++) {                               \
			struct drun *r = all[i];                               \
                                                                               \
			pthread_mutex_lock(&r->lock);                          \
			fputs(name, f);                                        \
			prom_labels(f, r);                                     \
			fprintf(f, " %.15g\n", (double)(expr));                \
			pthread_mutex_unlock(&r->lock);                        \
		}                                                              \
	} while (0)
	fputs("# HELP plateau_run_state The run's state (1 for the current one); a finished run "
	      "stays 24 h with its final state.\n"
	      "# TYPE plateau_run_state gauge\n",
	      f);
	for (size_t i = 0; i < n; i++) {
		struct drun *r = all[i];

		pthread_mutex_lock(&r->lock);
		for (size_t k = 0; k < sizeof(states) / sizeof(states[0]); k++) {
			fprintf(f, "plateau_run_state{run=\"%lld\",device=\"", (long long)r->id);
			prom_label(f, r->device);
			fputs("\",serial=\"", f);
			prom_label(f, r->serial);
			fprintf(f, "\",state=\"%s\"} %d\n", states[k],
				!strcmp(r->st.state, states[k]));
		}
		pthread_mutex_unlock(&r->lock);
	}
	PROM_GAUGE("plateau_phase", "The phase number the run is in.", r->st.phase_seq);
	PROM_GAUGE("plateau_iops", "Reads and writes per second in the last sample.", r->st.iops);
	PROM_GAUGE("plateau_bandwidth_bytes_per_second", "Bytes per second in the last sample.",
		   r->st.bw_mbps * 1e6);
	PROM_GAUGE("plateau_latency_mean_seconds",
		   "Mean latency in the last sample, from before submission to completion "
		   "(fio's lat, not clat).",
		   r->st.lat_us / 1e6);
	PROM_GAUGE("plateau_latency_p99_seconds",
		   "99th percentile latency in the last sample, from before submission to "
		   "completion (fio's lat, not clat).",
		   r->st.p99_us / 1e6);
	PROM_GAUGE("plateau_steady", "1 while the drive is in steady state, else 0.",
		   r->st.steady ? 1 : 0);
	PROM_GAUGE("plateau_steady_lost", "1 once steady state was reached and then lost.",
		   r->st.steady_lost ? 1 : 0);
	PROM_GAUGE("plateau_rounds", "Samples (rounds) of the current phase so far.", r->st.rounds);
	PROM_GAUGE("plateau_last_sample_timestamp_seconds", "When the last sample ended.",
		   (double)r->st.last_sample_ns / 1e9);
	PROM_GAUGE("plateau_sample_interval_seconds", "The run's sample interval.",
		   (double)r->interval_ns / 1e9);
	fputs("# HELP plateau_run_end_timestamp_seconds When a finished run ended (0: running).\n"
	      "# TYPE plateau_run_end_timestamp_seconds gauge\n",
	      f);
	for (size_t i = 0; i < n; i++) {
		fputs("plateau_run_end_timestamp_seconds", f);
		prom_labels(f, all[i]);
		fprintf(f, " %.15g\n", (double)all[i]->ended_ns / 1e9);
	}
#undef PROM_GAUGE
	if (fflush(f) || fsync(fileno(f)) || ferror(f)) {
		fclose(f);
		(void)unlink(tmp);
	} else {
		fclose(f);
		if (rename(tmp, m->prom_path) < 0)
			(void)unlink(tmp);
	}
	pthread_mutex_unlock(&m->runs_lock);
	pthread_mutex_unlock(&m->prom_lock);
}
