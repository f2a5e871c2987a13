// SPDX-License-Identifier: MIT
/*
 * nvmex: Identify, Sanitize, Sanitize Status log and Format NVM through
 * libnvme 1.3, with one conversion of libnvme's three-way result.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <nvme/ioctl.h>
#include <nvme/types.h>

#include "nvmex-int.h"

/* A little-endian load that does not care about alignment. */
static uint64_t le_load(const void *p, size_t n)
{
	const uint8_t *b = p;
	uint64_t v = 0;

	for (size_t i = n; i-- > 0;)
		v = (v << 8) | b[i];
	return v;
}

/* Copy a space-padded ASCII Identify field, dropping padding and NULs. */
static void copy_ascii(char *dst, size_t dst_len, const char *src, size_t src_len)
{
	size_t n = 0;

	while (n < src_len && n + 1 < dst_len && src[n])
		n++;
	memcpy(dst, src, n);
	while (n > 0 && (dst[n - 1] == ' ' || dst[n - 1] == '\0'))
		n--;
	dst[n] = '\0';
	/* Identify strings are ASCII; never pass control bytes on to JSON or logs. */
	for (size_t i = 0; i < n; i++)
		if ((unsigned char)dst[i] < 0x20 || (unsigned char)dst[i] > 0x7e)
			dst[i] = '?';
}

int nvmex_result(int rc, const char *what, struct nvmex_err *e)
{
	int errnum = errno; /* first: anything below may change errno */
	struct nvmex_err scratch;
	char sbuf[96];

	if (!e)
		e = &scratch;
	if (rc == 0) {
		e->err = 0;
		e->status = 0;
		e->msg[0] = '\0';
		return 0;
	}
	if (rc > 0) {
		/*
		 * A completion with an error status.  libnvme 1.3 keeps a type
		 * in bits 29:27 (NVMe-MI statuses); the ioctl path only ever
		 * returns the 15-bit NVMe status field.
		 */
		e->err = -EREMOTEIO;
		e->status = (uint16_t)(rc & 0x7fff);
		snprintf(e->msg, sizeof(e->msg), "%s: %s", what,
			 nvmex_status_str(sbuf, sizeof(sbuf), e->status));
		return -EREMOTEIO;
	}
	if (errnum <= 0)
		errnum = EIO;
	e->err = -errnum;
	e->status = 0;
	snprintf(e->msg, sizeof(e->msg), "%s: %s", what, strerror_r(errnum, sbuf, sizeof(sbuf)));
	return -errnum;
}

struct status_name {
	uint16_t code; /* SCT << 8 | SC */
	const char *name;
};

