// SPDX-License-Identifier: MIT
/* points: being written (issue 13); replaced by its owner. */
#include "cli.h"

static int cmd_points(struct cli *cli, int argc, char **argv)
{
	(void)cli;
	(void)argc;
	(void)argv;
	return cli_error(CLI_USAGE, "points: not built yet");
}

const struct cli_cmd cli_cmd_points = {"points", "",	     "(being written)",
				       "",	 cmd_points, CLI_FMT_NONE};
