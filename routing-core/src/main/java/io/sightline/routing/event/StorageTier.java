package io.sightline.routing.event;

import java.util.Locale;
import java.util.Optional;

/**
 * Where a worker keeps a cached KV block. Mirrors Dynamo's {@code storage_tier} ({@code
 * ../shared/reference/dynamo.md} §2.1) and vLLM's {@code medium} mapping (§2.2): GPU memory is
 * {@link #DEVICE}, CPU (pinned) memory {@link #HOST}, local disk / NVMe {@link #DISK}, and a shared
 * or remote cache {@link #EXTERNAL}.
 */
public enum StorageTier {
  DEVICE,
  HOST,
  DISK,
  EXTERNAL;

  /**
   * Maps a vLLM {@code medium} / TRT-LLM cache level / Dynamo tier name to a tier, as Dynamo does:
   * {@code GPU, DEVICE} → device; {@code CPU, CPU_PINNED, CPU_TIER1, HOST, HOST_PINNED} → host;
   * {@code CPU_TIER2, DISK, NVME, STORAGE} → disk; anything else non-empty → external. A null or
   * empty medium means device (vLLM's default).
   */
  public static StorageTier fromMedium(String medium) {
    if (medium == null || medium.isBlank()) {
      return DEVICE;
    }
    return switch (medium.trim().toUpperCase(Locale.ROOT)) {
      case "GPU", "DEVICE" -> DEVICE;
      case "CPU", "CPU_PINNED", "CPU_TIER1", "HOST", "HOST_PINNED" -> HOST;
      case "CPU_TIER2", "DISK", "NVME", "STORAGE" -> DISK;
      default -> EXTERNAL;
    };
  }

  /** Parses a tier name case-insensitively ({@code device|host|disk|external}). */
  public static Optional<StorageTier> parse(String name) {
    if (name == null) {
      return Optional.empty();
    }
    for (StorageTier t : values()) {
      if (t.name().equalsIgnoreCase(name.trim())) {
        return Optional.of(t);
      }
    }
    return Optional.empty();
  }
}
