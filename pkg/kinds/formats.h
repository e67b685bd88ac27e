/* formats.h: nodus's string formats (schema.h lists them), checked and compared. */
#ifndef ND_API_FORMATS_H
#define ND_API_FORMATS_H

#include <jansson.h>
#include <stdbool.h>

#include "kinds/field_errors.h"

/* Checks v (already of the schema's type) against format and the schema's x-nodus-min /
 * x-nodus-max; adds one problem at path to errs when it fails. Unknown formats pass. */
void nd_format_check(const json_t *schema, const char *format, const json_t *v, const char *path,
                     struct nd_field_errors *errs);

/* A 5-field cron expression (minute hour day-of-month month day-of-week; numbers, names
 * JAN-DEC and SUN-SAT, '*', ranges, lists, steps) or @yearly, @monthly, @weekly, @daily,
 * @midnight, @hourly. */
bool nd_cron_valid(const char *s);
/* nodus/<name>:<tag>: name a DNS label, tag 1 to 128 of [A-Za-z0-9_.-] not starting
 * with '.' or '-'. */
bool nd_image_ref_valid(const char *s);

/* Compares two values of a money, duration or quantity field: *cmp is <0, 0 or >0.
 * Returns -1 when the format is none of these or a value does not parse. */
int nd_format_compare(const char *format, const json_t *a, const json_t *b, int *cmp);

#endif
