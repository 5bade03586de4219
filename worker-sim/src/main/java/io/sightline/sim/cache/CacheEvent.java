package io.sightline.sim.cache;

import java.util.List;

/**
 * What changed in the prefix cache, in the order it happened. Dialect publishers turn these into
 * vLLM {@code BlockStored}/{@code BlockRemoved}/{@code AllBlocksCleared} or TRT-LLM {@code
 * stored}/{@code removed} events.
 */
public sealed interface CacheEvent {

  /**
   * Consecutive blocks of one sequence became cached.
   *
   * @param parent the block before the first one, or null at the start of the sequence
   * @param blocks the new blocks in sequence order
   */
  record Stored(BlockId parent, List<BlockSpec> blocks) implements CacheEvent {
    public Stored {
      blocks = List.copyOf(blocks);
    }
  }

  /** Cached blocks were evicted (their physical blocks reallocated). */
  record Removed(List<BlockId> blocks) implements CacheEvent {
    public Removed {
      blocks = List.copyOf(blocks);
    }
  }

  /**
   * The whole prefix cache was reset. {@code blocks} lists what was dropped (TRT-LLM has no clear
   * event and reports them as removals).
   */
  record Cleared(List<BlockId> blocks) implements CacheEvent {
    public Cleared {
      blocks = List.copyOf(blocks);
    }
  }
}
