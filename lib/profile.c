// SPDX-License-Identifier: MIT
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "cleanup.h"
#include "msg.h"
#include "parse.h"
#include "profile.h"

#define KIB 1024U

struct builtin {
	const char *name;
	enum profile_pattern pattern;
	uint32_t read_pct;
	const char *bssplit;
};

/* docs/method.md, "Standard workload profiles" */
static const struct builtin builtins[] = {
	{"4k-randwrite", PROFILE_RANDOM, 0, "4k"},
	{"4k-randread", PROFILE_RANDOM, 100, "4k"},
	{"8k-7030", PROFILE_RANDOM, 70, "8k"},
	{"64k-randwrite", PROFILE_RANDOM, 0, "64k"},
	{"64k-randread", PROFILE_RANDOM, 100, "64k"},
	{"128k-seqwrite", PROFILE_SEQUENTIAL, 0, "128k"},
	{"128k-seqread", PROFILE_SEQUENTIAL, 100, "128k"},
	{"fileserver", PROFILE_RANDOM, 80, "512/10:1k/5:2k/5:4k/60:8k/2:16k/4:32k/4:64k/10"},
	{"webserver", PROFILE_RANDOM, 100,
	 "512/22:1k/15:2k/8:4k/23:8k/15:16k/2:32k/6:64k/7:128k/1:512k/1"},
};

int profile_builtin(const char *name, struct profile *ret)
{
	struct profile p;

	if (!name)
		return -ENOENT;
	for (size_t i = 0; i < ARRAY_SIZE(builtins); i++) {
		if (strcmp(name, builtins[i].name))
			continue;
		memset(&p, 0, sizeof(p));
		snprintf(p.name, sizeof(p.name), "%s", builtins[i].name);
		p.pattern = builtins[i].pattern;
		p.read_share = builtins[i].read_pct * (PROFILE_SHARE_SCALE / 100);
		if (profile_parse_bssplit(builtins[i].bssplit, &p, NULL, 0))
			return -EINVAL; /* a typo in the table above */
		*ret = p;
		return 0;
	}
	return -ENOENT;
}

const char *profile_builtin_names(void)
{
	return "4k-randwrite, 4k-randread, 8k-7030, 64k-randwrite, 64k-randread, "
	       "128k-seqwrite, 128k-seqread, fileserver, webserver";
}

/* "60", "60%", "33.33" -> 6000, 6000, 3333; more than two decimals fail */
static int parse_share(const char *s, uint32_t *ret)
{
	double pct, scaled;

	if (parse_percent(s, false, &pct))
		return -EINVAL;
	scaled = pct * (PROFILE_SHARE_SCALE / 100);
	if (fabs(scaled - round(scaled)) > 1e-6)
		return -EINVAL;
	*ret = (uint32_t)lround(scaled);
	return 0;
}

static void format_share(char *buf, size_t len, uint32_t share)
{
	uint32_t whole = share / (PROFILE_SHARE_SCALE / 100),
		 frac = share % (PROFILE_SHARE_SCALE / 100);

	if (!frac)
		snprintf(buf, len, "%u", whole);
	else if (frac % 10 == 0)
		snprintf(buf, len, "%u.%u", whole, frac / 10);
	else
		snprintf(buf, len, "%u.%02u", whole, frac);
}

