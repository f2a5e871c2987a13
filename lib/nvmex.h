/* SPDX-License-Identifier: MIT */
#ifndef PLATEAU_NVMEX_H
#define PLATEAU_NVMEX_H

/*
 * nvmex: a thin layer over libnvme 1.3 for what plateau needs from an NVMe
 * controller: Identify Controller / Namespace, Sanitize, the Sanitize Status
 * log page and Format NVM.  (The prefix is "nvmex_" because libnvme owns
 * "nvme_".)
 *
 * libnvme returns 0 on success, a positive NVMe status field when the
 * controller completed the command with an error, or -1 with errno set when
 * the command never completed (ioctl failure, timeout, no such device).  That
 * three-way result is converted in exactly one place, nvmex_result(): every
 * function here returns 0, -errno for a transport failure, or -EREMOTEIO when
 * the controller returned a status, whose value is then in err->status.
 * Every struct nvmex_err argument may be NULL.  It is filled by each call
 * that reaches the device; a call refused before that (-EINVAL for an
 * argument, -ENOMEM for the 4 KiB buffer) leaves it untouched.
 *
 * The status field is the one the Linux NVMe driver returns to user space
 * (NVMe 2.0 Figure 93, Completion Queue Entry Status Field shifted right by
 * one, without the Phase Tag):
 *   bits  7:0  SC   Status Code
 *   bits 10:8  SCT  Status Code Type
 *   bits 12:11 CRD  Command Retry Delay
 *   bit  13    M    More (a log page holds more information)
 *   bit  14    DNR  Do Not Retry
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Identify Controller SN, MN and FR are space-padded ASCII of 20, 40 and 8 bytes. */
#define NVMEX_SERIAL_LEN 21
#define NVMEX_MODEL_LEN 41
#define NVMEX_FIRMWARE_LEN 9

/* Identify Controller OACS bit 1: Format NVM supported (NVMe 1.4 5.15.2.1). */
#define NVMEX_OACS_FORMAT (1u << 1)
/* Identify Controller FNA (NVMe 1.4 Figure 247, byte 524). */
#define NVMEX_FNA_FORMAT_ALL_NS (1u << 0) /* a format applies to every namespace */
#define NVMEX_FNA_SECURE_ALL_NS (1u << 1) /* a secure erase applies to every namespace */
#define NVMEX_FNA_CRYPTO_ERASE (1u << 2)  /* SES=2 (cryptographic erase) supported */
/* Identify Controller SANICAP (NVMe 1.4 Figure 247, bytes 331:328). */
#define NVMEX_SANICAP_CES (1u << 0)  /* Crypto Erase sanitize supported */
#define NVMEX_SANICAP_BES (1u << 1)  /* Block Erase sanitize supported */
#define NVMEX_SANICAP_OWS (1u << 2)  /* Overwrite sanitize supported */
#define NVMEX_SANICAP_NDI (1u << 29) /* No-Deallocate Inhibited */

/* Identify Namespace DLFEAT bits 2:0, read behaviour of deallocated blocks. */
#define NVMEX_DLFEAT_READ_MASK 0x7u
#define NVMEX_DLFEAT_READ_ZEROES 0x1u
#define NVMEX_DLFEAT_READ_ONES 0x2u

/* Sanitize Status log SPROG denominator and the "no time reported" estimate. */
#define NVMEX_SPROG_DENOM 65536u
#define NVMEX_TIME_NOT_REPORTED UINT32_MAX

/* Status values (SCT << 8 | SC), without CRD/More/DNR. */
#define NVMEX_SC_INVALID_OPCODE 0x001
#define NVMEX_SC_INVALID_FIELD 0x002
#define NVMEX_SC_SANITIZE_FAILED 0x01c
#define NVMEX_SC_SANITIZE_IN_PROGRESS 0x01d
#define NVMEX_SC_INVALID_FORMAT 0x10a
#define NVMEX_STATUS_DNR 0x4000u
#define NVMEX_STATUS_MORE 0x2000u
#define NVMEX_STATUS_CRD_MASK 0x1800u

/**
 * struct nvmex_err - what went wrong in the last nvmex call
 * @err:    0, -errno of a failed ioctl, or -EREMOTEIO for a controller status
 * @status: the NVMe status field (see above) when @err is -EREMOTEIO, else 0
 * @msg:    "Sanitize: Invalid Command Opcode (0x4001)", or the errno text
 */
struct nvmex_err {
	int err;
	uint16_t status;
	char msg[192];
};

/**
 * struct nvmex_ctrl_info - the Identify Controller fields plateau uses
 * @serial: SN, trailing spaces removed
 * @model: MN, trailing spaces removed
 * @firmware: FR, trailing spaces removed
 * @oacs: Optional Admin Command Support
 * @fna: Format NVM Attributes
 * @sanicap: Sanitize Capabilities
 * @cntlid: Controller ID
 * @nn: Number of Namespaces (the maximum, not the count attached)
 * @ver: Version (MJR << 16 | MNR << 8 | TER)
 */
