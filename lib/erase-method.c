// SPDX-License-Identifier: MIT
/*
 * erase: which methods a target offers and the order "auto" tries them in
 * (erase.h)
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <linux/falloc.h>
#include <linux/fs.h>
#include <sys/ioctl.h>
#include <sys/stat.h>

#include "cleanup.h"
#include "erase-int.h"
#include "msg.h"

/* virtio 1.2, 5.2.3: the block device's feature bit for secure erase */
#define ERASE_VIRTIO_BLK_F_SECURE_ERASE 16

static const char *const method_names[ERASE_METHOD_COUNT] = {
	[ERASE_AUTO] = "auto",
	[ERASE_SANITIZE_CRYPTO] = "sanitize-crypto",
	[ERASE_SANITIZE_BLOCK] = "sanitize-block",
	[ERASE_FORMAT_CRYPTO] = "format-crypto",
	[ERASE_FORMAT_USER] = "format-user",
	[ERASE_SECURE_DISCARD] = "secure-discard",
	[ERASE_DISCARD] = "discard",
	[ERASE_ZERO] = "zero",
	[ERASE_PUNCH] = "punch",
	[ERASE_NONE] = "none",
};

/* "auto", strongest first, per kind */
static const enum erase_method auto_nvme[] = {ERASE_SANITIZE_CRYPTO, ERASE_SANITIZE_BLOCK,
					      ERASE_FORMAT_CRYPTO, ERASE_FORMAT_USER};
static const enum erase_method auto_block[] = {ERASE_SECURE_DISCARD, ERASE_DISCARD, ERASE_ZERO};
static const enum erase_method auto_file[] = {ERASE_PUNCH, ERASE_ZERO};

const char *erase_method_name(enum erase_method m)
{
	if ((unsigned)m >= ERASE_METHOD_COUNT)
		return "?";
	return method_names[m];
}

int erase_method_parse(const char *s, enum erase_method *m)
{
	if (!s)
		return -EINVAL;
	for (unsigned i = 0; i < ERASE_METHOD_COUNT; i++)
		if (strcmp(s, method_names[i]) == 0) {
			*m = (enum erase_method)i;
			return 0;
		}
	return -EINVAL;
}

/*
 * Linux passes BLKSECDISCARD only to a queue with a secure-erase limit and
 * fails it with EOPNOTSUPP otherwise; sysfs does not show that limit.  Of
 * the drivers that set it, virtio-blk shows the feature that makes it set
 * it (VIRTIO_BLK_F_SECURE_ERASE, bit 16 of device/features); loop, NVMe and
 * SCSI disks never set it, and eMMC's depends on the card, which sysfs does
 * not show: those are not offered secure-discard.
 */
