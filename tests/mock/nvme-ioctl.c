// SPDX-License-Identifier: MIT
/*
 * nvme-ioctl: an LD_PRELOAD interposer on ioctl() that plays an NVMe
 * controller for libnvme, as libnvme's own test/ioctl/mock.c does.
 *
 *   PLATEAU_NVME_MOCK=scenario-file   (unset: every ioctl passes through)
 *   PLATEAU_NVME_MOCK_LOG=log-file    (optional: one line per command)
 *
 * Point the code under test at a plain file (the "namespace"): open()
 * works, NVME_IOCTL_ID and NVME_IOCTL_ADMIN_CMD/ADMIN64_CMD on any fd are
 * answered here and never reach a device.  Other ioctls pass through.
 *
 * Scenario file, one directive per line, '#' comments, values in C syntax,
 * strings in double quotes:
 *
 *   ctrl serial="MOCK-SN-1" model="Plateau Mock" firmware="1.0"
 *        oacs=0x000a fna=0x04 sanicap=0x00000003 cntlid=1 nn=1
 *   ns nsid=1 nsze=2048 lbads=9 flbas=0 dps=0 dlfeat=1 nlbaf=0
 *      eui64=0011223344556677 nguid=00112233445566778899aabbccddeeff
 *   log sstat=0x0002 sprog=0x8000 etce=10 etbe=60 eto=0xffffffff scdw10=4 repeat=3
 *   expect sanitize cdw10=0x00000004 status=0x0000 erase=0x00
 *   expect format nsid=1 cdw10=0x00000200 status=0x4002
 *   identify-status 0x0000
 *
 * "log" lines form a queue: each Get Log Page (Sanitize Status, LID 81h)
 * serves the head entry (repeat=N times, default 1), the last entry is
 * served forever.  No "log" line: the log page fails with Invalid Field in
 * Command (0x4002), as QEMU's emulated controller answers.
 *
 * "expect" lines are the destructive commands (Sanitize 84h, Format NVM
 * 80h) the test allows, in order, with the exact CDW10 (and NSID for
 * format) they must carry; status= is the completion status to return and
 * erase=BYTE fills the backing file with that byte when the status is 0.
 * A destructive command that is not the next expectation, or carries other
 * dwords, makes the process exit with status 99 ("MOCK-FAIL" on stderr and
 * in the log); expectations left unused at exit make it exit with 98.
 * Any other admin opcode is answered with Invalid Command Opcode (0x4001).
 */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/nvme_ioctl.h>
#include <sys/ioctl.h>
#include <sys/stat.h>

#define MAX_LOGS 64
#define MAX_EXPECT 16

struct mock_log {
	uint16_t sprog, sstat;
	uint32_t scdw10, eto, etbe, etce;
	unsigned repeat;
};

struct mock_expect {
	uint8_t opcode;
	uint32_t cdw10;
	uint32_t nsid;
	bool check_nsid;
	uint16_t status;
	int erase_byte; /* -1: leave the data alone */
};

static struct {
	bool loaded, active;
	char serial[21], model[41], firmware[9];
	uint16_t oacs, cntlid;
	uint8_t fna;
	uint32_t sanicap, nn;
	uint32_t nsid;
	uint64_t nsze;
	uint8_t lbads, flbas, dps, dlfeat, nlbaf;
	uint8_t eui64[8], nguid[16];
	uint16_t identify_status;
	struct mock_log logs[MAX_LOGS];
	size_t n_logs, log_pos;
	unsigned log_served;
	struct mock_expect expect[MAX_EXPECT];
	size_t n_expect, expect_pos;
	FILE *log;
} m;

static int (*real_ioctl)(int, unsigned long, ...);

static void mlog(const char *f, ...) __attribute__((format(printf, 1, 2)));
static void mlog(const char *f, ...)
{
	va_list ap;

	if (!m.log)
		return;
	va_start(ap, f);
	vfprintf(m.log, f, ap);
	va_end(ap);
	fflush(m.log);
}