int profile_parse_bssplit(const char *s, struct profile *p, char *err, size_t errlen)
{
	struct profile_bs bs[PROFILE_BS_MAX];
	char entry[64];
	unsigned int n = 0;
	uint64_t sum = 0;
	const char *cur;

	if (!s || !*s) {
		msg_set(err, errlen,
			"bssplit is empty; expected SIZE/PERCENT[:SIZE/PERCENT...], "
			"e.g. 4k/60:64k/40");
		return -EINVAL;
	}
	if (strchr(s, ',')) {
		msg_set(err, errlen,
			"bssplit '%s': separate read and write splits (',') are not "
			"supported; expected SIZE/PERCENT[:SIZE/PERCENT...]",
			s);
		return -EINVAL;
	}
	for (cur = s;;) {
		const char *colon = strchr(cur, ':');
		size_t len = colon ? (size_t)(colon - cur) : strlen(cur);
		uint64_t size;
		uint32_t share = PROFILE_SHARE_SCALE;
		char *slash;

		if (n == PROFILE_BS_MAX) {
			msg_set(err, errlen, "bssplit '%s': more than %d sizes", s, PROFILE_BS_MAX);
			return -EINVAL;
		}
		if (!len || len >= sizeof(entry)) {
			msg_set(err, errlen,
				"bssplit '%s': entry %u is %s; expected SIZE/PERCENT, e.g. 4k/60",
				s, n + 1, len ? "too long" : "empty");
			return -EINVAL;
		}
		memcpy(entry, cur, len);
		entry[len] = '\0';
		slash = strchr(entry, '/');
		if (slash)
			*slash = '\0';
		else if (colon || n) {
			/* a bare size is only "all of it", as the whole split */
			msg_set(err, errlen,
				"bssplit '%s': entry %u '%s' has no percentage; expected "
				"SIZE/PERCENT, e.g. 4k/60",
				s, n + 1, entry);
			return -EINVAL;
		}
		if (parse_size(entry, &size) || size == 0 || size > PROFILE_BS_MAX_BYTES) {
			msg_set(err, errlen,
				"bssplit '%s': entry %u: '%s' is not a transfer size; "
				"expected 1 byte to 16m, e.g. 512, 4k, 128k",
				s, n + 1, entry);
			return -EINVAL;
		}
		if (slash && parse_share(slash + 1, &share)) {
			msg_set(err, errlen,
				"bssplit '%s': entry %u: '%s' is not a percentage; expected "
				"0 to 100 with at most two decimals",
				s, n + 1, slash + 1);
			return -EINVAL;
		}
		for (unsigned int i = 0; i < n; i++)
			if (bs[i].size_bytes == size) {
				msg_set(err, errlen,
					"bssplit '%s': size %s appears twice; expected each "
					"size once",
					s, entry);
				return -EINVAL;
			}
		bs[n].size_bytes = (uint32_t)size;
		bs[n].share = share;
		sum += share;
		n++;
		if (!colon)
			break;
		cur = colon + 1;
	}
	if (sum != PROFILE_SHARE_SCALE) {
		char got[32];

		format_share(got, sizeof(got), (uint32_t)(sum > UINT32_MAX ? UINT32_MAX : sum));
		msg_set(err, errlen, "bssplit '%s': percentages sum to %s; expected 100", s, got);
		return -EINVAL;
	}
	memcpy(p->bs, bs, n * sizeof(bs[0]));
	p->nbs = n;
	return 0;
}

int profile_parse_rw(const char *s, struct profile *p, char *err, size_t errlen)
{
	static const struct {
		const char *name;
		enum profile_pattern pattern;
		uint32_t read_share;
	} rws[] = {
		{"read", PROFILE_SEQUENTIAL, PROFILE_SHARE_SCALE},
		{"write", PROFILE_SEQUENTIAL, 0},
		{"randread", PROFILE_RANDOM, PROFILE_SHARE_SCALE},
		{"randwrite", PROFILE_RANDOM, 0},
		{"rw", PROFILE_SEQUENTIAL, PROFILE_SHARE_SCALE / 2},
		{"readwrite", PROFILE_SEQUENTIAL, PROFILE_SHARE_SCALE / 2},
		{"randrw", PROFILE_RANDOM, PROFILE_SHARE_SCALE / 2},
	};

	for (size_t i = 0; s && i < ARRAY_SIZE(rws); i++)
		if (!strcmp(s, rws[i].name)) {
			p->pattern = rws[i].pattern;
			p->read_share = rws[i].read_share;
			return 0;
		}
	msg_set(err, errlen,
		"rw '%s': expected read, write, randread, randwrite, rw, readwrite "
		"or randrw",
		s ? s : "");
	return -EINVAL;
}

int profile_parse_rwmix(const char *s, struct profile *p, char *err, size_t errlen)
{
	uint32_t share;

	if (!s || parse_share(s, &share)) {
		msg_set(err, errlen,
			"rwmix '%s': expected the percentage of reads, 0 to 100 with at "
			"most two decimals",
			s ? s : "");
		return -EINVAL;
	}
	p->read_share = share;
	return 0;
}

