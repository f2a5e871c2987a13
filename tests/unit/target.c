// SPDX-License-Identifier: MIT
/*
 * target + nvmex: identity matching, hex identifiers, status names, the
 * Sanitize Status log decoder, Format CDW10, in-use parsing of mountinfo /
 * swaps fixtures and of a fake sysfs tree (partitions, holders, root on dm),
 * identity of a regular file.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include "nvmex-int.h"
#include "tap.h"
#include "target-int.h"

static char root[] = "/tmp/plateau-target-XXXXXX";

static void mkfile(const char *rel, const char *content)
{
	char p[512];
	FILE *f;

	snprintf(p, sizeof(p), "%s/%s", root, rel);
	f = fopen(p, "w");
	if (!f)
		bail_out("cannot create %s", p);
	fputs(content, f);
	fclose(f);
}

static void mkdirs(const char *rel)
{
	char p[512], *s;

	snprintf(p, sizeof(p), "%s/%s", root, rel);
	for (s = p + strlen(root) + 1; (s = strchr(s, '/')); s++) {
		*s = '\0';
		mkdir(p, 0755);
		*s = '/';
	}
	mkdir(p, 0755);
}

static void mklink(const char *target, const char *rel)
{
	char p[512];

	snprintf(p, sizeof(p), "%s/%s", root, rel);
	if (symlink(target, p) < 0)
		bail_out("symlink %s: %s", p, strerror(errno));
}

static void rm_tree(void)
{
	char cmd[600];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
	if (system(cmd) != 0)
		diag("could not remove %s", root);
}

static struct target_identity nvme_id(void)
{
	struct target_identity id;

	memset(&id, 0, sizeof(id));
	id.kind = TARGET_NVME;
	snprintf(id.path, sizeof(id.path), "/dev/nvme0n1");
	snprintf(id.serial, sizeof(id.serial), "S64DNX0R123456");
	snprintf(id.eui64, sizeof(id.eui64), "0025385b71b0e1a2");
	snprintf(id.nguid, sizeof(id.nguid), "00112233445566778899aabbccddeeff");
	id.nsid = 1;
	return id;
}

static void test_match(void)
{
	struct target_identity id = nvme_id();

	is_int(target_match(&id, "S64DNX0R123456"), TARGET_MATCH_SERIAL, "serial matches");
	is_int(target_match(&id, "  s64dnx0r123456 \n"), TARGET_MATCH_SERIAL,
	       "serial: case and surrounding blanks ignored");
	is_int(target_match(&id, "S64DNX0R12345"), TARGET_MATCH_NONE, "a prefix is no match");
	is_int(target_match(&id, "S64DNX0R1234567"), TARGET_MATCH_NONE,
	       "a longer serial is no match");
	is_int(target_match(&id, "0025385B71B0E1A2"), TARGET_MATCH_EUI64, "eui64 upper case");
	is_int(target_match(&id, "eui.00:25:38:5b:71:b0:e1:a2"), TARGET_MATCH_EUI64,
	       "eui64 with prefix and colons");
	is_int(target_match(&id, "0x0025-385b-71b0-e1a2"), TARGET_MATCH_EUI64,
	       "eui64 0x and dashes");
	is_int(target_match(&id, "0025385b71b0e1a3"), TARGET_MATCH_NONE, "another eui64");
	is_int(target_match(&id, "00112233-4455-6677-8899-AABBCCDDEEFF"), TARGET_MATCH_NGUID,
	       "nguid in UUID layout");
	is_int(target_match(&id, ""), TARGET_MATCH_NONE, "empty never matches");
	is_int(target_match(&id, "   "), TARGET_MATCH_NONE, "blank never matches");
	is_int(target_match(&id, NULL), TARGET_MATCH_NONE, "NULL never matches");

	/* absent identifiers never match, not even an all-zero want */
	id.eui64[0] = '\0';
	id.nguid[0] = '\0';
	is_int(target_match(&id, "0000000000000000"), TARGET_MATCH_NONE,
	       "no eui64: zeros no match");
	is_int(target_match(&id, "0025385b71b0e1a2"), TARGET_MATCH_NONE, "eui64 gone: no match");
	id.serial[0] = '\0';
	is_int(target_match(&id, "S64DNX0R123456"), TARGET_MATCH_NONE,
	       "no serial: nothing matches");

	snprintf(id.wwn, sizeof(id.wwn), "5000c500a1b2c3d4");
	is_int(target_match(&id, "naa.5000C500A1B2C3D4"), TARGET_MATCH_WWN, "wwn with naa. prefix");

	/* synthetic serials: separators are significant there */
	memset(&id, 0, sizeof(id));
	snprintf(id.serial, sizeof(id.serial), "loop:254:0:1318211");
	is_int(target_match(&id, "loop:254:0:1318211"), TARGET_MATCH_SERIAL, "loop serial");
	ok(target_serial_legacy("loop:254:0:1318211"), "0.1 loop serial is legacy");
	ok(target_serial_legacy(" loop:254:0:1318211@4096 "), "with an offset too");
	ok(target_serial_legacy("file:254:0:1318211"), "0.1 file serial is legacy");
	ok(!target_serial_legacy("loop:254:0:1318211:1796138593.011017719"), "stamped loop serial");
	ok(!target_serial_legacy("file:254:0:1318211:g12345"), "generation-stamped file serial");
	ok(!target_serial_legacy("S6CKNA0R123456"), "a drive serial");
	ok(!target_serial_legacy("loop:loop:7:0:12:1.5"), "a loop over a loop");
	is_int(target_match(&id, "loop:2540:1318211"), TARGET_MATCH_NONE,
	       "loop serial: colons are not dropped");
	is_int(target_match(&id, "file:254:0:1318211"), TARGET_MATCH_NONE,
	       "a file serial does not name the loop device over it");
	is_str(target_match_name(TARGET_MATCH_NGUID), "nguid", "match field name");
}

