// SPDX-License-Identifier: MIT
/* latency: being written (issue 13); replaced by its owner. */
#include "cli.h"

static int cmd_latency(struct cli *cli, int argc, char **argv)
{
	(void)cli;
	(void)argc;
	(void)argv;
	return cli_error(CLI_USAGE, "latency: not built yet");
}

const struct cli_cmd cli_cmd_latency = {"latency", "",		"(being written)",
					"",	   cmd_latency, CLI_FMT_NONE};
