// SPDX-License-Identifier: MIT
/*
 * erase-tool: drive lib/target, lib/nvmex and lib/erase from test scripts
 * (tests/integration/erase-mock.t, safety.t, tests/vm/nvme.t) until the
 * daemon and CLI carry these paths.  Prints "key: value" lines.
 *
 *   erase-tool identify PATH [--kind nvme|block|file]
 *   erase-tool match PATH WANT
 *   erase-tool dry-run PATH [--method M] [--kind K]
 *   erase-tool erase PATH --want ID [--method M] [--kind K] [--poll-ms N]
 *              [--deadline-ms N] [--samples N] [--range-bytes N] [--seed N]
 *              [--no-verify] [--stop-after N]
 *   erase-tool resume PATH [--kind K] [--poll-ms N] [--deadline-ms N] [--no-verify]
 *   erase-tool inuse PATH [--whole]
 *   erase-tool list
 *   erase-tool status 0x4001
 *   erase-tool sum PATH          (FNV-1a 64 of the whole content, O_DIRECT)
 *   erase-tool hold PATH [--deadline-ms N]   (open it like target_open(), O_EXCL,
 *              and keep it open N ms, default 30 s)
 *
 * Exit status: 0 success, 1 the operation failed (err: says why), 2 usage.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cleanup.h"
#include "erase.h"
#include "guard.h"
#include "nvmex.h"
#include "target.h"

static struct {
	enum target_kind kind;
	enum erase_method method;
	const char *want;
	uint64_t poll_ms, deadline_ms, seed, range_bytes;
	unsigned samples, stop_after;
	bool no_verify, whole;
} opt = {.method = ERASE_AUTO};

static unsigned progress_calls;

static int usage(void)
{
	fprintf(stderr, "usage: erase-tool identify|match|dry-run|erase|resume|inuse|list|status|"
			"sum ... (see tests/helpers/erase-tool.c)\n");
	return 2;
}

static const char *errname(int e)
{
	switch (-e) {
	case 0:
		return "0";
	case EPERM:
		return "EPERM";
	case EBUSY:
		return "EBUSY";
	case EOPNOTSUPP:
		return "EOPNOTSUPP";
	case EREMOTEIO:
		return "EREMOTEIO";
	case EIO:
		return "EIO";
	case ETIMEDOUT:
		return "ETIMEDOUT";
	case ECANCELED:
		return "ECANCELED";
	case ESTALE:
		return "ESTALE";
	case ENOENT:
		return "ENOENT";
	case EINVAL:
		return "EINVAL";
	case ENOTBLK:
		return "ENOTBLK";
	case ENOTTY:
		return "ENOTTY";
	default:
		return "other";
	}
}

static void print_identity(const struct target_identity *id)
{
	char m[256];

	printf("kind: %s\n", target_kind_name(id->kind));
	printf("path: %s\n", id->path);
	printf("name: %s\n", id->name);
	printf("block_path: %s\n", id->block_path);
	printf("model: %s\n", id->model);
	printf("serial: %s\n", id->serial);
	printf("firmware: %s\n", id->firmware);
	printf("eui64: %s\n", id->eui64);
	printf("nguid: %s\n", id->nguid);
	printf("wwn: %s\n", id->wwn);
	printf("capacity_bytes: %" PRIu64 "\n", id->capacity_bytes);
	printf("lba_bytes: %u\n", id->lba_bytes);
	if (id->kind == TARGET_NVME) {
		printf("ctrl: %s\n", id->ctrl);
		printf("nsid: %u\n", id->nsid);
		printf("oacs: 0x%04x\n", id->oacs);
		printf("fna: 0x%02x\n", id->fna);
		printf("sanicap: 0x%08x\n", id->sanicap);
		printf("dlfeat: 0x%02x\n", id->dlfeat);
		printf("flbas_index: %u\n", id->flbas_index);
	}
	printf("erase_methods: %s\n", erase_methods_str(erase_methods_supported(id), m, sizeof(m)));
}

static void print_plan(const struct erase_plan *p)
{
	printf("requested: %s\n", erase_method_name(p->requested));
	printf("chain:");
	for (size_t i = 0; i < p->n_chain; i++)
		printf("%s%s", i ? "," : " ", erase_method_name(p->chain[i]));
	printf("\n");
	printf("all_namespaces: %d\n", p->all_namespaces);
	for (size_t i = 0; i < p->n_warnings; i++)
		printf("warning: %s\n", p->warnings[i]);
}

static void print_record(int r, const struct erase_record *rec)
{
	const struct erase_verify *v = &rec->verify;

	printf("result: %s\n", errname(r));
	printf("ran: %s\n", erase_method_name(rec->ran));
	printf("completed: %d\n", rec->completed);
	printf("resumed: %d\n", rec->resumed);
	print_plan(&rec->plan);
	for (size_t i = 0; i < rec->n_attempts; i++) {
		const struct erase_attempt *a = &rec->attempts[i];

		printf("attempt: method=%s sent=%d err=%s status=0x%04x msg=%s\n",
		       erase_method_name(a->method), a->sent, errname(a->err), a->nvme_status,
		       a->msg);
	}
	printf("verify: done=%d passed=%d expect=0x%02x ranges=%u zero=%u ones=%u other=%u "
	       "bytes=%" PRIu64 "\n",
	       v->done, v->passed, v->expect, v->ranges, v->ranges_zero, v->ranges_ones,
	       v->ranges_other, v->bytes_read);
	printf("elapsed_ms: %" PRIu64 "\n", rec->elapsed_ns / 1000000);
	printf("msg: %s\n", rec->msg);
}

static void on_progress(const struct erase_progress *p, void *userdata)
{
	static const char *phases[] = {"start", "running", "verify", "done"};

	(void)userdata;
	if (p->phase == ERASE_PHASE_RUNNING)
		progress_calls++;
	if (p->phase == ERASE_PHASE_VERIFY)
		return; /* one line per range is noise */
	printf("progress: method=%s phase=%s fraction=%.4f estimate_s=%" PRId64 " resumed=%d\n",
	       erase_method_name(p->method), phases[p->phase], p->fraction,
	       p->estimate_s == UINT32_MAX ? (int64_t)-1 : (int64_t)p->estimate_s, p->resumed);
	fflush(stdout);
}

