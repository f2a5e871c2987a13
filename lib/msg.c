// SPDX-License-Identifier: MIT
#include <stdarg.h>
#include <stdio.h>

#include "msg.h"

void msg_set(char *msg, size_t len, const char *fmt, ...)
{
	va_list ap;

	if (!msg || !len)
		return;
	va_start(ap, fmt);
	vsnprintf(msg, len, fmt, ap);
	va_end(ap);
}
