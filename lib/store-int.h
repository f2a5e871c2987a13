/* SPDX-License-Identifier: MIT */
#ifndef PLATEAU_STORE_INT_H
#define PLATEAU_STORE_INT_H

/*
 * store's insides: parts only lib/store.c uses, which its unit test pins
 * down on their own.  Not part of the library's interface.
 */

#include "store.h"

/**
 * store_latest_version() - the schema version this program creates
 *
 * Return: the number of the last migration in schema/.
 */
int store_latest_version(void);

#endif
