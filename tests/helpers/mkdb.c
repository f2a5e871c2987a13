// SPDX-License-Identifier: MIT
/* mkdb PATH: create an empty database at the latest schema (test fixtures). */
#include <stdio.h>

#include "store.h"

int main(int argc, char **argv)
{
	struct store *s;
	char err[1024];

	if (argc != 2) {
		fprintf(stderr, "usage: mkdb PATH\n");
		return 2;
	}
	if (store_open(argv[1], STORE_CREATE, &s, err, sizeof(err))) {
		fprintf(stderr, "mkdb: %s\n", err);
		return 1;
	}
	store_close(s);
	return 0;
}