static void mfail(int code, const char *f, ...) __attribute__((format(printf, 2, 3), noreturn));
static void mfail(int code, const char *f, ...)
{
	char buf[512];
	va_list ap;

	va_start(ap, f);
	vsnprintf(buf, sizeof(buf), f, ap);
	va_end(ap);
	fprintf(stderr, "MOCK-FAIL: %s\n", buf);
	mlog("MOCK-FAIL: %s\n", buf);
	_exit(code);
}

static void put_le(uint8_t *p, uint64_t v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

static void put_ascii(uint8_t *p, const char *s, size_t n)
{
	size_t l = strlen(s);

	memset(p, ' ', n);
	memcpy(p, s, l < n ? l : n);
}

static void parse_hex_bytes(const char *v, uint8_t *out, size_t n, int lineno)
{
	if (strlen(v) != 2 * n)
		mfail(97, "scenario line %d: %s needs %zu hex digits", lineno, v, 2 * n);
	for (size_t i = 0; i < n; i++) {
		char b[3] = {v[2 * i], v[2 * i + 1], 0};
		char *end;

		out[i] = (uint8_t)strtoul(b, &end, 16);
		if (*end)
			mfail(97, "scenario line %d: bad hex %s", lineno, v);
	}
}

static unsigned long long num(const char *v, int lineno)
{
	char *end;
	unsigned long long x;

	errno = 0;
	x = strtoull(v, &end, 0);
	if (errno || end == v || *end)
		mfail(97, "scenario line %d: bad number \"%s\"", lineno, v);
	return x;
}

/* Next "key=value" or "key=\"value\"" token; NULL at the end of the line. */
static char *next_kv(char **p, char **val)
{
	char *s = *p, *k, *o;

	while (*s == ' ' || *s == '\t')
		s++;
	if (!*s || *s == '\n' || *s == '#')
		return NULL;
	k = s;
	while (*s && *s != '=' && *s != ' ' && *s != '\n')
		s++;
	if (*s != '=') {
		/* a bare word */
		if (*s)
			*s++ = '\0';
		*val = NULL;
		*p = s;
		return k;
	}
	*s++ = '\0';
	if (*s == '"') {
		*val = o = ++s;
		while (*s && *s != '"')
			*o++ = *s++;
		if (*s == '"')
			s++;
		*o = '\0';
	} else {
		*val = s;
		while (*s && *s != ' ' && *s != '\t' && *s != '\n')
			s++;
		if (*s)
			*s++ = '\0';
	}
	*p = s;
	return k;
}

static void load(void)
{
	const char *path = getenv("PLATEAU_NVME_MOCK"), *logpath = getenv("PLATEAU_NVME_MOCK_LOG");
	char line[1024];
	int lineno = 0;
	FILE *f;

	m.loaded = true;
	real_ioctl = (int (*)(int, unsigned long, ...))dlsym(RTLD_NEXT, "ioctl");
	if (!path || !*path)
		return;
	f = fopen(path, "re");
	if (!f)
		mfail(97, "cannot open scenario %s: %s", path, strerror(errno));
	if (logpath && *logpath)
		m.log = fopen(logpath, "ae");
	m.active = true;
	/* defaults: a one-namespace controller without any erase support */
	snprintf(m.serial, sizeof(m.serial), "MOCK-SERIAL");
	snprintf(m.model, sizeof(m.model), "Plateau Mock NVMe");
	snprintf(m.firmware, sizeof(m.firmware), "1.0");
	m.nn = 1;
	m.cntlid = 1;
	m.nsid = 1;
	m.nsze = 2048;
	m.lbads = 9;

	while (fgets(line, sizeof(line), f)) {
		char *p = line, *word, *k, *v;
		struct mock_log *lg = NULL;
		struct mock_expect *ex = NULL;

		lineno++;
		word = next_kv(&p, &v);
		if (!word)
			continue;
		if (strcmp(word, "log") == 0) {
			if (m.n_logs >= MAX_LOGS)
				mfail(97, "scenario line %d: too many log lines", lineno);
			lg = &m.logs[m.n_logs++];
			lg->sprog = 0xffff;
			lg->eto = lg->etbe = lg->etce = 0xffffffffu;
			lg->repeat = 1;
		} else if (strcmp(word, "expect") == 0) {
			char *what = next_kv(&p, &v);

			if (m.n_expect >= MAX_EXPECT || !what)
				mfail(97, "scenario line %d: bad expect", lineno);
			ex = &m.expect[m.n_expect++];
			ex->erase_byte = -1;
			if (strcmp(what, "sanitize") == 0)
				ex->opcode = 0x84;
			else if (strcmp(what, "format") == 0)
				ex->opcode = 0x80;
			else
				mfail(97, "scenario line %d: expect sanitize|format", lineno);
		} else if (strcmp(word, "identify-status") == 0) {
			k = next_kv(&p, &v);
			if (!k)
				mfail(97, "scenario line %d: identify-status needs a value",
				      lineno);
			m.identify_status = (uint16_t)num(k, lineno);
			continue;
		} else if (strcmp(word, "ctrl") != 0 && strcmp(word, "ns") != 0) {
			mfail(97, "scenario line %d: unknown directive %s", lineno, word);
		}
		while ((k = next_kv(&p, &v))) {
			if (!v)
				mfail(97, "scenario line %d: %s needs a value", lineno, k);
			if (lg) {
				if (!strcmp(k, "sstat"))
					lg->sstat = (uint16_t)num(v, lineno);
				else if (!strcmp(k, "sprog"))
					lg->sprog = (uint16_t)num(v, lineno);
				else if (!strcmp(k, "scdw10"))
					lg->scdw10 = (uint32_t)num(v, lineno);
				else if (!strcmp(k, "eto"))
					lg->eto = (uint32_t)num(v, lineno);
				else if (!strcmp(k, "etbe"))
					lg->etbe = (uint32_t)num(v, lineno);
				else if (!strcmp(k, "etce"))
					lg->etce = (uint32_t)num(v, lineno);
				else if (!strcmp(k, "repeat"))
					lg->repeat = (unsigned)num(v, lineno);
				else
					mfail(97, "scenario line %d: log %s?", lineno, k);
			} else if (ex) {
				if (!strcmp(k, "cdw10"))
					ex->cdw10 = (uint32_t)num(v, lineno);
				else if (!strcmp(k, "nsid")) {
					ex->nsid = (uint32_t)num(v, lineno);
					ex->check_nsid = true;
				} else if (!strcmp(k, "status"))
					ex->status = (uint16_t)num(v, lineno);
				else if (!strcmp(k, "erase"))
					ex->erase_byte = (int)(num(v, lineno) & 0xff);
				else
					mfail(97, "scenario line %d: expect %s?", lineno, k);
			} else if (!strcmp(k, "serial")) {
				snprintf(m.serial, sizeof(m.serial), "%s", v);
			} else if (!strcmp(k, "model")) {
				snprintf(m.model, sizeof(m.model), "%s", v);
			} else if (!strcmp(k, "firmware")) {
				snprintf(m.firmware, sizeof(m.firmware), "%s", v);
			} else if (!strcmp(k, "oacs")) {
				m.oacs = (uint16_t)num(v, lineno);
			} else if (!strcmp(k, "fna")) {
				m.fna = (uint8_t)num(v, lineno);
			} else if (!strcmp(k, "sanicap")) {
				m.sanicap = (uint32_t)num(v, lineno);
			} else if (!strcmp(k, "cntlid")) {
				m.cntlid = (uint16_t)num(v, lineno);
			} else if (!strcmp(k, "nn")) {
				m.nn = (uint32_t)num(v, lineno);
			} else if (!strcmp(k, "nsid")) {
				m.nsid = (uint32_t)num(v, lineno);
			} else if (!strcmp(k, "nsze")) {
				m.nsze = num(v, lineno);
			} else if (!strcmp(k, "lbads")) {
				m.lbads = (uint8_t)num(v, lineno);
			} else if (!strcmp(k, "flbas")) {
				m.flbas = (uint8_t)num(v, lineno);
			} else if (!strcmp(k, "dps")) {
				m.dps = (uint8_t)num(v, lineno);
			} else if (!strcmp(k, "dlfeat")) {
				m.dlfeat = (uint8_t)num(v, lineno);
			} else if (!strcmp(k, "nlbaf")) {
				m.nlbaf = (uint8_t)num(v, lineno);
			} else if (!strcmp(k, "eui64")) {
				parse_hex_bytes(v, m.eui64, sizeof(m.eui64), lineno);
			} else if (!strcmp(k, "nguid")) {
				parse_hex_bytes(v, m.nguid, sizeof(m.nguid), lineno);
			} else {
				mfail(97, "scenario line %d: unknown key %s", lineno, k);
			}
		}
	}
	fclose(f);
}

__attribute__((destructor)) static void mock_fini(void)
{
	if (m.active && m.expect_pos < m.n_expect)
		mfail(98,
		      "%zu expected command(s) never arrived, first: opcode 0x%02x cdw10 0x%08x",
		      m.n_expect - m.expect_pos, m.expect[m.expect_pos].opcode,
		      m.expect[m.expect_pos].cdw10);
}

/* Identify Controller (CNS 01h), NVMe 1.4 Figure 247 offsets. */
static void fill_id_ctrl(uint8_t *d)
{
	memset(d, 0, 4096);
	put_le(d + 0, 0x1b36, 2); /* VID: QEMU's, any will do */
	put_ascii(d + 4, m.serial, 20);
	put_ascii(d + 24, m.model, 40);
	put_ascii(d + 64, m.firmware, 8);
	put_le(d + 78, m.cntlid, 2);
	put_le(d + 80, 0x00010400, 4); /* VER 1.4 */
	put_le(d + 256, m.oacs, 2);
	put_le(d + 328, m.sanicap, 4);
	put_le(d + 516, m.nn, 4);
	d[524] = m.fna;
}

/* Identify Namespace (CNS 00h), NVMe 1.4 Figure 245 offsets. */
static void fill_id_ns(uint8_t *d, uint32_t nsid)
{
	memset(d, 0, 4096);
	if (nsid != m.nsid)
		return; /* inactive: all zero */
	put_le(d + 0, m.nsze, 8);
	put_le(d + 8, m.nsze, 8);
	put_le(d + 16, m.nsze, 8);
	d[25] = m.nlbaf;
	d[26] = m.flbas;
	d[29] = m.dps;
	d[33] = m.dlfeat;
	memcpy(d + 104, m.nguid, 16);
	memcpy(d + 120, m.eui64, 8);
	/* every LBA format the same size: only the one in use matters here */
	for (unsigned i = 0; i <= m.nlbaf && i < 64; i++)
		d[128 + 4 * i + 2] = m.lbads;
}

static void fill_sanitize_log(uint8_t *d, size_t len)
{
	struct mock_log *lg = &m.logs[m.log_pos];
	uint8_t page[512];

	memset(page, 0, sizeof(page));
	put_le(page + 0, lg->sprog, 2);
	put_le(page + 2, lg->sstat, 2);
	put_le(page + 4, lg->scdw10, 4);
	put_le(page + 8, lg->eto, 4);
	put_le(page + 12, lg->etbe, 4);
	put_le(page + 16, lg->etce, 4);
	memcpy(d, page, len < sizeof(page) ? len : sizeof(page));
	if (++m.log_served >= lg->repeat && m.log_pos + 1 < m.n_logs) {
		m.log_pos++;
		m.log_served = 0;
	}
}

/* Replace the namespace's data, as a sanitize or format with SES would. */
static void erase_backing(int fd, int byte)
{
	char p[64];
	struct stat st;
	uint8_t buf[65536];
	int wfd;

	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode))
		return;
	snprintf(p, sizeof(p), "/proc/self/fd/%d", fd);
	wfd = open(p, O_WRONLY | O_CLOEXEC); /* without the caller's O_DIRECT */
	if (wfd < 0)
		mfail(96, "cannot reopen fd %d to erase it: %s", fd, strerror(errno));
	if (byte == 0) {
		if (ftruncate(wfd, 0) < 0 || ftruncate(wfd, st.st_size) < 0)
			mfail(96, "truncate: %s", strerror(errno));
	} else {
		memset(buf, byte, sizeof(buf));
		for (off_t off = 0; off < st.st_size;) {
			size_t n = (size_t)(st.st_size - off) < sizeof(buf)
					   ? (size_t)(st.st_size - off)
					   : sizeof(buf);
			ssize_t w = pwrite(wfd, buf, n, off);

			if (w <= 0)
				mfail(96, "write: %s", strerror(errno));
			off += w;
		}
	}
	close(wfd);
}

