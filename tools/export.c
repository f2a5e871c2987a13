// SPDX-License-Identifier: MIT
/* export: being written (issue 13); replaced by its owner. */
#include "cli.h"

static int cmd_export(struct cli *cli, int argc, char **argv)
{
	(void)cli;
	(void)argc;
	(void)argv;
	return cli_error(CLI_USAGE, "export: not built yet");
}

const struct cli_cmd cli_cmd_export = {"export", "",	     "(being written)",
				       "",	 cmd_export, CLI_FMT_NONE};

static int cmd_import(struct cli *cli, int argc, char **argv)
{
	(void)cli;
	(void)argc;
	(void)argv;
	return cli_error(CLI_USAGE, "import: not built yet");
}

const struct cli_cmd cli_cmd_import = {"import", "",	     "(being written)",
				       "",	 cmd_import, CLI_FMT_NONE};
