package io.sightline.routing.selection;

/**
 * Per-request overrides, as Dynamo's {@code router_config_override}; {@code null} keeps the
 * configured value.
 */
public record RouterConfigOverride(
    Double overlapScoreCredit,
    Double prefillLoadScale,
    Double routerTemperature,
    Boolean trackPrefillTokens) {}