static void test_hex(void)
{
	char out[64];

	is_int(target_hex_id("EUI.0011-2233:4455 6677", out, sizeof(out)), 16,
	       "hex digits counted");
	is_str(out, "0011223344556677", "hex normalized");
	is_int(target_hex_id("naa.5000C500", out, sizeof(out)), 8, "naa prefix");
	is_str(out, "5000c500", "naa lowercased");
	is_int(target_hex_id("S64DNX", out, sizeof(out)), -EINVAL, "non-hex refused");
	is_int(target_hex_id("", out, sizeof(out)), -EINVAL, "empty refused");
	is_int(target_hex_id("0123456789abcdef", out, 8), -EINVAL, "too long for the buffer");
}

static void test_status(void)
{
	char buf[128];

	is_str(nvmex_status_str(buf, sizeof(buf), 0x4001), "Invalid Command Opcode (0x4001)",
	       "invalid opcode with DNR");
	is_str(nvmex_status_str(buf, sizeof(buf), 0x4002), "Invalid Field in Command (0x4002)",
	       "invalid field with DNR");
	is_str(nvmex_status_str(buf, sizeof(buf), 0x0002), "Invalid Field in Command (0x0002)",
	       "invalid field without DNR");
	is_str(nvmex_status_str(buf, sizeof(buf), 0x601d), "Sanitize In Progress (0x601d)",
	       "sanitize in progress with More and DNR");
	is_str(nvmex_status_str(buf, sizeof(buf), 0x401c), "Sanitize Failed (0x401c)",
	       "sanitize failed");
	is_str(nvmex_status_str(buf, sizeof(buf), 0x410a), "Invalid Format (0x410a)",
	       "command specific: invalid format");
	is_str(nvmex_status_str(buf, sizeof(buf), 0x4123),
	       "Sanitize Prohibited While Persistent Memory Region is Enabled (0x4123)",
	       "command specific: sanitize prohibited");
	is_str(nvmex_status_str(buf, sizeof(buf), 0x0281), "Unrecovered Read Error (0x0281)",
	       "media error");
	is_str(nvmex_status_str(buf, sizeof(buf), 0x18ff), "Unknown Generic Status (0x18ff)",
	       "CRD bits do not change the type");
	is_str(nvmex_status_name(0x07ab), "Vendor Specific Status", "vendor specific type");
	is_int(nvmex_status_sct(0x4123), 1, "SCT decoded");
	is_int(nvmex_status_sc(0x4123), 0x23, "SC decoded");
	ok(nvmex_status_dnr(0x4002) && !nvmex_status_more(0x4002), "DNR set, More clear");
	ok(nvmex_status_more(0x2002) && !nvmex_status_dnr(0x2002), "More set, DNR clear");
	is_int(nvmex_status_code(0x7802), 0x002, "code without CRD/More/DNR");
}

