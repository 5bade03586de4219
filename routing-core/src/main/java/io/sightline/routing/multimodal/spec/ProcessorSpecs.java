package io.sightline.routing.multimodal.spec;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.OptionalInt;

/**
 * Registry that picks a {@link ModelProcessorSpec} for a model directory in Hugging Face layout.
 *
 * <p>Design (after Dynamo's {@code LightseekMmCounter} / llm-multimodal registry, {@code
 * ../shared/reference/dynamo.md} §5): the family comes from {@code config.json} {@code model_type}
 * (then {@code architectures}); LLaVA-format checkpoints with a Pixtral vision tower are Pixtral.
 * The family's parameters are read from {@code preprocessor_config.json} / {@code
 * processor_config.json} / {@code config.json}, with the Hugging Face class defaults only where the
 * files are silent. The placeholder id comes from the family's config field ({@code
 * image_token_id}, {@code image_token_index}, {@code media_placeholder_token_id}) or, failing that,
 * from probing the tokenizer vocabulary for the placeholder text.
 *
 * <p>An unrecognised model, or one whose files are incomplete, is not an error: {@link #resolve}
 * returns a text-only resolution with the reason, and the router routes on text alone.
 */
public final class ProcessorSpecs {
  private ProcessorSpecs() {}

  /** The spec for the model in {@code modelDir}, or empty when it routes on text only. */
  public static Optional<ModelProcessorSpec> fromModelDirectory(Path modelDir) {
    return resolve(modelDir).spec();
  }

  /** Like {@link #fromModelDirectory} but says why a model was not recognised. */
  public static SpecResolution resolve(Path modelDir) {
    try {
      return resolve(ModelFiles.read(modelDir));
    } catch (SpecException e) {
      return SpecResolution.textOnly(e.getMessage());
    }
  }

  /** Resolves from already-read files. */
  public static SpecResolution resolve(ModelFiles f) {
    try {
      Optional<VlmFamily> family = detect(f);
      if (family.isEmpty()) {
        String what =
            f.modelType().isEmpty()
                ? "architecture '" + f.architecture() + "'"
                : "model_type '" + f.modelType() + "'";
        return SpecResolution.textOnly(
            what + " is not a supported vision-language family; routing on text only");
      }
      return SpecResolution.found(build(family.get(), f));
    } catch (SpecException e) {
      return SpecResolution.textOnly(e.getMessage() + "; routing on text only");
    } catch (RuntimeException e) {
      return SpecResolution.textOnly(
          "unexpected content in model files (" + e + "); routing on text only");
    }
  }

  /** The family a model directory belongs to, if any. */
  public static Optional<VlmFamily> detect(ModelFiles f) {
    String type = f.modelType().toLowerCase(Locale.ROOT);
    String arch = f.architecture();
    switch (type) {
      case "qwen2_vl":
        return Optional.of(VlmFamily.QWEN2_VL);
      case "qwen2_5_vl":
        return Optional.of(VlmFamily.QWEN2_5_VL);
      case "qwen3_vl", "qwen3_vl_moe":
        return Optional.of(VlmFamily.QWEN3_VL);
      case "llava":
        return Optional.of(isPixtralTower(f) ? VlmFamily.PIXTRAL : VlmFamily.LLAVA);
      case "pixtral":
        return Optional.of(VlmFamily.PIXTRAL);
      case "llava_next":
        return Optional.of(VlmFamily.LLAVA_NEXT);
      case "phi3_v":
        return Optional.of(VlmFamily.PHI3_V);
      case "llama4":
        return Optional.of(VlmFamily.LLAMA4);
      case "kimi_k25", "kimi_k2_5":
        return Optional.of(VlmFamily.KIMI_K25);
      case "kimi_vl":
        return Optional.of(VlmFamily.KIMI_VL);
      case "mistral3":
        return Optional.of(VlmFamily.MISTRAL3);
      case "gemma3":
        return Optional.of(VlmFamily.GEMMA3);
      case "gemma4":
        return Optional.of(VlmFamily.GEMMA4);
      case "internvl", "internvl_chat":
        return Optional.of(VlmFamily.INTERNVL);
      default:
        break;
    }
    // No (known) model_type: fall back to the architecture class name.
    return switch (arch) {
      case "Qwen2VLForConditionalGeneration" -> Optional.of(VlmFamily.QWEN2_VL);
      case "Qwen2_5_VLForConditionalGeneration" -> Optional.of(VlmFamily.QWEN2_5_VL);
      case "Qwen3VLForConditionalGeneration", "Qwen3VLMoeForConditionalGeneration" ->
          Optional.of(VlmFamily.QWEN3_VL);
      case "LlavaForConditionalGeneration" ->
          Optional.of(isPixtralTower(f) ? VlmFamily.PIXTRAL : VlmFamily.LLAVA);
      case "LlavaNextForConditionalGeneration" -> Optional.of(VlmFamily.LLAVA_NEXT);
      case "Phi3VForCausalLM" -> Optional.of(VlmFamily.PHI3_V);
      case "Llama4ForConditionalGeneration" -> Optional.of(VlmFamily.LLAMA4);
      case "KimiK25ForConditionalGeneration" -> Optional.of(VlmFamily.KIMI_K25);
      case "KimiVLForConditionalGeneration" -> Optional.of(VlmFamily.KIMI_VL);
      case "Mistral3ForConditionalGeneration" -> Optional.of(VlmFamily.MISTRAL3);
      case "Gemma3ForConditionalGeneration" -> Optional.of(VlmFamily.GEMMA3);
      case "Gemma4ForConditionalGeneration" -> Optional.of(VlmFamily.GEMMA4);
      case "InternVLForConditionalGeneration", "InternVLChatModel" ->
          Optional.of(VlmFamily.INTERNVL);
      default -> Optional.empty();
    };
  }