/* NVMe 2.0 Figures 101-104 (and NVM Command Set 1.0 Figure 33). */
static const struct status_name status_names[] = {
	/* Generic Command Status (SCT 0h) */
	{0x000, "Successful Completion"},
	{0x001, "Invalid Command Opcode"},
	{0x002, "Invalid Field in Command"},
	{0x003, "Command ID Conflict"},
	{0x004, "Data Transfer Error"},
	{0x005, "Commands Aborted due to Power Loss Notification"},
	{0x006, "Internal Error"},
	{0x007, "Command Abort Requested"},
	{0x008, "Command Aborted due to SQ Deletion"},
	{0x009, "Command Aborted due to Failed Fused Command"},
	{0x00a, "Command Aborted due to Missing Fused Command"},
	{0x00b, "Invalid Namespace or Format"},
	{0x00c, "Command Sequence Error"},
	{0x00d, "Invalid SGL Segment Descriptor"},
	{0x00e, "Invalid Number of SGL Descriptors"},
	{0x00f, "Data SGL Length Invalid"},
	{0x010, "Metadata SGL Length Invalid"},
	{0x011, "SGL Descriptor Type Invalid"},
	{0x012, "Invalid Use of Controller Memory Buffer"},
	{0x013, "PRP Offset Invalid"},
	{0x014, "Atomic Write Unit Exceeded"},
	{0x015, "Operation Denied"},
	{0x016, "SGL Offset Invalid"},
	{0x018, "Host Identifier Inconsistent Format"},
	{0x019, "Keep Alive Timer Expired"},
	{0x01a, "Keep Alive Timeout Invalid"},
	{0x01b, "Command Aborted due to Preempt and Abort"},
	{0x01c, "Sanitize Failed"},
	{0x01d, "Sanitize In Progress"},
	{0x01e, "SGL Data Block Granularity Invalid"},
	{0x01f, "Command Not Supported for Queue in CMB"},
	{0x020, "Namespace is Write Protected"},
	{0x021, "Command Interrupted"},
	{0x022, "Transient Transport Error"},
	{0x023, "Command Prohibited by Command and Feature Lockdown"},
	{0x024, "Admin Command Media Not Ready"},
	{0x080, "LBA Out of Range"},
	{0x081, "Capacity Exceeded"},
	{0x082, "Namespace Not Ready"},
	{0x083, "Reservation Conflict"},
	{0x084, "Format In Progress"},
	/* Command Specific Status (SCT 1h) */
	{0x100, "Completion Queue Invalid"},
	{0x101, "Invalid Queue Identifier"},
	{0x102, "Invalid Queue Size"},
	{0x103, "Abort Command Limit Exceeded"},
	{0x105, "Asynchronous Event Request Limit Exceeded"},
	{0x106, "Invalid Firmware Slot"},
	{0x107, "Invalid Firmware Image"},
	{0x108, "Invalid Interrupt Vector"},
	{0x109, "Invalid Log Page"},
	{0x10a, "Invalid Format"},
	{0x10b, "Firmware Activation Requires Conventional Reset"},
	{0x10c, "Invalid Queue Deletion"},
	{0x10d, "Feature Identifier Not Saveable"},
	{0x10e, "Feature Not Changeable"},
	{0x10f, "Feature Not Namespace Specific"},
	{0x110, "Firmware Activation Requires NVM Subsystem Reset"},
	{0x111, "Firmware Activation Requires Controller Level Reset"},
	{0x112, "Firmware Activation Requires Maximum Time Violation"},
	{0x113, "Firmware Activation Prohibited"},
	{0x114, "Overlapping Range"},
	{0x115, "Namespace Insufficient Capacity"},
	{0x116, "Namespace Identifier Unavailable"},
	{0x118, "Namespace Already Attached"},
	{0x119, "Namespace Is Private"},
	{0x11a, "Namespace Not Attached"},
	{0x11b, "Thin Provisioning Not Supported"},
	{0x11c, "Controller List Invalid"},
	{0x11d, "Device Self-test In Progress"},
	{0x11e, "Boot Partition Write Prohibited"},
	{0x11f, "Invalid Controller Identifier"},
	{0x120, "Invalid Secondary Controller State"},
	{0x121, "Invalid Number of Controller Resources"},
	{0x122, "Invalid Resource Identifier"},
	{0x123, "Sanitize Prohibited While Persistent Memory Region is Enabled"},
	{0x124, "ANA Group Identifier Invalid"},
	{0x125, "ANA Attach Failed"},
	{0x126, "Insufficient Capacity"},
	{0x127, "Namespace Attachment Limit Exceeded"},
	{0x128, "Prohibition of Command Execution Not Supported"},
	{0x180, "Conflicting Attributes"},
	{0x181, "Invalid Protection Information"},
	{0x182, "Attempted Write to Read Only Range"},
	{0x183, "Command Size Limit Exceeded"},
	/* Media and Data Integrity Errors (SCT 2h) */
	{0x280, "Write Fault"},
	{0x281, "Unrecovered Read Error"},
	{0x282, "End-to-end Guard Check Error"},
	{0x283, "End-to-end Application Tag Check Error"},
	{0x284, "End-to-end Reference Tag Check Error"},
	{0x285, "Compare Failure"},
	{0x286, "Access Denied"},
	{0x287, "Deallocated or Unwritten Logical Block"},
	{0x288, "End-to-End Storage Tag Check Error"},
	/* Path Related Status (SCT 3h) */
	{0x300, "Internal Path Error"},
	{0x301, "Asymmetric Access Persistent Loss"},
	{0x302, "Asymmetric Access Inaccessible"},
	{0x303, "Asymmetric Access Transition"},
	{0x360, "Controller Pathing Error"},
	{0x370, "Host Pathing Error"},
	{0x371, "Command Aborted By Host"},
};

const char *nvmex_status_name(uint16_t status)
{
	unsigned code = nvmex_status_code(status);

	for (size_t i = 0; i < sizeof(status_names) / sizeof(status_names[0]); i++)
		if (status_names[i].code == code)
			return status_names[i].name;
	switch (nvmex_status_sct(status)) {
	case 0:
		return "Unknown Generic Status";
	case 1:
		return "Unknown Command Specific Status";
	case 2:
		return "Unknown Media and Data Integrity Error";
	case 3:
		return "Unknown Path Related Status";
	case 7:
		return "Vendor Specific Status";
	default:
		return "Reserved Status Code Type";
	}
}

char *nvmex_status_str(char *buf, size_t len, uint16_t status)
{
	snprintf(buf, len, "%s (0x%04x)", nvmex_status_name(status), status);
	return buf;
}