static void test_result(void)
{
	struct nvmex_err e;

	is_int(nvmex_result(0, "Identify Controller", &e), 0, "0 is success");
	is_int(e.err, 0, "no error recorded");
	is_int(nvmex_result(0x4001, "Sanitize", &e), -EREMOTEIO, "status -> -EREMOTEIO");
	is_int(e.status, 0x4001, "status kept");
	is_str(e.msg, "Sanitize: Invalid Command Opcode (0x4001)", "status message");
	errno = ETIMEDOUT;
	is_int(nvmex_result(-1, "Format NVM", &e), -ETIMEDOUT, "-1 with errno -> -errno");
	is_int(e.status, 0, "no status for a transport error");
	ok(strstr(e.msg, "Format NVM: ") == e.msg, "transport message names the command");
	errno = 0;
	is_int(nvmex_result(-1, "x", NULL), -EIO, "-1 without errno -> -EIO, NULL err ok");
}

static void test_sanitize_decode(void)
{
	uint8_t page[512] = {0};
	struct nvmex_sanitize_status s;

	/* SPROG 0x4000, SSTAT in progress, SCDW10 4, ETO none, ETBE 600, ETCE 30 */
	page[0] = 0x00;
	page[1] = 0x40;
	page[2] = 0x02;
	page[4] = 0x04;
	memset(page + 8, 0xff, 4);
	page[12] = 0x58;
	page[13] = 0x02;
	page[16] = 30;
	nvmex_sanitize_decode(page, &s);
	is_int(s.state, NVMEX_SANITIZE_IN_PROGRESS, "in progress");
	is_dbl(s.progress, 0.25, 1e-9, "SPROG/65536");
	is_u64(s.scdw10, 4, "SCDW10");
	is_u64(s.eto_s, NVMEX_TIME_NOT_REPORTED, "ETO not reported");
	is_u64(s.etbe_s, 600, "ETBE");
	is_u64(s.etce_s, 30, "ETCE");

	page[0] = page[1] = 0xff;
	page[2] = 0x01 | 0x18; /* success, 3 passes */
	page[3] = 0x01;	       /* global data erased */
	nvmex_sanitize_decode(page, &s);
	is_int(s.state, NVMEX_SANITIZE_SUCCESS, "completed");
	is_dbl(s.progress, 1.0, 0, "progress 1 when done");
	is_int(s.passes, 3, "overwrite passes");
	ok(s.global_data_erased, "global data erased");
	page[2] = 0x03;
	nvmex_sanitize_decode(page, &s);
	is_int(s.state, NVMEX_SANITIZE_FAILED, "failed");
	is_str(nvmex_sanitize_state_name(s.state), "failed", "state name");
}

