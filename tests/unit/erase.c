// SPDX-License-Identifier: MIT
/*
 * erase: method names, what each kind of target advertises, the auto chain
 * and its scope warnings (dry run), the expected read-back pattern, and the
 * whole guard_erase() path on regular files: refusal on a wrong serial,
 * punch / zero / none, stop and deadline, verify catching data.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include "erase-int.h"
#include "guard.h"
#include "nvmex.h"
#include "tap.h"
#include "target.h"

static char dir[] = "/tmp/plateau-erase-XXXXXX";

static struct target_identity nvme(uint32_t sanicap, uint16_t oacs, uint8_t fna)
{
	struct target_identity id;

	memset(&id, 0, sizeof(id));
	id.kind = TARGET_NVME;
	snprintf(id.path, sizeof(id.path), "/dev/nvme0n1");
	snprintf(id.ctrl, sizeof(id.ctrl), "nvme0");
	snprintf(id.serial, sizeof(id.serial), "SN1");
	id.nsid = 1;
	id.sanicap = sanicap;
	id.oacs = oacs;
	id.fna = fna;
	id.lba_bytes = 512;
	id.capacity_bytes = 1 << 20;
	return id;
}

static void test_names(void)
{
	enum erase_method m;
	int bad = 0;

	for (int i = 0; i < ERASE_METHOD_COUNT; i++)
		if (erase_method_parse(erase_method_name((enum erase_method)i), &m) < 0 ||
		    (int)m != i)
			bad++;
	is_int(bad, 0, "every method name parses back");
	is_int(erase_method_parse("format-ses0", &m), -EINVAL, "no SES=0 method exists");
	is_int(erase_method_parse("", &m), -EINVAL, "empty refused");
	is_str(erase_method_name(ERASE_METHOD_COUNT), "?", "out of range");
}

static void test_supported(void)
{
	struct target_identity id = nvme(0x3, 0x2, 0x4), f;
	char buf[256];

	is_str(erase_methods_str(erase_methods_supported(&id), buf, sizeof(buf)),
	       "sanitize-crypto,sanitize-block,format-crypto,format-user,none",
	       "everything advertised");
	/* what QEMU's emulated controller reports: OACS 0x10a, FNA 0, SANICAP 0 */
	id = nvme(0, 0x10a, 0);
	is_str(erase_methods_str(erase_methods_supported(&id), buf, sizeof(buf)),
	       "format-user,none", "QEMU: format SES=1 only");
	id = nvme(0x1, 0, 0x4);
	is_str(erase_methods_str(erase_methods_supported(&id), buf, sizeof(buf)),
	       "sanitize-crypto,none", "FNA bit 2 without OACS Format is no format-crypto");
	memset(&f, 0, sizeof(f));
	f.kind = TARGET_FILE;
	is_str(erase_methods_str(erase_methods_supported(&f), buf, sizeof(buf)), "zero,punch,none",
	       "files: punch and zero");
	f.kind = TARGET_BLOCK;
	is_str(erase_methods_str(erase_methods_supported(&f), buf, sizeof(buf)), "zero,none",
	       "block without discard (not a secure-erase virtio disk: no secure-discard)");
	f.discard = true;
	is_str(erase_methods_str(erase_methods_supported(&f), buf, sizeof(buf)),
	       "discard,zero,none", "block with discard");
}

