#!/usr/bin/env python3
"""Golden image-token counts for the processor-spec tests.

Transcription, in Python (so Python's own round(), round(x, 7), int(), // and float semantics
apply), of the reference functions listed in ../shared/reference/vision_tokens.md:
transformers smart_resize (Qwen2/2.5/3-VL), select_best_resolution + LlavaNext
_get_number_of_features/_get_unpadded_features, Phi-3-vision calc_hd_transform_size /
calc_num_image_tokens_from_image_size, Llama-4 find_supported_resolutions/get_best_fit +
_prompt_split_image, Kimi-K2.5 navit_resize_image, Kimi-VL rescale, Pixtral
get_resize_output_image_size, Gemma-4 get_aspect_ratio_preserving_size, GotOcr2
get_optimal_tiled_canvas (InternVL) and vLLM's InternVL target ratios.
Neither transformers nor torch is installable here; the script checks itself against the
published anchor values (ANCHORS) before writing golden.csv. Run: python3 generate.py
"""
import math
import random
from collections import defaultdict


class Reject(Exception):
    pass


def smart_resize(height, width, factor, min_pixels, max_pixels):
    if max(height, width) / min(height, width) > 200:
        raise Reject("ratio")
    h_bar = round(height / factor) * factor
    w_bar = round(width / factor) * factor
    if h_bar * w_bar > max_pixels:
        beta = math.sqrt((height * width) / max_pixels)
        h_bar = max(factor, math.floor(height / beta / factor) * factor)
        w_bar = max(factor, math.floor(width / beta / factor) * factor)
    elif h_bar * w_bar < min_pixels:
        beta = math.sqrt(min_pixels / (height * width))
        h_bar = math.ceil(height * beta / factor) * factor
        w_bar = math.ceil(width * beta / factor) * factor
    return h_bar, w_bar


