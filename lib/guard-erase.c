// SPDX-License-Identifier: MIT
/*
 * guard: an erase through the gate, from a path to a record (guard_erase()),
 * for callers that erase and nothing else.
 */
#include <string.h>

#include "erase.h"
#include "guard.h"
#include "msg.h"

int guard_erase(const char *path, const struct erase_opts *o, struct target_identity *id_out,
		struct erase_record *rec)
{
	struct guard_req rq = {
		.path = path,
		.want = o->want,
		.want_field = "serial",
		.kind = o->kind,
		.flags = o->method == ERASE_NONE ? 0 : GUARD_WRITES,
		.erase_method = o->method,
	};
	struct guard g;
	int r;

	memset(rec, 0, sizeof(*rec));
	rec->requested = o->method;
	rec->ran = ERASE_NONE;
	/* identity, name, every use, locks: the one gate (guard.h) */
	r = guard_open(&rq, &g);
	if (r < 0) {
		guard_refusal(&g, rec->msg, sizeof(rec->msg));
		(void)erase_dry_run(&g.id, o->method, &rec->plan, NULL, 0);
		guard_close(&g);
		return rec->err = r;
	}
	if (id_out)
		*id_out = g.id;
	if (o->method == ERASE_NONE) {
		guard_close(&g);
		rec->completed = true;
		rec->plan.requested = ERASE_NONE;
		rec->plan.chain[0] = ERASE_NONE;
		rec->plan.n_chain = 1;
		msg_set(rec->msg, sizeof(rec->msg), "erase method none: nothing was erased");
		return 0;
	}
	r = erase_run(&g.fd, &g.id, o, rec);
	guard_close(&g);
	return r;
}
