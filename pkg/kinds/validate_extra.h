/* validate_extra.h: the rules of each kind that its schema cannot express (the
 * registry's validate_extra hooks). Each adds one problem per field to errs. */
#ifndef ND_API_VALIDATE_EXTRA_H
#define ND_API_VALIDATE_EXTRA_H

#include <jansson.h>

#include "kinds/field_errors.h"
#include "kinds/registry.h"

/* The checks of a Job's spec found at base ("spec", "spec.steps[0].job"). */
void nd_validate_job_spec(const json_t *spec, const char *base, struct nd_field_errors *errs);
/* Volume names and mount paths unique. */
void nd_validate_job(const struct nd_kind *k, const json_t *obj, struct nd_field_errors *errs);
/* Step names unique and short enough for <pipeline>-<step> to be a DNS label, dependsOn
 * naming other existing steps once, no dependency cycle (the cause names it), and each
 * step's job checked as a Job's spec. */
void nd_validate_pipeline(const struct nd_kind *k, const json_t *obj, struct nd_field_errors *errs);
/* A Job's checks, plus port names and numbers unique. */
void nd_validate_sandbox(const struct nd_kind *k, const json_t *obj, struct nd_field_errors *errs);
/* scaling.minReplicas <= scaling.maxReplicas. */
void nd_validate_function(const struct nd_kind *k, const json_t *obj, struct nd_field_errors *errs);
/* Thresholds strictly ascending; the selector's expressions well formed. */
void nd_validate_budget(const struct nd_kind *k, const json_t *obj, struct nd_field_errors *errs);
/* Each Act policy sets only the fields of its action; WaitTuning's min <= max. */
void nd_validate_pool(const struct nd_kind *k, const json_t *obj, struct nd_field_errors *errs);

#endif
