/* scalar.h: typing YAML scalars (internal to pkg/yaml; the rules are in yaml.h).
 *
 * Shared by the loader (text -> JSON value) and the dumper (does a string need quotes
 * to read back as itself, here and in kubectl's go-yaml v2).
 */
#ifndef ND_YAML_SCALAR_H
#define ND_YAML_SCALAR_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#include "util/buf.h"

#define ND_YAML_TAG_PREFIX "tag:yaml.org,2002:"

/* Value of an untagged plain scalar. NEW reference, or NULL with the reason (without a
 * position) appended to why. */
json_t *nd_yaml_plain_value(const char *s, size_t n, struct nd_buf *why);

/* Value of a scalar with an explicit tag (as libyaml resolves it: "!" or
 * "tag:yaml.org,2002:int" or a local "!foo"). NEW reference, or NULL with why. */
json_t *nd_yaml_tagged_value(const char *tag, const char *s, size_t n, struct nd_buf *why);

/* True when s written as a plain scalar reads back as the same string, both here and
 * in go-yaml v2 (which also knows yes/no/on/off, timestamps and 1:20): false for "",
 * "true", "yes", "~", "1", "0x1", "1_000", "1e3", ".5", "2024-01-01", "1:20" ... */
bool nd_yaml_plain_is_string(const char *s, size_t n);

/* Appends text for a message: quoted, control characters escaped, shortened past
 * 40 characters ("abc...\""). */
void nd_yaml_quote_for_message(struct nd_buf *b, const char *s, size_t n);

/* Short form of a tag for messages: "tag:yaml.org,2002:int" -> "!!int". */
void nd_yaml_tag_for_message(struct nd_buf *b, const char *tag);

#endif
