/* SPDX-License-Identifier: MIT */
#ifndef PLATEAU_MSG_H
#define PLATEAU_MSG_H

#include <stddef.h>

/*
 * msg: the message buffers lib/ fills for its callers to log (lib/ never
 * logs itself).
 */

/**
 * msg_set() - format a message into a caller's buffer
 * @msg: destination, or NULL when the caller does not want the text
 * @len: size of @msg; 0 leaves it alone too
 * @fmt: printf format
 *
 * vsnprintf(): the text is cut to @len - 1 bytes and always terminated.
 * Touches nothing but @msg, so it is safe from any thread on buffers of
 * its own.
 */
void msg_set(char *msg, size_t len, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

#endif
