package io.sightline.routing.selection;

import java.util.List;

/** The built-in candidate filters, in their default order. */
public final class Filters {
  private Filters() {}

  /**
   * {@link #healthy()}, {@link #notDraining()}, {@link #servesModel()}, {@link #hasLora()}, {@link
   * #capacity()}.
   */
  public static List<CandidateFilter> defaults() {
    return List.of(healthy(), notDraining(), servesModel(), hasLora(), capacity());
  }

  /** Rejects unhealthy workers ({@code "unhealthy"}). */
  public static CandidateFilter healthy() {
    return simple("healthy", (ctx, c) -> c.candidate().healthy() ? null : "unhealthy");
  }

  /** Rejects draining workers ({@code "draining"}). */
  public static CandidateFilter notDraining() {
    return simple("not-draining", (ctx, c) -> c.candidate().draining() ? "draining" : null);
  }

  /** Rejects workers that do not serve the model ({@code "model_not_served"}); empty = any. */
  public static CandidateFilter servesModel() {
    return simple(
        "serves-model",
        (ctx, c) -> {
          var models = c.candidate().models();
          String model = ctx.request().model();
          return model == null || models.isEmpty() || models.contains(model)
              ? null
              : "model_not_served";
        });
  }

  /** Rejects workers without the requested LoRA adapter loaded ({@code "lora_not_loaded"}). */
  public static CandidateFilter hasLora() {
    return simple(
        "lora",
        (ctx, c) -> {
          String lora = ctx.request().loraName();
          return lora == null || c.candidate().loraAdapters().contains(lora)
              ? null
              : "lora_not_loaded";
        });
  }

  /** Rejects workers at their concurrent-request capacity ({@code "capacity"}). */
  public static CandidateFilter capacity() {
    return simple(
        "capacity",
        (ctx, c) -> {
          int max = c.candidate().maxActiveRequests();
          return max > 0 && c.load().activeRequests() >= max ? "capacity" : null;
        });
  }

  /** A filter from a name and a function returning the reject reason or {@code null}. */
  public static CandidateFilter simple(String name, Rule rule) {
    return new CandidateFilter() {
      @Override
      public String name() {
        return name;
      }

      @Override
      public String reject(SelectionContext context, CandidateView candidate) {
        return rule.reject(context, candidate);
      }
    };
  }

  /** The body of a {@link #simple} filter. */
  @FunctionalInterface
  public interface Rule {
    String reject(SelectionContext context, CandidateView candidate);
  }
}
