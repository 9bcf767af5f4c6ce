/* sniff.c — is a file what its framework needs? Judged from its name and a
 * few of its bytes, never by loading it: cubed does not unpickle, import
 * or parse a model (the serving runtime does, in its replica's sandbox, as
 * the service's owner). What is checked:
 *   pickle   protocol 2-5 header (0x80 n) or a protocol 0/1 opcode first,
 *            and the STOP opcode '.' last;
 *   joblib   a pickle, or the magic of a compressed joblib file (zlib,
 *            gzip, bz2, xz, lzma, lz4);
 *   torch    a zip archive (its central directory) holding data.pkl
 *            (torch.save) and, for TorchScript, constants.pkl or code/;
 *            or a legacy torch.save pickle (state dicts only);
 *   onnx     a protobuf message whose top-level fields all parse to the
 *            file's end, with ir_version (1, varint) and graph (7, bytes);
 *   xgboost  JSON or UBJSON with a "learner", the legacy binary (.model,
 *            .bin, .deprecated), or a pickle.
 * Which files are model files goes by extension (table below); others (a
 * README, a module.py) are SKIP. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "models.h"

#define ZIP_TAIL 65557u               /* EOCD (22) + the longest comment */
#define ZIP_CD_MAX (64u << 20)        /* a central directory we read */
#define PB_MAX_FIELDS 100000          /* top-level fields of an ONNX file */

static int read_at(const struct mdl_reader *r, uint64_t off, void *buf, size_t n)
{
    size_t done = 0;
    while (done < n) {
        size_t got = 0;
        if (r->host->file_pread(r->f, off + done, (char *)buf + done, n - done, &got) !=
                CUBE_OK || !got)
            return -1;
        done += got;
    }
    return 0;
}

static int contains(const char *h, size_t n, const char *needle)
{
    size_t k = strlen(needle);
    for (size_t i = 0; i + k <= n; i++)
        if (!memcmp(h + i, needle, k))
            return 1;
    return 0;
}

static int ends_with(const char *s, const char *suffix)
{
    size_t a = strlen(s), b = strlen(suffix);
    return a >= b && !strcmp(s + a - b, suffix);
}

/* -- pickle and joblib --------------------------------------------------- */

static int is_pickle(const struct mdl_reader *r, char *why, size_t wlen)
{
    unsigned char head[2], last;
    if (r->size < 2 || read_at(r, 0, head, 2) < 0 || read_at(r, r->size - 1, &last, 1) < 0)
        return snprintf(why, wlen, "too short to be a pickle (%llu bytes)",
                        (unsigned long long)r->size), 0;
    int proto2 = head[0] == 0x80 && head[1] >= 2 && head[1] <= 5;
    int proto0 = head[0] && strchr("(]}cNIKJSVldFGX", head[0]);
    if (!proto2 && !proto0)
        return snprintf(why, wlen, "not a pickle (byte 0 is 0x%02x, not a pickle opcode)",
                        head[0]), 0;
    if (last != '.')
        return snprintf(why, wlen, "not a whole pickle (it does not end with the STOP "
                        "opcode: truncated?)"), 0;
    return 1;
}

static int is_compressed_joblib(const struct mdl_reader *r)
{
    unsigned char h[6] = {0};
    if (r->size < 6 || read_at(r, 0, h, 6) < 0)
        return 0;
    return (h[0] == 0x78 && (h[1] == 0x01 || h[1] == 0x5e || h[1] == 0x9c || h[1] == 0xda)) ||
           (h[0] == 0x1f && h[1] == 0x8b) || !memcmp(h, "BZh", 3) ||
           !memcmp(h, "\xfd" "7zXZ\0", 6) || (h[0] == 0x5d && !h[1] && !h[2]) ||
           !memcmp(h, "\x04\x22\x4d\x18", 4) || !memcmp(h, "ZF", 2);
}

/* -- zip (torch.save, TorchScript) -------------------------------------- */

