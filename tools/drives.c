// SPDX-License-Identifier: MIT
/*
 * plateau drives: every NVMe namespace and block device with its identity,
 * the erase methods it advertises and why it is in use (lib/target).
 * Read-only: nothing is opened for writing.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "erase.h"
#include "out.h"
#include "parse.h"
#include "target.h"

enum drives_colid {
	DC_PATH,
	DC_KIND,
	DC_MODEL,
	DC_SERIAL,
	DC_FIRMWARE,
	DC_EUI64,
	DC_NGUID,
	DC_WWN,
	DC_CAPACITY,
	DC_LBA,
	DC_CTRL,
	DC_NSID,
	DC_METHODS,
	DC_IN_USE,
	DC_REASONS,
	DC_ERROR,
	DC_N,
};

/* JSON/CSV carry every column; the table the ones that fit a terminal. */
static const struct out_col drives_cols[DC_N] = {
	[DC_PATH] = {"path", "PATH", 0, 1},
	[DC_KIND] = {"kind", "KIND", 0, 1},
	[DC_MODEL] = {"model", "MODEL", 0, 1},
	[DC_SERIAL] = {"serial", "SERIAL", 0, 1},
	[DC_FIRMWARE] = {"firmware", "FW", 0, 1},
	[DC_EUI64] = {"eui64", "EUI64", 0, 1},
	[DC_NGUID] = {"nguid", "NGUID", 0, 1},
	[DC_WWN] = {"wwn", "WWN", 0, 1},
	[DC_CAPACITY] = {"capacity_bytes", "CAPACITY", 0, 0},
	[DC_LBA] = {"lba_bytes", "LBA", 0, 0},
	[DC_CTRL] = {"ctrl", "CTRL", 0, 1},
	[DC_NSID] = {"nsid", "NSID", 0, 0},
	[DC_METHODS] = {"erase_methods", "ERASE METHODS", 0, 1},
	[DC_IN_USE] = {"in_use", "IN USE", 0, 1},
	[DC_REASONS] = {"in_use_reasons", "WHY", 0, 1},
	[DC_ERROR] = {"error", "ERROR", 0, 1},
};

static const enum drives_colid table_cols[] = {
	DC_PATH, DC_MODEL, DC_SERIAL, DC_CAPACITY, DC_LBA, DC_METHODS, DC_IN_USE, DC_REASONS,
};

/* empty strings are absent values (null in JSON, empty in CSV) */
static void put(struct out *o, const char *s)
{
	out_str(o, s && *s ? s : NULL);
}

static void row(struct out *o, enum cli_format fmt, const struct target_entry *e)
{
	const struct target_identity *id = &e->id;
	char methods[256], reasons[TARGET_REASONS_MAX * (TARGET_REASON_LEN + 2)], cap[32];
	size_t n = 0;

	reasons[0] = '\0';
	for (unsigned i = 0; i < e->inuse.count && i < TARGET_REASONS_MAX; i++) {
		int w = snprintf(reasons + n, sizeof(reasons) - n, "%s%s", i ? "; " : "",
				 e->inuse.reason[i]);

		if (w < 0 || (size_t)w >= sizeof(reasons) - n)
			break;
		n += (size_t)w;
	}
	if (e->inuse.count > TARGET_REASONS_MAX && n + 8 < sizeof(reasons))
		snprintf(reasons + n, sizeof(reasons) - n, "; ...");
	if (e->err)
		methods[0] = '\0';
	else
		erase_methods_str(erase_methods_supported(id) & ~ERASE_BIT(ERASE_NONE), methods,
				  sizeof(methods));

	for (size_t k = 0; k < DC_N; k++) {
		enum drives_colid c = (enum drives_colid)k;
		bool on = fmt != CLI_TABLE;

		for (size_t t = 0; !on && t < sizeof(table_cols) / sizeof(table_cols[0]); t++)
			on = table_cols[t] == c;
		if (!on)
			continue;
		switch (c) {
		case DC_PATH:
			put(o, id->path);
			break;
		case DC_KIND:
			put(o, e->err ? NULL : target_kind_name(id->kind));
			break;
		case DC_MODEL:
			put(o, id->model);
			break;
		case DC_SERIAL:
			put(o, id->serial);
			break;
		case DC_FIRMWARE:
			put(o, id->firmware);
			break;
		case DC_EUI64:
			put(o, id->eui64);
			break;
		case DC_NGUID:
			put(o, id->nguid);
			break;
		case DC_WWN:
			put(o, id->wwn);
			break;
		case DC_CAPACITY:
			if (e->err) {
				out_null(o);
			} else if (fmt == CLI_TABLE) {
				out_str(o, parse_fmt_size(cap, sizeof(cap), id->capacity_bytes));
			} else {
				out_i64(o, (int64_t)id->capacity_bytes);
			}
			break;
		case DC_LBA:
			if (e->err)
				out_null(o);
			else
				out_i64(o, id->lba_bytes);
			break;
		case DC_CTRL:
			put(o, id->ctrl);
			break;
		case DC_NSID:
			if (id->kind == TARGET_NVME && !e->err)
				out_i64(o, id->nsid);
			else
				out_null(o);
			break;
		case DC_METHODS:
			put(o, methods);
			break;
		case DC_IN_USE:
			if (fmt == CLI_TABLE)
				out_str(o, e->inuse.count ? "yes" : e->err ? "?" : "no");
			else if (e->err && !e->inuse.count)
				out_null(o);
			else
				out_bool(o, e->inuse.count > 0);
			break;
		case DC_REASONS:
			put(o, reasons);
			break;
		case DC_ERROR:
			put(o, e->err ? e->msg : NULL);
			break;
		default:
			break;
		}
	}
	out_end_row(o);
}

