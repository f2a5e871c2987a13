/* SPDX-License-Identifier: MIT */
#ifndef PLATEAU_PATHS_H
#define PLATEAU_PATHS_H

/*
 * paths: where plateau's files are when nothing says otherwise, the same
 * for plateaud (--db, --socket, --config) and the CLI (--db, --socket,
 * $PLATEAU_DB, $PLATEAU_SOCKET): a CLI with no option finds the daemon's
 * database and socket.  plateaud(8), plateau(1).
 */

#define PLATEAU_DEFAULT_DB "/var/lib/plateau/plateau.db"
#define PLATEAU_DEFAULT_SOCKET "/run/plateau/control.sock"
#define PLATEAU_DEFAULT_CONFIG "/etc/plateau/plateaud.conf"

#endif
