#ifndef CINEPACK_COPENEXR_SHIM_H
#define CINEPACK_COPENEXR_SHIM_H
/* OpenEXR's C API (libOpenEXRCore, OpenEXR 3.x). The helpers below drive its chunk loop from
 * memory, so callers read and write whole files through their own I/O. */
#include <OpenEXR/openexr.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    const uint8_t *bytes;
    uint64_t count;
} cinepack_exr_memory_t;

static int64_t cinepack_exr_memory_read(exr_const_context_t ctxt, void *userdata, void *buffer, uint64_t sz,
                                        uint64_t offset, exr_stream_error_func_ptr_t error_cb) {
    const cinepack_exr_memory_t *m = (const cinepack_exr_memory_t *)userdata;
    (void)ctxt;
    (void)error_cb;
    if (offset >= m->count) return 0;
    uint64_t n = m->count - offset < sz ? m->count - offset : sz;
    memcpy(buffer, m->bytes + offset, n);
    return (int64_t)n;
}

static int64_t cinepack_exr_memory_size(exr_const_context_t ctxt, void *userdata) {
    (void)ctxt;
    return (int64_t)((const cinepack_exr_memory_t *)userdata)->count;
}

/* Errors are returned as codes; the library's default handler would print to stderr. */
static void cinepack_exr_quiet(exr_const_context_t ctxt, exr_result_t code, const char *msg) {
    (void)ctxt;
    (void)code;
    (void)msg;
}

/* Opens an in-memory EXR for reading. `memory` must outlive the context. */
static inline exr_result_t cinepack_exr_open(exr_context_t *ctxt, const cinepack_exr_memory_t *memory, int max_side) {
    exr_context_initializer_t init = EXR_DEFAULT_CONTEXT_INITIALIZER;
    init.user_data = (void *)memory;
    init.read_fn = cinepack_exr_memory_read;
    init.size_fn = cinepack_exr_memory_size;
    init.error_handler_fn = cinepack_exr_quiet;
    init.max_image_width = max_side;
    init.max_image_height = max_side;
    init.max_tile_width = max_side;
    init.max_tile_height = max_side;
    return exr_start_read(ctxt, "<memory>", &init);
}

/* Decodes channel `channel` of part `part` (level 0 of a tiled part) as 32-bit floats into
 * `out`, which holds width × height of the data window, rows top to bottom. Returns an EXR
 * result code; on failure `failed_y` is the first line of the chunk that failed. */
