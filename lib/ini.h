/* SPDX-License-Identifier: MIT */
#ifndef PLATEAU_INI_H
#define PLATEAU_INI_H

#include <stddef.h>

/*
 * ini: the one line tokenizer of plateau's INI files (plans, plateau.plan(5),
 * and plateaud.conf, plateaud(8)).  It knows lines, not fields: what a
 * section or a key means, and whether it may repeat, is the reader's.
 *
 * The rules, the same for every file:
 *  - lines end in '\n'; a '\r' before it is dropped (CRLF files are fine);
 *    a line is at most INI_LINE_MAX - 1 characters;
 *  - a control character other than tab anywhere in a line is an error;
 *  - spaces and tabs around a line, a section name, a key and a value are
 *    dropped;
 *  - an empty line, or one whose first character is '#' or ';', is skipped;
 *    there are no comments after a value, as in fio and systemd: "x = a # b"
 *    and "x = a ; b" have the values "a # b" and "a ; b", which a reader's
 *    check of the value then quotes whole in its error;
 *  - "[name]" starts a section; nothing may follow the ']';
 *  - "key = value" is a pair; the value may be empty, the key may not; the
 *    first '=' splits them, so a value may hold '='.
 *
 * Use:
 *
 *	struct ini it;
 *	int t;
 *
 *	ini_init(&it, text);
 *	while ((t = ini_next(&it)) > 0) {
 *		if (t == INI_SECTION)
 *			... it.section, it.line ...
 *		else
 *			... it.section (NULL before the first), it.key, it.value ...
 *	}
 *	if (t < 0)
 *		... "%s:%u: %s", file, it.line, ini_error_message(it.error) ...
 *
 * The API is stable: readers in lib/ and daemon/ depend on it.
 */

#define INI_LINE_MAX 4096

enum ini_token {
	INI_END = 0,	 /* no more lines */
	INI_SECTION = 1, /* a "[name]" line: ini.section */
	INI_PAIR = 2,	 /* a "key = value" line: ini.key, ini.value */
};

enum ini_error {
	INI_OK = 0,
	INI_ERR_LONG,	   /* a line of INI_LINE_MAX characters or more */
	INI_ERR_CONTROL,   /* a control character: ini.control holds it */
	INI_ERR_SECTION,   /* '[' without a closing ']', or text after it */
	INI_ERR_NO_EQUALS, /* neither a section nor a pair */
	INI_ERR_NO_KEY,	   /* "= value": the key is missing */
};

/**
 * struct ini - a tokenizer over one NUL-terminated text
 * @line: 1-based number of the line last returned (or of the error)
 * @section: the current section's name, NULL before the first section;
 *           valid until the next section line
 * @key: after INI_PAIR, the key; valid until the next ini_next()
 * @value: after INI_PAIR, the value (maybe ""); valid until the next ini_next()
 * @error: after -EINVAL, what was wrong
 * @control: after INI_ERR_CONTROL, the character
 *
 * The rest is private.  The struct holds two lines' buffers (8 KiB).
 */
struct ini {
	unsigned int line;
	const char *section;
	const char *key;
	const char *value;
	enum ini_error error;
	unsigned char control;
	/* private */
	const char *next;
	char section_buf[INI_LINE_MAX];
	char buf[INI_LINE_MAX];
};

/**
 * ini_init() - start tokenizing a text
 * @ini: the tokenizer
 * @text: the file's contents, NUL-terminated; must outlive the tokenizer
 *        (NULL reads as an empty text)
 */
void ini_init(struct ini *ini, const char *text);

/**
 * ini_next() - the next section or pair
 * @ini: the tokenizer
 *
 * Skips empty and comment lines.  After an error, the tokenizer stays at
 * the bad line: the reader stops.
 *
 * Return: INI_SECTION or INI_PAIR; INI_END (0) at the end of the text;
 * -EINVAL on a malformed line (@ini->error says why, @ini->line where).
 */
int ini_next(struct ini *ini);

/**
 * ini_error_message() - a reader's default text for an error
 * @error: the error
 *
 * Return: a static string without file or line, e.g. "expected 'key =
 * value' or a [section]".  A reader may word its own (lib/plan.c does).
 */
const char *ini_error_message(enum ini_error error);

#endif
