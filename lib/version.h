/* SPDX-License-Identifier: MIT */
#ifndef PLATEAU_VERSION_H
#define PLATEAU_VERSION_H
#ifndef PLATEAU_VERSION
#define PLATEAU_VERSION "0.0.0"
#endif
#endif