static bool block_secure_erase(const struct target_identity *id)
{
	char link[PATH_MAX], drv[64], feat[256];
	const char *base;
	ssize_t n;
	int fd;

	snprintf(link, sizeof(link), "/sys/class/block/%s/device/driver", id->name);
	n = readlink(link, drv, sizeof(drv) - 1);
	if (n <= 0)
		return false;
	drv[n] = '\0';
	base = strrchr(drv, '/');
	if (strcmp(base ? base + 1 : drv, "virtio_blk"))
		return false;
	snprintf(link, sizeof(link), "/sys/class/block/%s/device/features", id->name);
	fd = open(link, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	n = read(fd, feat, sizeof(feat) - 1);
	close(fd);
	/* one '0' or '1' per feature bit, bit 0 first */
	return n > ERASE_VIRTIO_BLK_F_SECURE_ERASE && feat[ERASE_VIRTIO_BLK_F_SECURE_ERASE] == '1';
}

uint32_t erase_methods_supported(const struct target_identity *id)
{
	uint32_t m = ERASE_BIT(ERASE_NONE);

	switch (id->kind) {
	case TARGET_NVME:
		/* Identify Controller SANICAP bit 0 CES / bit 1 BES (NVMe 1.4 5.15.2.1) */
		if (id->sanicap & NVMEX_SANICAP_CES)
			m |= ERASE_BIT(ERASE_SANITIZE_CRYPTO);
		if (id->sanicap & NVMEX_SANICAP_BES)
			m |= ERASE_BIT(ERASE_SANITIZE_BLOCK);
		/* OACS bit 1 Format NVM; FNA bit 2 cryptographic erase (NVMe 1.4 5.15.2.1) */
		if (id->oacs & NVMEX_OACS_FORMAT) {
			m |= ERASE_BIT(ERASE_FORMAT_USER);
			if (id->fna & NVMEX_FNA_CRYPTO_ERASE)
				m |= ERASE_BIT(ERASE_FORMAT_CRYPTO);
		}
		/* the block layer on the namespace, on explicit request only */
		if (id->block_path[0] && !id->ino)
			m |= ERASE_BIT(ERASE_DISCARD) | ERASE_BIT(ERASE_ZERO);
		break;
	case TARGET_BLOCK:
		if (block_secure_erase(id))
			m |= ERASE_BIT(ERASE_SECURE_DISCARD);
		m |= ERASE_BIT(ERASE_ZERO);
		if (id->discard)
			m |= ERASE_BIT(ERASE_DISCARD);
		break;
	case TARGET_FILE:
		m |= ERASE_BIT(ERASE_PUNCH) | ERASE_BIT(ERASE_ZERO);
		break;
	default:
		break;
	}
	return m;
}

char *erase_methods_str(uint32_t mask, char *buf, size_t len)
{
	size_t n = 0;

	if (len)
		buf[0] = '\0';
	for (unsigned i = ERASE_SANITIZE_CRYPTO; i < ERASE_METHOD_COUNT; i++) {
		int w;

		if (!(mask & ERASE_BIT(i)))
			continue;
		w = snprintf(buf + n, len - n, "%s%s", n ? "," : "", method_names[i]);
		if (w < 0 || (size_t)w >= len - n)
			break;
		n += (size_t)w;
	}
	return buf;
}

/* Why @id does not offer @m, citing the capability field. */
static void refusal(const struct target_identity *id, enum erase_method m, char *msg, size_t len)
{
	const char *name = erase_method_name(m);

	if ((is_sanitize(m) || is_format(m)) && id->kind != TARGET_NVME) {
		msg_set(msg, len, "%s needs an NVMe namespace; %s is a %s", name, id->path,
			target_kind_name(id->kind));
		return;
	}
	switch (m) {
	case ERASE_SANITIZE_CRYPTO:
		msg_set(msg, len,
			"%s is not advertised: Identify Controller SANICAP bit 0 (CES) is 0 "
			"(SANICAP 0x%08x)",
			name, id->sanicap);
		break;
	case ERASE_SANITIZE_BLOCK:
		msg_set(msg, len,
			"%s is not advertised: Identify Controller SANICAP bit 1 (BES) is 0 "
			"(SANICAP 0x%08x)",
			name, id->sanicap);
		break;
	case ERASE_FORMAT_CRYPTO:
		if (!(id->oacs & NVMEX_OACS_FORMAT))
			msg_set(msg, len,
				"%s is not advertised: Identify Controller OACS bit 1 (Format NVM) "
				"is 0 (OACS 0x%04x)",
				name, id->oacs);
		else
			msg_set(msg, len,
				"%s is not advertised: Identify Controller FNA bit 2 (crypto "
				"erase) "
				"is 0 (FNA 0x%02x)",
				name, id->fna);
		break;
	case ERASE_FORMAT_USER:
		msg_set(msg, len,
			"%s is not advertised: Identify Controller OACS bit 1 (Format NVM) is 0 "
			"(OACS 0x%04x)",
			name, id->oacs);
		break;
	case ERASE_SECURE_DISCARD:
		if (id->kind == TARGET_BLOCK)
			msg_set(msg, len,
				"%s: Linux has no secure erase for %s (BLKSECDISCARD would fail "
				"with EOPNOTSUPP; only a virtio-blk disk with the secure-erase "
				"feature is offered it): use discard or zero",
				name, id->path);
		else
			msg_set(msg, len, "%s is for block devices; %s is a %s", name, id->path,
				target_kind_name(id->kind));
		break;
	case ERASE_DISCARD:
		if (id->kind == TARGET_BLOCK)
			msg_set(msg, len, "%s: %s does not discard (queue/discard_max_bytes is 0)",
				name, id->path);
		else
			msg_set(msg, len, "%s is not available for %s (%s)", name, id->path,
				target_kind_name(id->kind));
		break;
	case ERASE_PUNCH:
		msg_set(msg, len, "%s is for regular files; %s is a %s", name, id->path,
			target_kind_name(id->kind));
		break;
	default:
		msg_set(msg, len, "%s is not available for %s (%s)", name, id->path,
			target_kind_name(id->kind));
		break;
	}
}

static void add_warning(struct erase_plan *p, const char *f, ...)
	__attribute__((format(printf, 2, 3)));
static void add_warning(struct erase_plan *p, const char *f, ...)
{
	va_list ap;

	if (p->n_warnings >= ERASE_WARNINGS_MAX)
		return;
	va_start(ap, f);
	vsnprintf(p->warnings[p->n_warnings++], ERASE_MSG_LEN, f, ap);
	va_end(ap);
}

int erase_dry_run(const struct target_identity *id, enum erase_method method,
		  struct erase_plan *plan, char *msg, size_t msg_len)
{
	uint32_t sup = erase_methods_supported(id);
	const enum erase_method *order = NULL;
	size_t n_order = 0;
	bool any_sanitize = false, any_format = false;

	memset(plan, 0, sizeof(*plan));
	plan->requested = method;
	if ((unsigned)method >= ERASE_METHOD_COUNT) {
		msg_set(msg, msg_len, "unknown erase method %d", (int)method);
		return -EINVAL;
	}
	if (method == ERASE_AUTO) {
		switch (id->kind) {
		case TARGET_NVME:
			order = auto_nvme;
			n_order = ARRAY_SIZE(auto_nvme);
			break;
		case TARGET_BLOCK:
			order = auto_block;
			n_order = ARRAY_SIZE(auto_block);
			break;
		case TARGET_FILE:
			order = auto_file;
			n_order = ARRAY_SIZE(auto_file);
			break;
		default:
			break;
		}
		for (size_t i = 0; i < n_order; i++)
			if (sup & ERASE_BIT(order[i]))
				plan->chain[plan->n_chain++] = order[i];
		if (plan->n_chain == 0) {
			if (id->kind == TARGET_NVME)
				msg_set(msg, msg_len,
					"%s advertises no erase: Identify Controller SANICAP "
					"0x%08x "
					"(no crypto/block erase), OACS 0x%04x (bit 1 Format NVM is "
					"0)",
					id->path, id->sanicap, id->oacs);
			else
				msg_set(msg, msg_len, "%s: no erase method for a %s", id->path,
					target_kind_name(id->kind));
			return -EOPNOTSUPP;
		}
	} else if (method == ERASE_NONE) {
		plan->chain[plan->n_chain++] = ERASE_NONE;
	} else {
		if (!(sup & ERASE_BIT(method))) {
			refusal(id, method, msg, msg_len);
			return -EOPNOTSUPP;
		}
		plan->chain[plan->n_chain++] = method;
	}

	for (size_t i = 0; i < plan->n_chain; i++) {
		any_sanitize |= is_sanitize(plan->chain[i]);
		any_format |= is_format(plan->chain[i]);
	}
	if (any_sanitize) {
		/* Sanitize operates on the whole NVM subsystem (NVMe 1.4 8.15) */
		add_warning(plan,
			    "sanitize erases every namespace of the NVM subsystem behind %s, "
			    "not only namespace %u",
			    id->ctrl[0] ? id->ctrl : id->path, id->nsid);
		plan->all_namespaces = true;
	}
	if (any_format && (id->fna & NVMEX_FNA_FORMAT_ALL_NS)) {
		add_warning(plan,
			    "Identify Controller FNA bit 0 is set: Format NVM formats every "
			    "namespace of %s, not only namespace %u",
			    id->ctrl[0] ? id->ctrl : id->path, id->nsid);
		plan->all_namespaces = true;
	}
	if (any_format && (id->fna & NVMEX_FNA_SECURE_ALL_NS)) {
		add_warning(plan,
			    "Identify Controller FNA bit 1 is set: a secure erase by Format NVM "
			    "erases every namespace of %s, not only namespace %u",
			    id->ctrl[0] ? id->ctrl : id->path, id->nsid);
		plan->all_namespaces = true;
	}
	return 0;
}