struct nvmex_ctrl_info {
	char serial[NVMEX_SERIAL_LEN];
	char model[NVMEX_MODEL_LEN];
	char firmware[NVMEX_FIRMWARE_LEN];
	uint16_t oacs;
	uint8_t fna;
	uint32_t sanicap;
	uint16_t cntlid;
	uint32_t nn;
	uint32_t ver;
};

/**
 * struct nvmex_ns_info - the Identify Namespace fields plateau uses
 * @nsid: the namespace identifier
 * @nsze_blocks: Namespace Size in logical blocks
 * @lba_bytes: logical block size of the format in use (2^LBADS)
 * @meta_bytes: metadata size of the format in use (MS)
 * @lbaf: index of the LBA format in use (FLBAS bits 3:0 and 6:5)
 * @meta_extended: FLBAS bit 4, metadata transferred at the end of the block
 * @dps: End-to-end Data Protection Type Settings (PI type bits 2:0, bit 3 first)
 * @dlfeat: Deallocate Logical Block Features
 * @eui64: IEEE Extended Unique Identifier, all zero when absent
 * @nguid: Namespace Globally Unique Identifier, all zero when absent
 */
struct nvmex_ns_info {
	uint32_t nsid;
	uint64_t nsze_blocks;
	uint32_t lba_bytes;
	uint16_t meta_bytes;
	uint8_t lbaf;
	bool meta_extended;
	uint8_t dps;
	uint8_t dlfeat;
	uint8_t eui64[8];
	uint8_t nguid[16];
};

/* Sanitize Status log SSTAT bits 2:0 (NVMe 1.4 Figure 260). */
enum nvmex_sanitize_state {
	NVMEX_SANITIZE_NEVER = 0,
	NVMEX_SANITIZE_SUCCESS = 1,
	NVMEX_SANITIZE_IN_PROGRESS = 2,
	NVMEX_SANITIZE_FAILED = 3,
	NVMEX_SANITIZE_SUCCESS_ND = 4, /* succeeded, No-Deallocate After Sanitize */
};

/* Sanitize Action, Sanitize command CDW10 bits 2:0 (NVMe 1.4 Figure 372). */
enum nvmex_sanact {
	NVMEX_SANACT_EXIT_FAILURE = 1,
	NVMEX_SANACT_BLOCK_ERASE = 2,
	NVMEX_SANACT_OVERWRITE = 3,
	NVMEX_SANACT_CRYPTO_ERASE = 4,
};

/* Format NVM Secure Erase Settings, CDW10 bits 11:9 (NVMe 1.4 Figure 305). */
enum nvmex_ses {
	NVMEX_SES_NONE = 0, /* not an erase: plateau never sends it */
	NVMEX_SES_USER_DATA = 1,
	NVMEX_SES_CRYPTO = 2,
};

/**
 * struct nvmex_sanitize_status - decoded Sanitize Status log page (LID 81h)
 * @sprog: Sanitize Progress, numerator over 65536 (FFFFh when not running)
 * @sstat: Sanitize Status, raw
 * @scdw10: CDW10 of the Sanitize command that started the last operation
 * @eto_s: estimated seconds for Overwrite, NVMEX_TIME_NOT_REPORTED if none
 * @etbe_s: estimated seconds for Block Erase
 * @etce_s: estimated seconds for Crypto Erase
 * @state: SSTAT bits 2:0
 * @passes: SSTAT bits 7:3, completed overwrite passes
 * @global_data_erased: SSTAT bit 8, nothing written since the last sanitize
 * @progress: SPROG / 65536 while in progress, 1.0 after success, else 0
 */
struct nvmex_sanitize_status {
	uint16_t sprog;
	uint16_t sstat;
	uint32_t scdw10;
	uint32_t eto_s;
	uint32_t etbe_s;
	uint32_t etce_s;
	enum nvmex_sanitize_state state;
	unsigned passes;
	bool global_data_erased;
	double progress;
};

/**
 * nvmex_status_str() - format a status field for an operator
 * @buf: destination
 * @len: size of @buf
 * @status: status field
 *
 * Produces "Invalid Command Opcode (0x4001)": the name of SCT/SC and the
 * whole field in hex (so DNR 0x4000, More 0x2000 and CRD stay visible).
 *
 * Return: @buf.
 */
char *nvmex_status_str(char *buf, size_t len, uint16_t status);

/**
 * nvmex_status_sct() - Status Code Type of a status field
 * @status: status field (see the bit layout at the top of this file)
 *
 * Return: bits 10:8 (0 generic, 1 command specific, 2 media and data
 * integrity, ...).
 */
static inline unsigned nvmex_status_sct(uint16_t status)
{
	return (status >> 8) & 0x7;
}

/**
 * nvmex_status_sc() - Status Code of a status field
 * @status: status field
 *
 * Return: bits 7:0, whose meaning depends on nvmex_status_sct().
 */
static inline unsigned nvmex_status_sc(uint16_t status)
{
	return status & 0xff;
}

/**
 * nvmex_status_dnr() - Do Not Retry bit of a status field
 * @status: status field
 *
 * Return: true when the controller says the same command would fail again.
 */