const char *nvmex_sanitize_state_name(unsigned state)
{
	switch (state) {
	case NVMEX_SANITIZE_NEVER:
		return "never sanitized";
	case NVMEX_SANITIZE_SUCCESS:
		return "completed successfully";
	case NVMEX_SANITIZE_IN_PROGRESS:
		return "in progress";
	case NVMEX_SANITIZE_FAILED:
		return "failed";
	case NVMEX_SANITIZE_SUCCESS_ND:
		return "completed successfully (no-deallocate)";
	default:
		return "reserved";
	}
}

int nvmex_get_nsid(int fd, uint32_t *nsid, struct nvmex_err *e)
{
	__u32 id = 0;
	int rc, r;

	rc = nvme_get_nsid(fd, &id);
	r = nvmex_result(rc, "Get Namespace ID", e);
	if (r < 0)
		return r;
	/* NVME_IOCTL_ID returns the nsid as the ioctl's value: 0 means no namespace. */
	if (id == 0 || id == 0xffffffffu) {
		if (e) {
			e->err = -ENOTTY;
			snprintf(e->msg, sizeof(e->msg),
				 "Get Namespace ID: not a namespace device");
		}
		return -ENOTTY;
	}
	*nsid = id;
	return 0;
}

int nvmex_identify_ctrl(int fd, struct nvmex_ctrl_info *c, struct nvmex_err *e)
{
	struct nvme_id_ctrl *id;
	int rc, r;

	/* 4 KiB: not on the stack of a daemon thread */
	if (posix_memalign((void **)&id, 4096, sizeof(*id)))
		return -ENOMEM;
	memset(id, 0, sizeof(*id));
	rc = nvme_identify_ctrl(fd, id);
	r = nvmex_result(rc, "Identify Controller", e);
	if (r == 0) {
		memset(c, 0, sizeof(*c));
		copy_ascii(c->serial, sizeof(c->serial), id->sn, sizeof(id->sn));
		copy_ascii(c->model, sizeof(c->model), id->mn, sizeof(id->mn));
		copy_ascii(c->firmware, sizeof(c->firmware), id->fr, sizeof(id->fr));
		c->oacs = (uint16_t)le_load(&id->oacs, 2);
		c->fna = id->fna;
		c->sanicap = (uint32_t)le_load(&id->sanicap, 4);
		c->cntlid = (uint16_t)le_load(&id->cntlid, 2);
		c->nn = (uint32_t)le_load(&id->nn, 4);
		c->ver = (uint32_t)le_load(&id->ver, 4);
	}
	free(id);
	return r;
}

int nvmex_identify_ns(int fd, uint32_t nsid, struct nvmex_ns_info *n, struct nvmex_err *e)
{
	struct nvme_id_ns *id;
	unsigned lbaf, ds;
	int rc, r;

	if (posix_memalign((void **)&id, 4096, sizeof(*id)))
		return -ENOMEM;
	memset(id, 0, sizeof(*id));
	rc = nvme_identify_ns(fd, nsid, id);
	r = nvmex_result(rc, "Identify Namespace", e);
	if (r < 0)
		goto out;
	/* An inactive NSID returns a zero-filled structure (NVMe 1.4 5.15.2.1). */
	if (le_load(&id->nsze, 8) == 0) {
		r = -ENODEV;
		if (e) {
			e->err = r;
			snprintf(e->msg, sizeof(e->msg),
				 "Identify Namespace: namespace %u is not active (NSZE 0)", nsid);
		}
		goto out;
	}
	/* FLBAS bits 3:0 are the low index, bits 6:5 the high one (NVMe 2.0 Figure 275). */
	lbaf = (id->flbas & 0xf) | ((id->flbas & 0x60) >> 1);
	ds = id->lbaf[lbaf < 64 ? lbaf : 0].ds;
	/* NLBAF is zero based; LBADS below 9 (512 B) is not a usable format */
	if (lbaf > id->nlbaf || lbaf >= 64 || ds < 9 || ds > 24) {
		r = -EINVAL;
		if (e) {
			e->err = r;
			snprintf(e->msg, sizeof(e->msg),
				 "Identify Namespace: LBA format %u in use (NLBAF %u, LBADS %u) "
				 "is not valid",
				 lbaf, id->nlbaf, ds);
		}
		goto out;
	}
	memset(n, 0, sizeof(*n));
	n->nsid = nsid;
	n->nsze_blocks = le_load(&id->nsze, 8);
	n->lba_bytes = 1u << ds;
	n->meta_bytes = (uint16_t)le_load(&id->lbaf[lbaf].ms, 2);
	n->lbaf = (uint8_t)lbaf;
	n->meta_extended = id->flbas & 0x10;
	n->dps = id->dps;
	n->dlfeat = id->dlfeat;
	memcpy(n->eui64, id->eui64, sizeof(n->eui64));
	memcpy(n->nguid, id->nguid, sizeof(n->nguid));
out:
	free(id);
	return r;
}