static inline exr_result_t cinepack_exr_read_channel(exr_const_context_t ctxt, int part, int channel, float *out,
                                                     int32_t width, int32_t height, int32_t *failed_y) {
    exr_attr_box2i_t dw;
    exr_storage_t storage;
    exr_result_t rv = exr_get_data_window(ctxt, part, &dw);
    if (rv != EXR_ERR_SUCCESS) return rv;
    rv = exr_get_storage(ctxt, part, &storage);
    if (rv != EXR_ERR_SUCCESS) return rv;
    const exr_attr_chlist_t *chlist = NULL;
    rv = exr_get_channels(ctxt, part, &chlist);
    if (rv != EXR_ERR_SUCCESS) return rv;
    const char *wanted = chlist->entries[channel].name.str;

    exr_decode_pipeline_t decoder = EXR_DECODE_PIPELINE_INITIALIZER;
    int initialized = 0;
    float *chunk = NULL;
    size_t chunk_capacity = 0;
    int32_t chunks = 0;
    rv = exr_get_chunk_count(ctxt, part, &chunks);
    if (rv != EXR_ERR_SUCCESS) return rv;
    int32_t tilesX = 1, tilesY = 0, tw = 0, th = 0, lines = 1;
    if (storage == EXR_STORAGE_TILED) {
        uint32_t utw, uth;
        exr_tile_level_mode_t levelMode;
        exr_tile_round_mode_t roundMode;
        rv = exr_get_tile_descriptor(ctxt, part, &utw, &uth, &levelMode, &roundMode);
        if (rv != EXR_ERR_SUCCESS) return rv;
        tw = (int32_t)utw;
        th = (int32_t)uth;
        tilesX = (width + tw - 1) / tw;
        tilesY = (height + th - 1) / th;
        chunks = tilesX * tilesY;
    } else if (storage == EXR_STORAGE_SCANLINE) {
        rv = exr_get_scanlines_per_chunk(ctxt, part, &lines);
        if (rv != EXR_ERR_SUCCESS) return rv;
        chunks = (height + lines - 1) / lines;
    } else {
        return EXR_ERR_FEATURE_NOT_IMPLEMENTED;
    }
    for (int32_t c = 0; c < chunks; c++) {
        exr_chunk_info_t cinfo;
        if (storage == EXR_STORAGE_TILED) {
            rv = exr_read_tile_chunk_info(ctxt, part, c % tilesX, c / tilesX, 0, 0, &cinfo);
            *failed_y = dw.min.y + (c / tilesX) * th;
        } else {
            *failed_y = dw.min.y + c * lines;
            rv = exr_read_scanline_chunk_info(ctxt, part, *failed_y, &cinfo);
        }
        if (rv != EXR_ERR_SUCCESS) break;
        rv = initialized ? exr_decoding_update(ctxt, part, &cinfo, &decoder)
                         : exr_decoding_initialize(ctxt, part, &cinfo, &decoder);
        if (rv != EXR_ERR_SUCCESS) break;
        initialized = 1;
        /* Each chunk decodes into its own contiguous buffer, copied into place after: the
         * library's unpackers do not all honour a line stride wider than the chunk. */
        size_t needed = (size_t)cinfo.width * (size_t)cinfo.height;
        if (needed > chunk_capacity) {
            float *grown = (float *)realloc(chunk, needed * sizeof(float));
            if (!grown) {
                rv = EXR_ERR_OUT_OF_MEMORY;
                break;
            }
            chunk = grown;
            chunk_capacity = needed;
        }
        for (int16_t i = 0; i < decoder.channel_count; i++) {
            exr_coding_channel_info_t *ch = &decoder.channels[i];
            if (strcmp(ch->channel_name, wanted) == 0) {
                ch->decode_to_ptr = (uint8_t *)chunk;
                ch->user_pixel_stride = 4;
                ch->user_line_stride = 4 * cinfo.width;
                ch->user_data_type = EXR_PIXEL_FLOAT;
                ch->user_bytes_per_element = 4;
            } else {
                ch->decode_to_ptr = NULL;
            }
        }
        rv = exr_decoding_choose_default_routines(ctxt, part, &decoder);
        if (rv != EXR_ERR_SUCCESS) break;
        rv = exr_decoding_run(ctxt, part, &decoder);
        if (rv != EXR_ERR_SUCCESS) break;
        /* For tiles, OpenEXR 3.1 reports start_x/start_y as tile indices, not pixels. */
        int64_t x0 = storage == EXR_STORAGE_TILED ? (int64_t)(c % tilesX) * tw : cinfo.start_x - dw.min.x;
        int64_t y0 = storage == EXR_STORAGE_TILED ? (int64_t)(c / tilesX) * th : cinfo.start_y - dw.min.y;
        if (x0 < 0 || y0 < 0 || x0 + cinfo.width > width || y0 + cinfo.height > height) {
            rv = EXR_ERR_CORRUPT_CHUNK;
            break;
        }
        for (int32_t row = 0; row < cinfo.height; row++) {
            memcpy(out + (y0 + row) * (int64_t)width + x0, chunk + (int64_t)row * cinfo.width, (size_t)cinfo.width * sizeof(float));
        }
    }
    free(chunk);
    if (initialized) exr_decoding_destroy(ctxt, &decoder);
    return rv;
}

typedef struct {
    uint8_t *bytes;
    uint64_t count;
    uint64_t capacity;
} cinepack_exr_buffer_t;

