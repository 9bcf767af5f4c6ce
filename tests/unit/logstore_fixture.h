/* logstore_fixture.h — the fixture the log store's unit tests share: each
 * case gets a fresh temporary data dir with a log store and project files on it. Test-only. */
#ifndef CUBE_LOGSTORE_FIXTURE_H
#define CUBE_LOGSTORE_FIXTURE_H

#include "files/files.h"
#include "logstore/logstore.h"

struct fixture {
    char dir[64];
    struct cube_logstore *ls;
    struct cube_files *files;   /* project files, 100 bytes each at most */
};

/* cmocka set-up (a fresh data dir and store) and tear-down (removes both). */
int setup(void **state);
int teardown(void **state);
/* "<data dir>/rel", malloc'd (the caller frees it). */
char *pathf(struct fixture *fx, const char *rel);
/* The permission bits of <data dir>/rel, or -1 when it does not exist. */
int file_mode(struct fixture *fx, const char *rel);

#endif
