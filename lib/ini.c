// SPDX-License-Identifier: MIT
/* ini: the line tokenizer of plans and plateaud.conf (see ini.h). */
#include <errno.h>
#include <string.h>

#include "ini.h"

void ini_init(struct ini *ini, const char *text)
{
	memset(ini, 0, sizeof(*ini));
	ini->next = text ? text : "";
}

static int ini_fail(struct ini *ini, enum ini_error error)
{
	ini->error = error;
	ini->key = ini->value = NULL;
	return -EINVAL;
}

/* control characters are rejected first, so only these are space */
static char *ini_trim(char *s)
{
	char *e;

	while (*s == ' ' || *s == '\t')
		s++;
	e = s + strlen(s);
	while (e > s && (e[-1] == ' ' || e[-1] == '\t'))
		*--e = '\0';
	return s;
}

int ini_next(struct ini *ini)
{
	ini->key = ini->value = NULL;
	if (ini->error)
		return -EINVAL;
	while (*ini->next) {
		const char *nl = strchr(ini->next, '\n');
		size_t n = nl ? (size_t)(nl - ini->next) : strlen(ini->next);
		char *l, *eq;

		ini->line++;
		if (n >= sizeof(ini->buf))
			return ini_fail(ini, INI_ERR_LONG);
		memcpy(ini->buf, ini->next, n);
		ini->buf[n] = '\0';
		ini->next = nl ? nl + 1 : ini->next + n;
		if (n && ini->buf[n - 1] == '\r')
			ini->buf[--n] = '\0';
		for (size_t i = 0; i < n; i++)
			if ((unsigned char)ini->buf[i] < 0x20 && ini->buf[i] != '\t') {
				ini->control = (unsigned char)ini->buf[i];
				return ini_fail(ini, INI_ERR_CONTROL);
			}
		l = ini_trim(ini->buf);
		if (!*l || *l == '#' || *l == ';')
			continue;
		if (*l == '[') {
			char *end = strchr(l, ']');

			if (!end || ini_trim(end + 1)[0])
				return ini_fail(ini, INI_ERR_SECTION);
			*end = '\0';
			strcpy(ini->section_buf, ini_trim(l + 1));
			ini->section = ini->section_buf;
			return INI_SECTION;
		}
		eq = strchr(l, '=');
		if (!eq)
			return ini_fail(ini, INI_ERR_NO_EQUALS);
		*eq = '\0';
		ini->key = ini_trim(l);
		if (!*ini->key)
			return ini_fail(ini, INI_ERR_NO_KEY);
		ini->value = ini_trim(eq + 1);
		return INI_PAIR;
	}
	return INI_END;
}

const char *ini_error_message(enum ini_error error)
{
	switch (error) {
	case INI_OK:
		return "no error";
	case INI_ERR_LONG:
		return "line too long (at most 4095 characters)";
	case INI_ERR_CONTROL:
		return "a control character in the line (expected text)";
	case INI_ERR_SECTION:
		return "expected a section header like [name]";
	case INI_ERR_NO_EQUALS:
		return "expected 'key = value' or a [section]";
	case INI_ERR_NO_KEY:
		return "a key is missing before '='";
	}
	return "malformed line";
}
