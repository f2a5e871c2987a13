/* SPDX-License-Identifier: MIT */
#ifndef PLATEAU_MSG_H
#define PLATEAU_MSG_H

#include <stddef.h>

/*
 * msg: the message buffers lib/ fills for its callers to log (lib/ never
 * logs itself).  msg_set() formats into MSG (LEN bytes, truncated, always
 * terminated); a NULL or empty buffer is left alone, so callers that do not
 * want the text pass NULL.
 */
void msg_set(char *msg, size_t len, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

#endif