static inline bool nvmex_status_dnr(uint16_t status)
{
	return status & NVMEX_STATUS_DNR;
}

/**
 * nvmex_status_more() - More bit of a status field
 * @status: status field
 *
 * Return: true when the Error Information log page holds more about it.
 */
static inline bool nvmex_status_more(uint16_t status)
{
	return status & NVMEX_STATUS_MORE;
}

/**
 * nvmex_status_code() - the status without CRD, More and DNR
 * @status: status field
 *
 * Return: SCT << 8 | SC (bits 10:0), to compare against NVMEX_SC_*.
 */
static inline unsigned nvmex_status_code(uint16_t status)
{
	return status & 0x7ff;
}

/**
 * nvmex_sanitize_state_name() - "never sanitized", "in progress", ...
 * @state: SSTAT bits 2:0
 *
 * Return: a static string; "reserved" for the values 5..7 the
 * specification reserves (and anything larger).
 */
const char *nvmex_sanitize_state_name(unsigned state);

/**
 * nvmex_get_nsid() - the namespace ID behind a namespace fd (NVME_IOCTL_ID)
 * @fd: block or generic-char namespace device
 * @nsid: result, written only on success
 * @e: error details (may be NULL)
 *
 * Return: 0; -ENOTTY when @fd is not a namespace (the ioctl answered 0 or
 * 0xffffffff, e.g. a controller device); other -errno from the ioctl.
 */
int nvmex_get_nsid(int fd, uint32_t *nsid, struct nvmex_err *e);

/**
 * nvmex_identify_ctrl() - Identify Controller (CNS 01h)
 * @fd: controller or namespace device
 * @c: result, written only on success
 * @e: error details (may be NULL)
 *
 * SN, MN and FR are copied without their trailing spaces, with any byte
 * that is not printable ASCII replaced by '?'.
 *
 * Return: 0; -EREMOTEIO (status in @e); -ENOMEM; other -errno from the
 * ioctl (see nvmex_result()).
 */
int nvmex_identify_ctrl(int fd, struct nvmex_ctrl_info *c, struct nvmex_err *e);

/**
 * nvmex_identify_ns() - Identify Namespace (CNS 00h)
 * @fd: namespace or controller device
 * @nsid: the namespace
 * @n: result, written only on success
 * @e: error details (may be NULL)
 *
 * Return: 0; -ENODEV when the namespace is inactive (NSZE 0); -EINVAL when
 * the LBA format in use is not one the namespace reports or its LBADS is
 * outside 9..24 (512 B..16 MiB); -EREMOTEIO; -ENOMEM; other -errno.
 */
int nvmex_identify_ns(int fd, uint32_t nsid, struct nvmex_ns_info *n, struct nvmex_err *e);

/**
 * nvmex_sanitize_start() - send a Sanitize command
 * @fd: controller or namespace device
 * @act: NVMEX_SANACT_CRYPTO_ERASE or NVMEX_SANACT_BLOCK_ERASE (others are
 *       refused with -EINVAL, nothing sent)
 * @e: error details (may be NULL)
 *
 * AUSE=0 (restricted completion), No-Deallocate After Sanitize = 0 (the
 * media is deallocated afterwards), no overwrite pattern.  The command
 * completes when the operation has started; poll nvmex_sanitize_status().
 * Sanitize always affects the whole NVM subsystem, every namespace.
 *
 * Return: 0; -EINVAL for another @act; -EREMOTEIO (e.g. Sanitize In
 * Progress); other -errno.
 */
int nvmex_sanitize_start(int fd, enum nvmex_sanact act, struct nvmex_err *e);

/**
 * nvmex_sanitize_status() - read and decode the Sanitize Status log page
 * @fd: controller or namespace device
 * @s: result, written only on success
 * @e: error details (may be NULL)
 *
 * Read with RAE=1, so polling does not clear the Sanitize Operation
 * Completed asynchronous event.
 *
 * Return: 0; -EREMOTEIO; -ENOMEM; other -errno.
 */
int nvmex_sanitize_status(int fd, struct nvmex_sanitize_status *s, struct nvmex_err *e);

/**
 * nvmex_format() - Format NVM keeping the namespace's current LBA format
 * @fd: namespace device
 * @ns: the namespace (its nsid, LBA format, metadata and PI settings are kept)
 * @ses: NVMEX_SES_USER_DATA or NVMEX_SES_CRYPTO; NVMEX_SES_NONE is refused
 *       (-EINVAL): a format without secure erase is not an erase
 * @timeout_ms: command timeout; a format of a large drive takes minutes
 * @e: error details (may be NULL)
 *
 * Synchronous.  Afterwards the namespace must be re-opened: the kernel
 * revalidates it.
 *
 * Return: 0; -EINVAL for @ses NVMEX_SES_NONE (nothing sent); -EREMOTEIO;
 * another -errno when the command did not complete (timeout included).
 */
int nvmex_format(int fd, const struct nvmex_ns_info *ns, enum nvmex_ses ses, uint32_t timeout_ms,
		 struct nvmex_err *e);

#endif
