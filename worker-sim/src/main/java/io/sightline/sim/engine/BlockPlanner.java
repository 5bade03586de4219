package io.sightline.sim.engine;

import io.sightline.sim.cache.BlockId;
import io.sightline.sim.cache.BlockSpec;
import io.sightline.sim.hash.ExtraKey;
import io.sightline.sim.hash.TrtllmBlockHasher;
import io.sightline.sim.hash.VllmBlockHasher;
import io.sightline.sim.prompt.PreparedPrompt;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;

/** Splits a prompt into hashed blocks the way one engine does. */
public sealed interface BlockPlanner {

  /** The prompt's cacheable blocks in order. */
  List<BlockSpec> plan(PreparedPrompt prompt);

  /** How many leading planned blocks a request may take from the cache. */
  int matchLimit(PreparedPrompt prompt, List<BlockSpec> planned);

  int blockSize();

  /**
   * vLLM: full blocks only (a partial tail is never hashed), chained {@code sha256_cbor} hashes,
   * per-block extra keys in vLLM's order (LoRA name, {@code (identifier, item_offset -
   * block_start)} for every image overlapping the block, cache salt on block 0). A request may
   * reuse at most the blocks inside its first {@code n - 1} tokens: vLLM always recomputes the last
   * prompt token to get logits ({@code ../shared/reference/llmd.md} §2).
   */
  record Vllm(VllmBlockHasher hasher, int blockSize) implements BlockPlanner {
    @Override
    public List<BlockSpec> plan(PreparedPrompt p) {
      int full = p.length() / blockSize;
      List<BlockSpec> out = new ArrayList<>(full);
      byte[] parent = null;
      for (int i = 0; i < full; i++) {
        int start = i * blockSize;
        int end = start + blockSize;
        int[] tokens = Arrays.copyOfRange(p.tokens(), start, end);
        List<ExtraKey> extra = new ArrayList<>(2);
        if (p.loraName() != null) {
          extra.add(ExtraKey.text(p.loraName()));
        }
        for (PreparedPrompt.MmItem item : p.items()) {
          if (item.offset() < end && item.offset() + item.length() > start) {
            extra.add(ExtraKey.mm(item.image().identifier(), item.offset() - start));
          }
        }
        if (i == 0 && p.cacheSalt() != null) {
          extra.add(ExtraKey.text(p.cacheSalt()));
        }
        byte[] digest = hasher.hashBlock(parent, tokens, extra);
        out.add(
            new BlockSpec(
                BlockId.ofDigest(digest, VllmBlockHasher.toEventHash(digest)),
                tokens,
                extra,
                List.of(),
                p.loraName()));
        parent = digest;
      }
      return out;
    }

    @Override
    public int matchLimit(PreparedPrompt p, List<BlockSpec> planned) {
      return Math.min(planned.size(), Math.max(0, p.length() - 1) / blockSize);
    }
  }

  /**
   * TensorRT-LLM V1: blocks over the first {@code n - 1} prompt tokens (the last one is never in a
   * block), the tail block partial and still hashed and published, {@code mm_keys} per block with
   * the offset inside the item ({@code ../shared/reference/trtllm.md} §2, §4).
   */
  record Trtllm(int blockSize) implements BlockPlanner {
    @Override
    public List<BlockSpec> plan(PreparedPrompt p) {
      int usable = Math.max(0, p.length() - 1);
      List<BlockSpec> out = new ArrayList<>(usable / blockSize + 1);
      long parent = 0;
      Long saltId = p.cacheSalt() == null ? null : TrtllmBlockHasher.saltId(p.cacheSalt());
      for (int start = 0; start < usable; start += blockSize) {
        int end = Math.min(usable, start + blockSize);
        int[] tokens = Arrays.copyOfRange(p.tokens(), start, end);
        List<TrtllmBlockHasher.MmKey> keys = new ArrayList<>(1);
        List<BlockSpec.MmKeyInfo> infos = new ArrayList<>(1);
        for (PreparedPrompt.MmItem item : p.items()) {
          if (item.offset() < end && item.offset() + item.length() > start) {
            int inItem = Math.max(0, start - item.offset());
            keys.add(new TrtllmBlockHasher.MmKey(item.image().digest(), inItem));
            infos.add(
                new BlockSpec.MmKeyInfo(HexFormat.of().formatHex(item.image().digest()), inItem));
          }
        }
        long h = TrtllmBlockHasher.hash(tokens, parent, p.loraId(), saltId, keys);
        out.add(new BlockSpec(BlockId.ofHash(h), tokens, List.of(), infos, p.loraName()));
        parent = h;
      }
      return out;
    }

    @Override
    public int matchLimit(PreparedPrompt p, List<BlockSpec> planned) {
      return planned.size();
    }
  }
}
