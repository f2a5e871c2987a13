// SPDX-License-Identifier: MIT
/* profile: built-ins, bssplit/rw/rwmix parsing and errors, alignment, formatting. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "profile.h"
#include "tap.h"

static uint32_t share_of(const struct profile *p, uint32_t size)
{
	for (unsigned int i = 0; i < p->nbs; i++)
		if (p->bs[i].size_bytes == size)
			return p->bs[i].share;
	return UINT32_MAX;
}

static void test_builtins(void)
{
	static const char *const names[] = {"4k-randwrite",  "4k-randread",  "8k-7030",
					    "64k-randwrite", "64k-randread", "128k-seqwrite",
					    "128k-seqread",  "fileserver",   "webserver"};
	struct profile p;
	int bad = 0;

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		if (profile_builtin(names[i], &p) || strcmp(p.name, names[i]) ||
		    profile_validate(&p, NULL, 0)) {
			diag("built-in %s is missing or invalid", names[i]);
			bad++;
		}
		if (!strstr(profile_builtin_names(), names[i]))
			bad++;
	}
	ok(!bad, "all 9 built-in profiles of docs/method.md exist, validate and are listed");

	is_int(profile_builtin("4k-randwrit", &p), -ENOENT, "unknown profile name: -ENOENT");
	is_int(profile_builtin(NULL, &p), -ENOENT, "NULL name: -ENOENT");

	profile_builtin("8k-7030", &p);
	ok(p.pattern == PROFILE_RANDOM && p.read_share == 7000 && p.nbs == 1 &&
		   p.bs[0].size_bytes == 8192 && p.bs[0].share == 10000,
	   "8k-7030: random, 70%% reads, 8 KiB");
	profile_builtin("128k-seqread", &p);
	ok(p.pattern == PROFILE_SEQUENTIAL && p.read_share == 10000 && p.bs[0].size_bytes == 131072,
	   "128k-seqread: sequential, all reads, 128 KiB");
	profile_builtin("64k-randwrite", &p);
	ok(p.pattern == PROFILE_RANDOM && p.read_share == 0 && p.bs[0].size_bytes == 65536,
	   "64k-randwrite: random, all writes, 64 KiB");

	profile_builtin("fileserver", &p);
	ok(p.nbs == 8 && p.read_share == 8000 && share_of(&p, 512) == 1000 &&
		   share_of(&p, 1024) == 500 && share_of(&p, 2048) == 500 &&
		   share_of(&p, 4096) == 6000 && share_of(&p, 8192) == 200 &&
		   share_of(&p, 16384) == 400 && share_of(&p, 32768) == 400 &&
		   share_of(&p, 65536) == 1000,
	   "fileserver: 80%% reads and docs/method.md's eight sizes");
	profile_builtin("webserver", &p);
	ok(p.nbs == 10 && p.read_share == 10000 && share_of(&p, 512) == 2200 &&
		   share_of(&p, 1024) == 1500 && share_of(&p, 2048) == 800 &&
		   share_of(&p, 4096) == 2300 && share_of(&p, 8192) == 1500 &&
		   share_of(&p, 16384) == 200 && share_of(&p, 32768) == 600 &&
		   share_of(&p, 65536) == 700 && share_of(&p, 131072) == 100 &&
		   share_of(&p, 524288) == 100,
	   "webserver: all reads and docs/method.md's ten sizes");
}

static void expect_bssplit_error(const char *s, const char *needle)
{
	struct profile p = {0};
	char err[256] = "";
	int r;

	profile_builtin("4k-randwrite", &p);
	r = profile_parse_bssplit(s, &p, err, sizeof(err));
	ok(r == -EINVAL && strstr(err, needle) && p.nbs == 1 && p.bs[0].size_bytes == 4096,
	   "bssplit '%s' fails naming '%s', profile unchanged", s, needle);
	if (!strstr(err, needle))
		diag("message: %s", err);
}

static void test_bssplit(void)
{
	struct profile p = {0};
	char err[256], many[512] = "";
	int r;

	r = profile_parse_bssplit("512/10:1k/5:2k/5:4k/60:8k/2:16k/4:32k/4:64k/10", &p, err,
				  sizeof(err));
	ok(!r && p.nbs == 8 && p.bs[0].size_bytes == 512 && p.bs[0].share == 1000 &&
		   p.bs[7].size_bytes == 65536 && p.bs[7].share == 1000,
	   "fio's fileserver bssplit parses in order");
	r = profile_parse_bssplit("4k", &p, err, sizeof(err));
	ok(!r && p.nbs == 1 && p.bs[0].size_bytes == 4096 && p.bs[0].share == 10000,
	   "a bare size is 100%%");
	r = profile_parse_bssplit("4k/33.33:8k/66.67", &p, err, sizeof(err));
	ok(!r && p.nbs == 2 && p.bs[0].share == 3333 && p.bs[1].share == 6667,
	   "two-decimal percentages are exact");
	r = profile_parse_bssplit("4k/50%:1m/50%", &p, err, sizeof(err));
	ok(!r && p.bs[1].size_bytes == 1048576 && p.bs[1].share == 5000,
	   "percent signs and 'm' sizes are accepted");

	expect_bssplit_error("4k/50:8k/40", "sum to 90; expected 100");
	expect_bssplit_error("4k/60:8k/50", "sum to 110; expected 100");
	expect_bssplit_error("4k/50:4k/50", "appears twice");
	expect_bssplit_error("4q/100", "not a transfer size");
	expect_bssplit_error("0/100", "not a transfer size");
	expect_bssplit_error("32m/100", "not a transfer size");
	expect_bssplit_error("4k/abc", "not a percentage");
	expect_bssplit_error("4k/10.125:8k/89.875", "not a percentage");
	expect_bssplit_error("4k/101", "not a percentage");
	expect_bssplit_error("", "empty");
	expect_bssplit_error("4k/50::8k/50", "empty");
	expect_bssplit_error("4k/50,8k/100", "not supported");
	expect_bssplit_error("4k:8k", "no percentage");
	for (int i = 0; i < PROFILE_BS_MAX + 1; i++)
		snprintf(many + strlen(many), sizeof(many) - strlen(many), "%s%dk/%s", i ? ":" : "",
			 i + 1, i ? "0" : "100");
	expect_bssplit_error(many, "more than");
}

static void test_rw(void)
{
	struct profile p = {0};
	char err[256] = "";

	profile_builtin("4k-randwrite", &p);
	ok(!profile_parse_rw("read", &p, err, sizeof(err)) && p.pattern == PROFILE_SEQUENTIAL &&
		   p.read_share == 10000,
	   "rw=read: sequential reads");
	ok(!profile_parse_rw("randwrite", &p, err, sizeof(err)) && p.pattern == PROFILE_RANDOM &&
		   p.read_share == 0,
	   "rw=randwrite: random writes");
	ok(!profile_parse_rw("randrw", &p, err, sizeof(err)) && p.pattern == PROFILE_RANDOM &&
		   p.read_share == 5000,
	   "rw=randrw: random, 50%% reads");
	ok(profile_parse_rw("random", &p, err, sizeof(err)) == -EINVAL && strstr(err, "randrw") &&
		   p.read_share == 5000,
	   "unknown rw fails listing the names, profile unchanged");
	ok(!profile_parse_rwmix("70", &p, err, sizeof(err)) && p.read_share == 7000,
	   "rwmix 70 is 70%% reads");
	ok(!profile_parse_rwmix("66.67%", &p, err, sizeof(err)) && p.read_share == 6667,
	   "rwmix 66.67%% is exact");
	ok(profile_parse_rwmix("120", &p, err, sizeof(err)) == -EINVAL &&
		   strstr(err, "percentage of reads") && p.read_share == 6667,
	   "rwmix over 100 fails, profile unchanged");
	ok(profile_parse_rwmix("x", &p, err, sizeof(err)) == -EINVAL, "rwmix 'x' fails");
}

static void test_validate(void)
{
	struct profile p;
	char err[256] = "";

	profile_builtin("fileserver", &p);
	p.bs[3].share -= 1;
	ok(profile_validate(&p, err, sizeof(err)) == -EINVAL && strstr(err, "99.99"),
	   "validate: shares summing to 99.99 fail (%s)", err);
	profile_builtin("fileserver", &p);
	p.nbs = 0;
	ok(profile_validate(&p, err, sizeof(err)) == -EINVAL && strstr(err, "transfer sizes"),
	   "validate: no sizes fail");
	profile_builtin("fileserver", &p);
	p.read_share = 10001;
	ok(profile_validate(&p, err, sizeof(err)) == -EINVAL, "validate: reads over 100%% fail");
	profile_builtin("fileserver", &p);
	p.bs[1].size_bytes = p.bs[0].size_bytes;
	ok(profile_validate(&p, err, sizeof(err)) == -EINVAL && strstr(err, "twice"),
	   "validate: a repeated size fails");
	profile_builtin("fileserver", &p);
	p.bs[0].size_bytes = 0;
	ok(profile_validate(&p, err, sizeof(err)) == -EINVAL, "validate: a zero size fails");
}

static void test_align(void)
{
	struct profile p, q;
	char err[256] = "";
	uint64_t sum = 0;

	profile_builtin("fileserver", &p);
	q = p;
	ok(!profile_align(&q, 512, err, sizeof(err)) && !memcmp(&p, &q, sizeof(p)),
	   "512-byte blocks: fileserver unchanged");
	ok(!profile_align(&q, 4096, err, sizeof(err)) && q.nbs == 5 && share_of(&q, 4096) == 8000 &&
		   share_of(&q, 512) == UINT32_MAX && share_of(&q, 65536) == 1000,
	   "4 KiB blocks: 512, 1k, 2k merge into 4k (80%%)");
	for (unsigned int i = 0; i < q.nbs; i++)
		sum += q.bs[i].share;
	is_u64(sum, 10000, "shares still sum to 100%% after merging");
	ok(profile_min_bytes(&q) == 4096 && profile_max_bytes(&q) == 65536,
	   "min and max transfer size after alignment");

	profile_parse_bssplit("6k/50:4k/50", &p, NULL, 0);
	q = p;
	ok(profile_align(&q, 4096, err, sizeof(err)) == -EINVAL && strstr(err, "6144") &&
		   strstr(err, "multiple of the logical block size") && !memcmp(&p, &q, sizeof(p)),
	   "6k on 4 KiB blocks fails, profile unchanged (%s)", err);
	ok(profile_align(&q, 3000, err, sizeof(err)) == -EINVAL, "non-power-of-two block fails");
}

static void test_variant_format(void)
{
	static const char *const names[] = {"fileserver", "webserver", "8k-7030", "128k-seqread"};
	struct profile p, w, q;
	char buf[512];
	int bad = 0;

	profile_builtin("webserver", &p);
	profile_write_variant(&p, &w);
	ok(w.read_share == 0 && w.pattern == p.pattern && w.nbs == p.nbs &&
		   !memcmp(w.bs, p.bs, sizeof(p.bs)) && !strcmp(w.name, "webserver+write"),
	   "write variant of webserver: same sizes, no reads");
	profile_builtin("128k-seqread", &p);
	profile_write_variant(&p, &w);
	ok(w.read_share == 0 && w.pattern == PROFILE_SEQUENTIAL, "write variant keeps sequential");

	profile_builtin("fileserver", &p);
	is_str(profile_format_bssplit(&p, buf, sizeof(buf)),
	       "512/10:1k/5:2k/5:4k/60:8k/2:16k/4:32k/4:64k/10", "format fileserver's bssplit");
	profile_parse_bssplit("4k/33.33:1m/66.6:3000/0.07", &p, NULL, 0);
	is_str(profile_format_bssplit(&p, buf, sizeof(buf)), "4k/33.33:1m/66.6:3000/0.07",
	       "format keeps decimals and odd sizes");
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		profile_builtin(names[i], &p);
		q = p;
		memset(q.bs, 0, sizeof(q.bs));
		if (profile_parse_bssplit(profile_format_bssplit(&p, buf, sizeof(buf)), &q, NULL,
					  0) ||
		    memcmp(&p, &q, sizeof(p)))
			bad++;
	}
	ok(!bad, "format then parse gives the built-ins back");
	is_str(profile_format_bssplit(&p, buf, 4), "", "format keeps only whole entries");
}

int main(void)
{
	test_builtins();
	test_bssplit();
	test_rw();
	test_validate();
	test_align();
	test_variant_format();
	return done_testing();
}
