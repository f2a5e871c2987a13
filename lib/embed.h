/* SPDX-License-Identifier: MIT */
#ifndef PLATEAU_EMBED_H
#define PLATEAU_EMBED_H

#include <stddef.h>

/* A file compiled into the binary by tools/embed.sh (schema/, tools/assets/). */
struct embed_file {
	const char *name;
	const char *data; /* NUL-terminated */
	size_t size;	  /* without the NUL */
};

extern const struct embed_file store_schema_files[];
extern const size_t store_schema_nfiles;
extern const struct embed_file assets_files[];
extern const size_t assets_nfiles;

#endif
