/* claims.c — the ID token checks of OpenID Connect Core §3.1.3.7 that
 * follow the signature: issuer, audience and authorized party, expiry,
 * issue and not-before times (with a clock skew), nonce and subject. */
#include <stdio.h>
#include <string.h>

#include "oidc.h"

/* The string claim `name`, or NULL. */
static const char *str_claim(const cJSON *claims, const char *name)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(claims, name);
    return cJSON_IsString(v) ? v->valuestring : NULL;
}

/* aud is client_id or an array holding it; several audiences need azp. */
static int check_audience(const cJSON *claims, const char *client_id,
                          char *err, size_t errlen)
{
    const cJSON *aud = cJSON_GetObjectItemCaseSensitive(claims, "aud");
    const char *azp = str_claim(claims, "azp");
    int found = 0, count = 0;
    if (cJSON_IsString(aud)) {
        found = strcmp(aud->valuestring, client_id) == 0;
        count = 1;
    } else if (cJSON_IsArray(aud)) {
        const cJSON *a;
        cJSON_ArrayForEach(a, aud) {
            count++;
            found |= cJSON_IsString(a) && strcmp(a->valuestring, client_id) == 0;
        }
    }
    if (!found) {
        snprintf(err, errlen, "ID token audience does not match");
        return -1;
    }
    if ((count > 1 && !azp) || (azp && strcmp(azp, client_id) != 0)) {
        snprintf(err, errlen, "ID token authorized party (azp) does not match");
        return -1;
    }
    return 0;
}

/* Reads the numeric claim `name` into *v; -1 when absent or not a number. */
static int num_claim(const cJSON *claims, const char *name, double *v)
{
    const cJSON *n = cJSON_GetObjectItemCaseSensitive(claims, name);
    if (!cJSON_IsNumber(n))
        return -1;
    *v = n->valuedouble;
    return 0;
}

/* exp (required, in the future), iat (required, not in the future) and
 * nbf (optional, reached), each allowing skew_s seconds. */
static int check_times(const cJSON *claims, const struct oidc_expect *e,
                       char *err, size_t errlen)
{
    double exp, iat, nbf, now = (double)e->now, skew = (double)e->skew_s;
    if (num_claim(claims, "exp", &exp) < 0 || num_claim(claims, "iat", &iat) < 0) {
        snprintf(err, errlen, "ID token lacks a numeric \"exp\" or \"iat\"");
        return -1;
    }
    if (now - skew >= exp) {
        snprintf(err, errlen, "ID token has expired");
        return -1;
    }
    if (iat > now + skew) {
        snprintf(err, errlen, "ID token is issued in the future (check the clocks)");
        return -1;
    }
    if (cJSON_GetObjectItemCaseSensitive(claims, "nbf") &&
        (num_claim(claims, "nbf", &nbf) < 0 || nbf > now + skew)) {
        snprintf(err, errlen, "ID token is not valid yet (nbf)");
        return -1;
    }
    return 0;
}

int oidc_claims_check(const cJSON *claims, const struct oidc_expect *e,
                      char *err, size_t errlen)
{
    const char *iss = str_claim(claims, "iss"), *sub = str_claim(claims, "sub");
    const char *nonce = str_claim(claims, "nonce");
    if (!iss || strcmp(iss, e->issuer) != 0) {
        snprintf(err, errlen, "ID token issuer does not match");
        return -1;
    }
    if (check_audience(claims, e->client_id, err, errlen) < 0 ||
        check_times(claims, e, err, errlen) < 0)
        return -1;
    if (!nonce || !e->nonce || strcmp(nonce, e->nonce) != 0) {
        snprintf(err, errlen, "ID token nonce does not match");
        return -1;
    }
    if (!sub || !*sub) {
        snprintf(err, errlen, "ID token has no subject (\"sub\")");
        return -1;
    }
    return 0;
}
