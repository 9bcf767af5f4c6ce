/* secretbox.h — values sealed with the platform key: AES-256-GCM, a random
 * 96-bit nonce per value, associated data bound in (who and what a value
 * belongs to), as text fit for a database column. The key comes from a
 * file (created 0600 on first use) and never leaves this module. */
#ifndef CUBE_SECRETBOX_H
#define CUBE_SECRETBOX_H

#include <stddef.h>

struct cube_secretbox;

/* Loads the key from `path`: 64 hex digits (32 bytes), a newline allowed
 * after them. When the file does not exist it is created with a fresh
 * random key, mode 0600. A file readable or writable by group or others is
 * refused, as is one of another form. Returns 0 with *out, or -1 with err
 * naming the file and the problem (never any key material). */
int cube_secretbox_open(const char *path, struct cube_secretbox **out, char *err,
                        size_t errlen);
/* Zeroes the key and frees. NULL is fine. */
void cube_secretbox_free(struct cube_secretbox *box);

/* Seals len bytes of pt with associated data (ad, ad_len): *out gets a new
 * NUL-terminated text "v1:<base64 of nonce | ciphertext | tag>" (free).
 * CUBE_OK, CUBE_ENOMEM, CUBE_EINTERNAL (OpenSSL failed). */
int cube_secretbox_seal(const struct cube_secretbox *box, const void *ad, size_t ad_len,
                        const void *pt, size_t len, char **out);
/* Opens what seal made with the same associated data: *pt gets a new
 * buffer of *len bytes and a NUL (the caller zeroes it before freeing).
 * CUBE_OK, CUBE_EIO (malformed, another key, other associated data,
 * tampered), CUBE_ENOMEM. */
int cube_secretbox_open_value(const struct cube_secretbox *box, const void *ad,
                              size_t ad_len, const char *text, char **pt, size_t *len);
/* The length of the text seal makes for len bytes (without its NUL). */
size_t cube_secretbox_sealed_len(size_t len);

/* Base64 (standard alphabet, padded) of len bytes: a new NUL-terminated
 * string, or NULL when out of memory. */
char *cube_base64_encode(const void *data, size_t len);
/* Decodes NUL-terminated base64 text into a new buffer (*len bytes and a
 * NUL), or NULL when malformed or out of memory. */
char *cube_base64_decode(const char *text, size_t *len);

#endif
