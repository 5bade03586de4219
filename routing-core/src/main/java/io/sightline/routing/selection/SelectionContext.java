package io.sightline.routing.selection;

/**
 * One selection's inputs shared by all plugins.
 *
 * @param request the request
 * @param config the effective knobs (configured values with the request's overrides applied)
 * @param nowMillis wall-clock time of the decision (epoch ms), for metric staleness
 */
public record SelectionContext(SelectionRequest request, RouterConfig config, long nowMillis) {}
