#!/bin/sh
# SPDX-License-Identifier: MIT
#
# layers.sh [SRCDIR]: check that lib/ is a stack of layers (docs/design.md,
# "Layers").  Every #include "..." of every lib/*.c and lib/*.h must name a
# header of a lower layer or of the file's own module; a module's private
# header (<module>-int.h) only its own files.  A file's module is its name
# up to the first '-' or '.': lib/engine-worker.c is in "engine".  Prints
# each offending include as FILE:LINE: and exits 1; exits 0 when clean.
#
# The layer table is below, lowest first.  A module not in it is an error:
# a new module gets its line here (and in docs/design.md) when it is added.

LAYERS='
0 cleanup clock embed msg paths version
1 hist ini parse steady
2 import nvmex profile sample
3 store target
4 engine erase verdict
5 guard plan
6 runner
'

# Includes that break the rule and are allowed until the named callers
# change ("FILE HEADER"); keep this list empty.
EXCEPTIONS='
'

src=${1:-$(dirname "$0")/..}
cd "$src" || exit 2

# one record per include: file, line, header
for f in lib/*.c lib/*.h; do
	awk -v f="${f#lib/}" '
		/^[ \t]*#[ \t]*include[ \t]*"/ {
			h = $0
			sub(/^[^"]*"/, "", h)
			sub(/".*$/, "", h)
			print f, FNR, h
		}' "$f"
done | awk -v layers="$LAYERS" -v exceptions="$EXCEPTIONS" '
	BEGIN {
		n = split(layers, lines, "\n")
		for (i = 1; i <= n; i++) {
			k = split(lines[i], w, " ")
			for (j = 2; j <= k; j++)
				layer[w[j]] = w[1]
		}
		n = split(exceptions, lines, "\n")
		for (i = 1; i <= n; i++)
			if (lines[i] != "")
				allowed[lines[i]] = 1
		bad = 0
	}
	function module(name,   m) {
		m = name
		sub(/[-.].*$/, "", m)
		return m
	}
	{
		file = $1; line = $2; hdr = $3
		fm = module(file); hm = module(hdr)
		if (!(fm in layer)) {
			if (!(fm in told))
				printf "lib/%s: module %s is not in the layer table (tools/layers.sh)\n", file, fm
			told[fm] = 1
			bad = 1
			next
		}
		if (!(hm in layer)) {
			printf "lib/%s:%d: includes \"%s\", whose module %s is not in the layer table\n", file, line, hdr, hm
			bad = 1
			next
		}
		if (fm == hm || (file " " hdr) in allowed)
			next
		if (hdr ~ /-int\.h$/) {
			printf "lib/%s:%d: includes \"%s\", the private header of module %s\n", file, line, hdr, hm
			bad = 1
		} else if (layer[hm] + 0 >= layer[fm] + 0) {
			printf "lib/%s:%d: includes \"%s\": %s is layer %d, %s layer %d (a file includes only lower layers)\n",
			       file, line, hdr, hm, layer[hm], fm, layer[fm]
			bad = 1
		}
	}
	END { exit bad }
'