  private static boolean isPixtralTower(ModelFiles f) {
    return "pixtral".equals(f.config().path("vision_config").path("model_type").asText(""))
        || f.preprocessor().path("image_processor_type").asText("").startsWith("Pixtral")
        || f.processor().path("processor_class").asText("").startsWith("Pixtral");
  }

  /** Builds the spec of a known family from the files. */
  public static ModelProcessorSpec build(VlmFamily family, ModelFiles f) throws SpecException {
    JsonNode cfg = f.config();
    JsonNode pre = f.preprocessor();
    JsonNode proc = f.processor();
    OptionalInt bos = f.bosTokenId();
    switch (family) {
      case QWEN2_VL, QWEN2_5_VL, QWEN3_VL -> {
        boolean q3 = family == VlmFamily.QWEN3_VL;
        // transformers class defaults: Qwen2VLImageProcessor min 56*56, max 28*28*1280, patch 14;
        // Qwen3-VL ships patch 16 and a 65536..16777216 pixel range.
        int patch = intOr(pre, "patch_size", q3 ? 16 : 14);
        int merge = intOr(pre, "merge_size", 2);
        long min =
            longFirst(
                q3 ? 65536 : 3136,
                pre.path("min_pixels"),
                pre.path("size").path("shortest_edge"),
                pre.path("size").path("min_pixels"));
        long max =
            longFirst(
                q3 ? 16777216 : 1003520,
                pre.path("max_pixels"),
                pre.path("size").path("longest_edge"),
                pre.path("size").path("max_pixels"));
        String token = "<|image_pad|>";
        int id = placeholder(f, token, cfg.path("image_token_id"));
        return new QwenVlSpec(family, id, token, bos, patch, merge, min, max);
      }
      case LLAVA -> {
        String token = proc.path("image_token").asText("<image>");
        int id = placeholder(f, token, cfg.path("image_token_index"), cfg.path("image_token_id"));
        int[] crop = cropSize(pre, cfg);
        int patch =
            intFirst(14, proc.path("patch_size"), cfg.path("vision_config").path("patch_size"));
        int extra =
            intFirst(defaultAdditionalTokens(cfg), proc.path("num_additional_image_tokens"));
        boolean def = isDefaultStrategy(proc, cfg);
        return new LlavaSpec(id, token, bos, crop[0], crop[1], patch, extra, def);
      }
      case LLAVA_NEXT -> {
        String token = proc.path("image_token").asText("<image>");
        int id = placeholder(f, token, cfg.path("image_token_index"), cfg.path("image_token_id"));
        int[] crop = cropSize(pre, cfg);
        int patch =
            intFirst(14, proc.path("patch_size"), cfg.path("vision_config").path("patch_size"));
        int extra =
            intFirst(defaultAdditionalTokens(cfg), proc.path("num_additional_image_tokens"));
        boolean def = isDefaultStrategy(proc, cfg);
        JsonNode pins = pre.path("image_grid_pinpoints");
        if (!pins.isArray()) {
          pins = cfg.path("image_grid_pinpoints");
        }
        List<int[]> pinpoints = new ArrayList<>();
        for (JsonNode p : pins) {
          if (!p.isArray()
              || p.size() != 2
              || !p.get(0).canConvertToInt()
              || !p.get(1).canConvertToInt()) {
            throw new SpecException("image_grid_pinpoints entry is not [height, width]: " + p);
          }
          pinpoints.add(new int[] {p.get(0).asInt(), p.get(1).asInt()});
        }
        if (pinpoints.isEmpty()) {
          // LlavaNextImageProcessor's default grid.
          for (int[] p :
              new int[][] {{336, 672}, {672, 336}, {672, 672}, {1008, 336}, {336, 1008}}) {
            pinpoints.add(p);
          }
        }
        return new LlavaNextSpec(id, token, bos, crop[0], crop[1], patch, pinpoints, extra, def);
      }
      case PHI3_V -> {
        String token = "<|image|>";
        int id = placeholder(f, token);
        int crops = intOr(pre, "num_crops", 16);
        int perCrop =
            intFirst(
                144, pre.path("num_img_tokens"), cfg.path("img_processor").path("num_img_tokens"));
        return new Phi3VisionSpec(id, token, bos, crops, perCrop);
      }
      case LLAMA4 -> {
        String token = proc.path("patch_token").asText("<|patch|>");
        int id = placeholder(f, token, cfg.path("image_token_index"), cfg.path("image_token_id"));
        int tile = intFirst(336, pre.path("size").path("height"), pre.path("tile_size"));
        int maxPatches = intOr(pre, "max_patches", 16);
        boolean toMax = pre.path("resize_to_max_canvas").asBoolean(false);
        JsonNode vc = cfg.path("vision_config");
        int patch = intFirst(14, vc.path("patch_size"));
        double ratio =
            vc.path("pixel_shuffle_ratio").isNumber()
                ? vc.path("pixel_shuffle_ratio").asDouble()
                : 0.5;
        int image = wrapper(f, proc.path("image_token").asText("<|image|>"));
        int start =
            placeholder(
                f,
                proc.path("start_of_image_token").asText("<|image_start|>"),
                cfg.path("boi_token_index"));
        int end =
            placeholder(
                f,
                proc.path("end_of_image_token").asText("<|image_end|>"),
                cfg.path("eoi_token_index"));
        int tileX = wrapper(f, proc.path("tile_x_separator_token").asText("<|tile_x_separator|>"));
        int tileY = wrapper(f, proc.path("tile_y_separator_token").asText("<|tile_y_separator|>"));
        return new Llama4Spec(
            id, token, bos, tile, maxPatches, toMax, patch, ratio, image, start, end, tileX, tileY);
      }
      case KIMI_K25 -> {
        String token = "<|media_pad|>";
        int id = placeholder(f, token, cfg.path("media_placeholder_token_id"));
        JsonNode m = pre.path("media_proc_cfg").isObject() ? pre.path("media_proc_cfg") : pre;
        int patch = intOr(m, "patch_size", 14);
        int merge = intOr(m, "merge_kernel_size", 2);
        long limit = longFirst(16384, m.path("in_patch_limit"));
        long side = longFirst(512, m.path("patch_limit_on_one_side"));
        JsonNode fixed = m.path("fixed_output_tokens");
        OptionalInt fx =
            fixed.canConvertToInt() ? OptionalInt.of(fixed.asInt()) : OptionalInt.empty();
        return new KimiK25Spec(id, token, bos, patch, merge, limit, side, fx);
      }
      case KIMI_VL -> {
        String token = "<|media_pad|>";
        int id = placeholder(f, token, cfg.path("media_placeholder_token_id"));
        int patch = intOr(pre, "patch_size", 14);
        JsonNode mk = pre.path("merge_kernel_size");
        int merge = mk.isArray() && !mk.isEmpty() ? mk.get(0).asInt(2) : mk.asInt(2);
        long limit = longFirst(4096, pre.path("in_token_limit"));
        boolean pad = pre.path("pad_input").asBoolean(true);
        return new KimiVlSpec(id, token, bos, patch, merge, limit, pad);
      }
      case PIXTRAL, MISTRAL3 -> {
        String token = proc.path("image_token").asText("[IMG]");
        int id = placeholder(f, token, cfg.path("image_token_index"), cfg.path("image_token_id"));
        int patch =
            intFirst(
                16,
                proc.path("patch_size"),
                cfg.path("vision_config").path("patch_size"),
                pre.path("patch_size").path("height"));
        int merge =
            intFirst(
                family == VlmFamily.MISTRAL3 ? 2 : 1,
                proc.path("spatial_merge_size"),
                cfg.path("spatial_merge_size"));
        int longest =
            intFirst(
                1024,
                pre.path("size").path("longest_edge"),
                cfg.path("vision_config").path("image_size"));
        int brk =
            placeholder(
                f,
                proc.path("image_break_token").asText("[IMG_BREAK]"),
                cfg.path("image_break_token_id"));
        int end =
            placeholder(
                f,
                proc.path("image_end_token").asText("[IMG_END]"),
                cfg.path("image_end_token_id"));
        return new PixtralSpec(family, id, token, bos, patch, merge, longest, brk, end);
      }
      case GEMMA3 -> {
        if (pre.path("do_pan_and_scan").asBoolean(false)) {
          throw new SpecException(
              "Gemma 3 with pan-and-scan enabled adds crops and text per image; not supported");
        }
        String token = "<image_soft_token>";
        int id = placeholder(f, token, cfg.path("image_token_index"), cfg.path("image_token_id"));
        int n =
            intFirst(
                256,
                cfg.path("mm_tokens_per_image"),
                proc.path("image_seq_length"),
                pre.path("image_seq_length"));
        int boi = placeholder(f, "<start_of_image>", cfg.path("boi_token_index"));
        int eoi = placeholder(f, "<end_of_image>", cfg.path("eoi_token_index"));
        int nl = wrapper(f, "\n\n");
        return new Gemma3Spec(id, token, bos, n, boi, eoi, nl);
      }
      case GEMMA4 -> {
        String token = f.tokenizerConfig().path("image_token").asText("<|image|>");
        int id = placeholder(f, token, cfg.path("image_token_id"));
        JsonNode ip = proc.path("image_processor").isObject() ? proc.path("image_processor") : pre;
        int patch =
            intFirst(16, ip.path("patch_size"), cfg.path("vision_config").path("patch_size"));
        int pool =
            intFirst(
                3,
                ip.path("pooling_kernel_size"),
                cfg.path("vision_config").path("pooling_kernel_size"));
        int budget =
            intFirst(
                280,
                ip.path("max_soft_tokens"),
                proc.path("image_seq_length"),
                cfg.path("vision_soft_tokens_per_image"));
        if (budget != 70 && budget != 140 && budget != 280 && budget != 560 && budget != 1120) {
          throw new SpecException(
              "Gemma 4 max_soft_tokens must be 70/140/280/560/1120, got " + budget);
        }
        int boi =
            placeholder(
                f,
                f.tokenizerConfig().path("boi_token").asText("<|image>"),
                cfg.path("boi_token_id"));
        int eoi =
            placeholder(
                f,
                f.tokenizerConfig().path("eoi_token").asText("<image|>"),
                cfg.path("eoi_token_id"));
        return new Gemma4Spec(id, token, bos, patch, pool, budget, boi, eoi);
      }
      case INTERNVL -> {
        String token = proc.path("image_token").asText("<IMG_CONTEXT>");
        if ("internvl_chat".equals(f.modelType())) {
          // Original (remote-code) checkpoint as served by vLLM's internvl.py.
          int id = placeholder(f, token, cfg.path("img_context_token_id"));
          JsonNode vc = cfg.path("vision_config");
          int image = intFirst(448, cfg.path("force_image_size"), vc.path("image_size"));
          int patch = intFirst(14, vc.path("patch_size"));
          double down =
              cfg.path("downsample_ratio").isNumber()
                  ? cfg.path("downsample_ratio").asDouble()
                  : 0.5;
          int perTile = (int) ((image / patch) * (image / patch) * (down * down));
          return new InternVlSpec(
              id,
              token,
              bos,
              image,
              intFirst(1, cfg.path("min_dynamic_patch")),
              intFirst(12, cfg.path("max_dynamic_patch")),
              cfg.path("use_thumbnail").asBoolean(true),
              true,
              perTile,
              wrapper(f, "<img>"),
              wrapper(f, "</img>"));
        }
        int id = placeholder(f, token, cfg.path("image_token_id"), cfg.path("image_token_index"));
        int tile =
            intFirst(448, pre.path("size").path("height"), pre.path("crop_size").path("height"));
        int min = intFirst(1, pre.path("min_patches"));
        int max = intFirst(12, pre.path("max_patches"));
        boolean crop = pre.path("crop_to_patches").asBoolean(true);
        int perTile = intFirst(256, proc.path("image_seq_length"), cfg.path("image_seq_length"));
        return new InternVlSpec(
            id,
            token,
            bos,
            tile,
            crop ? min : 1,
            crop ? max : 1,
            crop,
            false,
            perTile,
            wrapper(f, proc.path("start_image_token").asText("<img>")),
            wrapper(f, proc.path("end_image_token").asText("</img>")));
      }
      default -> throw new SpecException("no spec for family " + family.id());
    }
  }