static uint32_t le32(const unsigned char *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static uint16_t le16(const unsigned char *p)
{
    return (uint16_t)(p[0] | p[1] << 8);
}

static uint64_t le64(const unsigned char *p)
{
    return (uint64_t)le32(p) | (uint64_t)le32(p + 4) << 32;
}

/* Where the central directory is (off, len) from the end records, or -1. */
static int zip_directory(const struct mdl_reader *r, uint64_t *off, uint64_t *len)
{
    size_t tail = r->size < ZIP_TAIL ? (size_t)r->size : ZIP_TAIL;
    unsigned char *t = tail >= 22 ? malloc(tail) : NULL;
    int rc = -1;
    if (!t || read_at(r, r->size - tail, t, tail) < 0)
        goto done;
    for (size_t i = tail - 22 + 1; i-- > 0;) {
        if (le32(t + i) != 0x06054b50)
            continue;
        *len = le32(t + i + 12);
        *off = le32(t + i + 16);
        if ((*off == 0xffffffffu || *len == 0xffffffffu) && i >= 20 &&
            le32(t + i - 20) == 0x07064b50) {
            unsigned char z[56];
            if (read_at(r, le64(t + i - 20 + 8), z, sizeof z) < 0 || le32(z) != 0x06064b50)
                goto done;
            *len = le64(z + 40);
            *off = le64(z + 48);
        }
        rc = *off <= r->size && *len <= r->size - *off ? 0 : -1;
        break;
    }
done:
    free(t);
    return rc;
}

/* What a zip's names say: bit 1 data.pkl, 2 constants.pkl, 4 code/. -1:
 * not a zip we can read. */
static int zip_torch_bits(const struct mdl_reader *r)
{
    uint64_t off, len;
    if (zip_directory(r, &off, &len) < 0 || len > ZIP_CD_MAX)
        return -1;
    unsigned char *cd = malloc(len ? (size_t)len : 1);
    if (!cd || read_at(r, off, cd, (size_t)len) < 0) {
        free(cd);
        return -1;
    }
    int bits = 0;
    for (uint64_t i = 0; i + 46 <= len && le32(cd + i) == 0x02014b50;) {
        size_t n = le16(cd + i + 28), extra = le16(cd + i + 30), comment = le16(cd + i + 32);
        if (i + 46 + n > len)
            break;
        char name[512];
        snprintf(name, sizeof name, "%.*s", (int)(n < 511 ? n : 511), (const char *)cd + i + 46);
        const char *base = strrchr(name, '/');
        base = base ? base + 1 : name;
        if (!strcmp(base, "data.pkl"))
            bits |= 1;
        if (!strcmp(base, "constants.pkl"))
            bits |= 2;
        if (!strncmp(name, "code/", 5) || strstr(name, "/code/"))
            bits |= 4;
        i += 46 + n + extra + comment;
    }
    free(cd);
    return bits;
}

static int sniff_torch(const struct mdl_reader *r, const char *want, char *format, size_t flen,
                       char *why, size_t wlen)
{
    int bits = zip_torch_bits(r), script = bits > 0 && (bits & 6);
    int state_dict = !strcmp(want, "state_dict");
    if (bits < 0) {
        char pwhy[200];
        if (is_pickle(r, pwhy, sizeof pwhy)) {
            if (!state_dict)
                return snprintf(why, wlen, "a legacy torch.save pickle, not TorchScript (set "
                                "spec.pytorch.format: state_dict and its class)"), MDL_SNIFF_BAD;
            snprintf(format, flen, "torch-state-dict");
            return MDL_SNIFF_OK;
        }
        return snprintf(why, wlen, "not a PyTorch file (neither a zip archive of torch.save "
                        "or TorchScript nor a legacy torch.save pickle)"), MDL_SNIFF_BAD;
    }
    if (!(bits & 1) && !script)
        return snprintf(why, wlen, "a zip archive without data.pkl: not saved by torch"),
               MDL_SNIFF_BAD;
    if (script && state_dict)
        return snprintf(why, wlen, "TorchScript, not a state dict (set spec.pytorch.format: "
                        "torchscript)"), MDL_SNIFF_BAD;
    if (!script && !state_dict)
        return snprintf(why, wlen, "saved with torch.save, not TorchScript (torch.jit.save); "
                        "for a state dict set spec.pytorch.format: state_dict and its class"),
               MDL_SNIFF_BAD;
    snprintf(format, flen, script ? "torchscript" : "torch-state-dict");
    return MDL_SNIFF_OK;
}

/* -- onnx (protobuf ModelProto) ------------------------------------------ */

struct pb {
    const struct mdl_reader *r;
    uint64_t off;
    unsigned char buf[4096];
    uint64_t buf_off;
    size_t buf_len;
};

static int pb_byte(struct pb *b, unsigned char *c)
{
    if (b->off >= b->r->size)
        return -1;
    if (b->off < b->buf_off || b->off >= b->buf_off + b->buf_len) {
        size_t n = b->r->size - b->off < sizeof b->buf ? (size_t)(b->r->size - b->off)
                                                       : sizeof b->buf;
        if (read_at(b->r, b->off, b->buf, n) < 0)
            return -1;
        b->buf_off = b->off;
        b->buf_len = n;
    }
    *c = b->buf[b->off++ - b->buf_off];
    return 0;
}

static int pb_varint(struct pb *b, uint64_t *v)
{
    *v = 0;
    for (int shift = 0; shift < 70; shift += 7) {
        unsigned char c;
        if (pb_byte(b, &c) < 0)
            return -1;
        *v |= (uint64_t)(c & 0x7f) << shift;
        if (!(c & 0x80))
            return 0;
    }
    return -1;
}

static int sniff_onnx(const struct mdl_reader *r, char *why, size_t wlen)
{
    struct pb b = {.r = r};
    int ir = 0, graph = 0;
    for (int n = 0; b.off < r->size; n++) {
        uint64_t at = b.off, key, v;
        if (n >= PB_MAX_FIELDS || pb_varint(&b, &key) < 0)
            return snprintf(why, wlen, "not an ONNX model (byte %llu: not a protobuf field)",
                            (unsigned long long)at), 0;
        unsigned field = (unsigned)(key >> 3), wt = (unsigned)(key & 7);
        int ok = field >= 1;
        if (wt == 0)
            ok = ok && pb_varint(&b, &v) == 0;
        else if (wt == 1 || wt == 5)
            ok = ok && (b.off += wt == 1 ? 8 : 4) <= r->size;
        else if (wt == 2)
            ok = ok && pb_varint(&b, &v) == 0 && v <= r->size - b.off && ((b.off += v), 1);
        else
            ok = 0;
        if (ok && ((field == 1 && wt != 0) || (field == 7 && wt != 2)))
            ok = 0;
        if (!ok)
            return snprintf(why, wlen, "not an ONNX model (byte %llu: field %u of wire type "
                            "%u does not parse)", (unsigned long long)at, field, wt), 0;
        ir |= field == 1;
        graph |= field == 7;
    }
    if (!ir || !graph)
        return snprintf(why, wlen, "not an ONNX model (a protobuf message without %s)",
                        !ir ? "ir_version" : "a graph"), 0;
    return 1;
}

/* -- xgboost ------------------------------------------------------------- */

static int sniff_xgb_doc(const struct mdl_reader *r, int ubj, char *why, size_t wlen)
{
    size_t n = r->size < 65536 ? (size_t)r->size : 65536;
    char *h = n ? malloc(n + 1) : NULL;
    int ok = 0;
    if (h && read_at(r, 0, h, n) == 0) {
        h[n] = 0;
        size_t i = 0;
        while (!ubj && i < n && isspace((unsigned char)h[i]))
            i++;
        ok = i < n && h[i] == '{' && contains(h, n, "learner");
    }
    free(h);
    if (!ok)
        snprintf(why, wlen, "not an XGBoost %s model (an object with a \"learner\")",
                 ubj ? "UBJSON" : "JSON");
    return ok;
}

/* -- the table ------------------------------------------------------------ */

const char *mdl_default_file(const char *framework)
{
    return !strcmp(framework, "sklearn") ? "model.pkl" : !strcmp(framework, "xgboost")
           ? "model.json" : !strcmp(framework, "pytorch") ? "model.pt"
           : !strcmp(framework, "onnx") ? "model.onnx" : NULL;
}

int mdl_sniff_file(const char *framework, const char *torch_format, const char *name,
                   const struct mdl_reader *r, char *format, size_t flen, char *why,
                   size_t wlen)
{
    char low[256];
    size_t i;
    const char *base = strrchr(name, '/');
    base = base ? base + 1 : name;
    for (i = 0; base[i] && i + 1 < sizeof low; i++)
        low[i] = (char)tolower((unsigned char)base[i]);
    low[i] = 0;
    *format = 0;
    *why = 0;
    int pkl = ends_with(low, ".pkl") || ends_with(low, ".pickle") || ends_with(low, ".joblib") ||
              ends_with(low, ".sav");
    if (!strcmp(framework, "sklearn") || (!strcmp(framework, "xgboost") && pkl)) {
        if (!pkl)
            return MDL_SNIFF_SKIP;
        if (is_compressed_joblib(r))
            return snprintf(format, flen, "joblib"), MDL_SNIFF_OK;
        return is_pickle(r, why, wlen) ? (snprintf(format, flen, "pickle"), MDL_SNIFF_OK)
                                       : MDL_SNIFF_BAD;
    }
    if (!strcmp(framework, "xgboost")) {
        if (ends_with(low, ".json"))
            return sniff_xgb_doc(r, 0, why, wlen) ? (snprintf(format, flen, "xgboost-json"),
                                                     MDL_SNIFF_OK) : MDL_SNIFF_BAD;
        if (ends_with(low, ".ubj"))
            return sniff_xgb_doc(r, 1, why, wlen) ? (snprintf(format, flen, "xgboost-ubj"),
                                                     MDL_SNIFF_OK) : MDL_SNIFF_BAD;
        if (ends_with(low, ".model") || ends_with(low, ".bin") || ends_with(low, ".deprecated")
            || ends_with(low, ".xgb")) {
            unsigned char c = 0;
            if (r->size && read_at(r, 0, &c, 1) == 0 && c == '{')   /* 2.x saves UBJSON */
                return sniff_xgb_doc(r, 1, why, wlen) ? (snprintf(format, flen, "xgboost-ubj"),
                                                         MDL_SNIFF_OK) : MDL_SNIFF_BAD;
            if (r->size < 16)
                return snprintf(why, wlen, "too short for an XGBoost model (%llu bytes)",
                                (unsigned long long)r->size), MDL_SNIFF_BAD;
            return snprintf(format, flen, "xgboost-binary"), MDL_SNIFF_OK;
        }
        return MDL_SNIFF_SKIP;
    }
    if (!strcmp(framework, "pytorch")) {
        static const char *const EXT[] = {".pt", ".pth", ".pt2", ".ts", ".torchscript", ".bin",
                                          ".ckpt", ".tar"};
        for (size_t e = 0; e < sizeof EXT / sizeof EXT[0]; e++)
            if (ends_with(low, EXT[e]))
                return sniff_torch(r, torch_format ? torch_format : "torchscript", format, flen,
                                   why, wlen);
        return MDL_SNIFF_SKIP;
    }
    if (!strcmp(framework, "onnx")) {
        if (!ends_with(low, ".onnx"))
            return MDL_SNIFF_SKIP;
        return sniff_onnx(r, why, wlen) ? (snprintf(format, flen, "onnx"), MDL_SNIFF_OK)
                                        : MDL_SNIFF_BAD;
    }
    return MDL_SNIFF_SKIP;   /* custom: anything goes */
}
