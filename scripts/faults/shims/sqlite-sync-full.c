/* A diagnostic LD_PRELOAD shim, never used by default: rewrites "PRAGMA synchronous = NORMAL"
 * (what GRDB's DatabasePool runs after the app's prepareDatabase, see FINDINGS.md F1) into
 * "PRAGMA synchronous = FULL" on its way into SQLite, so the power-loss harness can show what a
 * fixed parleyd does. power_loss.py --simulate-fix-f1 builds and uses it. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <string.h>

typedef struct sqlite3 sqlite3;
typedef struct sqlite3_stmt sqlite3_stmt;

static const char *fix(const char *sql) {
    if (sql && strstr(sql, "PRAGMA synchronous = NORMAL") == sql) return "PRAGMA synchronous = FULL";
    return sql;
}

int sqlite3_prepare_v2(sqlite3 *db, const char *sql, int n, sqlite3_stmt **stmt, const char **tail) {
    static int (*real)(sqlite3 *, const char *, int, sqlite3_stmt **, const char **);
    if (!real) real = dlsym(RTLD_NEXT, "sqlite3_prepare_v2");
    const char *fixed = fix(sql);
    if (fixed != sql) { n = -1; if (tail) *tail = sql + strlen(sql); return real(db, fixed, n, stmt, 0); }
    return real(db, sql, n, stmt, tail);
}

int sqlite3_prepare_v3(sqlite3 *db, const char *sql, int n, unsigned flags, sqlite3_stmt **stmt, const char **tail) {
    static int (*real)(sqlite3 *, const char *, int, unsigned, sqlite3_stmt **, const char **);
    if (!real) real = dlsym(RTLD_NEXT, "sqlite3_prepare_v3");
    const char *fixed = fix(sql);
    if (fixed != sql) { if (tail) *tail = sql + strlen(sql); return real(db, fixed, -1, flags, stmt, 0); }
    return real(db, sql, n, flags, stmt, tail);
}

int sqlite3_exec(sqlite3 *db, const char *sql, int (*cb)(void *, int, char **, char **), void *arg, char **err) {
    static int (*real)(sqlite3 *, const char *, int (*)(void *, int, char **, char **), void *, char **);
    if (!real) real = dlsym(RTLD_NEXT, "sqlite3_exec");
    return real(db, fix(sql), cb, arg, err);
}
