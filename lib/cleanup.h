/* SPDX-License-Identifier: MIT */
#ifndef PLATEAU_CLEANUP_H
#define PLATEAU_CLEANUP_H

#include <stdlib.h>
#include <unistd.h>
#include <stdio.h>

/*
 * Scope-bound cleanup, after systemd's _cleanup_.  A function uses either
 * these or one `goto out` path, never both in one function.
 */
#define _cleanup_(f) __attribute__((cleanup(f)))

/**
 * freep() - free() the pointer a _cleanup_free_ variable holds
 * @p: address of the variable (NULL in it is fine)
 */
static inline void freep(void *p)
{
	free(*(void **)p);
}

/**
 * closep() - close() the descriptor a _cleanup_close_ variable holds
 * @fd: address of the variable; a negative descriptor is left alone
 *
 * close()'s result is ignored.
 */
static inline void closep(int *fd)
{
	if (*fd >= 0)
		close(*fd);
}

/**
 * fclosep() - fclose() the stream a _cleanup_fclose_ variable holds
 * @f: address of the variable (NULL in it is fine)
 *
 * fclose()'s result, and with it a failure to flush buffered writes, is
 * ignored: a caller that must know closes the stream itself (TAKE_PTR()).
 */
static inline void fclosep(FILE **f)
{
	if (*f)
		fclose(*f);
}

#define _cleanup_free_ _cleanup_(freep)
#define _cleanup_close_ _cleanup_(closep)
#define _cleanup_fclose_ _cleanup_(fclosep)

/* Hand ownership out of a _cleanup_ variable. */
#define TAKE_PTR(p)                     \
	({                              \
		__typeof__(p) _p = (p); \
		(p) = NULL;             \
		_p;                     \
	})

#define TAKE_FD(fd)             \
	({                      \
		int _fd = (fd); \
		(fd) = -1;      \
		_fd;            \
	})

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

#endif
