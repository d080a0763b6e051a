#ifndef ATTRIB_RENDER_H
#define ATTRIB_RENDER_H
#include <stdio.h>
#include <json-c/json.h>

/* Prints a result object for a person. */
void render_text(FILE *out, struct json_object *result);
#endif
