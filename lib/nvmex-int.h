/* SPDX-License-Identifier: MIT */
#ifndef PLATEAU_NVMEX_INT_H
#define PLATEAU_NVMEX_INT_H

/*
 * nvmex's insides: parts only lib/nvmex.c uses, which its unit test pins down
 * on their own.  Not part of the library's interface.
 */

#include "nvmex.h"

/**
 * nvmex_result() - convert a libnvme return value (the only place that does)
 * @rc:   what the libnvme call returned: 0, a positive NVMe status, or -1
 * @what: the command, for the message ("Identify Controller")
 * @e:    filled with the outcome (may be NULL)
 *
 * Must be called right after the libnvme call: it reads errno for rc < 0.
 *
 * Return: 0, -EREMOTEIO for an NVMe status (in @e->status), or -errno.
 */
int nvmex_result(int rc, const char *what, struct nvmex_err *e);

/**
 * nvmex_status_name() - the NVMe name of a status field's SCT/SC
 * @status: status field; CRD, More and DNR are ignored
 *
 * Return: a static string, e.g. "Invalid Command Opcode"; statuses the table
 * does not know give "Unknown Generic Status" and the like by type.
 */
const char *nvmex_status_name(uint16_t status);

/**
 * nvmex_sanitize_decode() - decode a raw 512-byte Sanitize Status log page
 * @log: the page as the controller returned it (little endian)
 * @s: result
 */
void nvmex_sanitize_decode(const void *log, struct nvmex_sanitize_status *s);

/**
 * nvmex_format_cdw10() - the CDW10 nvmex_format() sends (for dry runs and tests)
 * @ns: namespace
 * @ses: secure erase setting
 *
 * Return: LBAF bits 3:0, MSET bit 4, PI bits 7:5, PIL bit 8, SES bits 11:9,
 * LBAF upper bits 13:12 (NVMe 2.0 Figure 320).
 */
uint32_t nvmex_format_cdw10(const struct nvmex_ns_info *ns, enum nvmex_ses ses);

#endif
