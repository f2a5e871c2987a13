// SPDX-License-Identifier: MIT
/* report-html: the HTML text of `plateau report` (see report.h). */
#include "report.h"

/* set when formatting ran out of memory: the page is then not written (report.h) */
bool rep_oom;

/* Escape for element content and quoted attribute values. */
void h_esc(FILE *f, const char *s)
{
	for (; s && *s; s++) {
		switch (*s) {
		case '&':
			fputs("&amp;", f);
			break;
		case '<':
			fputs("&lt;", f);
			break;
		case '>':
			fputs("&gt;", f);
			break;
		case '"':
			fputs("&quot;", f);
			break;
		case '\'':
			fputs("&#39;", f);
			break;
		default:
			fputc(*s, f);
		}
	}
}

void h_printf(FILE *f, const char *fmt, ...)
{
	char *s = NULL;
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vasprintf(&s, fmt, ap);
	va_end(ap);
	if (n < 0) {
		rep_oom = true;
		return;
	}
	h_esc(f, s);
	free(s);
}

/* A text cell; "—" for NULL or "" */
void h_td(FILE *f, const char *cls, const char *s)
{
	fprintf(f, "<td%s%s%s>", cls ? " class=\"" : "", cls ? cls : "", cls ? "\"" : "");
	if (s && *s)
		h_esc(f, s);
	else
		fputs("\xe2\x80\x94", f);
	fputs("</td>", f);
}

void h_kv(FILE *f, const char *key, const char *val)
{
	fputs("<tr><th>", f);
	h_esc(f, key);
	fputs("</th>", f);
	h_td(f, NULL, val);
	fputs("</tr>\n", f);
}

char *rep_time(char *buf, size_t len, int64_t ns)
{
	time_t t = (time_t)(ns / 1000000000LL);
	struct tm tm;

	if (!ns || !gmtime_r(&t, &tm)) {
		snprintf(buf, len, "%s", "");
		return buf;
	}
	strftime(buf, len, "%Y-%m-%d %H:%M:%S UTC", &tm);
	return buf;
}

char *rep_duration(char *buf, size_t len, int64_t from_ns, int64_t to_ns)
{
	if (from_ns && to_ns > from_ns)
		return parse_fmt_duration(buf, len, (uint64_t)(to_ns - from_ns));
	snprintf(buf, len, "%s", "");
	return buf;
}

/* "us" is the store's spelling; the page says µs */
const char *rep_unit(const char *u)
{
	return strcmp(u, "us") ? u : "\xc2\xb5s";
}