  // ---- helpers ----

  /** The placeholder id: the first config field that holds an int, else the vocabulary probe. */
  private static int placeholder(ModelFiles f, String token, JsonNode... configFields)
      throws SpecException {
    for (JsonNode n : configFields) {
      if (n.canConvertToInt()) {
        return n.asInt();
      }
    }
    OptionalInt probed = f.tokenId(token);
    if (probed.isPresent()) {
      return probed.getAsInt();
    }
    throw new SpecException(
        "placeholder token "
            + token
            + " has no id in config.json and is not in the tokenizer vocabulary");
  }

  /** A wrapper token the engine inserts around image tokens: must be in the vocabulary. */
  private static int wrapper(ModelFiles f, String token) throws SpecException {
    OptionalInt id = f.tokenId(token);
    if (id.isEmpty()) {
      throw new SpecException(
          "image wrapper token "
              + token.replace("\n", "\\n")
              + " is not in the tokenizer vocabulary (tokenizer_config.json / tokenizer.json)");
    }
    return id.getAsInt();
  }

  private static int[] cropSize(JsonNode pre, JsonNode cfg) {
    JsonNode c = pre.path("crop_size");
    int fallback = cfg.path("vision_config").path("image_size").asInt(336);
    if (c.isObject()) {
      return new int[] {c.path("height").asInt(fallback), c.path("width").asInt(fallback)};
    }
    if (c.canConvertToInt()) {
      return new int[] {c.asInt(), c.asInt()};
    }
    return new int[] {fallback, fallback};
  }

