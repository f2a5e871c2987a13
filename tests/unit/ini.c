// SPDX-License-Identifier: MIT
/*
 * ini: the line tokenizer of plans and plateaud.conf.  Every rule of ini.h
 * (trimming, comments, CRLF, '=' in values, the section kept across pairs)
 * and every error with its line number.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "ini.h"
#include "tap.h"

/* the first error of @text: its kind and line */
static void fails(const char *text, enum ini_error want, unsigned int line, const char *name)
{
	struct ini it;
	int t;

	ini_init(&it, text);
	while ((t = ini_next(&it)) > 0)
		;
	is_int(t, -EINVAL, "%s: -EINVAL", name);
	is_int(it.error, want, "%s: the error", name);
	is_int(it.line, line, "%s: on line %u", name, line);
	/* it stays at the bad line */
	is_int(ini_next(&it), -EINVAL, "%s: and stays failed", name);
}

int main(void)
{
	struct ini it;
	char *big;

	ini_init(&it, "# comment\n"
		      "; another\n"
		      "\n"
		      "  [ run ]  \r\n"
		      "\tdevice =  /dev/loop0 \t\n"
		      "name=a=b\n"
		      "empty =\n"
		      "note = x # not a comment\n"
		      "[hooks]\n"
		      "last = 1");
	is_int(ini_next(&it), INI_SECTION, "a section");
	is_str(it.section, "run", "its name, trimmed inside the brackets");
	is_int(it.line, 4, "on line 4, after comments and an empty line");
	is_int(ini_next(&it), INI_PAIR, "a pair");
	is_str(it.key, "device", "its key, trimmed");
	is_str(it.value, "/dev/loop0", "its value, trimmed of spaces and tabs");
	is_str(it.section, "run", "the section is kept across pairs");
	is_int(ini_next(&it), INI_PAIR, "a pair with '=' in its value");
	is_str(it.key, "name", "split at the first '='");
	is_str(it.value, "a=b", "the rest is the value");
	is_int(ini_next(&it), INI_PAIR, "a pair with an empty value");
	is_str(it.value, "", "an empty value is the reader's to judge");
	is_int(ini_next(&it), INI_PAIR, "a pair with '#' in its value");
	is_str(it.value, "x # not a comment", "no comments after a value");
	is_int(ini_next(&it), INI_SECTION, "a second section");
	is_str(it.section, "hooks", "its name");
	is_int(ini_next(&it), INI_PAIR, "a last line without a newline");
	is_str(it.value, "1", "is read");
	is_int(it.line, 10, "line numbers count every line");
	is_int(ini_next(&it), INI_END, "then the end");
	is_int(ini_next(&it), INI_END, "and the end again");

	/*
	 * plateau.plan(5), SYNTAX: a comment is a line of its own; '#' or ';'
	 * after a value is part of it (as in fio and systemd), so a reader's
	 * check of the value quotes the would-be comment in its error.
	 */
	ini_init(&it, "[erase]\n"
		      "method = auto            ; sanitize crypto > block\n"
		      "passes = 2\t# two fills\n"
		      "name = #1\n"
		      "  ; an indented comment line\n"
		      "\t# and a tabbed one\n"
		      "url = http://x/#frag;a\n");
	is_int(ini_next(&it), INI_SECTION, "comments after values: the section");
	is_int(ini_next(&it), INI_PAIR, "'; comment' after a value: a pair");
	is_str(it.value, "auto            ; sanitize crypto > block",
	       "';' after blanks stays in the value");
	is_int(ini_next(&it), INI_PAIR, "'# comment' after a tab: a pair");
	is_str(it.value, "2\t# two fills", "'#' after a tab stays in the value");
	is_int(ini_next(&it), INI_PAIR, "a value that starts with '#'");
	is_str(it.value, "#1", "is a value, not a comment");
	is_int(ini_next(&it), INI_PAIR, "indented comment lines are skipped");
	is_str(it.key, "url", "to the next pair");
	is_str(it.value, "http://x/#frag;a", "'#' and ';' inside a word stay too");
	is_int(it.line, 7, "on line 7");
	is_int(ini_next(&it), INI_END, "then the end");

	ini_init(&it, "key = v\n");
	is_int(ini_next(&it), INI_PAIR, "a pair before any section");
	ok(it.section == NULL, "has no section (the reader decides)");
	ini_init(&it, NULL);
	is_int(ini_next(&it), INI_END, "NULL reads as an empty text");
	ini_init(&it, "\r\n\r\n");
	is_int(ini_next(&it), INI_END, "CRLF empty lines are empty");

	fails("[run]\nx = 1\ny\n", INI_ERR_NO_EQUALS, 3, "a line without '='");
	fails("[run]\n = 1\n", INI_ERR_NO_KEY, 2, "a pair without a key");
	fails("[run\n", INI_ERR_SECTION, 1, "a section without ']'");
	fails("[run] x\n", INI_ERR_SECTION, 1, "text after a section's ']'");
	fails("[run]\nx = a\x1b[0m\n", INI_ERR_CONTROL, 2, "a control character");
	ini_init(&it, "a = 1\nb = \x01\n");
	ini_next(&it);
	ini_next(&it);
	is_int(it.control, 0x01, "the control character is reported");
	ok(ini_next(&it) == -EINVAL && !it.key && !it.value, "no key or value after an error");
	fails("a = 1\rb = 2\n", INI_ERR_CONTROL, 1, "a lone CR inside a line");

	big = malloc(INI_LINE_MAX + 16);
	memset(big, 'x', INI_LINE_MAX + 15);
	big[0] = 'k';
	big[1] = '=';
	big[INI_LINE_MAX - 1] = '\0';
	ini_init(&it, big);
	is_int(ini_next(&it), INI_PAIR, "a line of INI_LINE_MAX - 1 characters is read");
	is_int(strlen(it.value), INI_LINE_MAX - 3, "whole");
	big[INI_LINE_MAX - 1] = 'x';
	big[INI_LINE_MAX] = '\0';
	fails(big, INI_ERR_LONG, 1, "a line of INI_LINE_MAX characters");
	free(big);

	ok(strstr(ini_error_message(INI_ERR_NO_EQUALS), "key = value") != NULL,
	   "a default message says what was expected");
	return done_testing();
}
