// SPDX-License-Identifier: MIT
/*
 * guard-tool: lib/guard driven directly, so a test can make the race
 * between "check" and "use" deterministic.
 *
 *   guard-tool check PATH WANT [ERASE-METHOD]
 *       the gate as a run would open it; prints "ok: CHECKS" and exits 0,
 *       or "refused: MESSAGE" and exits 6
 *   guard-tool hold PATH WANT
 *       opens the gate, prints "open SERIAL", then waits for a line on
 *       stdin (the test swaps what PATH names meanwhile), then runs a 4 KiB
 *       random-write engine job of 256 I/Os with job.path = PATH and the
 *       gate's descriptor, prints "wrote N bytes" and, after a recheck of
 *       the descriptor, "recheck ok" or "recheck refused: MESSAGE"
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "engine.h"
#include "erase.h"
#include "guard.h"
#include "profile.h"

static int check(const char *path, const char *want, const char *method)
{
	struct guard_req rq = {.path = path, .want = want, .flags = GUARD_WRITES};
	char msg[GUARD_REASONS_MAX * GUARD_REASON_LEN + 300];
	struct guard g;
	int r;

	if (method && erase_method_parse(method, &rq.erase_method) < 0) {
		fprintf(stderr, "unknown erase method %s\n", method);
		return 2;
	}
	r = guard_open(&rq, &g);
	if (r) {
		printf("refused: %s\n", guard_refusal(&g, msg, sizeof(msg)));
		guard_close(&g);
		return 6;
	}
	printf("ok: %s\n", guard_checks(&g, msg, sizeof(msg)));
	guard_close(&g);
	return 0;
}

static int hold(const char *path, const char *want)
{
	struct guard_req rq = {.path = path, .want = want, .flags = GUARD_WRITES};
	char msg[GUARD_REASONS_MAX * GUARD_REASON_LEN + 300], line[64];
	struct engine_job job = {0};
	struct engine_result res;
	struct engine *e;
	struct guard g;
	int r;

	r = guard_open(&rq, &g);
	if (r) {
		printf("refused: %s\n", guard_refusal(&g, msg, sizeof(msg)));
		guard_close(&g);
		return 6;
	}
	printf("open %s\n", g.id.serial);
	fflush(stdout);
	if (!fgets(line, sizeof(line), stdin)) {
		guard_close(&g);
		return 1;
	}
	job.path = path; /* names it in messages only */
	job.use_fd = true;
	job.fd = g.fd;
	job.threads = 1;
	job.iodepth = 4;
	job.limit_bytes = 256 * 4096;
	job.seed = 1;
	if (profile_builtin("4k-randwrite", &job.profile)) {
		guard_close(&g);
		return 1;
	}
	r = engine_new(&job, &e, msg, sizeof(msg));
	if (r) {
		printf("engine: %s\n", msg);
		guard_close(&g);
		return 1;
	}
	r = engine_run(e, &res);
	engine_free(e);
	printf("wrote %llu bytes\n", (unsigned long long)res.bytes[SAMPLE_WRITE]);
	if (guard_recheck(&g, want, false))
		printf("recheck refused: %s\n", guard_refusal(&g, msg, sizeof(msg)));
	else
		printf("recheck ok\n");
	guard_close(&g);
	return r ? 1 : 0;
}

int main(int argc, char **argv)
{
	if (argc >= 4 && !strcmp(argv[1], "check"))
		return check(argv[2], argv[3], argc > 4 ? argv[4] : NULL);
	if (argc == 4 && !strcmp(argv[1], "hold"))
		return hold(argv[2], argv[3]);
	fprintf(stderr, "usage: guard-tool check PATH WANT [METHOD] | hold PATH WANT\n");
	return 2;
}
