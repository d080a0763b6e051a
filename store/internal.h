/* What the store's files (store/ files) share and nobody else sees: the
 * connection.  store.c owns opening, the schema's migrations and the
 * results; each further concern of the store (a table and its queries)
 * is a file of its own beside it. */
#ifndef ATTRIB_STORE_INTERNAL_H
#define ATTRIB_STORE_INTERNAL_H

#include <sqlite3.h>
#include "store.h"

struct store {
	sqlite3 *db;
};

#endif
