/* banned.h: functions that must not appear in nodus (included into every file by the
 * Makefile). Each has a safer replacement in pkg/util:
 *   sprintf, vsprintf  -> nd_buf_addf, snprintf
 *   strcpy, strcat, strncpy, strncat -> nd_buf, memcpy with an explicit length
 *   strtok             -> strtok_r or a hand-rolled split
 *   gmtime, localtime  -> gmtime_r, localtime_r (thread-safe)
 */
#ifndef ND_BANNED_H
#define ND_BANNED_H

/* This file is force-included before every source file, so the system headers that
 * declare the banned functions are taken in first; the macros below then catch uses. */
#include <stdio.h>
#include <string.h>
#include <time.h>

#define ND_BANNED(func) sorry_##func##_is_a_banned_function

#undef strcpy
#define strcpy(x, y) ND_BANNED(strcpy)
#undef strcat
#define strcat(x, y) ND_BANNED(strcat)
#undef strncpy
#define strncpy(x, y, n) ND_BANNED(strncpy)
#undef strncat
#define strncat(x, y, n) ND_BANNED(strncat)
#undef sprintf
#define sprintf(...) ND_BANNED(sprintf)
#undef vsprintf
#define vsprintf(...) ND_BANNED(vsprintf)
#undef strtok
#define strtok(x, y) ND_BANNED(strtok)
#undef gmtime
#define gmtime(t) ND_BANNED(gmtime)
#undef localtime
#define localtime(t) ND_BANNED(localtime)

#endif