  /** CLIP towers have a CLS token (one additional feature); SigLIP towers do not. */
  private static int defaultAdditionalTokens(JsonNode cfg) {
    String tower = cfg.path("vision_config").path("model_type").asText("clip_vision_model");
    return tower.startsWith("clip") ? 1 : 0;
  }

  private static boolean isDefaultStrategy(JsonNode proc, JsonNode cfg) {
    String s =
        proc.path("vision_feature_select_strategy")
            .asText(cfg.path("vision_feature_select_strategy").asText("default"));
    return "default".equals(s);
  }

  private static int intOr(JsonNode node, String field, int dflt) throws SpecException {
    return intFirst(dflt, node.path(field));
  }

  private static int intFirst(int dflt, JsonNode... candidates) throws SpecException {
    for (JsonNode n : candidates) {
      if (n.isMissingNode() || n.isNull()) {
        continue;
      }
      if (!n.canConvertToInt() || !n.isIntegralNumber() || n.asInt() <= 0) {
        throw new SpecException("expected a positive integer, found " + n);
      }
      return n.asInt();
    }
    return dflt;
  }

  private static long longFirst(long dflt, JsonNode... candidates) throws SpecException {
    for (JsonNode n : candidates) {
      if (n.isMissingNode() || n.isNull()) {
        continue;
      }
      if (!n.canConvertToLong() || !n.isIntegralNumber() || n.asLong() <= 0) {
        throw new SpecException("expected a positive integer, found " + n);
      }
      return n.asLong();
    }
    return dflt;
  }
}