static void test_dry_run(void)
{
	struct target_identity id = nvme(0x3, 0x2, 0x4);
	struct erase_plan p;
	char msg[256];

	is_int(erase_dry_run(&id, ERASE_AUTO, &p, msg, sizeof(msg)), 0, "auto on a full drive");
	is_u64(p.n_chain, 4, "four methods");
	ok(p.chain[0] == ERASE_SANITIZE_CRYPTO && p.chain[1] == ERASE_SANITIZE_BLOCK &&
		   p.chain[2] == ERASE_FORMAT_CRYPTO && p.chain[3] == ERASE_FORMAT_USER,
	   "strongest first");
	ok(p.all_namespaces, "sanitize reaches every namespace");
	ok(p.n_warnings == 1 && strstr(p.warnings[0], "every namespace of the NVM subsystem"),
	   "sanitize scope warning");

	id = nvme(0, 0x10a, 0);
	is_int(erase_dry_run(&id, ERASE_AUTO, &p, msg, sizeof(msg)), 0, "auto on QEMU");
	ok(p.n_chain == 1 && p.chain[0] == ERASE_FORMAT_USER, "QEMU: format-user only");
	ok(!p.all_namespaces && p.n_warnings == 0, "no scope warning when FNA is 0");
	is_int(erase_dry_run(&id, ERASE_SANITIZE_CRYPTO, &p, msg, sizeof(msg)), -EOPNOTSUPP,
	       "explicit sanitize-crypto refused");
	ok(strstr(msg, "SANICAP bit 0 (CES) is 0"), "refusal cites SANICAP: %s", msg);
	is_u64(p.n_chain, 0, "nothing would run");
	is_int(erase_dry_run(&id, ERASE_SANITIZE_BLOCK, &p, msg, sizeof(msg)), -EOPNOTSUPP,
	       "explicit sanitize-block refused");
	ok(strstr(msg, "SANICAP bit 1 (BES) is 0"), "refusal cites BES: %s", msg);
	is_int(erase_dry_run(&id, ERASE_FORMAT_CRYPTO, &p, msg, sizeof(msg)), -EOPNOTSUPP,
	       "format-crypto refused when FNA bit 2 is 0 (QEMU would accept SES=2)");
	ok(strstr(msg, "FNA bit 2"), "refusal cites FNA: %s", msg);
	is_int(erase_dry_run(&id, ERASE_PUNCH, &p, msg, sizeof(msg)), -EOPNOTSUPP,
	       "punch is not for a namespace");

	id = nvme(0, 0x2, 0x3);
	is_int(erase_dry_run(&id, ERASE_FORMAT_USER, &p, msg, sizeof(msg)), 0, "format-user");
	ok(p.all_namespaces, "FNA bits 0/1: all namespaces");
	is_u64(p.n_warnings, 2, "two FNA warnings");
	ok(strstr(p.warnings[0], "FNA bit 0") && strstr(p.warnings[1], "FNA bit 1"),
	   "warnings name the FNA bits");

	id = nvme(0, 0, 0);
	is_int(erase_dry_run(&id, ERASE_AUTO, &p, msg, sizeof(msg)), -EOPNOTSUPP,
	       "auto with nothing advertised fails rather than discarding");
	ok(strstr(msg, "advertises no erase"), "says why: %s", msg);
	is_int(erase_dry_run(&id, ERASE_NONE, &p, msg, sizeof(msg)), 0, "none is always possible");
	ok(p.n_chain == 1 && p.chain[0] == ERASE_NONE, "none in the chain");
	is_int(erase_dry_run(&id, (enum erase_method)99, &p, msg, sizeof(msg)), -EINVAL,
	       "unknown method");
}

static void test_pattern(void)
{
	struct target_identity id = nvme(0x3, 0x2, 0x4), f;

	id.dlfeat = NVMEX_DLFEAT_READ_ONES;
	is_int(erase_expected_pattern(&id, ERASE_SANITIZE_BLOCK), 0xff, "DLFEAT 010b: FFh");
	id.dlfeat = NVMEX_DLFEAT_READ_ZEROES;
	is_int(erase_expected_pattern(&id, ERASE_SANITIZE_BLOCK), 0x00, "DLFEAT 001b: 00h");
	memset(&f, 0, sizeof(f));
	f.kind = TARGET_BLOCK;
	f.dlfeat = NVMEX_DLFEAT_READ_ONES;
	is_int(erase_expected_pattern(&f, ERASE_ZERO), 0x00, "block devices: zeros");
}

static uint64_t file_sum(const char *p)
{
	uint64_t h = 0xcbf29ce484222325ull;
	FILE *f = fopen(p, "rb");
	int c;

	if (!f)
		bail_out("open %s", p);
	while ((c = fgetc(f)) != EOF)
		h = (h ^ (uint64_t)c) * 0x100000001b3ull;
	fclose(f);
	return h;
}

static void make_data(const char *p, size_t bytes)
{
	FILE *f = fopen(p, "wb");
	uint64_t x = 0x9E3779B97F4A7C15ull;

	if (!f)
		bail_out("create %s", p);
	for (size_t i = 0; i < bytes; i++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		fputc((int)(x & 0xff) | 1, f); /* never a zero byte */
	}
	fclose(f);
}

static bool stop_now(void *u)
{
	(void)u;
	return true;
}

