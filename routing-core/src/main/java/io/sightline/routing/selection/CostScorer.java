package io.sightline.routing.selection;

/**
 * Second stage of selection: adds named cost terms (in block units; lower is better) for a
 * candidate that passed the filters. A candidate's cost is the sum of all scorers' terms.
 */
public interface CostScorer {
  String name();

  void score(SelectionContext context, CandidateView candidate, CostTerms terms);
}