def qwen(patch, merge, min_px, max_px):
    def f(w, h):
        hh, ww = smart_resize(h, w, patch * merge, min_px, max_px)
        return (hh // patch) * (ww // patch) // (merge * merge)
    return f


def select_best_resolution(original_size, possible_resolutions):
    original_height, original_width = original_size
    best_fit = None
    max_effective_resolution = 0
    min_wasted_resolution = float("inf")
    for height, width in possible_resolutions:
        scale = min(width / original_width, height / original_height)
        downscaled_width, downscaled_height = int(original_width * scale), int(original_height * scale)
        effective_resolution = min(downscaled_width * downscaled_height, original_width * original_height)
        wasted_resolution = (width * height) - effective_resolution
        if effective_resolution > max_effective_resolution or (
            effective_resolution == max_effective_resolution and wasted_resolution < min_wasted_resolution
        ):
            max_effective_resolution = effective_resolution
            min_wasted_resolution = wasted_resolution
            best_fit = (height, width)
    return best_fit


PINPOINTS = [[336, 672], [672, 336], [672, 672], [1008, 336], [336, 1008]]


def llava_next(w, h, crop=336, patch=14):
    best = select_best_resolution([h, w], PINPOINTS)
    if best is None:
        raise Reject("no fit")
    scale_height, scale_width = best[0] // crop, best[1] // crop
    patches_height = crop // patch
    patches_width = crop // patch
    current_height = patches_height * scale_height
    current_width = patches_width * scale_width
    original_aspect_ratio = w / h
    current_aspect_ratio = current_width / current_height
    if original_aspect_ratio > current_aspect_ratio:
        new_height = int(round(h * (current_width / w), 7))
        padding = (current_height - new_height) // 2
        current_height -= padding * 2
    else:
        new_width = int(round(w * (current_height / h), 7))
        padding = (current_width - new_width) // 2
        current_width -= padding * 2
    unpadded = current_height * current_width
    newline = current_height
    base = patches_height * patches_width + 1
    return unpadded + newline + base - 1


def phi3(num_crops):
    def calc_padded_size(width, height, padding_unit=336):
        target_height = int(math.ceil(height / padding_unit) * padding_unit)
        top_padding = int((target_height - height) / 2)
        bottom_padding = target_height - height - top_padding
        return width, height + top_padding + bottom_padding

    def calc_hd_transform_size(width, height, hd_num):
        transposed = False
        if width < height:
            width, height = height, width
            transposed = True
        ratio = width / height
        scale = 1
        while scale * math.ceil(scale / ratio) <= hd_num:
            scale += 1
        scale -= 1
        new_width = int(scale * 336)
        new_height = int(new_width / ratio)
        padded_width, padded_height = calc_padded_size(new_width, new_height)
        if transposed:
            padded_width, padded_height = padded_height, padded_width
        return padded_width, padded_height

    def f(w, h):
        new_width, new_height = calc_hd_transform_size(w, h, num_crops)
        return int((new_height // 336 * new_width // 336 + 1) * 144 + 1 + (new_height // 336 + 1) * 12)
    return f


def llama4(w, h, tile=336, max_chunks=16):
    def get_factors(n):
        return {i for i in range(1, n + 1) if n % i == 0}
    asp_dict = defaultdict(list)
    for chunk_size in range(max_chunks, 0, -1):
        for factor in sorted(get_factors(chunk_size)):
            height, width = factor, chunk_size // factor
            asp_dict[height / width].append((height, width))
    possible = []
    for _, value in asp_dict.items():
        for height, depth in value:
            possible.append((height * tile, depth * tile))
    scales = []
    for th, tw in possible:
        sw = tw / w
        sh = th / h
        scales.append(sw if sh > sw else sh)
    ups = [s for s in scales if s >= 1]
    selected = min(ups) if ups else max(s for s in scales if s < 1)
    chosen = [c for c, s in zip(possible, scales) if s == selected]
    areas = [c[0] * c[1] for c in chosen]
    canvas = chosen[areas.index(min(areas))]
    rows, cols = canvas[0] // tile, canvas[1] // tile
    n = rows * cols
    return 144 * (n + (1 if n > 1 else 0))


def kimi_k25(w, h, patch=14, merge=2, limit=16384, side=512):
    s1 = math.sqrt(limit / (max(1.0, w // patch) * max(1.0, h // patch)))
    s2 = side * patch / w
    s3 = side * patch / h
    scale = min(1.0, s1, s2, s3)
    new_w, new_h = max(1, int(w * scale)), max(1, int(h * scale))
    new_w = min(new_w, side * patch)
    new_h = min(new_h, side * patch)
    factor = merge * patch
    pad_w = (factor - new_w % factor) % factor
    pad_h = (factor - new_h % factor) % factor
    return ((new_h + pad_h) // factor) * ((new_w + pad_w) // factor)


def kimi_vl(w, h, patch=14, merge=2, limit=4096):
    if (w // patch) * (h // patch) > limit:
        scale = math.sqrt(limit / ((w // patch) * (h // patch)))
        w, h = int(w * scale), int(h * scale)
    u = merge * patch
    w += (u - w % u) % u
    h += (u - h % u) % u
    if w // patch >= 512 or h // patch >= 512:
        raise Reject("pos emb")
    return (w // patch) * (h // patch) // (merge * merge)


def pixtral(patch, longest):
    def f(w, h):
        ratio = max(h / longest, w / longest)
        hh, ww = h, w
        if ratio > 1:
            hh = int(math.floor(h / ratio))
            ww = int(math.floor(w / ratio))
        rows = (hh - 1) // patch + 1
        cols = (ww - 1) // patch + 1
        if rows <= 0 or cols <= 0:
            raise Reject("empty")
        return rows * cols
    return f


def gemma4(budget, patch=16, k=3):
    def f(w, h):
        max_patches = budget * k * k
        total_px = h * w
        target_px = max_patches * (patch ** 2)
        factor = math.sqrt(target_px / total_px)
        ideal_height = factor * h
        ideal_width = factor * w
        side_mult = k * patch
        th = int(math.floor(ideal_height / side_mult)) * side_mult
        tw = int(math.floor(ideal_width / side_mult)) * side_mult
        if th == 0 and tw == 0:
            raise Reject("0x0")
        max_side_length = (max_patches // k ** 2) * side_mult
        if th == 0:
            th = side_mult
            tw = min(int(math.floor(w / h)) * side_mult, max_side_length)
        elif tw == 0:
            tw = side_mult
            th = min(int(math.floor(h / w)) * side_mult, max_side_length)
        return (th // side_mult) * (tw // side_mult)
    return f


def internvl(max_tiles, cap_plus_one):
    def f(w, h):
        mx = max_tiles + 1 if cap_plus_one else max_tiles
        ratios = []
        for width in range(1, mx + 1):
            for height in range(1, mx + 1):
                if 1 <= width * height <= mx:
                    ratios.append((width, height))
        ratios = sorted(ratios, key=lambda x: x[0] * x[1])
        aspect = w / h
        area = w * h
        best_diff = float("inf")
        best = (1, 1)
        for g in ratios:
            diff = abs(aspect - g[0] / g[1])
            if diff < best_diff:
                best_diff = diff
                best = g
            elif diff == best_diff:
                if area > 0.5 * 448 * 448 * g[0] * g[1]:
                    best = g
        n = best[0] * best[1]
        return 256 * (n + 1 if n > 1 else 1)
    return f


VARIANTS = {
    "qwen2_vl": qwen(14, 2, 3136, 12845056),
    "qwen2_vl_class_default": qwen(14, 2, 3136, 1003520),
    "qwen2_vl_fingerprint": qwen(14, 2, 256 * 28 * 28, 1280 * 28 * 28),
    "qwen3_vl": qwen(16, 2, 65536, 16777216),
    "llava": lambda w, h: 576,
    "llava_next": llava_next,
    "phi3_v": phi3(16),
    "phi3_5_v": phi3(4),
    "llama4": llama4,
    "kimi_k25": kimi_k25,
    "kimi_vl": kimi_vl,
    "pixtral": pixtral(16, 1024),
    "mistral3": pixtral(28, 1540),
    "gemma3": lambda w, h: 256,
    "gemma4": gemma4(280),
    "gemma4_70": gemma4(70),
    "gemma4_1120": gemma4(1120),
    "internvl": internvl(12, False),
    "internvl_chat": internvl(12, True),
}

# Values published in the reference notes / upstream tests (vision_tokens.md).
ANCHORS = [
    ("qwen3_vl", 336, 336, 100), ("qwen3_vl", 640, 480, 300),
    ("qwen2_vl_fingerprint", 37, 23, 273), ("qwen2_vl_fingerprint", 259, 194, 266),
    ("qwen3_vl", 37, 23, 77), ("qwen3_vl", 259, 194, 70),
    ("qwen2_vl", 640, 480, 391), ("qwen2_vl", 1920, 1080, 2691), ("qwen2_vl", 4032, 3024, 15552),
    ("qwen3_vl", 1920, 1080, 2040), ("qwen3_vl", 4032, 3024, 11844),
    ("llava_next", 316, 500, 1526), ("llava_next", 30, 107, 744), ("llava_next", 640, 480, 2340),
    ("llava_next", 1920, 1080, 1948), ("llava_next", 1080, 1920, 1968),
    ("phi3_v", 640, 480, 1921), ("phi3_v", 480, 640, 1933), ("phi3_v", 28, 28, 2509),
    ("phi3_v", 1920, 1080, 2353), ("phi3_v", 1080, 1920, 2377),
    ("llama4", 640, 480, 720), ("llama4", 1920, 1080, 2304), ("llama4", 4032, 3024, 1872),
    ("kimi_k25", 600, 400, 330), ("kimi_k25", 640, 480, 414), ("kimi_k25", 4032, 3024, 4144),
    ("pixtral", 500, 316, 640), ("pixtral", 640, 480, 1200), ("pixtral", 1920, 1080, 2304),
    ("pixtral", 4032, 3024, 3072),
    ("gemma4", 640, 480, 266), ("gemma4", 1920, 1080, 264), ("gemma4", 4032, 3024, 266),
    ("internvl", 640, 480, 3328), ("internvl", 1920, 1080, 2304), ("internvl", 50, 1000, 3328),
    ("internvl_chat", 50, 1000, 3584),
]

FIXED = [
    (1, 1), (2, 3), (14, 14), (28, 28), (37, 23), (23, 37), (56, 56), (64, 64), (100, 100),
    (259, 194), (300, 600), (316, 500), (500, 316), (30, 107), (107, 30), (336, 336), (337, 511),
    (400, 300), (448, 448), (480, 640), (500, 500), (600, 300), (600, 400), (640, 480), (672, 672),
    (800, 600), (1000, 100), (100, 1000), (1024, 1024), (1080, 1920), (1280, 720), (720, 1280),
    (1920, 1080), (2048, 2048), (3000, 2000), (4000, 3000), (4032, 3024), (3024, 4032),
    (7168, 7168), (8000, 6000), (10000, 10000), (16384, 16384), (1, 200), (200, 1), (1, 201),
    (3, 700), (50, 1000), (1000, 50), (10000, 50), (50, 10000), (20000, 100), (14, 2800),
    (28, 5600), (1540, 1540), (1541, 1), (896, 896), (895, 897), (2, 2), (5, 1),
]


def main():
    bad = []
    for name, w, h, want in ANCHORS:
        got = VARIANTS[name](w, h)
        if got != want:
            bad.append((name, w, h, want, got))
    if bad:
        raise SystemExit("anchor mismatch: %r" % bad)
    rnd = random.Random(20261121)
    sizes = list(FIXED)
    for _ in range(120):
        sizes.append((rnd.randint(1, 5000), rnd.randint(1, 5000)))
    for _ in range(30):
        a = rnd.randint(1, 60)
        sizes.append((a, a * rnd.randint(2, 150)) if rnd.random() < 0.5 else (a * rnd.randint(2, 150), a))
    with open("golden.csv", "w") as out:
        out.write("variant,width,height,num_image_tokens\n")
        for name, fn in VARIANTS.items():
            for w, h in sizes:
                try:
                    v = str(fn(w, h))
                except Reject:
                    v = "error"
                except (ValueError, ZeroDivisionError, TypeError):
                    v = "error"
                out.write("%s,%d,%d,%s\n" % (name, w, h, v))
    print("anchors ok (%d); wrote %d rows" % (len(ANCHORS), len(VARIANTS) * len(sizes)))


if __name__ == "__main__":
    main()