static void test_file_erase(void)
{
	struct target_identity id;
	struct erase_record rec;
	struct erase_opts o = {.method = ERASE_AUTO, .verify_seed = 7, .verify_samples = 8};
	char p[512], msg[256], serial[TARGET_SERIAL_LEN];
	uint64_t before;
	struct stat st;
	int fd;

	snprintf(p, sizeof(p), "%s/target.img", dir);
	make_data(p, (4 << 20) + 100); /* an unaligned tail on purpose */
	if (target_identify(p, &id, msg, sizeof(msg)) < 0)
		bail_out("identify %s: %s", p, msg);
	snprintf(serial, sizeof(serial), "%s", id.serial);
	before = file_sum(p);

	/* no name, wrong name: refused, nothing changed */
	is_int(guard_erase(p, &o, NULL, &rec), -EPERM, "no serial in the plan: refused");
	o.want = "file:0:0:1:1.000000001";
	is_int(guard_erase(p, &o, NULL, &rec), -EPERM, "wrong serial: refused");
	ok(strstr(rec.msg, "not the drive the plan names") && strstr(rec.msg, serial) &&
		   strstr(rec.msg, o.want),
	   "message names both: %s", rec.msg);
	o.want = "file:0:0:1";
	is_int(guard_erase(p, &o, NULL, &rec), -EPERM, "old serial form: refused");
	ok(strstr(rec.msg, "re-read the serial"), "asks to re-read the serial: %s", rec.msg);
	is_int(rec.n_attempts, 0, "nothing attempted");
	ok(file_sum(p) == before, "data unchanged after refusals");

	/* the stop flag is honoured before anything runs */
	o.want = serial;
	o.should_stop = stop_now;
	is_int(guard_erase(p, &o, NULL, &rec), -ECANCELED, "stopped before the first method");
	ok(file_sum(p) == before, "data unchanged after stop");
	o.should_stop = NULL;

	/* a deadline that has passed */
	o.deadline_ns = 1;
	is_int(guard_erase(p, &o, NULL, &rec), -ETIMEDOUT, "deadline already passed");
	ok(strstr(rec.msg, "deadline"), "deadline message: %s", rec.msg);
	ok(file_sum(p) == before, "data unchanged after the deadline");
	o.deadline_ns = 0;

	/* none: nothing happens, and it says so */
	o.method = ERASE_NONE;
	is_int(guard_erase(p, &o, NULL, &rec), 0, "none succeeds");
	ok(rec.completed && rec.ran == ERASE_NONE && !rec.verify.done, "none recorded, no verify");
	ok(file_sum(p) == before, "none changed nothing");

	/* the verify catches data that is still there */
	{
		struct erase_verify v;

		fd = open(p, O_RDONLY | O_DIRECT);
		if (fd < 0)
			bail_out("open O_DIRECT: %s", strerror(errno));
		is_int(erase_verify(fd, &id, 0x00, &o, &v), 0, "verify of unerased data runs");
		ok(v.done && !v.passed, "and fails");
		is_int(v.ranges_other, v.ranges, "every range holds data");
		is_u64(v.first_bad_offset, 0, "first bad range at 0");
		close(fd);
	}

	/* auto on a file: punch */
	o.method = ERASE_AUTO;
	is_int(guard_erase(p, &o, &id, &rec), 0, "auto erase of a file");
	is_int(rec.ran, ERASE_PUNCH, "punch ran");
	ok(rec.n_attempts == 1 && rec.attempts[0].sent && rec.attempts[0].err == 0,
	   "one attempt recorded");
	ok(rec.verify.done && rec.verify.passed, "verify passed");
	is_int(rec.verify.ranges, 10, "first, last and 8 random ranges");
	is_int(rec.verify.ranges_zero, 10, "all read as zeros");
	if (stat(p, &st) < 0)
		bail_out("stat");
	is_u64((uint64_t)st.st_size, (4 << 20) + 100, "size kept (KEEP_SIZE)");

	/* explicit zero-fill, including the unaligned tail */
	make_data(p, (4 << 20) + 100);
	o.method = ERASE_ZERO;
	is_int(guard_erase(p, &o, &id, &rec), 0, "zero-fill a file");
	is_int(rec.ran, ERASE_ZERO, "zero ran");
	ok(rec.verify.passed, "verify passed after zero-fill");
	{
		FILE *f = fopen(p, "rb");
		long nz = 0;
		int c;

		while (f && (c = fgetc(f)) != EOF)
			nz += c != 0;
		if (f)
			fclose(f);
		is_int(nz, 0, "every byte, tail included, is zero");
	}

	/* an explicit method of another kind of target is refused before anything */
	make_data(p, 1 << 20);
	before = file_sum(p);
	if (target_identify(p, &id, msg, sizeof(msg)) < 0)
		bail_out("identify");
	o.want = id.serial;
	o.method = ERASE_SANITIZE_CRYPTO;
	is_int(guard_erase(p, &o, NULL, &rec), -EOPNOTSUPP, "sanitize on a file refused");
	ok(rec.n_attempts == 1 && !rec.attempts[0].sent, "refused, not sent");
	ok(file_sum(p) == before, "data unchanged");
}

int main(void)
{
	char cmd[600];

	if (!mkdtemp(dir))
		bail_out("mkdtemp: %s", strerror(errno));
	test_names();
	test_supported();
	test_dry_run();
	test_pattern();
	test_file_erase();
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	if (system(cmd) != 0)
		diag("could not remove %s", dir);
	return done_testing();
}
