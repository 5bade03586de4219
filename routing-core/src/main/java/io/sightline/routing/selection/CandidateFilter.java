package io.sightline.routing.selection;

/**
 * First stage of selection: excludes candidates that must not get the request (in the spirit of
 * llm-d's filter plugins, {@code ../shared/reference/llmd.md} §4). Filters run in order; the first
 * one that rejects a candidate names the reason in the explanation.
 */
public interface CandidateFilter {
  /** Short name for explanations. */
  String name();

  /** {@code null} when the candidate passes, else a short reason key (e.g. {@code "unhealthy"}). */
  String reject(SelectionContext context, CandidateView candidate);
}