struct cmd {
	uint8_t opcode;
	uint32_t nsid, cdw10, cdw11, data_len;
	void *addr;
};

static int admin(int fd, const struct cmd *c)
{
	uint8_t *data = c->addr;
	unsigned cns = c->cdw10 & 0xff;
	int ret = 0;

	switch (c->opcode) {
	case 0x06: /* Identify */
		if (m.identify_status) {
			ret = m.identify_status;
		} else if (cns == 0x01 && data && c->data_len >= 4096) {
			fill_id_ctrl(data);
		} else if (cns == 0x00 && data && c->data_len >= 4096) {
			fill_id_ns(data, c->nsid);
		} else {
			ret = 0x4002;
		}
		break;
	case 0x02: { /* Get Log Page */
		unsigned lid = c->cdw10 & 0xff;

		if (lid == 0x81 && m.n_logs && data)
			fill_sanitize_log(data, c->data_len);
		else
			ret = 0x4002;
		break;
	}
	case 0x80:   /* Format NVM */
	case 0x84: { /* Sanitize */
		const char *name = c->opcode == 0x80 ? "format" : "sanitize";
		struct mock_expect *ex;

		if (m.expect_pos >= m.n_expect)
			mfail(99, "unexpected %s nsid=%u cdw10=0x%08x: the scenario allows no more",
			      name, c->nsid, c->cdw10);
		ex = &m.expect[m.expect_pos];
		if (ex->opcode != c->opcode || ex->cdw10 != c->cdw10 ||
		    (ex->check_nsid && ex->nsid != c->nsid))
			mfail(99,
			      "%s nsid=%u cdw10=0x%08x does not match the expected %s nsid=%u "
			      "cdw10=0x%08x",
			      name, c->nsid, c->cdw10, ex->opcode == 0x80 ? "format" : "sanitize",
			      ex->nsid, ex->cdw10);
		m.expect_pos++;
		ret = ex->status;
		if (ret == 0 && ex->erase_byte >= 0)
			erase_backing(fd, ex->erase_byte);
		break;
	}
	default:
		ret = 0x4001;
		break;
	}
	mlog("admin opc=0x%02x nsid=%u cdw10=0x%08x cdw11=0x%08x len=%u -> 0x%04x\n", c->opcode,
	     c->nsid, c->cdw10, c->cdw11, c->data_len, (unsigned)ret);
	return ret;
}