static bool on_stop(void *userdata)
{
	(void)userdata;
	return opt.stop_after && progress_calls >= opt.stop_after;
}

static void fill_opts(struct erase_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->method = opt.method;
	o->want = opt.want;
	o->kind = opt.kind;
	o->poll_interval_ns = opt.poll_ms * 1000000ull;
	o->deadline_ns = opt.deadline_ms * 1000000ull;
	o->verify_samples = opt.samples;
	o->verify_range_bytes = (uint32_t)opt.range_bytes;
	o->verify_seed = opt.seed ? opt.seed : 42;
	o->no_verify = opt.no_verify;
	o->progress = on_progress;
	o->should_stop = on_stop;
}

static int cmd_sum(const char *path)
{
	_cleanup_close_ int fd = open(path, O_RDONLY | O_DIRECT | O_CLOEXEC);
	_cleanup_free_ uint8_t *buf = NULL;
	uint64_t h = 0xcbf29ce484222325ull, total = 0;

	if (fd < 0 || posix_memalign((void **)&buf, 4096, 1 << 20)) {
		printf("err: %s: %s\n", path, strerror(errno));
		return 1;
	}
	for (;;) {
		ssize_t n = read(fd, buf, 1 << 20);

		if (n < 0) {
			printf("err: %s: %s\n", path, strerror(errno));
			return 1;
		}
		if (n == 0)
			break;
		for (ssize_t i = 0; i < n; i++)
			h = (h ^ buf[i]) * 0x100000001b3ull;
		total += (uint64_t)n;
	}
	printf("sum: %016" PRIx64 " %" PRIu64 "\n", h, total);
	return 0;
}

static int cmd_list(void)
{
	struct target_entry *v = NULL;
	size_t n = 0;
	char m[256];
	int r;

	r = target_list(&v, &n);
	if (r < 0) {
		printf("err: %s\n", strerror(-r));
		return 1;
	}
	for (size_t i = 0; i < n; i++) {
		const struct target_entry *e = &v[i];

		printf("drive: path=%s kind=%s serial=%s model=%s capacity=%" PRIu64
		       " methods=%s err=%d inuse=%u",
		       e->id.path, target_kind_name(e->id.kind), e->id.serial, e->id.model,
		       e->id.capacity_bytes,
		       erase_methods_str(erase_methods_supported(&e->id), m, sizeof(m)), e->err,
		       e->inuse.count);
		for (unsigned k = 0; k < e->inuse.count && k < TARGET_REASONS_MAX; k++)
			printf(" reason=[%s]", e->inuse.reason[k]);
		if (e->err)
			printf(" msg=[%s]", e->msg);
		printf("\n");
	}
	free(v);
	return 0;
}