static void test_format_cdw10(void)
{
	struct nvmex_ns_info ns = {.nsid = 1, .lbaf = 0};

	is_u64(nvmex_format_cdw10(&ns, NVMEX_SES_USER_DATA), 0x200, "SES=1, LBAF 0");
	is_u64(nvmex_format_cdw10(&ns, NVMEX_SES_CRYPTO), 0x400, "SES=2");
	ns.lbaf = 0x13; /* index 19: low nibble 3, upper bits 1 */
	ns.meta_extended = true;
	ns.dps = 0x9; /* PI type 1, PI first */
	is_u64(nvmex_format_cdw10(&ns, NVMEX_SES_USER_DATA),
	       0x1000 | 0x200 | 0x100 | 0x20 | 0x10 | 0x3,
	       "LBAF, MSET, PI, PIL, SES, LBAFU all placed");
	is_int(nvmex_format(-1, &ns, NVMEX_SES_NONE, 1000, NULL), -EINVAL,
	       "SES=0 is refused before anything is sent");
	is_int(nvmex_sanitize_start(-1, NVMEX_SANACT_OVERWRITE, NULL), -EINVAL,
	       "only crypto/block sanitize can be started");
}

static FILE *fixture(const char *s)
{
	FILE *f = tmpfile();

	if (!f || fputs(s, f) < 0)
		bail_out("tmpfile");
	rewind(f);
	return f;
}

static void test_mountinfo(void)
{
	struct target_devset set = {0};
	struct target_inuse u = {0};
	const char *mi = "22 27 0:21 / /proc rw,relatime - proc proc rw\n"
			 "27 1 254:0 / / rw,relatime shared:1 - ext4 /dev/vda rw\n"
			 "90 27 7:9 / /mnt/a\\040b rw,relatime shared:40 - ext4 /dev/plateau-x rw\n"
			 "91 27 259:7 / /srv rw - xfs /dev/plateau-y rw\n"
			 "92 27 0:55 /sub /data rw - btrfs /dev/plateau-test9p2 rw\n"
			 "garbage line\n";
	FILE *f;

	set.n = 3;
	set.dev[0] = makedev(7, 9);
	snprintf(set.name[0], sizeof(set.name[0]), "plateau-test9");
	set.dev[1] = makedev(259, 7);
	snprintf(set.name[1], sizeof(set.name[1]), "plateau-test9p1");
	set.dev[2] = makedev(259, 8);
	snprintf(set.name[2], sizeof(set.name[2]), "plateau-test9p2");

	f = fixture(mi);
	is_int(target_inuse_mountinfo(f, &set, &u), 3, "three mounts found");
	fclose(f);
	is_str(u.reason[0], "plateau-test9 is mounted at /mnt/a b", "device, escaped mount point");
	is_str(u.reason[1], "plateau-test9p1 is mounted at /srv", "partition by major:minor");
	is_str(u.reason[2], "plateau-test9p2 is mounted at /data",
	       "btrfs-style anonymous dev matched by source name");

	memset(&u, 0, sizeof(u));
	set.n = 1;
	set.dev[0] = makedev(8, 16);
	f = fixture(mi);
	is_int(target_inuse_mountinfo(f, &set, &u), 0, "an unrelated device is not mounted");
	fclose(f);

	memset(&u, 0, sizeof(u));
	set.dev[0] = makedev(254, 0);
	snprintf(set.name[0], sizeof(set.name[0]), "plateau-root");
	f = fixture(mi);
	is_int(target_inuse_root(f, "/nonexistent", &set, &u), 1, "root device found");
	fclose(f);
	is_str(u.reason[0], "plateau-root backs the root filesystem", "root reason");
}

static void test_swaps(void)
{
	struct target_devset set = {0};
	struct target_inuse u = {0};
	const char *sw = "Filename\t\t\t\tType\t\tSize\t\tUsed\t\tPriority\n"
			 "/dev/plateau-swap7                      partition\t1048572\t\t0\t\t-2\n"
			 "/dev/plateau-other                      partition\t1048572\t\t0\t\t-3\n";
	FILE *f;

	set.n = 1;
	set.dev[0] = makedev(7, 77);
	snprintf(set.name[0], sizeof(set.name[0]), "plateau-swap7");
	f = fixture(sw);
	is_int(target_inuse_swaps(f, &set, &u), 1, "swap on the device found");
	fclose(f);
	is_str(u.reason[0], "plateau-swap7 is active swap", "swap reason");

	memset(&u, 0, sizeof(u));
	snprintf(set.name[0], sizeof(set.name[0]), "plateau-none");
	f = fixture(sw);
	is_int(target_inuse_swaps(f, &set, &u), 0, "no swap on another device");
	fclose(f);
}