int nvmex_sanitize_start(int fd, enum nvmex_sanact act, struct nvmex_err *e)
{
	struct nvme_sanitize_nvm_args args;
	int rc;

	if (act != NVMEX_SANACT_CRYPTO_ERASE && act != NVMEX_SANACT_BLOCK_ERASE)
		return -EINVAL;
	memset(&args, 0, sizeof(args));
	args.args_size = sizeof(args);
	args.fd = fd;
	args.timeout = NVME_DEFAULT_IOCTL_TIMEOUT;
	args.sanact = (enum nvme_sanitize_sanact)act;
	args.ause = false;  /* restricted completion: a failure needs a new sanitize */
	args.nodas = false; /* deallocate afterwards: reads return the DLFEAT pattern */
	args.owpass = 0;
	args.oipbp = false;
	args.ovrpat = 0;
	rc = nvme_sanitize_nvm(&args);
	return nvmex_result(rc, "Sanitize", e);
}

void nvmex_sanitize_decode(const void *log, struct nvmex_sanitize_status *s)
{
	const uint8_t *p = log;

	/* Sanitize Status log page layout, NVMe 1.4 Figure 259 */
	memset(s, 0, sizeof(*s));
	s->sprog = (uint16_t)le_load(p + 0, 2);
	s->sstat = (uint16_t)le_load(p + 2, 2);
	s->scdw10 = (uint32_t)le_load(p + 4, 4);
	s->eto_s = (uint32_t)le_load(p + 8, 4);
	s->etbe_s = (uint32_t)le_load(p + 12, 4);
	s->etce_s = (uint32_t)le_load(p + 16, 4);
	s->state = (enum nvmex_sanitize_state)(s->sstat & 0x7);
	s->passes = (s->sstat >> 3) & 0x1f;
	s->global_data_erased = (s->sstat >> 8) & 1;
	if (s->state == NVMEX_SANITIZE_IN_PROGRESS)
		s->progress = (double)s->sprog / NVMEX_SPROG_DENOM;
	else if (s->state == NVMEX_SANITIZE_SUCCESS || s->state == NVMEX_SANITIZE_SUCCESS_ND)
		s->progress = 1.0;
}

int nvmex_sanitize_status(int fd, struct nvmex_sanitize_status *s, struct nvmex_err *e)
{
	struct nvme_sanitize_log_page *log;
	int rc, r;

	if (posix_memalign((void **)&log, 4096, sizeof(*log)))
		return -ENOMEM;
	memset(log, 0, sizeof(*log));
	/* RAE=1: do not clear the Sanitize Operation Completed event while polling */
	rc = nvme_get_log_sanitize(fd, true, log);
	r = nvmex_result(rc, "Get Log Page (Sanitize Status)", e);
	if (r == 0)
		nvmex_sanitize_decode(log, s);
	free(log);
	return r;
}

uint32_t nvmex_format_cdw10(const struct nvmex_ns_info *ns, enum nvmex_ses ses)
{
	return (uint32_t)(ns->lbaf & 0xf) | (uint32_t)ns->meta_extended << 4 |
	       (uint32_t)(ns->dps & 0x7) << 5 | (uint32_t)((ns->dps >> 3) & 1) << 8 |
	       ((uint32_t)ses & 0x7) << 9 | (uint32_t)((ns->lbaf >> 4) & 0x3) << 12;
}

int nvmex_format(int fd, const struct nvmex_ns_info *ns, enum nvmex_ses ses, uint32_t timeout_ms,
		 struct nvmex_err *e)
{
	struct nvme_format_nvm_args args;
	int rc;

	/* SES=0 formats without erasing anything: never call that an erase. */
	if (ses != NVMEX_SES_USER_DATA && ses != NVMEX_SES_CRYPTO)
		return -EINVAL;
	memset(&args, 0, sizeof(args));
	args.args_size = sizeof(args); /* includes lbafu: CDW10 bits 13:12 are sent */
	args.fd = fd;
	args.timeout = timeout_ms;
	args.nsid = ns->nsid;
	args.lbaf = ns->lbaf & 0xf;
	args.lbafu = (ns->lbaf >> 4) & 0x3;
	args.mset = ns->meta_extended ? NVME_FORMAT_MSET_EXTENDED : NVME_FORMAT_MSET_SEPARATE;
	args.pi = (enum nvme_cmd_format_pi)(ns->dps & 0x7);
	args.pil = (enum nvme_cmd_format_pil)((ns->dps >> 3) & 1);
	args.ses = (enum nvme_cmd_format_ses)ses;
	rc = nvme_format_nvm(&args);
	return nvmex_result(rc, "Format NVM", e);
}