int profile_validate(const struct profile *p, char *err, size_t errlen)
{
	uint64_t sum = 0;

	if (p->pattern != PROFILE_RANDOM && p->pattern != PROFILE_SEQUENTIAL) {
		msg_set(err, errlen,
			"profile: unknown access pattern %d; expected random or "
			"sequential",
			(int)p->pattern);
		return -EINVAL;
	}
	if (p->read_share > PROFILE_SHARE_SCALE) {
		msg_set(err, errlen, "profile: read share %u.%02u%% is over 100%%",
			p->read_share / 100, p->read_share % 100);
		return -EINVAL;
	}
	if (p->nbs == 0 || p->nbs > PROFILE_BS_MAX) {
		msg_set(err, errlen, "profile: %u transfer sizes; expected 1 to %d", p->nbs,
			PROFILE_BS_MAX);
		return -EINVAL;
	}
	for (unsigned int i = 0; i < p->nbs; i++) {
		if (p->bs[i].size_bytes == 0 || p->bs[i].size_bytes > PROFILE_BS_MAX_BYTES) {
			msg_set(err, errlen,
				"profile: transfer size %u bytes; expected 1 byte to 16 MiB",
				p->bs[i].size_bytes);
			return -EINVAL;
		}
		for (unsigned int j = 0; j < i; j++)
			if (p->bs[j].size_bytes == p->bs[i].size_bytes) {
				msg_set(err, errlen,
					"profile: transfer size %u bytes appears twice",
					p->bs[i].size_bytes);
				return -EINVAL;
			}
		sum += p->bs[i].share;
	}
	if (sum != PROFILE_SHARE_SCALE) {
		msg_set(err, errlen,
			"profile: transfer size percentages sum to %llu.%02llu; expected 100",
			(unsigned long long)(sum / 100), (unsigned long long)(sum % 100));
		return -EINVAL;
	}
	return 0;
}

int profile_align(struct profile *p, uint32_t lba_bytes, char *err, size_t errlen)
{
	struct profile_bs bs[PROFILE_BS_MAX];
	unsigned int n = 0;

	if (!lba_bytes || (lba_bytes & (lba_bytes - 1))) {
		msg_set(err, errlen, "logical block size %u is not a power of two", lba_bytes);
		return -EINVAL;
	}
	for (unsigned int i = 0; i < p->nbs && i < PROFILE_BS_MAX; i++) {
		uint32_t size = p->bs[i].size_bytes;
		unsigned int j;

		if (size < lba_bytes)
			size = lba_bytes;
		else if (size % lba_bytes) {
			msg_set(err, errlen,
				"transfer size %u bytes is not a multiple of the logical "
				"block size (%u bytes)",
				size, lba_bytes);
			return -EINVAL;
		}
		for (j = 0; j < n; j++)
			if (bs[j].size_bytes == size)
				break;
		if (j == n) {
			bs[n].size_bytes = size;
			bs[n].share = 0;
			n++;
		}
		bs[j].share += p->bs[i].share;
	}
	memcpy(p->bs, bs, n * sizeof(bs[0]));
	p->nbs = n;
	return 0;
}

void profile_write_variant(const struct profile *p, struct profile *ret)
{
	struct profile w = *p;

	w.read_share = 0;
	if (p->name[0])
		snprintf(w.name, sizeof(w.name), "%.*s+write", (int)sizeof(w.name) - 7, p->name);
	*ret = w;
}

uint32_t profile_min_bytes(const struct profile *p)
{
	uint32_t m = 0;

	for (unsigned int i = 0; i < p->nbs && i < PROFILE_BS_MAX; i++)
		if (!m || p->bs[i].size_bytes < m)
			m = p->bs[i].size_bytes;
	return m;
}

uint32_t profile_max_bytes(const struct profile *p)
{
	uint32_t m = 0;

	for (unsigned int i = 0; i < p->nbs && i < PROFILE_BS_MAX; i++)
		if (p->bs[i].size_bytes > m)
			m = p->bs[i].size_bytes;
	return m;
}

static void format_size(char *buf, size_t len, uint32_t size)
{
	if (size >= KIB * KIB && size % (KIB * KIB) == 0)
		snprintf(buf, len, "%um", size / (KIB * KIB));
	else if (size >= KIB && size % KIB == 0)
		snprintf(buf, len, "%uk", size / KIB);
	else
		snprintf(buf, len, "%u", size);
}

char *profile_format_bssplit(const struct profile *p, char *buf, size_t len)
{
	size_t off = 0;

	if (!len)
		return buf;
	buf[0] = '\0';
	for (unsigned int i = 0; i < p->nbs && i < PROFILE_BS_MAX; i++) {
		char size[16], share[16];
		int r;

		format_size(size, sizeof(size), p->bs[i].size_bytes);
		format_share(share, sizeof(share), p->bs[i].share);
		r = snprintf(buf + off, len - off, "%s%s/%s", i ? ":" : "", size, share);
		if (r < 0 || (size_t)r >= len - off) {
			buf[off] = '\0'; /* only whole entries */
			break;
		}
		off += (size_t)r;
	}
	return buf;
}