int cmd_drives(struct cli *cli, int argc, char **argv)
{
	struct out_col cols[DC_N];
	struct target_entry *v = NULL;
	size_t n = 0, ncols = 0;
	struct out *o;
	int r;

	for (int i = 1; i < argc; i++)
		if (argv[i][0] == '-')
			return cli_bad_arg("drives", argv[i]);

	if (cli->format == CLI_TABLE) {
		for (size_t t = 0; t < sizeof(table_cols) / sizeof(table_cols[0]); t++)
			cols[ncols++] = drives_cols[table_cols[t]];
	} else {
		memcpy(cols, drives_cols, sizeof(drives_cols));
		ncols = DC_N;
	}
	if (argc > 1) {
		/* the paths asked for, files included */
		v = calloc((size_t)argc - 1, sizeof(*v));
		if (!v)
			return cli_error(CLI_USAGE, "out of memory");
		for (int i = 1; i < argc; i++) {
			struct target_entry *e = &v[n++];

			e->err = target_identify(argv[i], &e->id, e->msg, sizeof(e->msg));
			if (e->err) {
				r = cli_error(e->err == -ENOENT ? CLI_NOTFOUND : CLI_USAGE,
					      "%s: %s", argv[i], e->msg);
				free(v);
				return r;
			}
			r = target_inuse(&e->id, false, &e->inuse);
			if (r < 0) {
				e->inuse.count = 1;
				snprintf(e->inuse.reason[0], sizeof(e->inuse.reason[0]),
					 "cannot tell: %s", strerror(-r));
			}
		}
	} else {
		r = target_list(&v, &n);
		if (r < 0)
			return cli_error(r == -ENOENT ? CLI_NOTFOUND : CLI_USAGE,
					 "cannot list block devices: %s", strerror(-r));
	}
	o = out_new(cli->format, stdout, cols, ncols);
	if (!o) {
		free(v);
		return cli_error(CLI_USAGE, "out of memory");
	}
	for (size_t i = 0; i < n; i++)
		row(o, cli->format, &v[i]);
	free(v);
	if (out_finish(o))
		return cli_error(CLI_USAGE, "writing the output failed");
	return CLI_OK;
}

const struct cli_cmd cli_cmd_drives = {
	"drives",
	"[PATH...] [--json|--csv]",
	"every NVMe namespace and block device: identity, erase methods, in-use reasons",
	"  With PATHs, just those (regular files too).  The serial (or EUI64, NGUID,\n"
	"  WWN) shown is what a plan names in [run] serial =.\n"
	"  Loop devices are named loop:MAJ:MIN:INODE of their backing file, regular\n"
	"  files file:MAJ:MIN:INODE.  A drive in use (mounted, swap, held by md/dm/LVM,\n"
	"  backing /) is refused by every writing phase.\n" FORMAT_HELP,
	cmd_drives,
	CLI_FMT_ALL};