int ioctl(int fd, unsigned long request, ...)
{
	va_list ap;
	void *arg;

	va_start(ap, request);
	arg = va_arg(ap, void *);
	va_end(ap);
	if (!m.loaded)
		load();
	if (!m.active)
		return real_ioctl(fd, request, arg);

	if (request == NVME_IOCTL_ID) {
		mlog("ioctl NVME_IOCTL_ID -> %u\n", m.nsid);
		return (int)m.nsid;
	}
	if (request == NVME_IOCTL_ADMIN_CMD) {
		struct nvme_passthru_cmd *p = arg;
		struct cmd c = {p->opcode, p->nsid,	p->cdw10,
				p->cdw11,  p->data_len, (void *)(uintptr_t)p->addr};

		p->result = 0;
		return admin(fd, &c);
	}
	if (request == NVME_IOCTL_ADMIN64_CMD) {
		struct nvme_passthru_cmd64 *p = arg;
		struct cmd c = {p->opcode, p->nsid,	p->cdw10,
				p->cdw11,  p->data_len, (void *)(uintptr_t)p->addr};

		p->result = 0;
		return admin(fd, &c);
	}
	if (_IOC_TYPE(request) == 'N') {
		/* I/O passthru, resets, rescans: nothing plateau's erase path sends */
		mlog("ioctl 0x%lx refused\n", request);
		errno = ENOTTY;
		return -1;
	}
	return real_ioctl(fd, request, arg);
}