static void test_swapfile(void)
{
	struct target_devset set = {0};
	struct target_inuse u = {0};
	char p[512], sw[1024];
	struct stat st;
	FILE *f;

	snprintf(p, sizeof(p), "%s/swap file", root);
	mkfile("swap file", "x");
	if (stat(p, &st) < 0)
		bail_out("stat");
	set.is_file = true;
	set.file_dev = st.st_dev;
	set.file_ino = st.st_ino;
	snprintf(sw, sizeof(sw),
		 "Filename Type Size Used Priority\n%s/swap\\040file file 1024 0 -2\n", root);
	f = fixture(sw);
	is_int(target_inuse_swaps(f, &set, &u), 1, "a file that is active swap is in use");
	fclose(f);
	ok(strstr(u.reason[0], "is an active swap file") != NULL, "swap file reason: %s",
	   u.reason[0]);
}

/*
 * A fake sysfs: plateau-t9 with partitions p1 and p2; p1 is held by dm-3
 * ("vg-root"), which is the root filesystem's device; nvme7 controller
 * with namespaces nvme7n1 and nvme7n2.
 */
static void build_sysfs(void)
{
	mkdirs("class/block/plateau-t9/plateau-t9p1/holders/dm-3");
	mkdirs("class/block/plateau-t9/plateau-t9p2/holders");
	mkdirs("class/block/plateau-t9/holders");
	mkdirs("class/block/plateau-t9/queue");
	mkfile("class/block/plateau-t9/dev", "7:99\n");
	mkfile("class/block/plateau-t9/plateau-t9p1/dev", "259:91\n");
	mkfile("class/block/plateau-t9/plateau-t9p1/partition", "1\n");
	mkfile("class/block/plateau-t9/plateau-t9p2/dev", "259:92\n");
	mkfile("class/block/plateau-t9/plateau-t9p2/partition", "2\n");
	mklink("plateau-t9/plateau-t9p1", "class/block/plateau-t9p1");
	mklink("plateau-t9/plateau-t9p2", "class/block/plateau-t9p2");
	mkdirs("class/block/dm-3/dm");
	mkdirs("class/block/dm-3/slaves/plateau-t9p1");
	mkfile("class/block/dm-3/dev", "253:3\n");
	mkfile("class/block/dm-3/dm/name", "vg-root\n");
	mkdirs("dev/block");
	mklink("../../class/block/dm-3", "dev/block/253:3");

	mkdirs("class/nvme/nvme7/nvme7n1");
	mkdirs("class/nvme/nvme7/nvme7n2");
	mkdirs("class/block/nvme7n1");
	mkdirs("class/block/nvme7n2");
	mkfile("class/block/nvme7n1/dev", "259:70\n");
	mkfile("class/block/nvme7n2/dev", "259:71\n");
}

static void test_sysfs(void)
{
	struct target_devset set = {0};
	struct target_inuse u = {0};
	const char *mi = "27 1 253:3 / / rw,relatime - ext4 /dev/mapper/vg-root rw\n";
	FILE *f;

	build_sysfs();
	is_int(target_devset_sysfs(root, "plateau-t9", &set), 0, "devset read");
	is_u64(set.n, 3, "device plus two partitions");
	ok(set.dev[0] == makedev(7, 99), "device major:minor first");
	is_int(target_devset_sysfs(root, "nope", &set), -ENOENT, "missing device: -ENOENT");
	is_int(target_devset_sysfs(root, "../x", &set), -EINVAL, "a path is not a name");

	is_int(target_inuse_holders(root, &set, &u), 1, "one holder");
	is_str(u.reason[0], "plateau-t9p1 is held by dm-3 (vg-root)", "holder reason names dm");

	memset(&u, 0, sizeof(u));
	f = fixture(mi);
	is_int(target_inuse_root(f, root, &set, &u), 1, "root through dm found");
	fclose(f);
	is_str(u.reason[0], "plateau-t9p1 backs the root filesystem (through dm-3)",
	       "root-through-dm reason");

	memset(&set, 0, sizeof(set));
	is_int(target_devset_sysfs(root, "nvme7n1", &set), 0, "namespace devset");
	is_u64(set.n, 1, "one namespace");
	is_int(target_devset_add_ctrl(root, "nvme7", &set), 0, "whole controller added");
	is_u64(set.n, 2, "both namespaces of the controller");
}

