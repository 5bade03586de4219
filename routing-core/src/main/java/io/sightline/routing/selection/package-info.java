/**
 * Worker selection: filters → cost scorers → picker, with Dynamo's cost as the default policy, load
 * bookkeeping and per-candidate explanations. See {@link
 * io.sightline.routing.selection.WorkerSelector} and {@code docs/routing-core.md}.
 */
package io.sightline.routing.selection;
