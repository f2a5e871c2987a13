/* SPDX-License-Identifier: MIT */
#ifndef PLATEAU_PROFILE_H
#define PLATEAU_PROFILE_H

#include <stddef.h>
#include <stdint.h>

/*
 * profile: what a workload does, independent of where and how hard.
 *
 * Access pattern (random or sequential), the share of reads (decided per I/O)
 * and the transfer-size distribution, written in fio's bssplit syntax
 * ("512/10:1k/5:2k/5:4k/60:8k/2:16k/4:32k/4:64k/10").  Shares are kept in
 * units of 0.01 % (PROFILE_SHARE_SCALE = 10000 is 100 %), so percentages
 * with up to two decimals are exact; the engine draws sizes from a
 * 10000-entry table, so the drawn distribution equals the written one with
 * no rounding.
 *
 * The built-in profiles are the table of docs/method.md ("Standard workload
 * profiles"); fileserver uses 80 % reads.
 */

#define PROFILE_BS_MAX 32		 /* entries in a bssplit */
#define PROFILE_BS_MAX_BYTES (16U << 20) /* largest transfer size */
#define PROFILE_SHARE_SCALE 10000U	 /* 100 %, in 0.01 % units */
#define PROFILE_NAME_MAX 48

enum profile_pattern {
	PROFILE_RANDOM,
	PROFILE_SEQUENTIAL,
};

/* One transfer size of a bssplit and its share of the I/Os. */
struct profile_bs {
	uint32_t size_bytes;
	uint32_t share; /* of PROFILE_SHARE_SCALE */
};

/* A workload: pattern, share of reads, transfer-size distribution. */
struct profile {
	char name[PROFILE_NAME_MAX]; /* "" for a custom profile */
	enum profile_pattern pattern;
	uint32_t read_share; /* reads, of PROFILE_SHARE_SCALE */
	unsigned int nbs;
	struct profile_bs bs[PROFILE_BS_MAX];
};

/**
 * profile_builtin() - look up a built-in profile by name
 * @name: "4k-randwrite", "fileserver", ...
 * @ret: the profile, written only on success
 *
 * Return: 0, or -ENOENT for NULL or an unknown name
 * (profile_builtin_names() lists the known ones for the message).
 */
int profile_builtin(const char *name, struct profile *ret);

/**
 * profile_builtin_names() - the built-in profiles' names, for error messages
 *
 * Return: a static string, "4k-randwrite, 4k-randread, ...", every name
 * profile_builtin() takes.
 */
const char *profile_builtin_names(void);

/**
 * profile_parse_bssplit() - set the transfer sizes from fio bssplit syntax
 * @s: "SIZE/PCT:SIZE/PCT...", or a single "SIZE" meaning 100 %
 * @p: profile; only its sizes change, and only on success
 * @err: filled with what was expected on failure (may be NULL)
 * @errlen: size of @err
 *
 * Sizes use parse_size() ("512", "4k", "1m"); percentages are decimal with
 * at most two decimals and must sum to exactly 100.  A size may appear only
 * once.  Read/write-specific splits (fio's "...,..." form) are not supported.
 *
 * Return: 0 or -EINVAL.
 */
int profile_parse_bssplit(const char *s, struct profile *p, char *err, size_t errlen);

/**
 * profile_parse_rw() - set pattern and read share from a fio rw= name
 * @s: read, write, randread, randwrite, rw|readwrite (50 % reads), randrw
 * @p: profile, changed only on success
 * @err: filled on failure (may be NULL)
 * @errlen: size of @err
 *
 * Return: 0 or -EINVAL.
 */
int profile_parse_rw(const char *s, struct profile *p, char *err, size_t errlen);

/**
 * profile_parse_rwmix() - set the share of reads ("70", "70%", "66.67")
 * @s: percentage of reads, 0..100, at most two decimals
 * @p: profile, changed only on success
 * @err: filled on failure (may be NULL)
 * @errlen: size of @err
 *
 * Return: 0 or -EINVAL.
 */
int profile_parse_rwmix(const char *s, struct profile *p, char *err, size_t errlen);

/**
 * profile_validate() - check a profile built by hand or parsed
 * @p: profile
 * @err: filled on failure (may be NULL)
 * @errlen: size of @err
 *
 * At least one size, sizes in 1..PROFILE_BS_MAX_BYTES and distinct, shares
 * summing to PROFILE_SHARE_SCALE, read share at most PROFILE_SHARE_SCALE.
 *
 * Return: 0 or -EINVAL.
 */
int profile_validate(const struct profile *p, char *err, size_t errlen);

/**
 * profile_align() - fit the sizes to a device's logical block size
 * @p: profile, changed only on success
 * @lba_bytes: logical block size, a power of two
 * @err: filled on failure (may be NULL)
 * @errlen: size of @err
 *
 * Sizes below @lba_bytes are rounded up to it (docs/method.md: O_DIRECT needs
 * whole blocks) and entries that become equal are merged, adding their
 * shares ("512/10:4k/90" on a 4 KiB device is "4k/100").  A size above
 * @lba_bytes that is not a multiple of it is an error, not rounded.
 *
 * Return: 0 or -EINVAL.
 */
int profile_align(struct profile *p, uint32_t lba_bytes, char *err, size_t errlen);

/**
 * profile_write_variant() - the 100 %-write twin of a profile
 * @p: profile
 * @ret: same pattern and sizes, no reads; a named profile's name gets
 *       "+write" appended (cut to fit PROFILE_NAME_MAX), a custom profile's
 *       stays ""; may be @p
 *
 * docs/method.md: a read workload is preconditioned with 100 % writes of the
 * same transfer-size profile.
 */
void profile_write_variant(const struct profile *p, struct profile *ret);

/**
 * profile_min_bytes() - the smallest transfer size of a profile
 * @p: profile
 *
 * Return: the size in bytes, 0 when @p has no sizes.
 */
uint32_t profile_min_bytes(const struct profile *p);

/**
 * profile_max_bytes() - the largest transfer size of a profile
 * @p: profile
 *
 * Return: the size in bytes, 0 when @p has no sizes.
 */
uint32_t profile_max_bytes(const struct profile *p);

/**
 * profile_format_bssplit() - a profile's transfer sizes in bssplit syntax
 * @p: profile
 * @buf: destination
 * @len: size of @buf
 *
 * "4k/60:64k/40", which profile_parse_bssplit() reads back to the same
 * sizes and shares: sizes in the largest of m, k or bytes that divides
 * them, shares with up to two decimals.  Only whole entries are written:
 * when @buf is too small the list stops at the last entry that fits.
 *
 * Return: @buf (untouched when @len is 0).
 */
char *profile_format_bssplit(const struct profile *p, char *buf, size_t len);

#endif
