#!/bin/bash
# SPDX-License-Identifier: MIT
#
# layers.t: tools/layers.sh, the include-direction check of lib/ that
# `make check` runs: clean on the tree; on a copy with one violation
# planted at a time, exit 1 naming the file, the line and the include.
. "${PLATEAU_SRC:?}/tests/integration/tap.sh"

W=$(mktemp -d "${TMPDIR:-/tmp}/plateau-layers.XXXXXX") || bail_out "mktemp failed"
trap 'rm -rf "$W"' EXIT
L=$PLATEAU_SRC/tools/layers.sh

out=$(sh "$L" "$PLATEAU_SRC" 2>&1)
is "$?" 0 "the tree's lib/ keeps its layers${out:+: $out}"

# plant VIOLATION: copy lib/ and tools/, append an include to FILE
plant() {
	rm -rf "$W/t" && mkdir -p "$W/t" && cp -r "$PLATEAU_SRC/lib" "$PLATEAU_SRC/tools" "$W/t/" &&
		printf '#include "%s"\n' "$2" >>"$W/t/lib/$1"
}
check() { # FILE HEADER WHAT
	plant "$1" "$2" || bail_out "cannot copy the tree"
	out=$(sh "$L" "$W/t" 2>&1)
	is "$?" 1 "$3: exit 1"
	like "$out" "lib/$1:[0-9]+: includes \"$2\"" "$3: names lib/$1, the line and \"$2\""
}
check hist.c runner.h "a low layer including the top one"
check store.c guard.h "store (layer 3) including guard (layer 5)"
check plan.c engine-int.h "another module's private header"
check sample.h store.h "a header including upward"
plant parse.c parse.h && printf '/* x */\n' >"$W/t/lib/newmod.c" && printf '#include "parse.h"\n' >>"$W/t/lib/newmod.c"
out=$(sh "$L" "$W/t" 2>&1)
is "$?" 1 "a module missing from the table: exit 1"
like "$out" "newmod" "  and it is named"

done_testing
