/* auth_password.h — password hashing for local accounts: scrypt through
 * OpenSSL's EVP_PBE_scrypt, a random 16-byte salt per hash, parameters kept
 * in the encoded hash so they can be raised later without breaking old
 * hashes, and a constant-time comparison.
 *
 * Encoded form (ASCII, no secrets beyond the hash itself):
 *     $scrypt$ln=15,r=8,p=1$<salt, base64 no padding>$<32-byte key, base64>
 */
#ifndef CUBE_AUTH_PASSWORD_H
#define CUBE_AUTH_PASSWORD_H

#include <stddef.h>

/* Parameters of new hashes: N = 2^log2_n (10 .. 20; 15 or more in
 * production), r (1 .. 32), p (1 .. 16), and at most 256 MiB of scrypt
 * memory (128 * r * (N + 2) bytes, so ln=17 at r=8). */
struct cube_scrypt_params {
    unsigned log2_n, r, p;
};

/* The defaults: ln=15, r=8, p=1. */
extern const struct cube_scrypt_params cube_scrypt_default;

/* Hashes password (any bytes, at most 1024) into out (at least 128 bytes).
 * Returns 0, or -1 (bad parameters, out of memory, password too long). */
int cube_password_hash(const char *password, const struct cube_scrypt_params *prm,
                       char *out, size_t outlen);
/* 1 when password matches encoded, 0 when not, -1 when encoded is not a
 * hash this code understands (or its parameters are out of range). The
 * comparison takes the same time wherever the keys differ. */
int cube_password_verify(const char *password, const char *encoded);
/* 1 when encoded was made with weaker parameters than prm (rehash it at
 * the next successful login), 0 otherwise. */
int cube_password_needs_rehash(const char *encoded,
                               const struct cube_scrypt_params *prm);
/* Checks a new password against the policy (8 .. 1024 bytes, not all
 * one character). Returns NULL when acceptable, else a static message. */
const char *cube_password_policy(const char *password);

#endif
