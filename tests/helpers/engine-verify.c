// SPDX-License-Identifier: MIT
/*
 * engine-verify: read a target back (O_DIRECT) and check the engine's write
 * stamps (struct engine_stamp) against a footprint.
 *
 *   engine-verify --target PATH --offset O --size S [--pass N] [--sizes A,B,..]
 *                 [--align A] [--all-stamped] [--outside-zero]
 *
 * Inside [O, O+S) every ENGINE_STAMP_GRANULE either is all zero (never
 * written; refused with --all-stamped) or carries a stamp whose offset is
 * its own, whose write lies inside the footprint and covers it, whose write
 * offset is a multiple of --align (default 4096), whose length is one of
 * --sizes (if given) and whose pass is --pass (if given).  With
 * --outside-zero the rest of the target must be all zero.
 *
 * Prints "verify granules=.. stamped=.. zero=.. bad=.. outside_dirty=.." and
 * exits 0 when nothing is wrong, 1 otherwise, 2 on usage errors.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "engine.h"
#include "parse.h"

#define CHUNK (4U << 20)

static int all_zero(const uint8_t *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (p[i])
			return 0;
	return 1;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{"target", required_argument, NULL, 't'},
		{"offset", required_argument, NULL, 'o'},
		{"size", required_argument, NULL, 's'},
		{"pass", required_argument, NULL, 'p'},
		{"sizes", required_argument, NULL, 'z'},
		{"align", required_argument, NULL, 'a'},
		{"all-stamped", no_argument, NULL, 'A'},
		{"outside-zero", no_argument, NULL, 'O'},
		{},
	};
	uint64_t off = 0, size = 0, pass = 0, align = 4096, sizes[64], v;
	uint64_t granules = 0, stamped = 0, zero = 0, bad = 0, dirty = 0, first_bad = UINT64_MAX;
	unsigned int nsizes = 0;
	bool check_pass = false, all_stamped = false, outside_zero = false;
	const char *path = NULL;
	struct engine_target t;
	uint8_t *buf;
	int opt, fd, r;

	while ((opt = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (opt) {
		case 't':
			path = optarg;
			break;
		case 'o':
			if (parse_size(optarg, &off))
				return 2;
			break;
		case 's':
			if (parse_size(optarg, &size))
				return 2;
			break;
		case 'p':
			if (parse_u64(optarg, &pass))
				return 2;
			check_pass = true;
			break;
		case 'a':
			if (parse_size(optarg, &align) || !align)
				return 2;
			break;
		case 'z':
			for (char *tok = strtok(optarg, ","); tok; tok = strtok(NULL, ",")) {
				if (nsizes == 64 || parse_size(tok, &v))
					return 2;
				sizes[nsizes++] = v;
			}
			break;
		case 'A':
			all_stamped = true;
			break;
		case 'O':
			outside_zero = true;
			break;
		default:
			return 2;
		}
	}
	if (!path || !size) {
		fprintf(stderr, "usage: engine-verify --target PATH --offset O --size S ...\n");
		return 2;
	}
	r = engine_target_probe(path, &t);
	if (r || off + size > t.size_bytes || off % ENGINE_STAMP_GRANULE ||
	    size % ENGINE_STAMP_GRANULE || t.size_bytes % ENGINE_STAMP_GRANULE) {
		fprintf(stderr, "engine-verify: bad target or footprint\n");
		return 2;
	}
	fd = open(path, O_RDONLY | O_DIRECT);
	if (fd < 0 || posix_memalign((void **)&buf, 4096, CHUNK)) {
		fprintf(stderr, "engine-verify: %s: %s\n", path, strerror(errno));
		return 2;
	}
	for (uint64_t base = 0; base < t.size_bytes; base += CHUNK) {
		size_t n = t.size_bytes - base < CHUNK ? (size_t)(t.size_bytes - base) : CHUNK;

		if (pread(fd, buf, n, (off_t)base) != (ssize_t)n) {
			fprintf(stderr, "engine-verify: read at %llu: %s\n",
				(unsigned long long)base, strerror(errno));
			return 2;
		}
		for (size_t g = 0; g < n; g += ENGINE_STAMP_GRANULE) {
			uint64_t pos = base + g;
			const struct engine_stamp *st = (const void *)(buf + g);
			bool ok = true;

			if (pos < off || pos >= off + size) {
				if (outside_zero && !all_zero(buf + g, ENGINE_STAMP_GRANULE))
					dirty++;
				continue;
			}
			granules++;
			if (all_zero(buf + g, ENGINE_STAMP_GRANULE)) {
				zero++;
				if (all_stamped && first_bad == UINT64_MAX)
					first_bad = pos;
				continue;
			}
			stamped++;
			if (st->magic != ENGINE_STAMP_MAGIC || st->offset_bytes != pos ||
			    st->io_offset_bytes < off ||
			    st->io_offset_bytes + st->io_bytes > off + size ||
			    st->io_offset_bytes > pos ||
			    pos >= st->io_offset_bytes + st->io_bytes ||
			    (st->io_offset_bytes - off) % align || (check_pass && st->pass != pass))
				ok = false;
			if (ok && nsizes) {
				unsigned int i;

				for (i = 0; i < nsizes; i++)
					if (sizes[i] == st->io_bytes)
						break;
				ok = i < nsizes;
			}
			if (!ok) {
				bad++;
				if (first_bad == UINT64_MAX)
					first_bad = pos;
			}
		}
	}
	close(fd);
	free(buf);
	printf("verify granules=%llu stamped=%llu zero=%llu bad=%llu outside_dirty=%llu",
	       (unsigned long long)granules, (unsigned long long)stamped, (unsigned long long)zero,
	       (unsigned long long)bad, (unsigned long long)dirty);
	if (first_bad != UINT64_MAX)
		printf(" first_bad=%llu", (unsigned long long)first_bad);
	printf("\n");
	return bad || dirty || (all_stamped && zero) ? 1 : 0;
}