int main(int argc, char **argv)
{
	static const struct option lo[] = {
		{"kind", required_argument, NULL, 'k'},
		{"method", required_argument, NULL, 'm'},
		{"want", required_argument, NULL, 'w'},
		{"poll-ms", required_argument, NULL, 'p'},
		{"deadline-ms", required_argument, NULL, 'd'},
		{"samples", required_argument, NULL, 's'},
		{"range-bytes", required_argument, NULL, 'r'},
		{"seed", required_argument, NULL, 'S'},
		{"stop-after", required_argument, NULL, 'x'},
		{"no-verify", no_argument, NULL, 'n'},
		{"whole", no_argument, NULL, 'W'},
		{0},
	};
	struct target_identity id;
	struct erase_record rec;
	struct erase_opts o;
	char msg[512];
	const char *cmd, *path;
	int c, r;

	if (argc < 2)
		return usage();
	cmd = argv[1];
	optind = 2;
	while ((c = getopt_long(argc, argv, "", lo, NULL)) != -1) {
		switch (c) {
		case 'k':
			opt.kind = !strcmp(optarg, "nvme")    ? TARGET_NVME
				   : !strcmp(optarg, "block") ? TARGET_BLOCK
				   : !strcmp(optarg, "file")  ? TARGET_FILE
							      : TARGET_UNKNOWN;
			break;
		case 'm':
			if (erase_method_parse(optarg, &opt.method) < 0) {
				fprintf(stderr, "unknown method %s\n", optarg);
				return 2;
			}
			break;
		case 'w':
			opt.want = optarg;
			break;
		case 'p':
			opt.poll_ms = strtoull(optarg, NULL, 0);
			break;
		case 'd':
			opt.deadline_ms = strtoull(optarg, NULL, 0);
			break;
		case 's':
			opt.samples = (unsigned)strtoul(optarg, NULL, 0);
			break;
		case 'r':
			opt.range_bytes = strtoull(optarg, NULL, 0);
			break;
		case 'S':
			opt.seed = strtoull(optarg, NULL, 0);
			break;
		case 'x':
			opt.stop_after = (unsigned)strtoul(optarg, NULL, 0);
			break;
		case 'n':
			opt.no_verify = true;
			break;
		case 'W':
			opt.whole = true;
			break;
		default:
			return usage();
		}
	}
	setvbuf(stdout, NULL, _IOLBF, 0);

	if (!strcmp(cmd, "list"))
		return cmd_list();
	if (optind >= argc)
		return usage();
	path = argv[optind];

	if (!strcmp(cmd, "status")) {
		char buf[128];

		printf("status: %s\n",
		       nvmex_status_str(buf, sizeof(buf), (uint16_t)strtoul(path, NULL, 0)));
		return 0;
	}
	if (!strcmp(cmd, "sum"))
		return cmd_sum(path);
	if (!strcmp(cmd, "hold")) {
		/* claim a device the way target_open() does (O_EXCL) and keep it */
		int fd;

		r = target_open(path, false, &fd);
		if (r < 0) {
			printf("result: %s\nerr: %s\n", errname(r), strerror(-r));
			return 1;
		}
		printf("held: %s\n", path);
		fflush(stdout);
		sleep(opt.deadline_ms ? (unsigned)(opt.deadline_ms / 1000) : 30);
		close(fd);
		return 0;
	}

	if (!strcmp(cmd, "identify") || !strcmp(cmd, "match") || !strcmp(cmd, "dry-run") ||
	    !strcmp(cmd, "inuse") || !strcmp(cmd, "resume")) {
		r = target_identify_as(path, opt.kind, &id, msg, sizeof(msg));
		if (r < 0) {
			printf("result: %s\nerr: %s\n", errname(r), msg);
			return 1;
		}
	}
	if (!strcmp(cmd, "identify")) {
		print_identity(&id);
		return 0;
	}
	if (!strcmp(cmd, "match")) {
		enum target_match_field f;

		if (optind + 1 >= argc)
			return usage();
		f = target_match(&id, argv[optind + 1]);
		printf("match: %s\n", target_match_name(f));
		return f == TARGET_MATCH_NONE;
	}
	if (!strcmp(cmd, "dry-run")) {
		struct erase_plan plan;

		print_identity(&id);
		r = erase_dry_run(&id, opt.method, &plan, msg, sizeof(msg));
		printf("result: %s\n", errname(r));
		if (r < 0) {
			printf("err: %s\n", msg);
			return 1;
		}
		print_plan(&plan);
		return 0;
	}
	if (!strcmp(cmd, "inuse")) {
		struct target_inuse u;

		r = target_inuse(&id, opt.whole, &u);
		printf("inuse: %d\n", r);
		for (unsigned i = 0; r > 0 && i < u.count && i < TARGET_REASONS_MAX; i++)
			printf("reason: %s\n", u.reason[i]);
		return r < 0;
	}
	if (!strcmp(cmd, "erase")) {
		fill_opts(&o);
		r = guard_erase(path, &o, &id, &rec);
		print_record(r, &rec);
		return r < 0;
	}
	if (!strcmp(cmd, "resume")) {
		int fd;

		fill_opts(&o);
		r = target_open(id.block_path[0] ? id.block_path : id.path, false, &fd);
		if (r < 0) {
			printf("result: %s\nerr: open: %s\n", errname(r), strerror(-r));
			return 1;
		}
		r = erase_resume(fd, &id, &o, &rec);
		close(fd);
		print_record(r, &rec);
		return r < 0;
	}
	return usage();
}