static int64_t cinepack_exr_buffer_write(exr_const_context_t ctxt, void *userdata, const void *buffer, uint64_t sz,
                                         uint64_t offset, exr_stream_error_func_ptr_t error_cb) {
    cinepack_exr_buffer_t *b = (cinepack_exr_buffer_t *)userdata;
    (void)ctxt;
    (void)error_cb;
    if (offset + sz > b->capacity) {
        uint64_t capacity = b->capacity ? b->capacity : 65536;
        while (capacity < offset + sz) capacity *= 2;
        uint8_t *grown = (uint8_t *)realloc(b->bytes, capacity);
        if (!grown) return -1;
        memset(grown + b->capacity, 0, capacity - b->capacity);
        b->bytes = grown;
        b->capacity = capacity;
    }
    memcpy(b->bytes + offset, buffer, sz);
    if (offset + sz > b->count) b->count = offset + sz;
    return (int64_t)sz;
}

/* Encodes one FLOAT channel `name` (width × height, rows top to bottom) as a ZIP-compressed
 * scanline EXR into `buffer` (free `buffer->bytes` with free()). */
static inline exr_result_t cinepack_exr_write_float(cinepack_exr_buffer_t *buffer, const char *name, const float *values,
                                                    int32_t width, int32_t height) {
    exr_context_initializer_t init = EXR_DEFAULT_CONTEXT_INITIALIZER;
    init.user_data = buffer;
    init.write_fn = cinepack_exr_buffer_write;
    init.error_handler_fn = cinepack_exr_quiet;
    exr_context_t ctxt = NULL;
    exr_result_t rv = exr_start_write(&ctxt, "<memory>", EXR_WRITE_FILE_DIRECTLY, &init);
    if (rv != EXR_ERR_SUCCESS) return rv;
    int part = 0;
    rv = exr_add_part(ctxt, "depth", EXR_STORAGE_SCANLINE, &part);
    if (rv == EXR_ERR_SUCCESS) rv = exr_initialize_required_attr_simple(ctxt, part, width, height, EXR_COMPRESSION_ZIP);
    if (rv == EXR_ERR_SUCCESS) rv = exr_add_channel(ctxt, part, name, EXR_PIXEL_FLOAT, EXR_PERCEPTUALLY_LINEAR, 1, 1);
    if (rv == EXR_ERR_SUCCESS) rv = exr_write_header(ctxt);
    int32_t lines = 1;
    if (rv == EXR_ERR_SUCCESS) rv = exr_get_scanlines_per_chunk(ctxt, part, &lines);
    exr_encode_pipeline_t encoder = EXR_ENCODE_PIPELINE_INITIALIZER;
    int initialized = 0;
    for (int32_t y = 0; rv == EXR_ERR_SUCCESS && y < height; y += lines) {
        exr_chunk_info_t cinfo;
        rv = exr_write_scanline_chunk_info(ctxt, part, y, &cinfo);
        if (rv != EXR_ERR_SUCCESS) break;
        rv = initialized ? exr_encoding_update(ctxt, part, &cinfo, &encoder)
                         : exr_encoding_initialize(ctxt, part, &cinfo, &encoder);
        if (rv != EXR_ERR_SUCCESS) break;
        initialized = 1;
        encoder.channels[0].encode_from_ptr = (const uint8_t *)(values + (int64_t)y * width);
        encoder.channels[0].user_pixel_stride = 4;
        encoder.channels[0].user_line_stride = 4 * width;
        encoder.channels[0].user_data_type = EXR_PIXEL_FLOAT;
        encoder.channels[0].user_bytes_per_element = 4;
        rv = exr_encoding_choose_default_routines(ctxt, part, &encoder);
        if (rv == EXR_ERR_SUCCESS) rv = exr_encoding_run(ctxt, part, &encoder);
    }
    if (initialized) exr_encoding_destroy(ctxt, &encoder);
    exr_result_t finished = exr_finish(&ctxt);
    return rv != EXR_ERR_SUCCESS ? rv : finished;
}
#endif
