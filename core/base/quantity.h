/* quantity.h — resource quantities as users write them, Kubernetes style:
 * cpu "2", "0.5", "500m" (millicores); memory "4Gi", "512Mi", "512M",
 * "1e9", "1024" (bytes); extended resources "1", "0.25" (milli-units, so a
 * quarter of a device is 250). JSON numbers are accepted too. */
#ifndef CUBE_QUANTITY_H
#define CUBE_QUANTITY_H

#include <stdint.h>

#include <cjson/cJSON.h>

/* Parses a quantity (string or number) into milli-units (cpu: millicores;
 * extended resources: thousandths of a device). Returns 0, or -1 with why
 * (a static string) when malformed, negative or too large. */
int cube_qty_milli(const cJSON *v, int64_t *out, const char **why);
/* Parses a byte quantity (binary Ki/Mi/Gi/Ti/Pi, decimal k/M/G/T/P, plain
 * bytes); fractions of a byte round up. Returns 0, or -1 with why. */
int cube_qty_bytes(const cJSON *v, int64_t *out, const char **why);
/* Writes bytes as the largest exact binary unit ("4Gi", "1536Mi", "100"). */
void cube_qty_format_bytes(int64_t bytes, char *out, size_t len);

#endif