static void test_file_identity(void)
{
	struct target_identity id, id2;
	char p[512], msg[256], expect[128];
	struct stat st;
	int fd;

	snprintf(p, sizeof(p), "%s/disk.img", root);
	fd = open(p, O_CREAT | O_RDWR | O_TRUNC, 0644);
	if (fd < 0 || ftruncate(fd, 1 << 20) < 0 || fstat(fd, &st) < 0)
		bail_out("disk.img");
	close(fd);
	is_int(target_identify(p, &id, msg, sizeof(msg)), 0, "a regular file identifies");
	is_int(id.kind, TARGET_FILE, "kind file");
	snprintf(expect, sizeof(expect), "file:%u:%u:%llu:", major(st.st_dev), minor(st.st_dev),
		 (unsigned long long)st.st_ino);
	ok(strncmp(id.serial, expect, strlen(expect)) == 0 && strlen(id.serial) > strlen(expect),
	   "synthetic file serial: file:MAJ:MIN:INO:STAMP (%s)", id.serial);
	ok(!id.serial_weak, "with a birth time or generation the serial is not weak");
	ok(target_serial_legacy(expect) == false, "the new form with an empty stamp is not legacy");
	expect[strlen(expect) - 1] = '\0';
	ok(target_serial_legacy(expect), "the 0.1 form of the same file is legacy: %s", expect);
	is_int(target_match(&id, expect), TARGET_MATCH_NONE, "and does not name the file");
	snprintf(expect, sizeof(expect), "%s", id.serial);
	{
		/* another file that gets the same inode number (deleted, then reused)
		 * has another birth time: emulate by checking a different stamp */
		char other[128];

		snprintf(other, sizeof(other), "%.*s:1.000000001",
			 (int)(strrchr(expect, ':') - expect), expect);
		ok(target_match(&id, other) == TARGET_MATCH_NONE,
		   "same inode, another birth time: another file (%s)", other);
	}
	is_u64(id.capacity_bytes, 1 << 20, "capacity from st_size");
	is_int(target_match(&id, expect), TARGET_MATCH_SERIAL, "plan can name it");
	is_int(target_identify(p, &id2, msg, sizeof(msg)), 0, "again");
	ok(target_same(&id, &id2), "same file, same identity");
	id2.capacity_bytes++;
	ok(!target_same(&id, &id2), "a size change is another identity");
	is_int(target_identify_as(p, TARGET_BLOCK, &id2, msg, sizeof(msg)), -ENOTBLK,
	       "a file is not a block device");
	is_int(target_identify_as(p, TARGET_NVME, &id2, msg, sizeof(msg)), -ENOTTY,
	       "NVMe ioctls on a real file fail (no mock loaded)");
	is_int(target_identify("/nonexistent/plateau", &id2, msg, sizeof(msg)), -ENOENT,
	       "missing path");
	ok(strstr(msg, "/nonexistent/plateau") != NULL, "message names the path");
	is_int(target_identify("/dev/null", &id2, msg, sizeof(msg)), -ENOTBLK,
	       "a char device that is not a namespace is refused");
}

int main(void)
{
	if (!mkdtemp(root))
		bail_out("mkdtemp: %s", strerror(errno));
	test_match();
	test_hex();
	test_status();
	test_result();
	test_sanitize_decode();
	test_format_cdw10();
	test_mountinfo();
	test_swaps();
	test_swapfile();
	test_sysfs();
	test_file_identity();
	rm_tree();
	return done_testing();
}
